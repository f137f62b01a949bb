import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRIES, type CountryCode } from '../../src/contract/countries.ts';
import { queryRows, quoteIdent } from '../pipeline/sql.ts';
import type { IngestReport, RejectAction } from './report.ts';

export interface KeyRowsOptions {
  country: CountryCode;
  /** Raw table as loaded from the file (its rowid is the file order). */
  from: string;
  /** Table to create: the raw columns plus `code`, one row per valid registration code. */
  to: string;
  /** SQL of the registration code in `from`. */
  codeSql: string;
  /** Official file name, for the reject summary. */
  file: string;
  report: IngestReport;
  /** Check the country's code rule (the register's main file); other files only need a non-empty code. */
  checkRule?: boolean;
  /** Which duplicate survives: SQL ORDER BY inside the code's rows (default: first in the file). */
  keep?: string;
}

async function count(conn: DuckDBConnection, sql: string): Promise<number> {
  return Number((await queryRows(conn, sql))[0]?.['n'] ?? 0);
}

/**
 * One row per registration code: rows with an empty code or (for the register file) a code that fails the
 * country's check are rejected, and of duplicated codes one row is kept. Each case is counted by reason, so
 * the audit's unique-code and check-digit rules hold for the rows that remain instead of failing the run.
 */
export async function keyRows(conn: DuckDBConnection, o: KeyRowsOptions): Promise<void> {
  const reject = (
    reason: string,
    n: number,
    example: string | null = null,
    action: RejectAction = 'row dropped',
  ) => o.report.reject(o.country, o.file, reason, n, action, example);
  // No copy of the raw table: the code is computed inline and the raw table is dropped once keyed.
  const keyed = `(SELECT *, nullif(trim(CAST(${o.codeSql} AS VARCHAR)), '') AS code, rowid AS file_row
    FROM ${quoteIdent(o.from)})`;
  const counts = (
    await queryRows(
      conn,
      `SELECT count(*) FILTER (WHERE code IS NULL)::BIGINT AS empty,
         (count(code) - count(DISTINCT code))::BIGINT AS dupes
       FROM (SELECT nullif(trim(CAST(${o.codeSql} AS VARCHAR)), '') AS code FROM ${quoteIdent(o.from)})`,
    )
  )[0];
  reject('empty registration code', Number(counts?.['empty'] ?? 0));

  await conn.run(`CREATE OR REPLACE TEMP TABLE ${o.to}_bad (code VARCHAR)`);
  if (o.checkRule) {
    // The code rules are the API's own (the country profile, src/contract/countries.ts); streamed, so memory stays flat.
    const rule = COUNTRIES[o.country].registrationCode;
    const appender = await conn.createAppender(`${o.to}_bad`);
    let bad = 0;
    let example: string | null = null;
    const stream = await conn.stream(
      `SELECT DISTINCT nullif(trim(CAST(${o.codeSql} AS VARCHAR)), '') AS code FROM ${quoteIdent(o.from)}
       WHERE code IS NOT NULL`,
    );
    for await (const rows of stream.yieldRows()) {
      for (const [code] of rows) {
        if (!rule.isValid(String(code))) {
          appender.appendVarchar(String(code));
          appender.endRow();
          bad++;
          example ??= String(code);
        }
      }
    }
    appender.closeSync();
    if (bad) {
      const rowsBad = await count(
        conn,
        `SELECT count(*) AS n FROM ${keyed} a SEMI JOIN ${o.to}_bad b ON a.code = b.code`,
      );
      reject(`registration code fails "${rule.describe}"`, rowsBad, example);
    }
  }
  const dupes = Number(counts?.['dupes'] ?? 0);
  reject('duplicate registration code (one row kept)', dupes);
  // Which row of a duplicated code survives is chosen by a window over the duplicated codes' rows alone,
  // and only the columns the choice reads: a window over every (wide) row, PL's 4.8 million units, ran a
  // 3 GB limit out of memory at scale 1.
  const valid = `code IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${o.to}_bad b WHERE b.code = a.code)`;
  if (dupes > 0) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${o.to}_dup AS
      SELECT file_row FROM (
        SELECT * FROM ${keyed} a WHERE ${valid} AND code IN (SELECT code FROM ${keyed} GROUP BY code HAVING count(*) > 1))
      QUALIFY row_number() OVER (PARTITION BY code ORDER BY ${o.keep ?? 'file_row'}) > 1`);
  }
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${o.to} AS
     SELECT * FROM ${keyed} a WHERE ${valid}
       ${dupes > 0 ? `AND NOT EXISTS (SELECT 1 FROM ${o.to}_dup d WHERE d.file_row = a.file_row)` : ''}`,
  );
  if (dupes > 0) await conn.run(`DROP TABLE ${o.to}_dup`);
  await conn.run(`DROP TABLE ${o.to}_bad`);
  await conn.run(`DROP TABLE ${quoteIdent(o.from)}`);
}

/** Counts rows of `table` whose code is not a company of the register file, as a reject of that file. */
export async function rejectOrphans(
  conn: DuckDBConnection,
  o: {
    country: CountryCode;
    table: string;
    codeSql: string;
    file: string;
    report: IngestReport;
    what: string;
  },
): Promise<void> {
  const n = await count(
    conn,
    `SELECT count(*) AS n FROM ${o.table} t WHERE NOT EXISTS (SELECT 1 FROM ingest_register r WHERE r.code = ${o.codeSql})`,
  );
  o.report.reject(o.country, o.file, `${o.what} for a code not in the register file`, n, 'row dropped');
}

/** Counts a value-level problem (a field set to NULL or left out, the row kept). */
export async function countNulled(
  conn: DuckDBConnection,
  o: { country: CountryCode; file: string; report: IngestReport; reason: string; sql: string },
): Promise<void> {
  const rows = await queryRows(conn, o.sql);
  const n = Number(rows[0]?.['n'] ?? 0);
  const example = rows[0]?.['example'];
  o.report.reject(o.country, o.file, o.reason, n, 'value nulled', example == null ? null : String(example));
}
