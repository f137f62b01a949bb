import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { TextEncoding } from './text-file.ts';

/**
 * The salvage pass of a CSV that DuckDB found structurally broken. DuckDB either refuses such a file or,
 * on an unclosed quote, swallows every line after it into one rejected "row"; neither tells the operator
 * which rows were bad. This pass splits the file into records by physical lines with RFC 4180 quoting,
 * drops each record that does not parse strictly or has the wrong field count (and only its first
 * physical line: parsing restarts on the next line, so one stray quote costs one row), and copies every
 * other line byte for byte into a cleaned twin that DuckDB then reads as it reads any file.
 *
 * It works on bytes: the quote, the delimiter, CR and LF are ASCII, and in UTF-8 and Latin-1 (the
 * encodings of TextEncoding) an ASCII byte is always that character, so the cleaned file keeps the
 * source's encoding and dialect exactly. Memory is bounded: one read buffer plus the current record. A
 * record longer than the bound (DuckDB's max_line_size, which loadCsv sets to the same figure) is given up
 * as malformed; a physical line longer than the bound is one rejected record up to its real end (its LF),
 * skipped without being held, and nothing inside it is ever read as a record.
 */

export type SalvageReason =
  | 'text after a closing quote'
  | 'a quote that is never closed'
  | 'too many fields'
  | 'too few fields'
  | 'record over the size limit'
  | 'invalid UTF-8';

export interface SalvageReject {
  /** Physical line (1-based) where the dropped record starts; only this line is dropped. */
  line: number;
  reason: SalvageReason;
  /** Field the problem was found in (1-based), when it is one field's. */
  column: number;
  detail: string;
}

export interface SalvageResult {
  records: number;
  rejects: SalvageReject[];
  /** Original physical lines dropped, ascending: maps a line of the cleaned file back (see `originalLine`). */
  droppedLines: number[];
}

/** The file is cut (a download or copy interrupted): refused, never salvaged. */
export class TruncatedCsv extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    /** Cut inside a quoted value (else: the last record is short of fields). */
    readonly insideQuote: boolean,
  ) {
    super(`truncated at line ${line}`);
  }
}

/**
 * Bytes a record may take, its line ends included: 2 MiB. loadCsv passes it to DuckDB as max_line_size,
 * whose own default (2,000,000) is a little lower, so the two agree on which record is too long. The
 * longest record of a real register file is a few kilobytes (a NO enhet with its purpose text).
 */
export const MAX_RECORD_BYTES = 2 * 1024 * 1024;

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/** A physical line, or one longer than the bound, of which only its place is kept. */
type Line =
  | { kind: 'line'; bytes: Buffer }
  | {
      kind: 'overlong';
      /** Its length, its LF included. */
      length: number;
    };

/**
 * Physical lines of a file from a byte offset, each with its terminator; re-positionable. A line longer
 * than `maxBytes` is never handed out, in part or whole: the reader scans on to its LF and reports only
 * its length, so whatever it holds (a valid-looking row after a megabyte of junk) cannot become a record.
 */
class LineReader {
  readonly #fd: number;
  readonly #size: number;
  readonly #maxBytes: number;
  #buf = Buffer.alloc(0);
  #bufStart = 0;
  #pos = 0;

  constructor(fd: number, size: number, maxBytes: number) {
    this.#fd = fd;
    this.#size = size;
    this.#maxBytes = maxBytes;
  }

  get position(): number {
    return this.#pos;
  }

  seek(offset: number): void {
    this.#pos = offset;
  }

  /** The next physical line (with its LF when it has one), an over-long line's length, or null at the end. */
  next(): Line | null {
    if (this.#pos >= this.#size) return null;
    let refilled = false;
    for (;;) {
      const rel = this.#pos - this.#bufStart;
      if (rel >= 0 && rel < this.#buf.length) {
        const nl = this.#buf.indexOf(LF, rel);
        const reachesEnd = this.#bufStart + this.#buf.length >= this.#size;
        const end = nl !== -1 ? nl + 1 : reachesEnd ? this.#buf.length : -1;
        if (end !== -1) {
          this.#pos = this.#bufStart + end;
          if (end - rel > this.#maxBytes) return { kind: 'overlong', length: end - rel };
          return { kind: 'line', bytes: this.#buf.subarray(rel, end) };
        }
        // No LF in a full buffer read from this line's start: the line is longer than the buffer.
        if (refilled) return this.#skipLine();
      }
      this.#fill();
      refilled = true;
    }
  }

  /** Moves past the line at the position, which does not end within the buffer, and reports its length. */
  #skipLine(): Line {
    const start = this.#pos;
    let at = this.#bufStart + this.#buf.length;
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = fs.readSync(this.#fd, chunk, 0, chunk.length, at);
      if (n === 0) break;
      const nl = chunk.subarray(0, n).indexOf(LF);
      if (nl !== -1) {
        at += nl + 1;
        break;
      }
      at += n;
    }
    this.#pos = at;
    return { kind: 'overlong', length: at - start };
  }

  #fill(): void {
    // Twice the bound: a line that does not fit is over it; one that does comes out whole.
    const buf = Buffer.alloc(Math.min(2 * this.#maxBytes, this.#size - this.#pos));
    const n = fs.readSync(this.#fd, buf, 0, buf.length, this.#pos);
    this.#buf = buf.subarray(0, n);
    this.#bufStart = this.#pos;
  }
}

type Bad = { kind: 'bad'; reason: SalvageReason; column: number };
type Parse = { kind: 'more' } | { kind: 'done'; fields: number } | Bad;

/** The quoting state of one record being parsed, across its physical lines. */
class RecordParser {
  fields = 1;
  #quoted = false;
  #closed = false;
  #onlySpaces = true;

  constructor(
    readonly delimiter: number,
    /** The quote byte, or -1 for a file that never quotes. */
    readonly quote: number,
    /**
     * No trailing-delimiter allowance: DuckDB accepts one empty field too many and shifts the row's other
     * fields; a file whose rows end with a delimiter has it in its header too (an empty header column).
     */
    readonly maxFields: number,
  ) {}

  get quoted(): boolean {
    return this.#quoted;
  }

  feed(line: Buffer): Parse {
    const n = line.length;
    for (let i = 0; i < n; i++) {
      const b = line[i]!;
      if (this.#quoted) {
        if (b === this.quote) {
          if (line[i + 1] === this.quote) i++;
          else {
            this.#quoted = false;
            this.#closed = true;
          }
        }
        continue;
      }
      if (b === LF || (b === CR && i === n - 2 && line[n - 1] === LF)) {
        return { kind: 'done', fields: this.fields };
      }
      if (b === this.delimiter) {
        this.fields++;
        this.#closed = false;
        this.#onlySpaces = true;
        if (this.fields > this.maxFields)
          return { kind: 'bad', reason: 'too many fields', column: this.fields };
      } else if (this.#closed) {
        // DuckDB lets spaces follow a closing quote, nothing else.
        if (b !== SPACE) return { kind: 'bad', reason: 'text after a closing quote', column: this.fields };
      } else if (b === this.quote && this.#onlySpaces) {
        // A quote opens a field only at its start (after spaces, which DuckDB skips); inside an unquoted
        // value DuckDB keeps it as a character, and so does this pass.
        this.#quoted = true;
      } else if (b !== SPACE) {
        this.#onlySpaces = false;
      }
    }
    return this.#quoted ? { kind: 'more' } : { kind: 'done', fields: this.fields };
  }
}

function isBlankLine(line: Buffer): boolean {
  return (
    line.length === 0 ||
    (line.length === 1 && (line[0] === LF || line[0] === CR)) ||
    (line.length === 2 && line[0] === CR && line[1] === LF)
  );
}

/** The delimiter as the one byte the scanners compare with; `use` names the caller in the error. */
function delimiterByte(delimiter: string, use: string): number {
  if (Buffer.byteLength(delimiter) !== 1)
    throw new Error(`${use} needs a one-byte delimiter, not '${delimiter}'`);
  return delimiter.charCodeAt(0);
}

/**
 * Splits `file` (header included) into records of `expectedFields` fields, writes the header and every
 * well-formed record to `cleaned`, and returns the dropped ones. Throws TruncatedCsv when the file's last
 * record is malformed and the file is cut: it has no final newline, or it ends inside a quote that the
 * last line opened. A record may be `maxRecordBytes` long, its line ends included.
 */
export function salvageCsv(
  file: string,
  cleaned: string,
  delimiter: string,
  expectedFields: number,
  encoding: TextEncoding,
  quote: '"' | '' = '"',
  maxRecordBytes = MAX_RECORD_BYTES,
): SalvageResult {
  const delim = delimiterByte(delimiter, 'salvage');
  const size = fs.statSync(file).size;
  const endsWithNewline = size > 0 && lastByte(file, size) === LF;
  const fd = fs.openSync(file, 'r');
  const out = fs.openSync(cleaned, 'w');
  const rejects: SalvageReject[] = [];
  const droppedLines: number[] = [];
  let records = 0;
  try {
    records = salvageRecords({
      reader: new LineReader(fd, size, maxRecordBytes),
      out,
      size,
      endsWithNewline,
      delim,
      quote: quote === '' ? -1 : QUOTE,
      expectedFields,
      encoding,
      maxRecordBytes,
      limit: `records may have ${maxRecordBytes} bytes`,
      pending: [],
      pendingBytes: 0,
      rejects,
      droppedLines,
    });
  } finally {
    fs.closeSync(fd);
    fs.closeSync(out);
  }
  return { records, rejects, droppedLines };
}

/** One salvage pass: the input and output, the record being read (`pending`), and what was dropped. */
interface SalvagePass {
  reader: LineReader;
  /** The cleaned file's descriptor. */
  out: number;
  size: number;
  endsWithNewline: boolean;
  delim: number;
  /** The quote byte, or -1 where the format has none. */
  quote: number;
  expectedFields: number;
  encoding: TextEncoding;
  maxRecordBytes: number;
  /** The size limit as the rejects' details say it. */
  limit: string;
  pending: Buffer[];
  pendingBytes: number;
  rejects: SalvageReject[];
  droppedLines: number[];
}

/** Copies the header and every good record to the cleaned file; returns how many records it kept. */
function salvageRecords(s: SalvagePass): number {
  let records = 0;
  let lineNo = 0;
  let header = true;
  for (;;) {
    const start = s.reader.position;
    const first = s.reader.next();
    if (!first) break;
    lineNo++;
    const startLine = lineNo;
    if (first.kind === 'overlong') {
      // One rejected record up to the line's real end, wherever its quotes are: no slice of it is read.
      if (header) throw new Error(`the header line is longer than ${s.maxRecordBytes} bytes`);
      drop(
        s,
        startLine,
        start + first.length,
        { kind: 'bad', reason: 'record over the size limit', column: 1 },
        `a line of ${first.length} bytes; ${s.limit}`,
      );
      continue;
    }
    if (isBlankLine(first.bytes)) {
      // DuckDB skips blank lines; kept so that line numbers of the cleaned file stay simple to map.
      fs.writeSync(s.out, first.bytes);
      continue;
    }
    const parser = new RecordParser(s.delim, s.quote, s.expectedFields);
    const { result: read, physical } = readRecord(s, parser, first.bytes);
    if (header) {
      // checkHeader has already read and judged the header; here it is only copied.
      header = false;
      lineNo += physical - 1;
      flush(s);
      continue;
    }
    const result = judgeRecord(s, parser, read);
    if (result.kind === 'bad') {
      drop(s, startLine, start + first.bytes.length, result, rejectDetail(s, parser, result));
      // Only the record's first line is dropped: the next one may start a good record.
      s.reader.seek(start + first.bytes.length);
      continue;
    }
    records++;
    lineNo += physical - 1;
    flush(s);
  }
  return records;
}

/** Reads one record from its first line on, across the lines its open quotes span, into `pending`. */
function readRecord(
  s: SalvagePass,
  parser: RecordParser,
  firstBytes: Buffer,
): { result: Parse; physical: number } {
  s.pending.push(Buffer.from(firstBytes));
  s.pendingBytes += firstBytes.length;
  let result: Parse = parser.feed(firstBytes);
  let physical = 1;
  while (result.kind === 'more') {
    const line = s.pendingBytes > s.maxRecordBytes ? null : s.reader.next();
    if (s.pendingBytes > s.maxRecordBytes || line?.kind === 'overlong') {
      if (line?.kind === 'overlong') s.pendingBytes += line.length;
      result = { kind: 'bad', reason: 'record over the size limit', column: parser.fields };
      break;
    }
    if (!line) {
      result = { kind: 'bad', reason: 'a quote that is never closed', column: parser.fields };
      break;
    }
    physical++;
    s.pending.push(Buffer.from(line.bytes));
    s.pendingBytes += line.bytes.length;
    result = parser.feed(line.bytes);
  }
  return { result, physical };
}

/** A whole record's verdict: its size, its number of fields and its encoding. */
function judgeRecord(s: SalvagePass, parser: RecordParser, read: Parse): Parse {
  let result = read;
  if (result.kind === 'done' && s.pendingBytes > s.maxRecordBytes) {
    result = { kind: 'bad', reason: 'record over the size limit', column: parser.fields };
  }
  if (result.kind === 'done') {
    const { fields } = result;
    if (fields > s.expectedFields) {
      result = { kind: 'bad', reason: 'too many fields', column: fields };
    } else if (fields < s.expectedFields) {
      result = { kind: 'bad', reason: 'too few fields', column: fields };
    } else if (s.encoding === 'utf-8' && !isUtf8(Buffer.concat(s.pending))) {
      result = { kind: 'bad', reason: 'invalid UTF-8', column: 1 };
    }
  }
  return result;
}

function rejectDetail(s: SalvagePass, parser: RecordParser, bad: Bad): string {
  return bad.reason === 'too many fields' || bad.reason === 'too few fields'
    ? `${bad.column} fields, the header has ${s.expectedFields}`
    : bad.reason === 'record over the size limit'
      ? `${parser.quoted ? 'a quoted value still open after' : 'a record of'} ${s.pendingBytes} bytes; ${s.limit}`
      : '';
}

function flush(s: SalvagePass): void {
  for (const part of s.pending) fs.writeSync(s.out, part);
  s.pending.length = 0;
  s.pendingBytes = 0;
}

/** Drops the record starting at `line` (its first physical line only), or refuses a cut file. */
function drop(s: SalvagePass, line: number, endOfFirst: number, bad: Bad, detail: string): void {
  // The file's last line starts a malformed record and the file is cut there (no final newline, or
  // a quote open at the end): an interrupted download, refused rather than salvaged.
  const openAtEnd = bad.reason === 'a quote that is never closed';
  if (endOfFirst >= s.size && (!s.endsWithNewline || openAtEnd)) {
    throw new TruncatedCsv(line, bad.column, openAtEnd);
  }
  s.rejects.push({ line, reason: bad.reason, column: bad.column, detail });
  s.droppedLines.push(line);
  s.pending.length = 0;
  s.pendingBytes = 0;
}

function lastByte(file: string, size: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0]!;
  } finally {
    fs.closeSync(fd);
  }
}

/** The original physical line of line `line` of the cleaned file, given the dropped original lines. */
export function originalLine(line: number, droppedLines: readonly number[]): number {
  let original = line;
  for (const dropped of droppedLines) {
    if (dropped <= original) original++;
    else break;
  }
  return original;
}

/**
 * Whether some record of `file` after its header does not have exactly `expectedFields` fields, breaks
 * the quoting in a way that could hide one (text after a closing quote, a quote open at the end), or is
 * longer than `maxRecordBytes`. DuckDB 1.5's reader does not tell: it accepts a record with one field too
 * many when that field is empty and last (an unquoted delimiter inside a value of a row that ends with an
 * empty field) and shifts the record's fields. One byte loop over the file, nothing kept; it stops at the
 * first such record. A true answer sends the file through `salvageCsv`, which names each bad record; a
 * false positive costs only that pass, so the rules here may be looser than DuckDB's.
 */
export function hasMisshapenRecord(
  file: string,
  delimiter: string,
  expectedFields: number,
  quote: '"' | '' = '"',
  maxRecordBytes = MAX_RECORD_BYTES,
): boolean {
  const delim = delimiterByte(delimiter, 'the field-count check');
  const q = quote === '' ? -1 : QUOTE;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let header = true;
  let fields = 1;
  let quoted = false;
  /** After a closing quote: only spaces may follow (or a quote, making it a doubled one), then a delimiter. */
  let closed = false;
  let justClosed = false;
  let onlySpaces = true;
  /** Nothing since the record began: a blank line, which DuckDB skips. */
  let blank = true;
  /** File offsets of the current chunk's first byte and of the current record's first byte. */
  let chunkStart = 0;
  let recordStart = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      // Only the bytes read: past n the buffer holds the previous chunk or uninitialised memory, where the
      // quote search below found a stray quote and "closed" a value the file never closes.
      const chunk = buf.subarray(0, n);
      for (let i = 0; i < n; i++) {
        if (quoted) {
          // Inside a quoted value only the quote matters: a native search skips to it.
          const j = chunk.indexOf(q, i);
          if (j === -1) break;
          i = j;
          quoted = false;
          closed = true;
          justClosed = true;
          continue;
        }
        const b = chunk[i]!;
        // CR ends a record as LF does (DuckDB reads CR-only files too); the LF of a CRLF is then a blank line.
        if (b === LF || b === CR) {
          if (!blank) {
            if (header) header = false;
            else if (fields !== expectedFields) return true;
          }
          // A record's bytes include its line end, CRLF whole, as the salvage pass and DuckDB count them.
          if (chunkStart + i + (b === CR ? 2 : 1) - recordStart > maxRecordBytes) return true;
          recordStart = chunkStart + i + 1;
          fields = 1;
          closed = false;
          justClosed = false;
          onlySpaces = true;
          blank = true;
          continue;
        }
        blank = false;
        if (b === delim) {
          if (++fields > expectedFields && !header) return true;
          closed = false;
          justClosed = false;
          onlySpaces = true;
        } else if (closed) {
          if (b === q && justClosed) {
            quoted = true;
            closed = false;
          } else if (b !== SPACE) return true;
          justClosed = false;
        } else if (b === q && onlySpaces) {
          quoted = true;
        } else if (b !== SPACE) {
          onlySpaces = false;
        }
      }
      chunkStart += n;
      // A record (a long line, or a quoted value across lines) still going past the bound.
      if (chunkStart - recordStart > maxRecordBytes) return true;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (quoted) return true;
  return !blank && !header && fields !== expectedFields;
}
