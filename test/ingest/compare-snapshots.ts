import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import { COMPANY_COLUMNS, HISTORY_COLUMNS } from '../../src/contract/data-contract.ts';

/**
 * What the official files carry, per country: the companies columns compared between the world snapshot
 * and the snapshot ingested from the world's official files. A column is compared as is, through a
 * normalising expression (applied to both sides, `x` is the column), or left out because no official file
 * carries it (docs/ingest.md lists these with the reason).
 */
export interface FieldRule {
  /** SQL on a side aliased `x` (e.g. only the register's own contacts); default: the column itself. */
  expr?: string;
  /** SQL condition on the world row (`w`) and the ingested row (`i`) limiting which rows are compared. */
  where?: string;
}

export type CountryRules = Record<string, FieldRule | 'not carried'>;

export const CARRIED: Partial<Record<CountryCode, CountryRules>> = {
  EE: {
    // Role mailboxes read from the company's own website (source own_site) are not in any register file.
    contacts: { expr: 'list_filter(x.contacts, c -> c."source" IS NULL)' },
    registered_domains: 'not carried',
    // RIK blanks the VAT number of sole traders (it would identify a person), so their VAT status is lost.
    vat_active: { where: 'NOT w.is_sole_trader' },
  },
  LV: {
    kapital: 'not carried',
    kapital_amount: 'not carried',
    kapital_currency: 'not carried',
    contacts: 'not carried',
    // Only the main activity is published (VID's Pamatdarbibas_NACE_kods), for commercial taxpayers.
    emtak: { expr: 'x.emtak[1:1]', where: 'len(i.emtak) > 0' },
  },
  LT: {
    kapital: 'not carried',
    kapital_amount: 'not carried',
    kapital_currency: 'not carried',
    contacts: 'not carried',
  },
};

export interface ColumnDiff {
  column: string;
  compared: number;
  different: number;
  examples: Record<string, unknown>[];
}

export interface CompareResult {
  worldRows: number;
  ingestedRows: number;
  missing: number;
  extra: number;
  columns: ColumnDiff[];
  history: { worldRows: number; ingestedRows: number; missing: number; extra: number; columns: ColumnDiff[] };
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

const q = (name: string) => `"${name}"`;

/** Compares one country of two snapshot folders (`<dir>/<CC>/companies.parquet` and history). */
export async function compareCountry(
  conn: DuckDBConnection,
  country: CountryCode,
  worldDir: string,
  ingestedDir: string,
): Promise<CompareResult> {
  const rules = CARRIED[country] ?? {};
  const file = (dir: string, f: string) => `'${path.join(dir, country, f).replaceAll("'", "''")}'`;
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW cw AS SELECT * FROM read_parquet(${file(worldDir, 'companies.parquet')})`,
  );
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW ci AS SELECT * FROM read_parquet(${file(ingestedDir, 'companies.parquet')})`,
  );
  const counts = (
    await rows(
      conn,
      `SELECT (SELECT count(*) FROM cw)::INTEGER AS w, (SELECT count(*) FROM ci)::INTEGER AS i,
         (SELECT count(*) FROM cw ANTI JOIN ci USING (registrikood))::INTEGER AS missing,
         (SELECT count(*) FROM ci ANTI JOIN cw USING (registrikood))::INTEGER AS extra`,
    )
  )[0]!;
  const columns: ColumnDiff[] = [];
  for (const c of COMPANY_COLUMNS) {
    const rule = rules[c.name];
    if (rule === 'not carried' || c.name === 'registrikood') continue;
    const expr = (side: 'w' | 'i') => (rule?.expr ?? `x.${q(c.name)}`).replaceAll('x.', `${side}.`);
    const where = rule?.where ?? 'true';
    const r = (
      await rows(
        conn,
        `SELECT count(*)::INTEGER AS compared,
           count(*) FILTER (WHERE ${expr('w')} IS DISTINCT FROM ${expr('i')})::INTEGER AS different
         FROM cw w JOIN ci i USING (registrikood) WHERE ${where}`,
      )
    )[0]!;
    const examples =
      Number(r['different']) > 0
        ? await rows(
            conn,
            `SELECT w.registrikood, ${expr('w')} AS world, ${expr('i')} AS ingested
             FROM cw w JOIN ci i USING (registrikood)
             WHERE ${where} AND ${expr('w')} IS DISTINCT FROM ${expr('i')} LIMIT 3`,
          )
        : [];
    columns.push({
      column: c.name,
      compared: Number(r['compared']),
      different: Number(r['different']),
      examples,
    });
  }

  const key = ['registrikood', 'granularity', 'year', 'quarter', 'month'];
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW hw AS SELECT * FROM read_parquet(${file(worldDir, 'history.parquet')})`,
  );
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW hi AS SELECT * FROM read_parquet(${file(ingestedDir, 'history.parquet')})`,
  );
  const using = `USING (${key.map(q).join(', ')})`;
  const hCounts = (
    await rows(
      conn,
      `SELECT (SELECT count(*) FROM hw)::INTEGER AS w, (SELECT count(*) FROM hi)::INTEGER AS i,
         (SELECT count(*) FROM hw ANTI JOIN hi ${using})::INTEGER AS missing,
         (SELECT count(*) FROM hi ANTI JOIN hw ${using})::INTEGER AS extra`,
    )
  )[0]!;
  const hColumns: ColumnDiff[] = [];
  for (const c of HISTORY_COLUMNS) {
    if (key.includes(c.name)) continue;
    const r = (
      await rows(
        conn,
        `SELECT count(*)::INTEGER AS compared,
           count(*) FILTER (WHERE w.${q(c.name)} IS DISTINCT FROM i.${q(c.name)})::INTEGER AS different
         FROM hw w JOIN hi i ${using}`,
      )
    )[0]!;
    const examples =
      Number(r['different']) > 0
        ? await rows(
            conn,
            `SELECT ${key.map((k) => `w.${q(k)}`).join(', ')}, w.${q(c.name)} AS world, i.${q(c.name)} AS ingested
             FROM hw w JOIN hi i ${using} WHERE w.${q(c.name)} IS DISTINCT FROM i.${q(c.name)} LIMIT 3`,
          )
        : [];
    hColumns.push({
      column: c.name,
      compared: Number(r['compared']),
      different: Number(r['different']),
      examples,
    });
  }
  return {
    worldRows: Number(counts['w']),
    ingestedRows: Number(counts['i']),
    missing: Number(counts['missing']),
    extra: Number(counts['extra']),
    columns,
    history: {
      worldRows: Number(hCounts['w']),
      ingestedRows: Number(hCounts['i']),
      missing: Number(hCounts['missing']),
      extra: Number(hCounts['extra']),
      columns: hColumns,
    },
  };
}
