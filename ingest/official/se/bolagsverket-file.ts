import fs from 'node:fs';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type { CountryCode } from '../../../src/contract/countries.ts';
import { quoteInput } from '../../../src/errors/quote-input.ts';
import { MAX_RECORD_BYTES } from '../csv-salvage.ts';
import { SourceFileError } from '../errors.ts';
import type { IngestReport } from '../report.ts';
import { BOLAGSVERKET_HEADER } from './files.ts';

/*
 * Bolagsverket's bulk file is not RFC 4180: the header is bare (`a;b;c`), every data field is wrapped in
 * double quotes, and quotes inside a value are NOT doubled (a real row: `"Ensillre Väglyseförening
 * "Ljuspunkten" med firma Ljuspunkten.$FORETAGSNAMN-ORGNAM$1985-10-01"`, registry-formats.md 7.1 and
 * test/fixtures/real/SE/SOURCES.md). A CSV reader stops at the bare quote, so the file is split here on
 * what does separate fields, `";"`, and written out again as plain CSV for DuckDB. A record that does not
 * come to exactly 11 fields is rejected with its line; it never shifts the columns of its neighbours.
 */

const FIELDS = BOLAGSVERKET_HEADER.length;
/** The first field of every record: `"<number>$<TYPE>-IDORG"` (ORGNR, PERSON, ...). */
const RECORD_START = /^"[^";]*\$[A-Z]+-IDORG";/;
/** A record spread over more lines than this is taken as damaged rather than as a value with line breaks. */
const MAX_LINES = 50;
/**
 * Characters a line or a record may have (each is at least a byte, so this is the CSV reader's byte bound
 * or less): a longer line is one rejected record, skipped to its end without being held.
 */
const MAX_RECORD_CHARS = MAX_RECORD_BYTES;
const OVER_THE_LIMIT = 'record over the size limit';

export interface BolagsverketSplit {
  rows: number;
  rejected: number;
}

const csvField = (v: string): string => `"${v.replaceAll('"', '""')}"`;

/** The fields of one record's text (its lines joined with `\n`), or why it is not one. */
export function splitBolagsverketRecord(text: string): string[] | string {
  if (!text.startsWith('"')) return 'record does not start with a double quote';
  if (!text.endsWith('"') || text.length < 2) {
    return 'record ends inside a quoted value (a truncated file?)';
  }
  const fields = text.slice(1, -1).split('";"');
  if (fields.length !== FIELDS) return `record with ${fields.length} fields, expected ${FIELDS}`;
  return fields;
}

/**
 * Rewrites `file` (Bolagsverket's bulk text, UTF-8) as an RFC 4180 `;` file at `out` with the same header,
 * streamed. Bad records are counted in the report with their first line; NUL bytes are dropped and counted.
 */
export async function normaliseBolagsverket(
  country: CountryCode,
  file: string,
  display: string,
  out: string,
  report: IngestReport,
): Promise<BolagsverketSplit> {
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const output = fs.createWriteStream(out);
  const decoder = new StringDecoder('utf8');
  const split = new RecordSplitter(country, display, report);
  const write = async () => {
    const text = split.takeOutput();
    if (text !== null && !output.write(text)) await once(output, 'drain');
  };

  let pending = '';
  /** Inside a line over the bound: its text is dropped until its LF. */
  let skipping = false;
  for await (const chunk of input) {
    let text = decoder.write(chunk as Buffer);
    if (skipping) {
      const nl = text.indexOf('\n');
      if (nl === -1) continue;
      skipping = false;
      split.onOverlong();
      text = text.slice(nl + 1);
    }
    pending += text;
    let idx = pending.indexOf('\n');
    let start = 0;
    while (idx !== -1) {
      split.onLine(pending.slice(start, idx));
      start = idx + 1;
      idx = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
    if (pending.length > MAX_RECORD_CHARS) {
      pending = '';
      skipping = true;
    }
    await write();
  }
  const tail = decoder.end();
  if (skipping) split.onOverlong();
  else if (pending + tail !== '') split.onLine(pending + tail);
  split.finish();
  await write();
  output.end();
  await once(output, 'finish');
  split.reportNuls();
  return { rows: split.rows, rejected: split.rejected };
}

/**
 * Turns the file's lines, one at a time, into output rows: checks the header, gathers a record's lines
 * until it splits into its fields (or is rejected), and counts NUL bytes.
 */
class RecordSplitter {
  rows = 0;
  rejected = 0;
  #lineNo = 0;
  #header = true;
  /** The lines of the record being read, from line #bufStart on. */
  #buf: string[] = [];
  #bufStart = 0;
  #nuls = 0;
  #nulExample: string | null = null;
  #chunkOut: string[] = [];

  constructor(
    private readonly country: CountryCode,
    private readonly display: string,
    private readonly report: IngestReport,
  ) {}

  onLine(raw: string): void {
    if (raw.length > MAX_RECORD_CHARS) {
      this.onOverlong();
      return;
    }
    this.#lineNo++;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.includes('\u0000')) {
      this.#nuls++;
      this.#nulExample ??= `${this.display} line ${this.#lineNo}`;
      line = line.replaceAll('\u0000', '');
    }
    if (this.#header) {
      this.#header = false;
      this.#checkHeader(line);
      this.#chunkOut.push(BOLAGSVERKET_HEADER.join(';'));
      return;
    }
    // A line that opens a new record ends whatever was pending: an unfinished record is damaged.
    if (this.#buf.length > 0 && RECORD_START.test(line)) this.#flushRecord(true);
    if (this.#buf.length === 0) {
      if (line === '') return;
      this.#bufStart = this.#lineNo;
    }
    this.#buf.push(line);
    this.#flushRecord(false);
  }

  /** A line over the bound, counted and read no further: it also ends any record still open. */
  onOverlong(): void {
    this.#lineNo++;
    if (this.#header) {
      throw new SourceFileError(
        this.display,
        { line: 1, column: 1 },
        `the header line is longer than ${MAX_RECORD_CHARS} characters`,
      );
    }
    this.#flushRecord(true);
    this.#reject(OVER_THE_LIMIT, this.#lineNo);
  }

  /** At the end of the file: refuses a file with no header, and ends the last record. */
  finish(): void {
    if (this.#header) {
      throw new SourceFileError(this.display, { line: 1, column: 1 }, 'the file is empty: no header line');
    }
    this.#flushRecord(true);
  }

  /** The output rows gathered since the last call, as text, or null when there are none. */
  takeOutput(): string | null {
    if (this.#chunkOut.length === 0) return null;
    const text = this.#chunkOut.join('\n') + '\n';
    this.#chunkOut = [];
    return text;
  }

  reportNuls(): void {
    if (this.#nuls > 0) {
      this.report.reject(
        this.country,
        this.display,
        'NUL byte in a value',
        this.#nuls,
        'value nulled',
        this.#nulExample,
      );
    }
  }

  #checkHeader(line: string): void {
    const found = line.replace(/^\uFEFF/, '').split(';');
    const expected = BOLAGSVERKET_HEADER as readonly string[];
    if (found.length !== expected.length || found.some((f, i) => f !== expected[i])) {
      const i = found.findIndex((f, k) => f !== expected[k]);
      const column = i === -1 ? found.length + 1 : i + 1;
      throw new SourceFileError(
        this.display,
        { line: 1, column },
        `header column is ${quoteInput(found[column - 1] ?? '')}, expected "${expected[column - 1] ?? '(end of line)'}"`,
      );
    }
  }

  #flushRecord(final: boolean): void {
    if (this.#buf.length === 0) return;
    const text = this.#buf.join('\n');
    const parsed = splitBolagsverketRecord(text);
    if (typeof parsed !== 'string') {
      this.rows++;
      this.#chunkOut.push(parsed.map(csvField).join(';'));
      this.#buf = [];
      return;
    }
    // Too few fields, or a last value still open, and still room: a value with a line break.
    const open = text.startsWith('"') && text.slice(1).split('";"').length < FIELDS;
    const room = this.#buf.length < MAX_LINES && text.length <= MAX_RECORD_CHARS;
    if (!final && open && room) return;
    this.#reject(open && !room && text.length > MAX_RECORD_CHARS ? OVER_THE_LIMIT : parsed, this.#bufStart);
    this.#buf = [];
  }

  #reject(reason: string, line: number): void {
    this.rejected++;
    this.report.reject(this.country, this.display, reason, 1, 'row dropped', `${this.display} line ${line}`);
  }
}
