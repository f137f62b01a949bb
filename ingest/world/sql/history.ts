import type { CountryCode } from '../../../src/contract/countries.ts';

/**
 * `stage_history` per spec 2.4 coverage, from `w_base`. The latest figures are then derived from it by
 * ingest/pipeline/latest-metrics.ts, the same definition the ingest uses (test/world recomputes them
 * independently).
 *
 * Growth over long spans uses a clipped rate so twenty years of compounding stays plausible.
 */

const HG = 'greatest(-0.12, least(0.25, g))';

const historySelect: Partial<Record<CountryCode, string>> = {
  // EMTA quarterly files, 2025 Q1 to 2026 Q3 (the newest published by the world date). Turnover is VAT
  // turnover, so only VAT payers have it; a missing quarter is empty, not zero.
  EE: `
WITH s AS (
  SELECT registrikood, i, reg_date, emp, rev_base, g, vat_active FROM w_base
  WHERE operating AND (vat_active OR emp > 0)
),
q AS (
  SELECT k, 2025 + k // 4 AS y, k % 4 + 1 AS qq, last_day(make_date(2025 + k // 4, (k % 4 + 1) * 3, 1)) AS q_end
  FROM range(7) r(k)
),
r AS (
  SELECT s.registrikood, s.i, q.k, q.y, q.qq, q.q_end,
    CASE WHEN s.vat_active AND w_u2(s.i, q.k, 'tmiss') > 0.04 THEN round(s.rev_base / 4.0
      * pow(1 + ${HG}, (q.k - 3) / 4.0) * [0.9, 1.02, 1.0, 1.08][q.qq]
      * least(1.0, greatest(0.1, datediff('day', s.reg_date, q.q_end) / 91.0))
      * exp(0.18 * w_n2(s.i, q.k, 'tq')), 2) END AS turnover,
    CASE WHEN w_u2(s.i, q.k, 'emiss') > 0.03
      THEN greatest(0, round(s.emp * exp(0.12 * w_n2(s.i, q.k, 'eq')))) END AS employees
  FROM s JOIN q ON q.q_end >= s.reg_date
)
SELECT registrikood, y::VARCHAR || '-Q' || qq::VARCHAR AS period, 'quarterly' AS granularity,
  y AS "year", qq AS quarter, 0 AS "month", turnover, employees,
  round(coalesce(employees, 0) * 1950 * 3 * 0.52 * exp(0.1 * w_n2(i, k, 'lab'))
    + coalesce(turnover, 0) * 0.035 * exp(0.2 * w_n2(i, k, 'st')), 2) AS state_taxes,
  round(coalesce(employees, 0) * 1950 * 3 * 0.52 * exp(0.1 * w_n2(i, k, 'lab')), 2) AS labour_taxes,
  q_end AS as_of
FROM r WHERE turnover IS NOT NULL OR employees IS NOT NULL`,

  // UR annual reports 2006-2025: turnover and employees per filed year; closed companies keep the
  // reports of the years they traded. Some years are missing (not filed).
  LV: `
WITH s AS (
  SELECT registrikood, i, reg_date, emp_base, rev_base, g, end_year FROM w_base
  WHERE operating OR staatus IN ('L', 'N') OR (staatus = 'K' AND w_u(i, 'khist') < 0.6)
),
y AS (SELECT y FROM range(2006, 2026) r(y))
SELECT registrikood, y.y::VARCHAR AS period, 'annual' AS granularity, y.y AS "year", 0 AS quarter, 0 AS "month",
  round(s.rev_base * pow(1 + ${HG}, y.y - 2025) * exp(0.2 * w_n2(s.i, y.y, 'lvt'))) AS turnover,
  CASE WHEN w_u2(s.i, y.y, 'lvem') < 0.93
    THEN greatest(0, round(s.emp_base * pow(1 + ${HG} * 0.6, y.y - 2025) * exp(0.15 * w_n2(s.i, y.y, 'lve')))) END AS employees,
  NULL::DOUBLE AS state_taxes, NULL::DOUBLE AS labour_taxes, make_date(y.y, 12, 31) AS as_of
FROM s JOIN y ON y.y >= greatest(2006, year(s.reg_date)) AND y.y <= least(2025, s.end_year - 1)
WHERE w_u2(s.i, y.y, 'lvmiss') < 0.9`,

  // Sodra monthly insured persons for 2021-2023 and 2025 (2024 missing at the source); RC annual turnover
  // (dense 2021+, sparse 2015-2020) with VMI annual taxes; 2026 taxes so far as year_to_date. A turnover
  // row's as_of is the end of the company's financial year.
  LT: `
WITH s AS (
  SELECT registrikood, i, reg_date, emp_base, rev_base, g,
    CASE WHEN w_u(i, 'fy') < 0.85 THEN 12 WHEN w_u(i, 'fy') < 0.9 THEN 3 WHEN w_u(i, 'fy') < 0.95 THEN 6 ELSE 9 END AS fy_month
  FROM w_base WHERE operating OR staatus IN ('L', 'N', 'T')
),
months AS (
  SELECT k, CASE WHEN k < 36 THEN 2021 + k // 12 ELSE 2025 END AS y, k % 12 + 1 AS m FROM range(48) r(k)
),
monthly AS (
  SELECT registrikood, y::VARCHAR || '-' || lpad(m::VARCHAR, 2, '0') AS period, 'monthly' AS granularity,
    y AS "year", 0 AS quarter, m AS "month", NULL::DOUBLE AS turnover,
    greatest(0, round(s.emp_base * pow(1 + ${HG}, y + (m - 6) / 12.0 - 2025) * exp(0.08 * w_n2(s.i, k, 'ltm')))) AS employees,
    NULL::DOUBLE AS state_taxes, NULL::DOUBLE AS labour_taxes, last_day(make_date(y, m, 1)) AS as_of
  FROM s JOIN months ON last_day(make_date(y, m, 1)) >= s.reg_date
  WHERE s.emp_base > 0
),
annual AS (
  SELECT registrikood, y::VARCHAR AS period, 'annual' AS granularity, y AS "year", 0 AS quarter, 0 AS "month",
    round(s.rev_base * pow(1 + ${HG}, y - 2025) * exp(0.2 * w_n2(s.i, y, 'ltt'))) AS turnover,
    NULL::DOUBLE AS employees,
    round(s.rev_base * pow(1 + ${HG}, y - 2025) * 0.06 * exp(0.3 * w_n2(s.i, y, 'ltx')), 2) AS state_taxes,
    NULL::DOUBLE AS labour_taxes,
    last_day(make_date(y, s.fy_month, 1)) AS as_of
  FROM s JOIN range(2015, 2026) r(y) ON y > year(s.reg_date)
  WHERE (y >= 2021 AND w_u2(s.i, y, 'ltann') < 0.95) OR (y < 2021 AND w_u2(s.i, y, 'ltann') < 0.3)
),
ytd AS (
  SELECT registrikood, '2026' AS period, 'year_to_date' AS granularity, 2026 AS "year", 0 AS quarter, 0 AS "month",
    NULL::DOUBLE AS turnover, NULL::DOUBLE AS employees,
    round(s.rev_base * pow(1 + ${HG}, 1) * 0.06 * 0.75 * exp(0.3 * w_n2(s.i, 2026, 'ltx')), 2) AS state_taxes,
    NULL::DOUBLE AS labour_taxes, DATE '2026-09-30' AS as_of
  FROM s WHERE s.reg_date < DATE '2026-09-01'
)
SELECT * FROM monthly UNION ALL SELECT * FROM annual UNION ALL SELECT * FROM ytd`,

  // Enhetsregisteret antallAnsatte: one snapshot per employer, dated when the count was last registered,
  // and a count of 0 for some units without employees (BRREG writes `0` beside harRegistrertAntallAnsatte
  // false: a real zero, issue 28); the other units have no count.
  NO: `
SELECT registrikood, year(as_of)::VARCHAR AS period, 'snapshot' AS granularity, year(as_of) AS "year",
  0 AS quarter, 0 AS "month", NULL::DOUBLE AS turnover, emp::DOUBLE AS employees,
  NULL::DOUBLE AS state_taxes, NULL::DOUBLE AS labour_taxes, as_of
FROM (
  SELECT registrikood, emp, greatest(reg_date, DATE '2025-01-01' + floor(w_u(i, 'nosnap') * 668)::INTEGER) AS as_of
  FROM w_base WHERE operating AND (emp > 0 OR w_u(i, 'nozero') < 0.3)
)`,
};

export function hasHistorySql(country: CountryCode): boolean {
  return historySelect[country] !== undefined;
}

export function historySql(country: CountryCode): string {
  const select = historySelect[country];
  if (!select) throw new Error(`${country} has no history series`);
  return `CREATE OR REPLACE TEMP TABLE stage_history AS
SELECT registrikood, period, granularity, "year"::INTEGER AS "year", quarter::INTEGER AS quarter,
  "month"::INTEGER AS "month", turnover::DOUBLE AS turnover, employees::INTEGER AS employees,
  state_taxes::DOUBLE AS state_taxes, labour_taxes::DOUBLE AS labour_taxes, as_of::DATE AS as_of
FROM (${select})`;
}
