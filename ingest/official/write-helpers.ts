import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlPath } from '../pipeline/sql.ts';
import { isoDate, type WriterContext } from './writer-context.ts';
import { writeZip } from './zip.ts';

/**
 * Helpers the official-format writers share. They turn a canonical snapshot back into the files the
 * registers publish, byte-level quirks included (BOM, quoting, delimiters, decimal commas), so the real
 * ingest code can run on synthetic data and the round-trip test can check every adapter against the world.
 */

export interface CsvWriteOptions {
  delimiter: string;
  /** Header fields as the register spells them, written by hand so their quoting matches the original. */
  header: readonly string[];
  /** Quote every header field (EE annual reports). */
  quoteHeader?: boolean;
  /** Header fields whose values are always quoted; DuckDB quotes the others only when needed. */
  forceQuote?: readonly string[];
  bom?: boolean;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function csvField(value: string, delimiter: string, quote: boolean): string {
  return quote || value.includes(delimiter) || value.includes('"') || /[\r\n]/.test(value)
    ? `"${value.replaceAll('"', '""')}"`
    : value;
}

/**
 * Writes `select` as a CSV with DuckDB's COPY (streamed, never through JS), then prepends the BOM and the
 * hand-written header. `select` must produce the columns in header order; NULL becomes an empty field.
 */
export async function writeCsv(
  conn: DuckDBConnection,
  select: string,
  file: string,
  opts: CsvWriteOptions,
): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const body = `${file}.body`;
  // Columns are renamed c1..cN by position, so FORCE_QUOTE can name them whatever the SELECT wrote.
  const names = opts.header.map((_, i) => `c${i + 1}`);
  const forced = (opts.forceQuote ?? []).map((f) => {
    const i = opts.header.indexOf(f);
    if (i < 0) throw new Error(`forceQuote: ${f} is not a header field`);
    return names[i];
  });
  const force = forced.length ? `, FORCE_QUOTE (${forced.join(', ')})` : '';
  const delimiter = opts.delimiter.replaceAll("'", "''");
  await conn.run(
    `COPY (SELECT * FROM (${select}) AS t(${names.join(', ')})) TO ${sqlPath(body)} (FORMAT csv, HEADER false,
       DELIMITER '${delimiter}', QUOTE '"', ESCAPE '"', NULL ''${force})`,
  );
  const header = opts.header
    .map((h) => csvField(h, opts.delimiter, opts.quoteHeader ?? false))
    .join(opts.delimiter);
  const out = fs.createWriteStream(file);
  if (opts.bom) out.write(BOM);
  out.write(`${header}\n`);
  await pipeline(fs.createReadStream(body), out);
  fs.rmSync(body);
}

/** Writes a JSON array (one object per line inside `[...]`) with DuckDB's COPY; `gzip` as BRREG ships it. */
export async function writeJsonArray(
  conn: DuckDBConnection,
  select: string,
  file: string,
  opts: { gzip?: boolean } = {},
): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const compression = opts.gzip ? ', COMPRESSION gzip' : '';
  await conn.run(`COPY (${select}) TO ${sqlPath(file)} (FORMAT json, ARRAY true${compression})`);
}

/** The files a writer writes: `out(name)` is the path of `name` in `outDir`, listed in `written`. */
export function outputFiles(outDir: string): { written: string[]; out: (name: string) => string } {
  const written: string[] = [];
  const out = (name: string) => {
    const file = path.join(outDir, name);
    written.push(file);
    return file;
  };
  return { written, out };
}

/** What the steps of one country's writer share: its context, the as-of date, and the files written so far. */
export interface WriterSteps extends WriterContext {
  /** yyyy-mm-dd of the as-of date. */
  today: string;
  written: string[];
  /** The path of `name` in outDir, listed in `written`. */
  out: (name: string) => string;
}

function writerSteps(ctx: WriterContext): WriterSteps {
  return { ...ctx, today: isoDate(ctx.asOf), ...outputFiles(ctx.outDir) };
}

/** One named step of an official-format writer: usually one of the register's files. */
export type WriterStep = (w: WriterSteps) => Promise<void>;

/**
 * A writer made of named steps run in order over one context, so that its list reads as the table of
 * contents of the register's files; the writer returns the files written.
 */
export function writerOf(steps: readonly WriterStep[]): (ctx: WriterContext) => Promise<string[]> {
  return async (ctx) => {
    const w = writerSteps(ctx);
    for (const step of steps) await step(w);
    return w.written;
  };
}

/** Zips `file` into `zipFile` (member named like `file`) and removes `file`, as the registers ship it. */
export async function zipInPlace(file: string, zipFile: string): Promise<void> {
  await writeZip(zipFile, file, path.basename(file));
  fs.rmSync(file);
}

/**
 * SQL: a number as Estonian and Lithuanian spreadsheets write it: decimal comma, `decimals` places and,
 * with `thousands`, a no-break space between thousands (EMTA's debtor list).
 */
export function decimalCommaSql(expr: string, decimals: number, thousands = false): string {
  const text = thousands ? `format('{:,.${decimals}f}', ${expr})` : `printf('%.${decimals}f', ${expr})`;
  // Via a placeholder: thousands commas become no-break spaces, the decimal point a comma.
  return `CASE WHEN ${expr} IS NULL THEN NULL
    ELSE replace(replace(replace(${text}, ',', '#'), '.', ','), '#', chr(160)) END`;
}

/** SQL: a deterministic pseudo-random integer in [0, n) from a key, for filler columns and quirk choice. */
export function pickSql(key: string, salt: string, n: number): string {
  return `(hash(${key}, '${salt.replaceAll("'", "''")}') % ${n})`;
}
