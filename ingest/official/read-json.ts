import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import { MESSAGE_MAX_CHARS, printableExcerpt } from '../../src/errors/quote-input.ts';
import { queryRows, quoteIdent, sqlPath } from '../pipeline/sql.ts';
import { MissingSourceFile, SourceFileError } from './errors.ts';
import { scanJson } from './json-scan.ts';
import type { IngestReport } from './report.ts';
import { isBlank } from './text-file.ts';

export interface JsonSource {
  country: CountryCode;
  file: string;
  display: string;
  table: string;
  /** Keys of each top-level array element to keep, with DuckDB types (nested STRUCT/LIST types allowed). */
  columns: readonly (readonly [string, string])[];
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * True when a gzip file decompresses to its end with its checksum: DuckDB's gzip reader takes a cut-off
 * stream as the end of the data, so a truncated download would otherwise load as a shorter file.
 */
async function gzipIsWhole(file: string): Promise<boolean> {
  try {
    await pipeline(
      fs.createReadStream(file, { highWaterMark: 1 << 20 }),
      zlib.createGunzip(),
      async function* (chunks) {
        for await (const _ of chunks) yield* [];
      },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads an official JSON file (a top-level array of objects) with DuckDB's streaming JSON reader and
 * explicit types: keys not listed are skipped, missing keys are NULL. Scalars that the register writes
 * inconsistently (numbers as strings) should be typed VARCHAR here and cast with TRY_CAST by the adapter,
 * so one odd value nulls a field instead of failing the file. A broken file is refused with its line and
 * column, found by a structural scan because DuckDB's own message gives only a buffer offset.
 */
export async function loadJson(
  conn: DuckDBConnection,
  src: JsonSource,
  report: IngestReport,
): Promise<{ rowsRead: number }> {
  if (!fs.existsSync(src.file)) throw new MissingSourceFile(`${src.display} is missing`);
  if (isBlank(src.file)) {
    throw new SourceFileError(src.display, { line: 1, column: 1 }, 'the file is empty: no JSON array');
  }
  if (src.file.toLowerCase().endsWith('.gz') && !(await gzipIsWhole(src.file))) {
    const scan = await scanJson(src.file);
    const where = scan.error ?? scan.truncated ?? { line: 1, column: 1 };
    throw new SourceFileError(
      src.display,
      { line: where.line, column: where.column },
      'the gzip stream ends early or is damaged: the JSON ends inside a value (a truncated download?)',
    );
  }
  const columns = `{${src.columns.map(([name, type]) => `${sqlString(name)}: ${sqlString(type)}`).join(', ')}}`;
  try {
    await conn.run(
      `CREATE OR REPLACE TABLE ${quoteIdent(src.table)} AS
       SELECT * FROM read_json(${sqlPath(src.file)}, format = 'array', columns = ${columns},
                               maximum_object_size = 268435456)`,
    );
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    const record = Number(/in record\/value (\d+)/.exec(message)?.[1] ?? 0);
    const scan = await scanJson(src.file, record);
    if (scan.error) {
      throw new SourceFileError(
        src.display,
        { line: scan.error.line, column: scan.error.column },
        `malformed JSON: ${scan.error.problem}`,
      );
    }
    if (scan.truncated) {
      throw new SourceFileError(
        src.display,
        { line: scan.truncated.line, column: scan.truncated.column },
        'the JSON ends inside a value (a truncated download?)',
      );
    }
    const where = scan.element ?? { line: 1, column: 1 };
    throw new SourceFileError(
      src.display,
      where,
      printableExcerpt(
        message.replace(/^[A-Za-z ]+Error: /, '').replace(/ in file "[^"]*"/, ''),
        MESSAGE_MAX_CHARS,
      ),
    );
  }
  const rowsRead = Number(
    (await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM ${quoteIdent(src.table)}`))[0]?.['n'] ?? 0,
  );
  report.file({
    country: src.country,
    file: src.display,
    rowsRead,
    rowsLoaded: rowsRead,
    bytes: fs.statSync(src.file).size,
  });
  return { rowsRead };
}
