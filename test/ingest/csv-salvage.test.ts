import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasMisshapenRecord,
  MAX_RECORD_BYTES,
  originalLine,
  salvageCsv,
  TruncatedCsv,
} from '../../ingest/official/csv-salvage.ts';
import { LIHTANDMED_HEADER } from '../../ingest/official/ee/files.ts';
import { RejectThresholdError, SourceFileError } from '../../ingest/official/errors.ts';
import { loadCsv } from '../../ingest/official/read-csv.ts';
import { IngestReport } from '../../ingest/official/report.ts';

let dir: string;
let instance: DuckDBInstance;
let conn: DuckDBConnection;
let seq = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-salvage-'));
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(content: string | Buffer): string {
  const file = path.join(dir, `in-${++seq}.csv`);
  fs.writeFileSync(file, content);
  return file;
}

function salvage(content: string | Buffer, fields = 3, delimiter = ';', maxRecordBytes?: number) {
  const file = write(content);
  const cleaned = `${file}.clean`;
  const result = salvageCsv(file, cleaned, delimiter, fields, 'utf-8', '"', maxRecordBytes);
  return { ...result, cleaned: fs.readFileSync(cleaned, 'utf8') };
}

function truncation(content: string): TruncatedCsv {
  try {
    salvage(content);
  } catch (err) {
    if (err instanceof TruncatedCsv) return err;
    throw err;
  }
  throw new Error('not refused as truncated');
}

describe('salvageCsv: one malformed record costs one line', () => {
  it('an unclosed quote drops its own line only (DuckDB swallows the rest of the file)', () => {
    const r = salvage('a;b;c\n1;x;y\n2;"bad;z\n3;p;q\n4;r;s\n');
    expect(r.rejects).toEqual([{ line: 3, reason: 'a quote that is never closed', column: 2, detail: '' }]);
    expect(r.cleaned).toBe('a;b;c\n1;x;y\n3;p;q\n4;r;s\n');
    expect(r.records).toBe(3);
  });

  it('a stray quote that a later quote "closes" is text after a closing quote', () => {
    const r = salvage('a;b;c\n1;"x;y\n2;"p";q\n3;r;s\n');
    expect(r.rejects.map((x) => [x.line, x.reason])).toEqual([[2, 'text after a closing quote']]);
    expect(r.cleaned).toBe('a;b;c\n2;"p";q\n3;r;s\n');
  });

  it('wrong field counts, with the counts in the detail', () => {
    const r = salvage('a;b;c\n1;x;y;w\n2;p\n3;r;s\n');
    expect(r.rejects).toEqual([
      { line: 2, reason: 'too many fields', column: 4, detail: '4 fields, the header has 3' },
      { line: 3, reason: 'too few fields', column: 2, detail: '2 fields, the header has 3' },
    ]);
    expect(r.cleaned).toBe('a;b;c\n3;r;s\n');
  });

  it('keeps what DuckDB accepts: multi-line quoted values, doubled quotes, CRLF, a quote inside an unquoted value, spaces around quotes, blank lines', () => {
    const body =
      'a;b;c\r\n1;"Tartu mnt 1,\r\nTallinn; Harju";y\r\n2;"UAB ""Foo""";q\r\n\r\n4;x"y;z\r\n5; "s" ;t\r\n6;"";" "\r\n';
    const r = salvage(body);
    expect(r.rejects).toEqual([]);
    expect(r.cleaned).toBe(body);
    expect(r.records).toBe(5);
    expect(hasMisshapenRecord(write(body), ';', 3)).toBe(false);
  });

  it('an empty field too many is a malformed row (DuckDB shifts it); a trailing delimiter the header has too is kept', () => {
    // `3;x;;` is `3;x y;` with an unquoted ";" typed into the value: DuckDB 1.5 reads it as 3, x, NULL.
    const r = salvage('a;b;c\n1;x;y\n2;x;\n3;x;;\n4;x;y;\n');
    expect(r.rejects).toEqual([
      { line: 4, reason: 'too many fields', column: 4, detail: '4 fields, the header has 3' },
      { line: 5, reason: 'too many fields', column: 4, detail: '4 fields, the header has 3' },
    ]);
    expect(r.cleaned).toBe('a;b;c\n1;x;y\n2;x;\n');
    // Header and rows ending with ";": the empty trailing header column is a field like any other.
    const trailing = 'a;b;c;\r\n1;x;y;\r\n2;"x;";;\r\n';
    const t = salvage(trailing, 4);
    expect(t.rejects).toEqual([]);
    expect(t.cleaned).toBe(trailing);
    expect(hasMisshapenRecord(write(trailing), ';', 4)).toBe(false);
    // The check ends a record at CR as DuckDB does: CR-only and CRLF files are no false alarm.
    expect(hasMisshapenRecord(write('a;b;c\r1;x;y\r2;"p\rq";z\r'), ';', 3)).toBe(false);
    expect(hasMisshapenRecord(write('a;b;c\r\n1;x;y\r\n2;x;;\r\n'), ';', 3)).toBe(true);
    expect(salvage('a;b;c;\n1;x;y;\n2;x;;;\n', 4).rejects.map((x) => [x.line, x.reason])).toEqual([
      [3, 'too many fields'],
    ]);
  });

  it('a file that never quotes (quote "") takes a quote as data', () => {
    const body = 'a\tb\tc\n1\t"(S-) FÖRENINGEN\ty\n2\tx"\t"\n';
    const file = write(body);
    const r = salvageCsv(file, `${file}.clean`, '\t', 3, 'utf-8', '');
    expect(r.rejects).toEqual([]);
    expect(fs.readFileSync(`${file}.clean`, 'utf8')).toBe(body);
    expect(hasMisshapenRecord(file, '\t', 3, '')).toBe(false);
    expect(hasMisshapenRecord(file, '\t', 3, '"')).toBe(true);
  });

  it('text other than spaces after a closing quote, and invalid UTF-8', () => {
    const r = salvage(
      Buffer.concat([
        Buffer.from('a;b;c\n1;"x"\t;y\n2;'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(';z\n3;o;k\n'),
      ]),
    );
    expect(r.rejects.map((x) => [x.line, x.reason])).toEqual([
      [2, 'text after a closing quote'],
      [3, 'invalid UTF-8'],
    ]);
    expect(r.cleaned).toBe('a;b;c\n3;o;k\n');
  });

  it('a record longer than DuckDB allows is given up without holding the file', () => {
    const r = salvage(`a;b;c\n1;"${'x'.repeat(3 << 20)}\n2;o;k\n`);
    expect(r.rejects).toEqual([
      {
        line: 2,
        reason: 'record over the size limit',
        column: 1,
        detail: 'a line of 3145732 bytes; records may have 2097152 bytes',
      },
    ]);
    expect(r.cleaned).toBe('a;b;c\n2;o;k\n');
  });

  it('refuses a cut file: the last line malformed with no final newline, or open in a quote', () => {
    expect(truncation('a;b;c\n1;x;y\n2;"cut of')).toMatchObject({ line: 3, column: 2, insideQuote: true });
    expect(truncation('a;b;c\n1;x;y\n2;"cut of\n')).toMatchObject({ line: 3, insideQuote: true });
    expect(truncation('a;b;c\n1;x;y\n2;x')).toMatchObject({ line: 3, column: 2, insideQuote: false });
    // Cut inside a multi-line value: the value's first line is dropped, its tail is the cut last record.
    expect(truncation('a;b;c\n1;x;y\n2;"Tartu mnt 1,\nKesklinna')).toMatchObject({ line: 4 });
    // A malformed last line with its newline is an ordinary reject, and so is a stray quote mid-file.
    expect(salvage('a;b;c\n1;x;y\n2;x\n').rejects.map((x) => x.line)).toEqual([3]);
    expect(salvage('a;b;c\n1;"x;y\n2;x;z').rejects.map((x) => x.line)).toEqual([2]);
  });

  it('maps lines of the cleaned file back to the original', () => {
    // original 1..8, lines 3 and 4 and 7 dropped: cleaned 1,2,3,4,5 = original 1,2,5,6,8
    expect([1, 2, 3, 4, 5].map((l) => originalLine(l, [3, 4, 7]))).toEqual([1, 2, 5, 6, 8]);
  });
});

// Valid values: quoted ones start with a letter, so a stray quote earlier in the file can never pair with a
// valid record's opening quote into something well-formed (that would be a genuine multi-line value).
const plain = fc.stringMatching(/^[a-z0-9 ]{0,6}$/);
const quoted = fc
  .tuple(
    fc.stringMatching(/^[a-zA-Z]$/),
    fc.array(fc.constantFrom('a', 'Õ', ';', ' ', '""', '\n', '\r\n'), { maxLength: 6 }),
  )
  .map(([head, rest]) => `"${head}${rest.join('')}"`);
const field = fc.oneof(plain, quoted);
const FIELDS = 4;
const validRecord = fc.array(field, { minLength: FIELDS, maxLength: FIELDS });
const brokenLine = fc.oneof(
  // one empty field too many: DuckDB accepts it and shifts the fields
  fc
    .array(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: FIELDS, maxLength: FIELDS })
    .map((f) => `${f.join(';')};`),
  // an unquoted delimiter too many (or a shifted row)
  fc
    .array(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: FIELDS + 2, maxLength: FIELDS + 4 })
    .map((f) => f.join(';')),
  fc
    .array(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: 1, maxLength: FIELDS - 1 })
    .map((f) => f.join(';')),
  // a stray quote opening a field that never closes on its line
  fc
    .tuple(fc.integer({ min: 0, max: FIELDS - 1 }), fc.stringMatching(/^[a-z; ]{0,8}$/))
    .map(([at, text]) => [...Array.from({ length: at }, () => 'v'), `"${text}`].join(';')),
);
/**
 * Lines longer than the property's record bound (BOUND), of any bytes but a line end: each is one dropped
 * record whatever its quotes, and nothing inside it is read, so it never pairs with a stray quote either.
 */
const BOUND = 128;
const overlongLine = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'z', ';', '"', ' ', 'Õ', '\t'), {
      minLength: BOUND + 1,
      maxLength: 3 * BOUND,
    }),
    fc.stringMatching(/^[a-z]{1,4}(;[a-z]{0,4}){3}$/),
  )
  // Often ending in a valid-looking row: the row a reader that slices long lines would take.
  .map(([junk, row]) => `${junk.join('')}${row}`);
/**
 * Two stray quotes in one file can pair up into a valid quoted value spanning the lines between them (`v;"ab`
 * … `";x`): a real multi-line value looks exactly the same, so such a file is no counterexample.
 */
const strayQuotes = (items: ({ valid: string[] } | { broken: string } | { overlong: string })[]): number =>
  items.filter((i) => 'broken' in i && i.broken.includes('"')).length;

describe('salvageCsv property: exactly the injected lines are dropped', () => {
  it('random valid records with broken lines injected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(
            fc.oneof(
              { arbitrary: validRecord.map((v) => ({ valid: v })), weight: 4 },
              brokenLine.map((b) => ({ broken: b })),
              { arbitrary: overlongLine.map((b) => ({ overlong: b })), weight: 1 },
            ),
            {
              maxLength: 30,
            },
          )
          .filter((items) => strayQuotes(items) <= 1),
        validRecord,
        // One line ending per file (DuckDB reads a file with one), CRLF or LF.
        fc.constantFrom('\n', '\r\n'),
        async (items, last, eol) => {
          let text = `h1;h2;h3;h4${eol}`;
          let expected = text;
          let line = 2;
          const brokenAt: number[] = [];
          const rows: string[][] = [];
          for (const item of [...items, { valid: last }]) {
            if ('broken' in item || 'overlong' in item) {
              text += `${'broken' in item ? item.broken : item.overlong}${eol}`;
              brokenAt.push(line++);
            } else {
              const fields = item.valid;
              const record = fields.join(';') + eol;
              text += record;
              expected += record;
              line += record.split('\n').length - 1;
              rows.push(fields);
            }
          }
          const r = salvage(text, FIELDS, ';', BOUND);
          expect(r.rejects.map((x) => x.line)).toEqual(brokenAt);
          expect(r.droppedLines).toEqual(brokenAt);
          expect(r.cleaned).toBe(expected);
          expect(r.records).toBe(rows.length);
          // The field-count check that decides whether a file needs this pass finds every such file.
          expect(hasMisshapenRecord(write(text), ';', FIELDS, '"', BOUND)).toBe(brokenAt.length > 0);

          // DuckDB reads the cleaned file into exactly the valid records' fields.
          const file = write(r.cleaned);
          const read = await conn.runAndReadAll(
            `SELECT * FROM read_csv('${file}', delim = ';', quote = '"', escape = '"', header = true,
               auto_detect = false, max_line_size = ${BOUND},
               columns = {'h1': 'VARCHAR', 'h2': 'VARCHAR', 'h3': 'VARCHAR', 'h4': 'VARCHAR'})`,
          );
          const unquote = (f: string): string | null => {
            const v = f.startsWith('"') ? f.slice(1, -1).replaceAll('""', '"') : f;
            return v === '' ? null : v;
          };
          expect(read.getRows()).toEqual(rows.map((f) => f.map(unquote)));
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

/**
 * The property's counterexample (seed -1084329153, path "61:1:3:3:3:3:3:3:3"), kept as fixed cases. The
 * salvage pass was right; the field-count check missed the open quote. It searched for the closing quote
 * in its whole read buffer instead of the bytes read, and past them lay the previous chunk or reused memory
 * (60 runs of the property had left quotes there). So it only failed deep into a run, or with a file longer
 * than one read: the second case makes the stale bytes certain.
 */
describe('an unclosed quote followed by a record of empty fields', () => {
  const INPUT = 'h1;h2;h3;h4\nv;v;v;"\n;;;\n';
  const COLUMNS = `columns = {'h1': 'VARCHAR', 'h2': 'VARCHAR', 'h3': 'VARCHAR', 'h4': 'VARCHAR'}`;
  const duckRead = async (file: string, extra = ''): Promise<unknown[][]> =>
    (
      await conn.runAndReadAll(
        `SELECT * FROM read_csv('${file}', delim = ';', quote = '"', escape = '"', header = true,
           auto_detect = false, ${COLUMNS}${extra})`,
      )
    ).getRows();

  it('drops the broken line alone; the check and DuckDB agree it is broken', async () => {
    const r = salvage(INPUT, FIELDS);
    expect(r.rejects).toEqual([{ line: 2, reason: 'a quote that is never closed', column: 4, detail: '' }]);
    expect(r.droppedLines).toEqual([2]);
    expect(r.cleaned).toBe('h1;h2;h3;h4\n;;;\n');
    expect(r.records).toBe(1);
    const file = write(INPUT);
    expect(hasMisshapenRecord(file, ';', FIELDS)).toBe(true);
    // DuckDB: the quote is unterminated at line 2, and skipping the error loses line 3 with it.
    await expect(duckRead(file)).rejects.toThrow(/unterminated quote/);
    expect(await duckRead(file, ', ignore_errors = true')).toEqual([]);
    expect(await duckRead(write(r.cleaned))).toEqual([[null, null, null, null]]);
  });

  it('the same after more than one read buffer of quoted records', async () => {
    const good = '"a";"b";"c";"d"\n';
    const rows = Math.ceil((1 << 20) / good.length) + 10;
    const text = `h1;h2;h3;h4\n${good.repeat(rows)}v;v;v;"\n;;;\n`;
    const file = write(text);
    expect(hasMisshapenRecord(file, ';', FIELDS)).toBe(true);
    const r = salvage(text, FIELDS);
    expect(r.droppedLines).toEqual([rows + 2]);
    expect(r.records).toBe(rows + 1);
    expect((await duckRead(write(r.cleaned))).at(-1)).toEqual([null, null, null, null]);
  });
});

describe('loadCsv salvages a structurally broken file', () => {
  const HEADER = ['kood', 'nimi', 'kpv'];
  const COLUMNS = [
    ['kood', 'VARCHAR'],
    ['nimi', 'VARCHAR'],
    ['kpv', 'DATE'],
  ] as const;
  const load = (file: string, report: IngestReport, maxRejectShare?: number) =>
    loadCsv(
      conn,
      {
        country: 'EE',
        file,
        display: 'x.csv',
        table: `t_${seq}`,
        delimiter: ';',
        header: HEADER,
        columns: COLUMNS,
        dateFormat: '%d.%m.%Y',
        workDir: dir,
        ...(maxRejectShare === undefined ? {} : { maxRejectShare }),
      },
      report,
    );

  it('drops the malformed rows with file, line and reason, and names later bad values by their original line', async () => {
    const lines = ['kood;nimi;kpv'];
    for (let i = 0; i < 400; i++) lines.push(`${i};"n ${i}";01.01.2024`);
    lines[10] = '9;"stray;01.01.2024';
    lines[20] = '19;a;b;01.01.2024';
    lines[300] = '299;bad date;31.02.2024';
    const file = write(lines.join('\n') + '\n');
    const report = new IngestReport();
    const result = await load(file, report);
    expect(result).toEqual({ rowsRead: 400, rowsLoaded: 397, rowsRejected: 3 });
    const rejects = report.rejectsOf('EE').map((r) => [r.reason, r.rows, r.example]);
    expect(rejects).toEqual([
      ['text after a closing quote', 1, 'x.csv line 11'],
      ['too many fields', 1, 'x.csv line 21: 4 fields, the header has 3'],
      ['not a valid DATE in kpv', 1, 'x.csv line 301, column 3 (kpv): "31.02.2024"'],
    ]);
    const kept = await conn.runAndReadAll(`SELECT kood FROM t_${seq} ORDER BY kood::INT`);
    const codes = kept.getRows().map((r) => Number(r[0]));
    expect(codes).toEqual(Array.from({ length: 400 }, (_, i) => i).filter((i) => ![9, 19, 299].includes(i)));
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('csv-salvage-'))).toEqual([]);
  });

  it('malformed and unconvertible rows together over the share refuse the file', async () => {
    const file = write('kood;nimi;kpv\n1;a;01.01.2024\n2;"b;01.01.2024\n3;c;31.02.2024\n4;d;01.01.2024\n');
    const err = await load(file, new IngestReport(), 0.4).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectThresholdError);
    expect((err as Error).message).toBe(
      'x.csv line 3: 2 of 4 rows rejected (more than 40.0%): 1 malformed, first: a quote that is never closed; 1 with values that do not convert',
    );
    // At 50% the same two rejects are allowed.
    await expect(load(file, new IngestReport(), 0.5)).resolves.toMatchObject({
      rowsLoaded: 2,
      rowsRejected: 2,
    });
  });

  it('still refuses a truncated file with its line and column', async () => {
    const file = write('kood;nimi;kpv\n1;a;01.01.2024\n2;"b\n3;c;01.01.2024\n4;"cut o');
    const err = await load(file, new IngestReport()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceFileError);
    expect((err as Error).message).toMatch(/^x\.csv line 5, column 2 \(nimi\): unquoted value/);
    // After a legit multi-line value too.
    const cut = write('kood;nimi;kpv\n1;"a";02.01.2024\n2;"multi\nline";03.01.2024\n3;"cut of');
    const err2 = await load(cut, new IngestReport()).catch((e: unknown) => e);
    expect((err2 as Error).message).toMatch(/^x\.csv line 5, column 2 \(nimi\): unquoted value/);
  });
});

/*
 * A physical line longer than the record bound (MAX_RECORD_BYTES, DuckDB's max_line_size) is one rejected
 * record up to its LF, counted in the reject share. The reader used to hand such a line out in slices of
 * twice the bound and parse each slice as a record: a line of filler whose length is a multiple of the
 * slice, followed by a valid row, loaded that row as a company.
 *
 * The row is real: line 10 of the EE real-sample lihtandmed file (`007 Autohaus osaühing;11694365;…`,
 * test/fixtures/real/EE/SOURCES.md). The one change: a prefix on that line, a `"` that never closes and
 * then `x` filler, making the line `prefix + row` with the prefix a whole number of slices long.
 */

const PRINCIPAL = fileURLToPath(
  new URL('../fixtures/real/EE/principal/ettevotja_rekvisiidid__lihtandmed.csv', import.meta.url),
);
const SMUGGLED_CODE = '11694365';
const SMUGGLED_LINE = 10;

const realLines = (): string[] => fs.readFileSync(PRINCIPAL, 'utf8').split('\n');

/** The real file with line SMUGGLED_LINE prefixed by an unclosed quote and filler to `prefixBytes`. */
function withOverlongLine(prefixBytes: number, filler = 'x'): string {
  const lines = realLines();
  expect(lines[SMUGGLED_LINE - 1]).toMatch(new RegExp(`^007 Autohaus osaühing;${SMUGGLED_CODE};`));
  lines[SMUGGLED_LINE - 1] = `"${filler.repeat(prefixBytes - 1)}${lines[SMUGGLED_LINE - 1]}`;
  return lines.join('\n');
}

/** Loads `file` as the EE adapter does (ingest/official/ee/stage.ts), with the given bound and share. */
async function loadLihtandmed(file: string, opts: { maxRecordBytes?: number; maxRejectShare?: number } = {}) {
  const report = new IngestReport();
  const table = `lihtandmed_${seq}`;
  const load = await loadCsv(
    conn,
    {
      country: 'EE',
      file,
      display: 'ettevotja_rekvisiidid__lihtandmed.csv',
      table,
      delimiter: ';',
      header: LIHTANDMED_HEADER,
      columns: LIHTANDMED_HEADER.map(
        (n) => [n, n === 'ettevotja_esmakande_kpv' ? 'DATE' : 'VARCHAR'] as const,
      ),
      dateFormat: '%d.%m.%Y',
      workDir: dir,
      ...opts,
    },
    report,
  );
  const codes = (await conn.runAndReadAll(`SELECT ariregistri_kood FROM ${table} ORDER BY rowid`))
    .getRows()
    .map((r) => String(r[0]));
  return { load, codes, rejects: report.rejectsOf('EE').map((r) => [r.reason, r.rows, r.example]) };
}

describe('an over-long line is one rejected record, up to its real end', () => {
  it('small bound: a row after many slices of an unclosed quote is not loaded', async () => {
    const bound = 1024;
    const original = await loadLihtandmed(write(realLines().join('\n')), {
      maxRecordBytes: bound,
      maxRejectShare: 0.5,
    });
    expect(original.codes).toContain(SMUGGLED_CODE);
    // 50 slices of twice the bound: the last slice the old reader handed out was exactly the real row.
    const got = await loadLihtandmed(write(withOverlongLine(50 * 2 * bound)), {
      maxRecordBytes: bound,
      maxRejectShare: 0.5,
    });
    expect(got.codes).toEqual(original.codes.filter((c) => c !== SMUGGLED_CODE));
    expect(got.load).toEqual({
      rowsRead: original.load.rowsRead,
      rowsLoaded: original.load.rowsLoaded - 1,
      rowsRejected: original.load.rowsRejected + 1,
    });
    const lineBytes = 50 * 2 * bound + Buffer.byteLength(realLines()[SMUGGLED_LINE - 1]!) + 1;
    expect(got.rejects).toContainEqual([
      'record over the size limit',
      1,
      `ettevotja_rekvisiidid__lihtandmed.csv line ${SMUGGLED_LINE}: a line of ${lineBytes} bytes; records may have ${bound} bytes`,
    ]);
  });

  it('the default bound (2 MiB, DuckDB max_line_size): a 4 MiB line, and the reject share counts it', async () => {
    const text = withOverlongLine(2 * MAX_RECORD_BYTES);
    const file = write(text);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 1024 * 1024);
    const got = await loadLihtandmed(file, { maxRejectShare: 0.5 });
    expect(got.codes).not.toContain(SMUGGLED_CODE);
    const original = await loadLihtandmed(write(realLines().join('\n')), { maxRejectShare: 0.5 });
    expect(got.codes).toEqual(original.codes.filter((c) => c !== SMUGGLED_CODE));
    expect(got.load.rowsRead).toBe(original.load.rowsRead);
    expect(got.load.rowsRejected).toBe(original.load.rowsRejected + 1);
    // At the adapter's default share (1%) the one over-long row of this small file refuses it.
    const err = await loadLihtandmed(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectThresholdError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^ettevotja_rekvisiidid__lihtandmed\\.csv line \\d+: ${got.load.rowsRejected} of ${got.load.rowsRead} rows rejected \\(more than 1\\.0%\\)`,
      ),
    );
  });

  it('a line over the bound with the right field count and no quote is refused the same way', async () => {
    // The real row's name lengthened past the bound with `x` filler (one change): DuckDB alone would
    // report LINE SIZE OVER MAXIMUM; the field-count check already sends the file to the salvage pass.
    const lines = realLines();
    lines[SMUGGLED_LINE - 1] = lines[SMUGGLED_LINE - 1]!.replace(
      '007 Autohaus osaühing;',
      `007 Autohaus osaühing${'x'.repeat(2000)};`,
    );
    const file = write(lines.join('\n'));
    expect(hasMisshapenRecord(file, ';', LIHTANDMED_HEADER.length, '"', 1024)).toBe(true);
    expect(hasMisshapenRecord(file, ';', LIHTANDMED_HEADER.length, '"', 4096)).toBe(false);
    const got = await loadLihtandmed(file, { maxRecordBytes: 1024, maxRejectShare: 0.5 });
    expect(got.codes).not.toContain(SMUGGLED_CODE);
    expect(got.rejects.map((r) => r[0])).toContain('record over the size limit');
  });
});

describe('salvageCsv at the bound', () => {
  const HEADER = 'a;b;c\n';
  const salvageBody = (body: string, bound: number) => {
    const file = write(HEADER + body);
    const r = salvageCsv(file, `${file}.clean`, ';', 3, 'utf-8', '"', bound);
    return { ...r, cleaned: fs.readFileSync(`${file}.clean`, 'utf8').slice(HEADER.length) };
  };
  /** A `1;x…;y` record of exactly `bytes` bytes with its LF. */
  const recordOf = (bytes: number, key = '1') => `${key};${'x'.repeat(bytes - key.length - 4)};y\n`;

  it('keeps a record of exactly the bound, drops one byte more, as DuckDB max_line_size does', async () => {
    const bound = 256;
    for (const [bytes, kept] of [
      [bound, true],
      [bound + 1, false],
      [2 * bound, false],
      [2 * bound + 1, false],
      [5 * bound + 7, false],
    ] as const) {
      const body = `0;q;r\n${recordOf(bytes)}2;o;k\n`;
      const r = salvageBody(body, bound);
      expect(r.cleaned).toBe(kept ? body : '0;q;r\n2;o;k\n');
      expect(r.rejects.map((x) => x.reason)).toEqual(kept ? [] : ['record over the size limit']);
      expect(hasMisshapenRecord(write(HEADER + body), ';', 3, '"', bound)).toBe(!kept);
      // DuckDB, told the same bound, draws the line at the same byte (but for the first record after the
      // header, which DuckDB 1.5 lets have one byte more: the field-count check catches that one first).
      const file = write(HEADER + body);
      await conn.run('DROP TABLE IF EXISTS bound_rejects; DROP TABLE IF EXISTS bound_scans');
      const rows = await conn.runAndReadAll(
        `SELECT a FROM read_csv('${file}', delim = ';', header = true, auto_detect = false,
           columns = {'a': 'VARCHAR', 'b': 'VARCHAR', 'c': 'VARCHAR'}, max_line_size = ${bound},
           store_rejects = true, rejects_table = 'bound_rejects', rejects_scan = 'bound_scans')`,
      );
      expect(rows.getRows().map((x) => x[0])).toEqual(kept ? ['0', '1', '2'] : ['0', '2']);
    }
  });

  it('the field-count check flags a first record one byte over, which DuckDB alone would load', async () => {
    const bound = 256;
    const file = write(`${HEADER}${recordOf(bound + 1)}2;o;k\n`);
    expect(hasMisshapenRecord(file, ';', 3, '"', bound)).toBe(true);
    expect(hasMisshapenRecord(write(`${HEADER}${recordOf(bound)}2;o;k\n`), ';', 3, '"', bound)).toBe(false);
    // CRLF: the record's bytes include both line-end bytes.
    const crlf = (bytes: number) => `a;b;c\r\n1;${'x'.repeat(bytes - 6)};y\r\n2;o;k\r\n`;
    expect(hasMisshapenRecord(write(crlf(bound)), ';', 3, '"', bound)).toBe(false);
    expect(hasMisshapenRecord(write(crlf(bound + 1)), ';', 3, '"', bound)).toBe(true);
  });

  it('a quoted value still open past the bound drops its first line, and reading resumes on the next', () => {
    const bound = 64;
    const r = salvageBody(`1;"${'a'.repeat(40)}\n${'b'.repeat(40)}\n2;o;k\n`, bound);
    expect(r.rejects).toEqual([
      {
        line: 2,
        reason: 'record over the size limit',
        column: 2,
        detail: 'a quoted value still open after 85 bytes; records may have 64 bytes',
      },
      { line: 3, reason: 'too few fields', column: 1, detail: '1 fields, the header has 3' },
    ]);
    expect(r.cleaned).toBe('2;o;k\n');
  });

  it('an over-long last line without a final newline is a cut file', () => {
    const err = (() => {
      try {
        salvageBody(`1;o;k\n2;${'x'.repeat(300)};y`, 64);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(TruncatedCsv);
    expect(err).toMatchObject({ line: 3 });
  });
});

describe('messages quote the file at most a few hundred printable characters', () => {
  it('a bad value of 100 KB with a terminal escape in it: the reject example is cut and escaped', async () => {
    // Line 9 is the real `001 Kinnisvara OÜ;12652512;…` row; the one change: its first entry date
    // `25.04.2014` followed by an ANSI escape and 100,000 `x`.
    const lines = realLines();
    const filler = `\u001b[2J${'x'.repeat(100_000)}`;
    expect(lines[8]).toContain(';12652512;');
    lines[8] = lines[8]!.replace(';25.04.2014;', `;25.04.2014${filler};`);
    const got = await loadLihtandmed(write(lines.join('\n')), { maxRejectShare: 0.5 });
    expect(got.codes).not.toContain('12652512');
    const [reason, rows, example] = got.rejects.find(
      (r) => r[0] === 'not a valid DATE in ettevotja_esmakande_kpv',
    )!;
    expect([reason, rows]).toEqual(['not a valid DATE in ettevotja_esmakande_kpv', 1]);
    expect(example).toBe(
      'ettevotja_rekvisiidid__lihtandmed.csv line 9, column 8 (ettevotja_esmakande_kpv): ' +
        `"25.04.2014\\u001b[2J${'x'.repeat(181)}"… (${10 + filler.length} characters)`,
    );
  });

  it('a header column of 300 KB is named cut', async () => {
    const lines = realLines();
    lines[0] = lines[0]!.replace('nimi;', `nimi${'y'.repeat(300_000)};`);
    const err = await loadLihtandmed(write(lines.join('\n'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceFileError);
    expect((err as Error).message).toBe(
      'ettevotja_rekvisiidid__lihtandmed.csv line 1, column 1: header column is ' +
        `"nimi${'y'.repeat(196)}"… (300004 characters), expected "nimi"`,
    );
    // A header line over the record bound is refused before it is read as a header.
    const overBound = await loadLihtandmed(write(lines.join('\n')), { maxRecordBytes: 1024 }).catch(
      (e: unknown) => e,
    );
    expect((overBound as Error).message).toBe(
      'ettevotja_rekvisiidid__lihtandmed.csv line 1, column 1: the header line is longer than 1024 bytes ' +
        "(not this register's file?)",
    );
  });
});
