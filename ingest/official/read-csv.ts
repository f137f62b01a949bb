import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { MESSAGE_MAX_CHARS, printableExcerpt, quoteInput } from '../../src/errors/quote-input.ts';
import type { CountryCode } from '../../src/contract/countries.ts';
import { queryRows, quoteIdent, sqlPath } from '../pipeline/sql.ts';
import {
  MissingSourceFile,
  RejectThresholdError,
  SourceFileError,
  describePosition,
  type FilePosition,
} from './errors.ts';
import {
  hasMisshapenRecord,
  MAX_RECORD_BYTES,
  originalLine,
  salvageCsv,
  TruncatedCsv,
  type SalvageReject,
} from './csv-salvage.ts';
import type { IngestReport } from './report.ts';
import type { StageContext } from './types.ts';
import { isBlank, positionOfByte, readHead, readHeaderFields, type TextEncoding } from './text-file.ts';

export interface CsvSource {
  country: CountryCode;
  /** Path of the (extracted) file. */
  file: string;
  /** The official file name, for messages and the summary. */
  display: string;
  /** Table to create in the connection. */
  table: string;
  delimiter: string;
  /** `''` for files that never quote, where a `"` is data (SCB's JE bulk file: `"(S-) FÖRENINGEN ...`). */
  quote?: '"' | '';
  encoding?: TextEncoding;
  /**
   * The official header, in order; the file must carry exactly this (or one of `alternativeHeaders`). With
   * `byName`, the header only has to contain every column of `columns`, in any order, among others: for
   * files whose full column list or order is not confirmed (registry-formats.md marks them).
   */
  header: readonly string[];
  alternativeHeaders?: readonly (readonly string[])[];
  /** Accepts a header the lists above do not spell out (a twin with unconfirmed labels), read positionally. */
  acceptHeader?: (found: readonly string[]) => boolean;
  byName?: boolean;
  /** With `byName`: the logical name of a raw header cell (Sodra's `Label (key)` cells → `key`). */
  headerKey?: (raw: string) => string;
  /**
   * Column name in the table and DuckDB type, one per header field in file order; with `byName`, only
   * the columns the adapter uses (the others are read as VARCHAR and ignored).
   */
  columns: readonly (readonly [string, string])[];
  /**
   * Columns to keep in the table (all are still parsed and checked). Default: all, or with `byName` the
   * columns listed; a table of only what the adapter reads keeps national-scale runs small.
   */
  keep?: readonly string[];
  /** strptime format of DATE columns, e.g. '%d.%m.%Y'. */
  dateFormat?: string;
  decimalSeparator?: ',' | '.';
  /** Scratch folder for a salvaged file's cleaned twin (the run's work dir); default: the OS temp dir. */
  workDir?: string;
  /** Share of data rows that may be rejected (malformed or with bad values) before the file is refused. */
  maxRejectShare?: number;
  /**
   * Bytes a record may take, line ends included (default MAX_RECORD_BYTES, 2 MiB): DuckDB's max_line_size
   * and the salvage pass's bound. A longer physical line is one rejected record.
   */
  maxRecordBytes?: number;
}

export interface CsvLoad {
  rowsRead: number;
  rowsLoaded: number;
  rowsRejected: number;
}

/** DuckDB reject types that mean the file itself is broken (truncated, mis-delimited), not one value. */
const STRUCTURAL = new Set([
  'UNQUOTED VALUE',
  'MISSING COLUMNS',
  'TOO MANY COLUMNS',
  'INVALID UNICODE',
  'LINE SIZE OVER MAXIMUM',
  'INVALID STATE',
]);

const DEFAULT_MAX_REJECT_SHARE = 0.01;

/**
 * The value a DuckDB cast message quotes (`Could not convert string "31.02.2024" to 'DATE'`), quoted again
 * for a reject example: cut, non-printables escaped. '' when the message is of another kind.
 */
function unconvertedValue(message: string): string {
  const head = 'Could not convert string "';
  const start = message.indexOf(head);
  const end = message.lastIndexOf('" to \'');
  return start === -1 || end < start + head.length - 1
    ? ''
    : quoteInput(message.slice(start + head.length, end));
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The header line's length with its line end, looked for in the first `max + 1` bytes (max + 1 if longer). */
function headerBytes(file: string, max: number): number {
  const head = readHead(file, max + 1);
  const ends = [head.indexOf(0x0a), head.indexOf(0x0d)].filter((i) => i !== -1);
  return ends.length ? Math.min(...ends) + 1 : head.length;
}

/** The file's columns with types: the given ones, or for `byName` the file's own header typed by name. */
function checkHeader(src: CsvSource): (readonly [string, string])[] {
  const raw = readHeaderFields(src.file, src.delimiter, src.encoding ?? 'utf-8');
  const found = src.byName && src.headerKey ? raw.map(src.headerKey) : raw;
  if (src.byName) {
    const types = new Map(src.columns.map(([n, t]) => [n, t]));
    for (const [name] of src.columns) {
      if (!found.includes(name)) {
        throw new SourceFileError(
          src.display,
          { line: 1, column: found.length + 1 },
          `header has no column "${name}" (found ${printableExcerpt(found.map((f) => quoteInput(f, 60)).join(', '))}; delimiter '${src.delimiter}')`,
        );
      }
    }
    return found.map(
      (name, i) => [name === '' ? `column${i + 1}` : name, types.get(name) ?? 'VARCHAR'] as const,
    );
  }
  if (src.columns.length !== src.header.length) {
    throw new Error(
      `${src.display}: ${src.columns.length} column types for ${src.header.length} header fields`,
    );
  }
  const candidates = [src.header, ...(src.alternativeHeaders ?? [])];
  if (candidates.some((h) => h.length === found.length && h.every((name, i) => found[i] === name))) {
    return [...src.columns];
  }
  if (found.length === src.columns.length && src.acceptHeader?.(found)) return [...src.columns];
  const expected = src.header;
  for (let i = 0; i < Math.max(expected.length, found.length); i++) {
    if (found[i] !== expected[i]) {
      const problem =
        found[i] === undefined
          ? `header ends after ${found.length} columns, expected "${expected[i]}" next (delimiter '${src.delimiter}')`
          : expected[i] === undefined
            ? `unexpected extra header column ${quoteInput(found[i]!)}`
            : `header column is ${quoteInput(found[i]!)}, expected "${expected[i]}"`;
      throw new SourceFileError(src.display, { line: 1, column: i + 1 }, problem);
    }
  }
  return [...src.columns];
}

interface DuckLoad {
  groups: Record<string, unknown>[];
  rowsLoaded: number;
  rowsRejected: number;
}

/** One read_csv of `file` into the source's table; rejects grouped by type and column. */
async function duckLoad(
  conn: DuckDBConnection,
  src: CsvSource,
  file: string,
  fileColumns: readonly (readonly [string, string])[],
  lineOf: (line: number) => number,
): Promise<DuckLoad> {
  const rejects = `rejects_${src.table}`;
  const scans = `rejects_scan_${src.table}`;
  const columns = `{${fileColumns.map(([name, type]) => `${sqlString(name)}: ${sqlString(type)}`).join(', ')}}`;
  const options = [
    `delim = ${sqlString(src.delimiter)}`,
    `quote = ${sqlString(src.quote ?? '"')}`,
    `escape = ${sqlString(src.quote ?? '"')}`,
    'header = true',
    'auto_detect = false',
    `columns = ${columns}`,
    `encoding = ${sqlString(src.encoding ?? 'utf-8')}`,
    `max_line_size = ${src.maxRecordBytes ?? MAX_RECORD_BYTES}`,
    'store_rejects = true',
    `rejects_table = ${sqlString(rejects)}`,
    `rejects_scan = ${sqlString(scans)}`,
    ...(src.dateFormat ? [`dateformat = ${sqlString(src.dateFormat)}`] : []),
    ...(src.decimalSeparator ? [`decimal_separator = ${sqlString(src.decimalSeparator)}`] : []),
  ];
  await conn.run(`DROP TABLE IF EXISTS ${rejects}`);
  await conn.run(`DROP TABLE IF EXISTS ${scans}`);
  try {
    const keep = src.keep ?? (src.byName ? src.columns.map(([name]) => name) : null);
    await conn.run(
      `CREATE OR REPLACE TABLE ${quoteIdent(src.table)} AS
       SELECT ${keep ? keep.map(quoteIdent).join(', ') : '*'} FROM read_csv(${sqlPath(file)}, ${options.join(', ')})`,
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const line = /Line: (\d+)/.exec(message)?.[1];
    throw new SourceFileError(
      src.display,
      line ? { line: lineOf(Number(line)), column: 1 } : null,
      printableExcerpt(message.split('\n')[0] ?? message, MESSAGE_MAX_CHARS),
    );
  }

  const groups = await queryRows(
    conn,
    `SELECT error_type, column_idx::INTEGER AS column_idx, column_name, count(DISTINCT line)::BIGINT AS n,
            arg_min(line_byte_position, line)::BIGINT AS pos, arg_min(error_message, line) AS message
     FROM ${rejects} GROUP BY ALL ORDER BY min(line)`,
  );
  const rowsRejected = Number(
    (await queryRows(conn, `SELECT count(DISTINCT line)::BIGINT AS n FROM ${rejects}`))[0]?.['n'] ?? 0,
  );
  const rowsLoaded = Number(
    (await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM ${quoteIdent(src.table)}`))[0]?.['n'] ?? 0,
  );
  await conn.run(`DROP TABLE IF EXISTS ${rejects}`);
  await conn.run(`DROP TABLE IF EXISTS ${scans}`);
  return { groups, rowsLoaded, rowsRejected };
}

/**
 * Loads one official CSV into a table with DuckDB's reader: explicit dialect and column types, no sniffing,
 * streamed and parallel, never read into JS. Rows whose values do not convert are rejected and counted by
 * reason. When a record's field count differs from the header's (checked first: DuckDB loads a record with
 * one empty field too many shifted) or DuckDB finds the file structurally broken (a stray quote), a salvage
 * pass (csv-salvage.ts) drops just the malformed records, each counted with its line and reason, and
 * DuckDB reads the cleaned twin; a cut file (truncation) is refused with the file, line and column.
 * Malformed and unconvertible rows together may be `maxRejectShare` of the file's rows before it is refused.
 */
export async function loadCsv(
  conn: DuckDBConnection,
  src: CsvSource,
  report: IngestReport,
): Promise<CsvLoad> {
  const maxRecordBytes = src.maxRecordBytes ?? MAX_RECORD_BYTES;
  checkCsvFile(src, maxRecordBytes);
  const r = csvLoadRun(conn, src, report, checkHeader(src), maxRecordBytes);

  // DuckDB accepts a record with one empty field too many and shifts its fields, so field counts are
  // checked here first; a file with a misshapen record skips straight to the salvage pass.
  const misshapen = hasMisshapenRecord(
    src.file,
    src.delimiter,
    r.fileColumns.length,
    src.quote ?? '"',
    maxRecordBytes,
  );
  let load = misshapen ? null : await duckLoad(conn, src, r.file, r.fileColumns, r.lineOf);
  let malformed: readonly SalvageReject[] = [];
  let scratch: string | null = null;
  try {
    if (!load || load.groups.some((g) => STRUCTURAL.has(String(g['error_type'])))) {
      scratch = fs.mkdtempSync(path.join(src.workDir ?? os.tmpdir(), 'csv-salvage-'));
      malformed = salvage(r, path.join(scratch, path.basename(src.file)));
      load = await duckLoad(conn, src, r.file, r.fileColumns, r.lineOf);
      // What the salvage pass let through and DuckDB still finds broken (a case the two disagree on, e.g.
      // a lone CR) is refused as before: never load a file whose columns may be shifted.
    }
    await refuseStructural(r, load.groups);
    await reportUnconverted(r, load.groups);
    const rejected = load.rowsRejected + malformed.length;
    const rowsRead = load.rowsLoaded + rejected;
    await refuseOverThreshold(r, load, malformed, rowsRead);
    report.file({
      country: src.country,
      file: src.display,
      rowsRead,
      rowsLoaded: load.rowsLoaded,
      bytes: fs.statSync(src.file).size,
    });
    return { rowsRead, rowsLoaded: load.rowsLoaded, rowsRejected: rejected };
  } finally {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Refuses a missing file, an empty one, and one whose first line is longer than a record may be. */
function checkCsvFile(src: CsvSource, maxRecordBytes: number): void {
  if (!fs.existsSync(src.file)) throw new MissingSourceFile(`${src.display} is missing`);
  if (isBlank(src.file)) {
    throw new SourceFileError(src.display, { line: 1, column: 1 }, 'the file is empty: no header line');
  }
  if (headerBytes(src.file, maxRecordBytes) > maxRecordBytes) {
    throw new SourceFileError(
      src.display,
      { line: 1, column: 1 },
      `the header line is longer than ${maxRecordBytes} bytes (not this register's file?)`,
    );
  }
}

/**
 * One CSV load: the file DuckDB reads (the original, or the salvage pass's cleaned twin with the lines it
 * dropped), and how a reject's line and byte position map back onto the original file.
 */
interface CsvLoadRun {
  conn: DuckDBConnection;
  src: CsvSource;
  report: IngestReport;
  fileColumns: ReturnType<typeof checkHeader>;
  maxRecordBytes: number;
  file: string;
  droppedLines: readonly number[];
  lineOf: (line: number) => number;
  positionOf: (g: Record<string, unknown>) => Promise<FilePosition>;
}

function csvLoadRun(
  conn: DuckDBConnection,
  src: CsvSource,
  report: IngestReport,
  fileColumns: ReturnType<typeof checkHeader>,
  maxRecordBytes: number,
): CsvLoadRun {
  const r: CsvLoadRun = {
    conn,
    src,
    report,
    fileColumns,
    maxRecordBytes,
    file: src.file,
    droppedLines: [],
    lineOf: (line) => originalLine(line, r.droppedLines),
    positionOf: async (g) => {
      // line_byte_position is 1-based; the record's first physical line is what an editor shows.
      const { line } = await positionOfByte(r.file, Math.max(0, Number(g['pos']) - 1));
      const column = Number(g['column_idx']);
      const name = fileColumns[column - 1]?.[0];
      return name ? { line: r.lineOf(line), column, columnName: name } : { line: r.lineOf(line), column };
    },
  };
  return r;
}

/**
 * The salvage pass: writes the well-formed records to `cleaned`, which DuckDB then reads instead, and
 * reports each dropped record; a cut file is refused with its line and column.
 */
function salvage(r: CsvLoadRun, cleaned: string): readonly SalvageReject[] {
  const { src, fileColumns } = r;
  let salvage;
  try {
    salvage = salvageCsv(
      src.file,
      cleaned,
      src.delimiter,
      fileColumns.length,
      src.encoding ?? 'utf-8',
      src.quote ?? '"',
      r.maxRecordBytes,
    );
  } catch (err) {
    if (!(err instanceof TruncatedCsv)) throw err;
    const name = fileColumns[err.column - 1]?.[0];
    throw new SourceFileError(
      src.display,
      { line: err.line, column: err.column, ...(name ? { columnName: name } : {}) },
      err.insideQuote
        ? 'unquoted value: the file ends inside a quoted value (a truncated or damaged file?)'
        : 'missing columns: the file ends inside a record (a truncated or damaged file?)',
    );
  }
  for (const rej of salvage.rejects) {
    r.report.reject(
      src.country,
      src.display,
      rej.reason,
      1,
      'row dropped',
      `${src.display} line ${rej.line}${rej.detail ? `: ${rej.detail}` : ''}`,
    );
  }
  r.file = cleaned;
  r.droppedLines = salvage.droppedLines;
  return salvage.rejects;
}

async function refuseStructural(r: CsvLoadRun, groups: Record<string, unknown>[]): Promise<void> {
  const structural = groups.find((g) => STRUCTURAL.has(String(g['error_type'])));
  if (!structural) return;
  const type = String(structural['error_type']);
  const hint =
    type === 'UNQUOTED VALUE' || type === 'MISSING COLUMNS'
      ? ' (a truncated or damaged file?)'
      : type === 'TOO MANY COLUMNS'
        ? ` (an unquoted '${r.src.delimiter}' or a changed format?)`
        : '';
  throw new SourceFileError(
    r.src.display,
    await r.positionOf(structural),
    `${type.toLowerCase()}: ${printableExcerpt(String(structural['message']), MESSAGE_MAX_CHARS)}${hint}`,
  );
}

/** Reports DuckDB's rejects, one line per column and reason, at the first such row. */
async function reportUnconverted(r: CsvLoadRun, groups: Record<string, unknown>[]): Promise<void> {
  for (const g of groups) {
    const column = String(g['column_name'] ?? `column ${String(g['column_idx'])}`);
    const type = r.fileColumns[Number(g['column_idx']) - 1]?.[1] ?? 'value';
    const where = describePosition(r.src.display, await r.positionOf(g));
    const detail = unconvertedValue(String(g['message']));
    r.report.reject(
      r.src.country,
      r.src.display,
      `not a valid ${type} in ${column}`,
      Number(g['n']),
      'row dropped',
      `${where}${detail ? `: ${detail}` : ''}`,
    );
  }
}

/** Refuses the file when malformed and unconvertible rows together are over its reject share. */
async function refuseOverThreshold(
  r: CsvLoadRun,
  { groups, rowsRejected }: { groups: Record<string, unknown>[]; rowsRejected: number },
  malformedRejects: readonly SalvageReject[],
  rowsRead: number,
): Promise<void> {
  const { src } = r;
  const malformed = malformedRejects.length;
  const firstMalformed = malformedRejects[0] ?? null;
  const rejected = rowsRejected + malformed;
  const share = src.maxRejectShare ?? DEFAULT_MAX_REJECT_SHARE;
  if (rejected > 0 && rejected > share * rowsRead) {
    const first = groups[0];
    const limit = `more than ${(share * 100).toFixed(1)}%`;
    if (firstMalformed) {
      throw new RejectThresholdError(
        `${src.display} line ${firstMalformed.line}: ${rejected} of ${rowsRead} rows rejected (${limit}): ` +
          `${malformed} malformed, first: ${firstMalformed.reason}; ${rowsRejected} with values that do not convert`,
      );
    }
    throw new RejectThresholdError(
      `${first ? describePosition(src.display, await r.positionOf(first)) : src.display}: ${rowsRejected} of ` +
        `${rowsRead} rows have values that do not convert (${limit}), ` +
        `first: ${printableExcerpt(String(first?.['message'] ?? ''), MESSAGE_MAX_CHARS)}`,
    );
  }
}

/**
 * Loads an adapter's official file `key` (the one the source folder resolved) as a reported stage, and
 * returns the file's display name for reject messages.
 */
export async function loadCsvStage(
  ctx: StageContext,
  key: string,
  table: string,
  spec: Omit<CsvSource, 'country' | 'file' | 'display' | 'table'>,
): Promise<string> {
  const file = ctx.sources.one(key)!;
  const display = ctx.sources.displayName(file);
  await ctx.report.stage(
    ctx.country,
    `read ${display}`,
    () =>
      loadCsv(
        ctx.conn,
        { ...spec, country: ctx.country, file, display, table, workDir: ctx.workDir },
        ctx.report,
      ),
    (r) => r.rowsRead,
  );
  return display;
}
