/**
 * A small RFC 4180 reader. The classifier files need a real one: the PKD and NACE exports carry multi-line
 * HTML or prose notes in quoted fields, and SNI labels quote embedded `;`. DuckDB could read them too, but
 * loadReference() must stay synchronous.
 */

/** Splits CSV text into rows of fields. Handles `""` escapes, quoted newlines, CRLF or LF, and a UTF-8 BOM. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  const delim = delimiter.charCodeAt(0);
  const QUOTE = 34;
  const CR = 13;
  const LF = 10;

  while (i < n) {
    const c = text.charCodeAt(i);
    if (inQuotes) {
      if (c === QUOTE) {
        if (text.charCodeAt(i + 1) === QUOTE) {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
        i += 1;
        continue;
      }
      // Copy the run up to the next quote in one slice: the notes columns are long.
      const next = text.indexOf('"', i);
      const end = next === -1 ? n : next;
      field += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === QUOTE && field === '') {
      inQuotes = true;
      i += 1;
    } else if (c === delim) {
      row.push(field);
      field = '';
      i += 1;
    } else if (c === CR || c === LF) {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    } else {
      let end = i + 1;
      while (end < n) {
        const e = text.charCodeAt(end);
        if (e === delim || e === CR || e === LF) break;
        end += 1;
      }
      field += text.slice(i, end);
      i = end;
    }
  }
  if (inQuotes) throw new Error('CSV ends inside a quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Rows as records keyed by the header row. Blank lines are skipped; a row whose field count differs from
 * the header's is an error, because a silent shift would put labels under the wrong code.
 */
export function parseCsvRecords(text: string, delimiter: string, file: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text, delimiter);
  if (!header) throw new Error(`${file}: empty file`);
  const records: Record<string, string>[] = [];
  rows.forEach((r, index) => {
    if (r.length === 1 && r[0] === '') return;
    if (r.length !== header.length) {
      throw new Error(`${file}: row ${index + 2} has ${r.length} fields, header has ${header.length}`);
    }
    const record: Record<string, string> = {};
    header.forEach((name, j) => {
      record[name] = r[j] ?? '';
    });
    records.push(record);
  });
  return records;
}

/** A required column of a record; a missing one means the file's layout changed. */
export function field(record: Record<string, string>, name: string, file: string): string {
  const value = record[name];
  if (value === undefined) throw new Error(`${file}: column ${name} is missing`);
  return value;
}
