import type { StageResult } from '../pipeline/publish.ts';
import { createLatestMetrics, METRIC_VALUES } from '../pipeline/latest-metrics.ts';
import {
  createActivityLeaves,
  createEmtakCorrespondence,
  createLocationLeaves,
  createNaceCorrespondence,
} from './activity-codes.ts';
import { contractCompaniesSql, createEmptyHistory } from './stage-sql.ts';
import type { StageContext } from './types.ts';

/** One named step of a country's stage; what it returns goes into the manifest's source_detail. */
export type StageStep = (ctx: StageContext) => Promise<Readonly<Record<string, unknown>> | void>;

/**
 * A stage made of named steps run in order, so that its list reads as the table of contents of the
 * country's ingest. The served activity and location leaves of the country's reference (activity_leaves,
 * location_leaves) are there before the first step. `detail` (the register and the reader) and what the
 * steps return make the source detail.
 */
export function stageSteps(
  detail: Readonly<Record<string, unknown>>,
  steps: readonly StageStep[],
): (ctx: StageContext) => Promise<StageResult> {
  return async (ctx) => {
    await createActivityLeaves(ctx.conn, ctx.reference);
    await createLocationLeaves(ctx.conn, ctx.reference);
    const sourceDetail = { ...detail };
    for (const step of steps) Object.assign(sourceDetail, await step(ctx));
    return { source: 'official-files', sourceDetail };
  };
}

/* The correspondence tables of superseded code editions (activity-codes.ts), as steps. */
export const emtakCorrespondence: StageStep = ({ conn }) => createEmtakCorrespondence(conn);
export const naceCorrespondence =
  (dotted: boolean): StageStep =>
  ({ conn }) =>
    createNaceCorrespondence(conn, dotted);

/** How a country's stage_companies is made: the contract `values` over `from`, and what else it needs. */
export interface CompaniesSpec {
  /** SQL of each contract column the country has (stage-sql.ts contractCompaniesSql). */
  values: Readonly<Record<string, string>>;
  from: string;
  /** Make stage_latest_metrics from stage_history first; `from` joins it as `m`. */
  latestMetrics?: boolean;
  /** The country has no history series (spec: granularity none): stage_history is left empty. */
  noHistory?: boolean;
  /** Columns that are unknown (NULL), not false, when the optional file of a key is absent. */
  unknownWithout?: Readonly<Record<string, readonly string[]>>;
}

/** `from`'s joins of the country's per-code tables, `{ alias: table }` in join order. */
export const joinsByCode = (tables: Readonly<Record<string, string>>): string =>
  Object.entries(tables)
    .map(([alias, table]) => `LEFT JOIN ${table} ${alias} USING (code)`)
    .join('\n    ');

/** How `from` joins stage_latest_metrics (`latestMetrics`) as `m`, by the register's code. */
export const LATEST_METRICS_JOIN = 'LEFT JOIN stage_latest_metrics m ON m.registrikood = r.code';

/** How `from` joins a country's place table (`code`, `kood`) as `pl`, and its location leaf as `loc`. */
export const placeJoin = (table: string): string =>
  `LEFT JOIN ${table} pl USING (code) LEFT JOIN location_leaves loc ON loc.kood = pl.kood`;

/** The `build companies` stage of a country's CompaniesSpec. */
export function buildCompanies(spec: CompaniesSpec): StageStep {
  return async (ctx) => {
    const { conn } = ctx;
    const columns: Record<string, string> = { ...spec.values, ...(spec.latestMetrics && METRIC_VALUES) };
    for (const [key, unknown] of Object.entries(spec.unknownWithout ?? {})) {
      if (!ctx.has(key)) for (const column of unknown) columns[column] = 'NULL';
    }
    if (spec.noHistory) await createEmptyHistory(conn);
    await ctx.stage('build companies', async () => {
      if (spec.latestMetrics) await createLatestMetrics(conn);
      await conn.run(contractCompaniesSql(columns, spec.from));
    });
  };
}
