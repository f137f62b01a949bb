import fs from 'node:fs';

/** Source encodings the readers support (DuckDB's read_csv spells them the same way). */
export type TextEncoding = 'utf-8' | 'latin-1';

const BOM = [0xef, 0xbb, 0xbf];

function decode(bytes: Buffer, encoding: TextEncoding): string {
  return encoding === 'latin-1' ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The first `max` bytes of a file (fewer when the file is shorter). */
export function readHead(file: string, max: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(max);
    const n = fs.readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

export function hasBom(file: string): boolean {
  const head = readHead(file, 3);
  return head.length === 3 && BOM.every((b, i) => head[i] === b);
}

/** True for a zero-byte file or one holding only a BOM and whitespace. */
export function isBlank(file: string): boolean {
  const size = fs.statSync(file).size;
  if (size === 0) return true;
  if (size > 64) return false;
  return (
    decode(readHead(file, 64), 'utf-8')
      .replace(/^\uFEFF/, '')
      .trim() === ''
  );
}

/**
 * The fields of a file's first CSV record (its header), BOM removed. Headers are short, so the first 1 MiB
 * is plenty; quotes are honoured because some official headers quote every name (EE annual reports).
 */
export function readHeaderFields(file: string, delimiter: string, encoding: TextEncoding): string[] {
  let text = decode(readHead(file, 1 << 20), encoding);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"' && field === '') {
      quoted = true;
    } else if (ch === delimiter) {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      break;
    } else {
      field += ch;
    }
  }
  fields.push(field);
  return fields;
}

/**
 * The physical line (1-based) and byte column (1-based) of a byte offset (0-based), by streaming the file
 * up to that offset: only used to describe an error, and bounded in memory whatever the file size.
 */
export async function positionOfByte(
  file: string,
  offset: number,
): Promise<{ line: number; column: number }> {
  let line = 1;
  let lineStart = 0;
  let seen = 0;
  if (offset <= 0) return { line: 1, column: 1 };
  const stream = fs.createReadStream(file, { start: 0, end: offset - 1, highWaterMark: 1 << 20 });
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    let idx = buf.indexOf(10);
    while (idx !== -1) {
      line++;
      lineStart = seen + idx + 1;
      idx = buf.indexOf(10, idx + 1);
    }
    seen += buf.length;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Number of lines in a file (a final line without a newline counts), streamed. */
export async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buf = chunk as Buffer;
    let idx = buf.indexOf(10);
    while (idx !== -1) {
      lines++;
      idx = buf.indexOf(10, idx + 1);
    }
    if (buf.length) last = buf[buf.length - 1]!;
  }
  return last === 10 ? lines : lines + 1;
}

/**
 * The delimiter among `candidates` that splits the header into the most fields (at least `minFields`):
 * for files whose publishers disagree or changed it (LV VID `,` vs `;`, LT RC `,` before 2023 and `|` after).
 */
export function sniffDelimiter(
  file: string,
  candidates: readonly string[],
  minFields: number,
  encoding: TextEncoding = 'utf-8',
): string | null {
  let best: { delimiter: string; fields: number } | null = null;
  for (const delimiter of candidates) {
    const fields = readHeaderFields(file, delimiter, encoding).length;
    if (fields >= minFields && (!best || fields > best.fields)) best = { delimiter, fields };
  }
  return best?.delimiter ?? null;
}
