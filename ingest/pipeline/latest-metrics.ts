import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * `stage_latest_metrics`: the per-company latest figures derived from stage_history, for latest_metrics and
 * the last_quarter_* columns, by the rules of the data contract (docs/data-contract.md, spec 2.3):
 * - turnover / employees period: the history row with the newest as_of among rows carrying the figure
 *   (ties: newer year, quarter, month);
 * - top-level year/quarter/month: of whichever period is newer (turnover on a tie);
 * - last-4-quarters sum: the four quarters ending at the turnover period for quarterly series (EE); for an
 *   annual series (LV, LT) the latest annual total, itself a trailing four-quarter figure;
 * - growth: against the previous quarter (EE) or the previous year (LV, LT); null when that is missing or 0.
 * The world generator and every ingest adapter call this one definition, so the two cannot drift.
 */
export async function createLatestMetrics(conn: DuckDBConnection): Promise<void> {
  await conn.run(`
CREATE OR REPLACE TEMP TABLE stage_latest_metrics AS
WITH tp AS (
  SELECT DISTINCT ON (registrikood) registrikood, "year" AS tp_year, quarter AS tp_quarter, "month" AS tp_month,
    as_of AS tp_as_of, turnover AS tp_turnover, granularity AS tp_gran, "year" * 4 + quarter AS tp_qidx
  FROM stage_history WHERE turnover IS NOT NULL
  ORDER BY registrikood, as_of DESC, "year" DESC, quarter DESC, "month" DESC
),
ep AS (
  SELECT DISTINCT ON (registrikood) registrikood, "year" AS ep_year, quarter AS ep_quarter, "month" AS ep_month,
    as_of AS ep_as_of, employees AS ep_employees
  FROM stage_history WHERE employees IS NOT NULL
  ORDER BY registrikood, as_of DESC, "year" DESC, quarter DESC, "month" DESC
),
prev AS (
  SELECT tp.registrikood, any_value(h.turnover) AS prev_turnover
  FROM tp JOIN stage_history h ON h.registrikood = tp.registrikood AND h.granularity = tp.tp_gran
    AND ((tp.tp_gran = 'quarterly' AND h."year" * 4 + h.quarter = tp.tp_qidx - 1)
      OR (tp.tp_gran = 'annual' AND h."year" = tp.tp_year - 1))
  GROUP BY tp.registrikood
),
s4 AS (
  SELECT tp.registrikood, sum(h.turnover) AS sum4
  FROM tp JOIN stage_history h ON h.registrikood = tp.registrikood AND tp.tp_gran = 'quarterly'
    AND h.granularity = 'quarterly' AND h."year" * 4 + h.quarter BETWEEN tp.tp_qidx - 3 AND tp.tp_qidx
  GROUP BY tp.registrikood
),
k AS (SELECT registrikood FROM tp UNION SELECT registrikood FROM ep)
SELECT k.registrikood,
  tp.tp_turnover AS last_quarter_turnover,
  ep.ep_employees AS last_quarter_employees_number,
  -- Rounded to the cent: a sum of four cent amounts, without the float noise of the addition order.
  CASE WHEN tp.tp_gran = 'quarterly' THEN round(s4.sum4, 2) WHEN tp.tp_gran = 'annual' THEN tp.tp_turnover END
    AS last_4_quarters_turnover_sum,
  CASE WHEN prev.prev_turnover IS NOT NULL AND prev.prev_turnover <> 0
    THEN (tp.tp_turnover - prev.prev_turnover) / abs(prev.prev_turnover) * 100 END AS last_quarter_turnover_growth_pct,
  {
    "year": CASE WHEN ep.ep_as_of IS NULL OR tp.tp_as_of >= ep.ep_as_of THEN tp.tp_year ELSE ep.ep_year END,
    quarter: CASE WHEN ep.ep_as_of IS NULL OR tp.tp_as_of >= ep.ep_as_of THEN tp.tp_quarter ELSE ep.ep_quarter END,
    "month": CASE WHEN ep.ep_as_of IS NULL OR tp.tp_as_of >= ep.ep_as_of THEN tp.tp_month ELSE ep.ep_month END,
    turnover: tp.tp_turnover,
    employees: ep.ep_employees,
    turnover_period: CASE WHEN tp.tp_as_of IS NOT NULL
      THEN {"year": tp.tp_year, quarter: tp.tp_quarter, "month": tp.tp_month, as_of: tp.tp_as_of} END,
    employees_period: CASE WHEN ep.ep_as_of IS NOT NULL
      THEN {"year": ep.ep_year, quarter: ep.ep_quarter, "month": ep.ep_month, as_of: ep.ep_as_of} END
  } AS latest_metrics
FROM k LEFT JOIN tp USING (registrikood) LEFT JOIN ep USING (registrikood)
  LEFT JOIN prev USING (registrikood) LEFT JOIN s4 USING (registrikood)`);
}

/** Contract columns read from stage_latest_metrics (joined as `m`). */
export const METRIC_VALUES = {
  last_quarter_turnover: 'm.last_quarter_turnover',
  last_quarter_employees_number: 'm.last_quarter_employees_number',
  last_4_quarters_turnover_sum: 'm.last_4_quarters_turnover_sum',
  last_quarter_turnover_growth_pct: 'm.last_quarter_turnover_growth_pct',
  latest_metrics: 'm.latest_metrics',
} as const;
