import { SWEDEN_SWEREF_BOUNDS as B } from '../geo.ts';
import type { WorldPlan } from '../world-lists.ts';
import { patternCase } from './companies.ts';
import { compileDigitPattern, type Pieces } from './template.ts';

/**
 * `stage_workplaces` (SE): SCB CFAR workplaces of companies that are still registered. Every such
 * company has exactly one main workplace (the first), where it is registered; trading companies get more
 * with size (a heavy tail: chains have hundreds). Sole traders are left out: their registrikood is ''
 * (spec 2.2), so their workplaces could never be asked for.
 *
 * Coordinates are the kommun seat (profiles/se-kommun-seats.ts) in SWEREF99 TM, jittered within ~8 km
 * and clamped to a box around Sweden. Postal and telephone blocks are flags; the values stay, and
 * serving nulls them (spec 2.5).
 */
const band = (e: string): string => `CASE WHEN ${e} IS NULL THEN 0 WHEN ${e} = 0 THEN 1 WHEN ${e} <= 4 THEN 2
  WHEN ${e} <= 9 THEN 3 WHEN ${e} <= 19 THEN 4 WHEN ${e} <= 49 THEN 5 WHEN ${e} <= 99 THEN 6 WHEN ${e} <= 199 THEN 7
  WHEN ${e} <= 499 THEN 8 WHEN ${e} <= 999 THEN 9 WHEN ${e} <= 1499 THEN 10 WHEN ${e} <= 1999 THEN 11
  WHEN ${e} <= 2999 THEN 12 WHEN ${e} <= 3999 THEN 13 WHEN ${e} <= 4999 THEN 14 WHEN ${e} <= 9999 THEN 15 ELSE 16 END`;

export function workplacesSql(plan: WorldPlan, pieces: Pieces): string {
  return `
CREATE OR REPLACE TEMP TABLE stage_workplaces AS
WITH c AS (
  SELECT registrikood, w_i AS i, w_loc AS loc, w_emp AS emp, w_operating AS operating, w_core AS core,
    w_domain AS domain, marketing_optout AS m_block, phone_optout AS p_block,
    list_transform(emtak, x -> x.kood) AS codes,
    CASE WHEN w_operating THEN 1 + least(300, floor(pow(w_emp, 0.85) / 2.0 * exp(0.5 * w_n(w_i, 'wpn')))::INTEGER
      + CASE WHEN w_u(w_i, 'wpx') < 0.5 THEN 1 ELSE 0 END) ELSE 1 END AS n_wp
  FROM stage_companies WHERE registrikood <> '' AND staatus <> 'K'
),
c2 AS (
  SELECT *, coalesce(sum(n_wp) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS wp_start
  FROM c
),
w0 AS (SELECT c2.*, unnest(range(n_wp)) AS k FROM c2),
w1 AS (
  SELECT w0.*, wp_start + k AS g,
    CASE WHEN k = 0 OR w_u2(i, k, 'wsame') < 0.55 THEN loc ELSE w_pick(L.loc_slots, w_u2(i, k, 'wloc')) END AS wloc,
    CASE WHEN n_wp = 1 THEN emp
      ELSE round(emp * CASE WHEN k = 0 THEN 0.45 ELSE 0.55 / (n_wp - 1) END * exp(0.3 * w_n2(i, k, 'we'))) END AS wemp,
    w_pick(L.streets, w_u2(i, k, 'wst')) || ' ' || (1 + floor(w_u2(i, k, 'wnr') * 150)::INTEGER)::VARCHAR AS street,
    ${compileDigitPattern(plan.postcode.format, plan.postcode.groups, "w_digits2(i, k, 'wpc')", pieces)} AS pc,
    8000 * sqrt(w_u2(i, k, 'wr')) AS r, 2 * pi() * w_u2(i, k, 'wt') AS t
  FROM w0, w_lists L
)
SELECT registrikood,
  w_bij(g, 10000000, 89999999, w_h(0, 'cfar') % 89999999)::INTEGER AS cfar_nr,
  CASE WHEN k = 0 THEN core ELSE core || ' ' || L.loc_name[wloc] END AS name,
  k = 0 AS is_main,
  operating AND (k = 0 OR w_u2(i, k, 'wact') > 0.05) AS is_active,
  street AS visit_address,
  pc AS visit_postcode,
  upper(L.loc_town[wloc]) AS visit_town,
  CASE WHEN w_u2(i, k, 'box') < 0.2 THEN 'Box ' || (100 + floor(w_u2(i, k, 'boxnr') * 9000)::INTEGER)::VARCHAR
    ELSE street END AS postal_address,
  pc AS postal_code,
  upper(L.loc_town[wloc]) AS postal_town,
  L.loc_kood[wloc] AS kommun_code,
  L.loc_name[wloc] AS kommun_name,
  codes AS activity_codes,
  CASE WHEN w_u2(i, k, 'wunk') < 0.03 THEN 0 ELSE ${band('wemp')} END AS employees_band_code,
  CASE WHEN w_u2(i, k, 'wtel') < 0.55
    THEN ${patternCase(plan.landline, "w_pick(L.tel_slots, w_u2(i, k, 'wtp'))", "w_digits2(i, k, 'wtd')", pieces)} END AS phone,
  CASE WHEN w_u2(i, k, 'wmail') < 0.25 THEN w_pick(L.mailboxes, w_u2(i, k, 'wmb')) || '@' || domain END AS email,
  greatest(${B.minN}, least(${B.maxN}, round(L.loc_n[wloc] + r * cos(t)))) AS sweref99tm_n,
  greatest(${B.minE}, least(${B.maxE}, round(L.loc_e[wloc] + r * sin(t)))) AS sweref99tm_e,
  m_block OR w_u2(i, k, 'wmblock') < 0.04 AS marketing_optout,
  p_block OR w_u2(i, k, 'wpblock') < 0.03 AS phone_optout
FROM w1, w_lists L`;
}
