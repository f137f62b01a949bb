import fs from 'node:fs';
import zlib from 'node:zlib';
import { printableExcerpt } from '../../src/errors/quote-input.ts';

export interface JsonScan {
  /** Set when the structure breaks: a closing bracket that does not match, or a value where none may be. */
  error: { line: number; column: number; problem: string } | null;
  /** Set when the file ends inside a string, object or array (a truncated download). */
  truncated: { line: number; column: number } | null;
  /** Line and column where the n-th element (1-based) of the top-level array starts, when asked for. */
  element: { line: number; column: number } | null;
  /** Elements of the top-level array. */
  elements: number;
}

/**
 * A streaming structural scan of a JSON file: strings, escapes and bracket nesting, nothing more. DuckDB's
 * JSON errors give a byte inside a buffer and a record number, not a line, so when read_json fails this scan
 * (bounded memory, one pass) turns the failure into the line and column an operator can open.
 */
export async function scanJson(file: string, wantElement = 0): Promise<JsonScan> {
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  let line = 1;
  let column = 0;
  let elements = 0;
  // True right after '[' or ',' at depth 1: the next non-space byte starts a new top-level element.
  let expectElement = false;
  let element: JsonScan['element'] = null;
  let error: JsonScan['error'] = null;
  let lastLine = 1;
  let lastColumn = 0;
  const OPEN: Record<number, number> = { 0x5d: 0x5b, 0x7d: 0x7b };

  // A `.gz` file (BRREG ships its bulk JSON gzipped) is scanned through gunzip; if the gzip stream itself
  // ends early, the text up to that point is what an operator can see, so the position is where it stops.
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const input = file.toLowerCase().endsWith('.gz') ? raw.pipe(zlib.createGunzip()) : raw;
  let gzipBroken = false;
  if (input !== raw) raw.on('error', (err) => input.destroy(err));
  try {
    outer: for await (const chunk of input) {
      const buf = chunk as Buffer;
      for (let i = 0; i < buf.length; i++) {
        const b = buf[i]!;
        if (b === 0x0a) {
          line++;
          column = 0;
          continue;
        }
        // Count characters, not bytes: UTF-8 continuation bytes do not start a character.
        if ((b & 0xc0) !== 0x80) column++;
        if (b === 0x20 || b === 0x09 || b === 0x0d || (line === 1 && column === 1 && b === 0xef)) continue;
        if ((b & 0xc0) === 0x80 && !inString) continue;
        lastLine = line;
        lastColumn = column;
        if (inString) {
          if (escaped) escaped = false;
          else if (b === 0x5c) escaped = true;
          else if (b === 0x22) inString = false;
          continue;
        }
        if (expectElement && stack.length === 1 && b !== 0x5d) {
          elements++;
          if (elements === wantElement) element = { line, column };
        }
        expectElement = false;
        if (b === 0x22) {
          inString = true;
        } else if (b === 0x5b || b === 0x7b) {
          stack.push(b);
          if (stack.length === 1 && b === 0x5b) expectElement = true;
        } else if (b === 0x5d || b === 0x7d) {
          if (stack.pop() !== OPEN[b]) {
            error = { line, column, problem: `unexpected '${printableExcerpt(String.fromCharCode(b))}'` };
            break outer;
          }
        } else if (b === 0x2c) {
          if (stack.length === 0) {
            error = { line, column, problem: "unexpected ',' outside any array or object" };
            break outer;
          }
          if (stack.length === 1 && stack[0] === 0x5b) expectElement = true;
        }
      }
    }
  } catch (err) {
    if (input === raw) throw err;
    gzipBroken = true;
  }
  const truncated =
    !error && (gzipBroken || inString || stack.length > 0) ? { line: lastLine, column: lastColumn } : null;
  return { error, truncated, element, elements };
}
