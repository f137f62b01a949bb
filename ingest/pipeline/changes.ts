import fs from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  CHANGE_COLUMNS,
  CHANGE_DIFF_TYPE,
  COMPANY_COLUMNS,
  columnList,
  contractColumnsSql,
} from '../../src/contract/data-contract.ts';
import { queryRows, quoteIdent, sqlPath } from './sql.ts';

/** Internal columns: they steer search and sale, and a customer never sees them as fields. */
const NOT_FIELDS = new Set([
  'registrikood',
  'is_sole_trader',
  'not_for_sale',
  'search_name',
  'search_people',
]);

/** The company columns a change can name: the API fields of the search row and the detail. */
export const CHANGE_FIELDS: readonly string[] = COMPANY_COLUMNS.map((c) => c.name).filter(
  (n) => !NOT_FIELDS.has(n),
);

/** How long the change history is kept in a snapshot (days); older entries are dropped at publish. */
export const CHANGE_RETENTION_DAYS = 400;

/** A file's columns and their types, for reading a file of an older contract as the current one. */
async function describeColumns(conn: DuckDBConnection, file: string): Promise<Map<string, string>> {
  const rows = await queryRows(conn, `DESCRIBE SELECT * FROM read_parquet(${sqlPath(file)})`);
  return new Map(rows.map((r) => [String(r['column_name']), String(r['column_type'])]));
}

export interface ChangeSummary {
  /** The first day the history covers: changes on or after it are all in the file. */
  since: string;
  added: number;
  removed: number;
  changed: number;
  /** Rows of the whole history file. */
  rows: number;
}

export interface ChangeInput {
  /** The new country folder's companies.parquet. */
  companies: string;
  /** The live snapshot's country folder, when there is one: its companies and change history. */
  previous: { companies: string; changes: string | null; since: string | null } | null;
  out: string;
  snapshotId: string;
  /** The publish day (UTC, YYYY-MM-DD): the as_of of this run's changes. */
  asOf: string;
}

/**
 * The change feed of one country at publish: which companies for sale were added, removed or changed
 * against the live snapshot, and which API fields changed, appended to the live snapshot's history and
 * written as changes.parquet in the new snapshot. Keeping the history in every snapshot means it survives a
 * rollback and needs no old snapshot on disk.
 *
 * Rows are first compared by one 64-bit hash of all their fields, so only the few changed rows are joined
 * whole; a hash collision (odds about 1 in 2^64 per row) would hide one change.
 */
export async function writeChanges(conn: DuckDBConnection, input: ChangeInput): Promise<ChangeSummary> {
  const fields = CHANGE_FIELDS.map(quoteIdent);
  const prev = input.previous;
  let since = input.asOf;
  let history = `SELECT ${columnList(CHANGE_COLUMNS)} FROM (SELECT NULL::VARCHAR AS registrikood, NULL::VARCHAR AS change,
    []::VARCHAR[] AS fields, NULL::VARCHAR AS snapshot_id, NULL::DATE AS as_of, NULL::${CHANGE_DIFF_TYPE} AS diff)
    WHERE false`;
  let current = history;
  if (prev) {
    // The history starts where the live one started, less what falls out of the retention window.
    const cutoff = new Date(Date.parse(`${input.asOf}T00:00:00Z`) - CHANGE_RETENTION_DAYS * 86_400_000)
      .toISOString()
      .slice(0, 10);
    if (prev.changes && fs.existsSync(prev.changes)) {
      since = prev.since && prev.since > cutoff ? prev.since : cutoff;
      // Read as the current contract: a history written before 1.4.0 has no before and after values, so
      // its `diff` is null, not invented.
      const kept = contractColumnsSql(CHANGE_COLUMNS, await describeColumns(conn, prev.changes));
      history = `SELECT ${kept} FROM read_parquet(${sqlPath(prev.changes)})
        WHERE as_of >= (SELECT since FROM change_run)`;
    }
    // Otherwise the live snapshot predates the change feed, and the history starts with this run.
  }
  await conn.run('CREATE OR REPLACE TEMP TABLE change_run (snapshot_id VARCHAR, as_of DATE, since DATE)');
  await conn.run('INSERT INTO change_run VALUES ($id, $asOf::DATE, $since::DATE)', {
    id: input.snapshotId,
    asOf: input.asOf,
    since,
  });
  if (prev) {
    // A live snapshot of an older contract is read as the current one: the columns added since (postcode,
    // 1.2.0) are null there, so a company that gained a value is `changed` in that field, and employee
    // counts (DOUBLE before 1.3.0) are INTEGER, so an unchanged count hashes and compares as unchanged.
    const present = await describeColumns(conn, prev.companies);
    const forSale = (file: string) =>
      `(SELECT ${file === prev.companies ? contractColumnsSql(COMPANY_COLUMNS, present) : '*'}
        FROM read_parquet(${sqlPath(file)}) WHERE NOT not_for_sale)`;
    const hashed = (file: string) =>
      `SELECT registrikood, hash(${fields.join(', ')}) AS h FROM ${forSale(file)}`;
    await conn.run(`CREATE OR REPLACE TEMP TABLE change_keys AS
      SELECT coalesce(n.registrikood, o.registrikood) AS registrikood,
             CASE WHEN o.registrikood IS NULL THEN 'added' WHEN n.registrikood IS NULL THEN 'removed'
                  ELSE 'changed' END AS change
      FROM (${hashed(prev.companies)}) o FULL JOIN (${hashed(input.companies)}) n
        ON o.registrikood = n.registrikood
      WHERE o.h IS DISTINCT FROM n.h`);
    const which = fields.map((f) => `CASE WHEN o.${f} IS DISTINCT FROM n.${f} THEN '${f.slice(1, -1)}' END`);
    // to_json gives each value as the API writes it (dates as ISO text, lists and structs as JSON).
    const diff = fields.map(
      (f) => `CASE WHEN o.${f} IS DISTINCT FROM n.${f} THEN {'field': '${f.slice(1, -1)}',
        'before': to_json(o.${f})::VARCHAR, 'after': to_json(n.${f})::VARCHAR} END`,
    );
    // The changed rows are joined whole with plain equalities only: a one-sided condition in ON (such as
    // `AND k.change = 'changed'`) makes DuckDB plan a nested-loop join, which ran for over 10 minutes on
    // 1.16M changed NO rows.
    current = `SELECT k.registrikood, k.change, list_filter([${which.join(', ')}], x -> x IS NOT NULL) AS fields,
        r.snapshot_id, r.as_of, list_filter([${diff.join(', ')}], x -> x IS NOT NULL) AS diff
      FROM (SELECT * FROM change_keys WHERE change = 'changed') k CROSS JOIN change_run r
        JOIN ${forSale(prev.companies)} o ON o.registrikood = k.registrikood
        JOIN ${forSale(input.companies)} n ON n.registrikood = k.registrikood
      UNION ALL
      SELECT k.registrikood, k.change, []::VARCHAR[] AS fields, r.snapshot_id, r.as_of, []::${CHANGE_DIFF_TYPE} AS diff
      FROM (SELECT * FROM change_keys WHERE change <> 'changed') k CROSS JOIN change_run r`;
  }
  await conn.run(
    `COPY (SELECT * FROM (${history} UNION ALL ${current}) ORDER BY as_of, snapshot_id, registrikood)
     TO ${sqlPath(input.out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
  );
  const counts = await queryRows(
    conn,
    `SELECT count(*) FILTER (WHERE snapshot_id = (SELECT snapshot_id FROM change_run) AND change = 'added')::INTEGER AS added,
            count(*) FILTER (WHERE snapshot_id = (SELECT snapshot_id FROM change_run) AND change = 'removed')::INTEGER AS removed,
            count(*) FILTER (WHERE snapshot_id = (SELECT snapshot_id FROM change_run) AND change = 'changed')::INTEGER AS changed,
            count(*)::INTEGER AS rows
     FROM read_parquet(${sqlPath(input.out)})`,
  );
  await conn.run('DROP TABLE IF EXISTS change_keys');
  await conn.run('DROP TABLE IF EXISTS change_run');
  const c = counts[0] ?? {};
  return {
    since,
    added: Number(c['added'] ?? 0),
    removed: Number(c['removed'] ?? 0),
    changed: Number(c['changed'] ?? 0),
    rows: Number(c['rows'] ?? 0),
  };
}
