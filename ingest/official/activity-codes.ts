import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlPath } from '../pipeline/sql.ts';
import type { CountryReference } from '../reference/types.ts';

/** The real correspondence tables (data/SOURCES.md). */
export const CORRESPONDENCE_FILES = {
  emtak2008to2025: fileURLToPath(new URL('../reference/data/emtak_2008_to_2025.csv', import.meta.url)),
  naceRev2toRev21: fileURLToPath(new URL('../reference/data/nace_rev2_to_rev21.csv', import.meta.url)),
} as const;

/**
 * Creates `activity_leaves(kood, label)`: the leaves of the tree the API serves for this country, with the
 * label in the register's language (what companies.emtak carries), so every adapter resolves codes and
 * labels against exactly what the audit checks; and `activity_forward(old, kood)`: codes of the retired
 * national edition mapped forward onto those leaves (ingest/reference/activity-forward.ts), the same map
 * the API applies to `industry_codes`.
 */
export async function createActivityLeaves(
  conn: DuckDBConnection,
  reference: CountryReference,
): Promise<void> {
  await conn.run('CREATE OR REPLACE TEMP TABLE activity_leaves (kood VARCHAR PRIMARY KEY, label VARCHAR)');
  const appender = await conn.createAppender('activity_leaves');
  for (const leaf of reference.activityLeaves) {
    appender.appendVarchar(leaf.kood);
    appender.appendVarchar(leaf.label);
    appender.endRow();
  }
  appender.closeSync();
  await conn.run('CREATE OR REPLACE TEMP TABLE activity_forward (old VARCHAR PRIMARY KEY, kood VARCHAR)');
  const forward = await conn.createAppender('activity_forward');
  for (const [old, kood] of reference.activityForward) {
    forward.appendVarchar(old);
    forward.appendVarchar(kood);
    forward.endRow();
  }
  forward.closeSync();
}

/**
 * A correspondence (old code → new codes, in the table's order) resolved to one served leaf per old code.
 * When a code splits, the successor with the same code is taken if there is one (the code kept its main
 * content), else the first successor in the table that is a leaf of the served tree. `leafOf` turns a
 * table code into the tree's spelling (LT dots its codes).
 */
async function resolvedCorrespondence(
  conn: DuckDBConnection,
  table: string,
  file: string,
  oldColumn: string,
  newColumn: string,
  leafOf: string,
): Promise<void> {
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${table} AS
     WITH pairs AS (
       SELECT "${oldColumn}" AS old, "${newColumn}" AS new, row_number() OVER () AS ord
       FROM read_csv(${sqlPath(file)}, header = true, auto_detect = false, delim = ',', quote = '"',
                     columns = {'${oldColumn}': 'VARCHAR', '${newColumn}': 'VARCHAR', 'extra': 'VARCHAR'})
     ), served AS (
       SELECT p.old, p.new, p.ord, l.kood FROM pairs p JOIN activity_leaves l ON l.kood = ${leafOf}
     )
     SELECT old, arg_min(kood, (CASE WHEN new = old THEN 0 ELSE 1 END, ord)) AS kood
     FROM served GROUP BY old`,
  );
}

/** EE: `ee_emtak2008(old, kood)`: EMTAK 2008 codes (emtak_versioon 2) onto EMTAK 2025 leaves. */
export async function createEmtakCorrespondence(conn: DuckDBConnection): Promise<void> {
  await resolvedCorrespondence(
    conn,
    'ee_emtak2008',
    CORRESPONDENCE_FILES.emtak2008to2025,
    'emtak2008',
    'emtak2025',
    'p.new',
  );
}

/**
 * LV and LT: `nace_rev2(old, kood)`, NACE Rev. 2 classes (4 digits, undotted) onto the served Rev. 2.1
 * leaves. `dotted` for LT, whose tree writes `62.10`.
 */
export async function createNaceCorrespondence(conn: DuckDBConnection, dotted: boolean): Promise<void> {
  await resolvedCorrespondence(
    conn,
    'nace_rev2',
    CORRESPONDENCE_FILES.naceRev2toRev21,
    'rev2',
    'rev21',
    dotted ? `substr(p.new, 1, 2) || '.' || substr(p.new, 3)` : 'p.new',
  );
}

/** SQL: a NACE code as registers write it (`6201`, `62.01`, `620100`, `62.01.00`, `6201  `) → 4 digits. */
export function naceClassSql(expr: string): string {
  return `nullif(left(regexp_replace(coalesce(${expr}, ''), '[^0-9]', '', 'g'), 4), '')`;
}

/** SQL: 4 undotted digits → the LT tree's dotted spelling. */
export function dottedSql(expr: string): string {
  return `(substr(${expr}, 1, 2) || '.' || substr(${expr}, 3, 2))`;
}

/**
 * `location_leaves(kood, name, county)`: the location leaves a company row may carry (EE EHAK, LV ATVK, NO
 * kommunenummer, FI kunta), so an adapter keeps only codes the reference resolves and takes the name it
 * uses; `county` is the top of the leaf's path (NO fylke, FI maakunta), which addresses end with.
 */
export async function createLocationLeaves(
  conn: DuckDBConnection,
  reference: CountryReference,
): Promise<void> {
  await conn.run(
    'CREATE OR REPLACE TEMP TABLE location_leaves (kood VARCHAR PRIMARY KEY, name VARCHAR, county VARCHAR)',
  );
  const appender = await conn.createAppender('location_leaves');
  for (const leaf of reference.locationLeaves) {
    if (leaf.kood === null) continue;
    appender.appendVarchar(leaf.kood);
    appender.appendVarchar(leaf.name);
    const county = leaf.path[0];
    if (county === undefined) appender.appendNull();
    else appender.appendVarchar(county);
    appender.endRow();
  }
  appender.closeSync();
}
