import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import type { CountryReference } from '../reference/types.ts';
import { PROFILES, WORLD_DATE } from './profiles/index.ts';
import { baseViewSql } from './sql/base.ts';
import { codeSql } from './sql/codes.ts';
import { companiesSql } from './sql/companies.ts';
import { createLatestMetrics } from '../pipeline/latest-metrics.ts';
import { hasHistorySql, historySql } from './sql/history.ts';
import { createWorldMacros } from './sql/macros.ts';
import { Pieces } from './sql/template.ts';
import { workplacesSql } from './sql/workplaces.ts';
import { buildWorldPlan, type ListColumn } from './world-lists.ts';

export interface WorldOptions {
  /** Multiplies every national row count (1 = real size); at most 2, where code ranges still fit. */
  scale: number;
  seed: number;
  reference: CountryReference;
}

export const MAX_SCALE = 2;

export function validateWorldOptions(scale: number, seed: number): void {
  if (!Number.isFinite(scale) || scale <= 0 || scale > MAX_SCALE) {
    throw new RangeError(`scale must be a number in (0, ${MAX_SCALE}], got ${scale}`);
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`seed must be a non-negative safe integer, got ${seed}`);
  }
}

/** Rows of a country at a scale; never zero, so even a tiny test world has every table. */
export function worldRowCount(country: CountryCode, scale: number): number {
  return Math.max(20, Math.round(PROFILES[country].total * scale));
}

async function loadLists(conn: DuckDBConnection, columns: readonly ListColumn[]): Promise<void> {
  // Lists arrive as JSON text (one bound parameter each) and are cast to their DuckDB type in SQL.
  const select = columns
    .map((c) =>
      c.type.endsWith(']')
        ? `$${c.name}::JSON::${c.type} AS ${c.name}`
        : `$${c.name}::${c.type} AS ${c.name}`,
    )
    .join(',\n  ');
  const params: Record<string, string | number> = {};
  for (const c of columns) {
    if (c.type.endsWith(']')) params[c.name] = JSON.stringify(c.value);
    else if (typeof c.value === 'string' || typeof c.value === 'number') params[c.name] = c.value;
    else throw new Error(`list column ${c.name}: scalar of unexpected type`);
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_lists AS SELECT\n  ${select}`, params);
}

/** Drops a table or view by name; DuckDB refuses DROP VIEW IF EXISTS on a table of that name. */
async function dropObject(conn: DuckDBConnection, name: string): Promise<void> {
  const found = await conn.runAndReadAll(
    `SELECT 'TABLE' AS kind FROM duckdb_tables() WHERE table_name = $name AND temporary
     UNION ALL SELECT 'VIEW' FROM duckdb_views() WHERE view_name = $name AND temporary`,
    { name },
  );
  for (const row of found.getRowObjects()) {
    await conn.run(`DROP ${row['kind'] === 'VIEW' ? 'VIEW' : 'TABLE'} ${name}`);
  }
}

async function dropStage(conn: DuckDBConnection): Promise<void> {
  // Views first: they may read the helper tables.
  for (const t of [
    'stage_workplaces',
    'stage_companies',
    'stage_history',
    'w_base',
    'stage_latest_metrics',
    'w_lists',
    'w_ids',
  ]) {
    await dropObject(conn, t);
  }
}

/**
 * Generates one country of the synthetic world into `conn`: stage_companies, stage_history (EE/LV/LT/NO)
 * and stage_workplaces (SE) as temp tables, with every contract column (see
 * src/contract/data-contract.ts); SE's company table also has a few `w_*` helper columns for the
 * workplaces. Deterministic in (country, scale, seed, reference): no clock, no random().
 */
export async function stageWorldCountry(
  conn: DuckDBConnection,
  country: CountryCode,
  opts: WorldOptions,
): Promise<{ source: string; sourceDetail: Record<string, unknown> }> {
  validateWorldOptions(opts.scale, opts.seed);
  const profile = PROFILES[country];
  const total = worldRowCount(country, opts.scale);
  const plan = buildWorldPlan(country, profile, opts.reference, total);
  const codes = codeSql(country, profile, plan);
  const withHistory = hasHistorySql(country);

  await dropStage(conn);
  // SQL first: compiling the templates collects the literal text that is bound with the lists.
  const pieces = new Pieces();
  const baseSql = baseViewSql(country, plan, codes, pieces);
  const companySql = companiesSql(country, plan, pieces, withHistory);
  const workplaceSql = COUNTRIES[country].workplaces ? workplacesSql(plan, pieces) : null;

  await loadLists(conn, [...plan.columns, { name: 'pieces', type: 'VARCHAR[]', value: pieces.list }]);
  await createWorldMacros(conn, opts.seed, COUNTRY_CODES.indexOf(country));
  // Row ids as a table, not range(): a table scan runs on every thread.
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_ids AS SELECT range AS i FROM range(${total})`);
  await conn.run(baseSql);
  if (withHistory) {
    await conn.run(historySql(country));
    await createLatestMetrics(conn);
  }
  await conn.run(companySql);
  if (workplaceSql) await conn.run(workplaceSql);
  await dropObject(conn, 'w_base');
  for (const t of ['stage_latest_metrics', 'w_lists', 'w_ids']) await dropObject(conn, t);

  return {
    source: 'synthetic-world',
    sourceDetail: {
      generator: 'ingest/world',
      seed: opts.seed,
      scale: opts.scale,
      world_date: WORLD_DATE,
      rows: total,
      families: plan.families.map((f) => ({ key: f.key, rows: f.count })),
      note: 'Synthetic data in the shape of the real register; no real company or person. See docs/world.md.',
    },
  };
}
