/*
 * The tests' own CSV reader (RFC 4180 as the export writes it), independent of the code under test.
 */

/** RFC 4180: quoted values may hold commas, quotes ("") and newlines; an unquoted empty value is null. */
export function parseCsv(text: string): (string | null)[][] {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    let value: string | null;
    if (text[i] === '"') {
      let out = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        out += text.slice(i, q);
        if (text[q + 1] === '"') {
          out += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      value = out;
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++;
      value = end === i ? null : text.slice(i, end);
      i = end;
    }
    record.push(value);
    if (text[i] === ',') i++;
    else {
      records.push(record);
      record = [];
      i++;
    }
  }
  return records;
}
