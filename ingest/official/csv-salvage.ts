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
 * source's encoding and dialect exactly. Memory is bounded: one read buffer plus the current record,
 * and a record is given up as malformed once it is longer than DuckDB's own line limit.
 */

export type SalvageReason =
  | 'text after a closing quote'
  | 'a quote that is never closed'
  | 'too many fields'
  | 'too few fields'
  | 'record longer than 2 MiB'
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

/** DuckDB read_csv's default max_line_size: a longer record is one DuckDB would refuse anyway. */
export const MAX_RECORD_BYTES = 2_097_152;

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/** Physical lines of a file from a byte offset, each with its terminator; re-positionable. */
class LineReader {
  readonly #fd: number;
  readonly #size: number;
  #buf = Buffer.alloc(0);
  #bufStart = 0;
  #pos = 0;

  constructor(fd: number, size: number) {
    this.#fd = fd;
    this.#size = size;
  }

  get position(): number {
    return this.#pos;
  }

  seek(offset: number): void {
    this.#pos = offset;
  }

  /** The next physical line (with its LF when it has one), or null at the end. */
  next(): Buffer | null {
    if (this.#pos >= this.#size) return null;
    for (;;) {
      const rel = this.#pos - this.#bufStart;
      if (rel >= 0 && rel < this.#buf.length) {
        const nl = this.#buf.indexOf(LF, rel);
        const atEnd = this.#bufStart + this.#buf.length >= this.#size;
        if (nl !== -1 || atEnd) {
          const end = nl === -1 ? this.#buf.length : nl + 1;
          this.#pos = this.#bufStart + end;
          return this.#buf.subarray(rel, end);
        }
        if (rel === 0 && this.#buf.length >= MAX_RECORD_BYTES) {
          // A line longer than any record may be: hand out a slice so the caller gives the record up.
          this.#pos += this.#buf.length;
          return this.#buf.subarray(0);
        }
      }
      this.#fill();
    }
  }

  #fill(): void {
    // Twice the record limit: a line that does not fit is over the limit and is handed out in slices.
    const buf = Buffer.alloc(Math.min(2 * MAX_RECORD_BYTES, this.#size - this.#pos));
    const n = fs.readSync(this.#fd, buf, 0, buf.length, this.#pos);
    this.#buf = buf.subarray(0, n);
    this.#bufStart = this.#pos;
  }
}

type Parse =
  | { kind: 'more' }
  | { kind: 'done'; fields: number }
  | { kind: 'bad'; reason: SalvageReason; column: number };

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

/**
 * Splits `file` (header included) into records of `expectedFields` fields, writes the header and every
 * well-formed record to `cleaned`, and returns the dropped ones. Throws TruncatedCsv when the file's last
 * record is malformed and the file is cut: it has no final newline, or it ends inside a quote that the
 * last line opened.
 */
export function salvageCsv(
  file: string,
  cleaned: string,
  delimiter: string,
  expectedFields: number,
  encoding: TextEncoding,
  quote: '"' | '' = '"',
): SalvageResult {
  if (Buffer.byteLength(delimiter) !== 1)
    throw new Error(`salvage needs a one-byte delimiter, not '${delimiter}'`);
  const delim = delimiter.charCodeAt(0);
  const size = fs.statSync(file).size;
  const endsWithNewline = size > 0 && lastByte(file, size) === LF;
  const fd = fs.openSync(file, 'r');
  const out = fs.openSync(cleaned, 'w');
  const rejects: SalvageReject[] = [];
  const droppedLines: number[] = [];
  let records = 0;
  try {
    const reader = new LineReader(fd, size);
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = (): void => {
      for (const part of pending) fs.writeSync(out, part);
      pending.length = 0;
      pendingBytes = 0;
    };

    let lineNo = 0;
    let header = true;
    for (;;) {
      const start = reader.position;
      const first = reader.next();
      if (!first) break;
      lineNo++;
      const startLine = lineNo;
      if (isBlankLine(first)) {
        // DuckDB skips blank lines; kept so that line numbers of the cleaned file stay simple to map.
        fs.writeSync(out, first);
        continue;
      }
      const parser = new RecordParser(delim, quote === '' ? -1 : QUOTE, expectedFields);
      pending.push(Buffer.from(first));
      pendingBytes += first.length;
      let result = parser.feed(first);
      let physical = 1;
      while (result.kind === 'more') {
        if (pendingBytes > MAX_RECORD_BYTES) {
          result = { kind: 'bad', reason: 'record longer than 2 MiB', column: parser.fields };
          break;
        }
        const line = reader.next();
        if (!line) {
          result = { kind: 'bad', reason: 'a quote that is never closed', column: parser.fields };
          break;
        }
        physical++;
        pending.push(Buffer.from(line));
        pendingBytes += line.length;
        result = parser.feed(line);
      }
      if (header) {
        // checkHeader has already read and judged the header; here it is only copied.
        header = false;
        lineNo += physical - 1;
        flush();
        continue;
      }
      if (result.kind === 'done' && pendingBytes > MAX_RECORD_BYTES) {
        result = { kind: 'bad', reason: 'record longer than 2 MiB', column: parser.fields };
      }
      if (result.kind === 'done') {
        const { fields } = result;
        if (fields > expectedFields) {
          result = { kind: 'bad', reason: 'too many fields', column: fields };
        } else if (fields < expectedFields) {
          result = { kind: 'bad', reason: 'too few fields', column: fields };
        } else if (encoding === 'utf-8' && !isUtf8(Buffer.concat(pending))) {
          result = { kind: 'bad', reason: 'invalid UTF-8', column: 1 };
        }
      }
      if (result.kind === 'bad') {
        // The file's last line starts a malformed record and the file is cut there (no final newline, or
        // a quote open at the end): an interrupted download, refused rather than salvaged.
        const lastLine = start + first.length >= size;
        const openAtEnd = result.reason === 'a quote that is never closed';
        if (lastLine && (!endsWithNewline || openAtEnd)) {
          throw new TruncatedCsv(startLine, result.column, openAtEnd);
        }
        const fieldsSeen = result.reason === 'too many fields' || result.reason === 'too few fields';
        rejects.push({
          line: startLine,
          reason: result.reason,
          column: result.column,
          detail: fieldsSeen ? `${result.column} fields, the header has ${expectedFields}` : '',
        });
        droppedLines.push(startLine);
        pending.length = 0;
        pendingBytes = 0;
        // Only the record's first line is dropped: the next one may start a good record.
        reader.seek(start + first.length);
        continue;
      }
      records++;
      lineNo += physical - 1;
      flush();
    }
  } finally {
    fs.closeSync(fd);
    fs.closeSync(out);
  }
  return { records, rejects, droppedLines };
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
 * Whether some record of `file` after its header does not have exactly `expectedFields` fields, or breaks
 * the quoting in a way that could hide one (text after a closing quote, a quote open at the end). DuckDB
 * 1.5's reader does not tell: it accepts a record with one field too many when that field is empty and
 * last (an unquoted delimiter inside a value of a row that ends with an empty field) and shifts the
 * record's fields. One byte loop over the file, nothing kept; it stops at the first such record. A true
 * answer sends the file through `salvageCsv`, which names each bad record; a false positive costs only
 * that pass, so the rules here may be looser than DuckDB's.
 */
export function hasMisshapenRecord(
  file: string,
  delimiter: string,
  expectedFields: number,
  quote: '"' | '' = '"',
): boolean {
  if (Buffer.byteLength(delimiter) !== 1)
    throw new Error(`the field-count check needs a one-byte delimiter, not '${delimiter}'`);
  const delim = delimiter.charCodeAt(0);
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
    }
  } finally {
    fs.closeSync(fd);
  }
  if (quoted) return true;
  return !blank && !header && fields !== expectedFields;
}
