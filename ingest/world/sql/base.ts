import type { CountryCode } from '../../../src/contract/countries.ts';
import { WORLD_DATE } from '../profiles/index.ts';
import type { WorldPlan } from '../world-lists.ts';
import type { CodeSql } from './codes.ts';
import { compileTemplate, slugify, type Pieces } from './template.ts';

/**
 * `w_base`: one row per company with every per-row draw the later steps share (family, form, status,
 * dates, place, activity, size, money, name parts, codes). A view, so the big countries never hold it in
 * memory: DuckDB prunes the columns each consumer does not read and computes the rest while streaming.
 *
 * Money is in the country's currency. `emp_base` / `rev_base` are the company's size as if it traded
 * (history of companies that later closed uses them); `emp` / `rev` are zero / null unless it trades now.
 * Word picks are kept as list positions so the name and its ASCII slug (for domains and mailboxes,
 * built in sql/companies.ts only for the rows that need one) come from the same draw.
 */
export function nameCase(plan: WorldPlan, pieces: Pieces, slug: boolean): string {
  // The slug variant reads each word list's `_slug` twin and joins stem halves without the joiner.
  const sfx = slug ? '_slug' : '';
  const tokens = {
    stem: slug
      ? `L.stem_head_slug[h_idx] || L.stem_tail_slug[t_idx]`
      : `L.stem_head[h_idx] || L.stem_joiner || L.stem_tail[t_idx]`,
    head: `L.stem_head${sfx}[h_idx]`,
    biz: `L.biz${sfx}[b_idx]`,
    first: `first0${sfx}`,
    last: `last0${sfx}`,
    town: `L.loc_town${sfx}[loc]`,
    street: `L.streets${sfx}[s_idx]`,
    nr: `nr::VARCHAR`,
    assoc: `L.assoc${sfx}[a_idx]`,
  };
  const branches = plan.templates.map(
    (t, k) => `WHEN ${k + 1} THEN ${compileTemplate(t.template, tokens, pieces, slug ? slugify : undefined)}`,
  );
  return `CASE tpl ${branches.join('\n      ')} END`;
}

export function baseViewSql(country: CountryCode, plan: WorldPlan, codes: CodeSql, pieces: Pieces): string {
  const famCase =
    plan.families.length === 1
      ? '1'
      : `CASE ${plan.families
          .slice(1)
          .map((f, k) => `WHEN i < ${f.start} THEN ${k + 1}`)
          .join(' ')} ELSE ${plan.families.length} END`;
  const world = `DATE '${WORLD_DATE}'`;
  const stage = (items: string[], from: string, to: string): string =>
    items.length === 0
      ? `${to} AS (SELECT * FROM ${from})`
      : `${to} AS (SELECT ${from}.*, ${items.join(', ')} FROM ${from}${items.some((x) => x.includes('L.')) ? ', w_lists L' : ''})`;
  return `
CREATE OR REPLACE TEMP VIEW w_base AS
WITH b0 AS (
  SELECT i, ${famCase} AS fam FROM w_ids
),
b1 AS (
  SELECT b0.i, b0.fam, b0.i - L.fam_start[b0.fam] AS li,
    w_pickn(L.fam_form_slots, L.fam_form_slots_off[b0.fam], L.fam_form_slots_len[b0.fam], w_u(b0.i, 'form')) AS form,
    w_pickn(L.fam_status_slots, L.fam_status_slots_off[b0.fam], L.fam_status_slots_len[b0.fam], w_u(b0.i, 'status')) AS st,
    w_pick(L.act_slots, w_u(b0.i, 'act')) AS act,
    w_pick(L.loc_slots, w_u(b0.i, 'loc')) AS loc,
    w_u2(b0.i, 0, 'sex') < 0.6 AS male0
  FROM b0, w_lists L
),
b2 AS (
  SELECT b1.*,
    L.st_code[st] AS staatus, L.st_source[st] AS source_status, L.st_text[st] AS staatus_tekstina,
    L.form_sole[form] AS sole, L.form_style[form] AS style, L.act_sector[act] AS sector,
    L.fam_first[fam] AS reg_lo,
    coalesce(L.fam_last[fam], ${world} - 20) AS reg_hi,
    floor(-ln(1.0 - w_u(i, 'age')) * L.fam_mean_age_days[fam]
      * CASE WHEN L.st_code[st] = 'K' THEN 1.3 ELSE 1.0 END)::INTEGER AS age_days,
    (L.st_code[st] = 'R' AND w_u(i, 'oper') < L.operating_share)
      OR (L.st_code[st] = 'T' AND w_u(i, 'oper') < 0.8) AS operating,
    greatest(0, least(L.max_employees,
      CASE WHEN w_u(i, 'tail') < 0.003
        THEN floor(15.0 * pow(1.0 - w_u(i, 'pareto'), -1.0 / 1.1))
        ELSE floor(exp(0.45 + 1.15 * (w_n(i, 'size') + L.form_size_shift[form]))) - 1 END))::INTEGER AS emp_base,
    L.act_prod[act] * L.eur_rate * exp(0.9 * w_n(i, 'rev') - 0.4) AS prod,
    greatest(-0.5, least(0.8, 0.04 + 0.12 * w_n(i, 'growth'))) AS g,
    w_pickn(L.tpl_slots, L.tpl_slots_off[L.form_style[form]], L.tpl_slots_len[L.form_style[form]], w_u(i, 'tpl')) AS tpl,
    1 + floor(w_u(i, 'head') * len(L.stem_head))::BIGINT AS h_idx,
    1 + floor(w_u(i, 'tail2') * len(L.stem_tail))::BIGINT AS t_idx,
    L.biz_off[L.act_sector[act]] + 1 + floor(w_u(i, 'biz') * L.biz_len[L.act_sector[act]])::BIGINT AS b_idx,
    1 + floor(w_u(i, 'nstreet') * len(L.streets))::BIGINT AS s_idx,
    1 + floor(w_u(i, 'assoc') * len(L.assoc))::BIGINT AS a_idx,
    1 + floor(w_u(i, 'nnr') * 120)::INTEGER AS nr,
    1 + floor(w_u2(i, 0, 'first') * CASE WHEN male0 THEN len(L.first_m) ELSE len(L.first_f) END)::BIGINT AS f_idx,
    1 + floor(w_u2(i, 0, 'last') * CASE WHEN male0 THEN len(L.last_m) ELSE len(L.last_f) END)::BIGINT AS l_idx
  FROM b1, w_lists L
),
b3 AS (
  SELECT b2.*,
    CASE WHEN reg_hi - age_days >= reg_lo THEN reg_hi - age_days
      ELSE reg_lo + floor(w_u(i, 'reg2') * datediff('day', reg_lo, reg_hi))::INTEGER END AS reg_date,
    CASE WHEN operating THEN emp_base ELSE 0 END AS emp,
    round((emp_base + 0.4) * prod) AS rev_base,
    CASE WHEN male0 THEN L.first_m[f_idx] ELSE L.first_f[f_idx] END AS first0,
    CASE WHEN male0 THEN L.last_m[l_idx] ELSE L.last_f[l_idx] END AS last0,
    CASE WHEN male0 THEN L.first_m_slug[f_idx] ELSE L.first_f_slug[f_idx] END AS first0_slug,
    CASE WHEN male0 THEN L.last_m_slug[l_idx] ELSE L.last_f_slug[l_idx] END AS last0_slug
  FROM b2, w_lists L
),
b4 AS (
  SELECT b3.*,
    CASE WHEN operating THEN rev_base END AS rev,
    (staatus IN ('R', 'T') AND w_u(i, 'vat') < L.form_vat[form] * CASE WHEN operating THEN 1.0 ELSE 0.25 END) AS vat_active,
    -- A closed company (K) traded from registration until a year before it was struck off.
    CASE WHEN staatus = 'K'
      THEN year(reg_date) + floor(w_u(i, 'end') * (2026 - year(reg_date)))::INTEGER
      ELSE 2026 END AS end_year,
    ${nameCase(plan, pieces, false)} AS core
  FROM b3, w_lists L
),
${stage(codes.stage1, 'b4', 'b5')},
${stage(codes.stage2, 'b5', 'b6')}
SELECT b6.*,
  ${codes.registrikood} AS registrikood,
  ${codes.plRegon ?? 'NULL::VARCHAR'} AS pl_regon,
  ${codes.plNip ?? 'NULL::VARCHAR'} AS pl_nip,
  ${codes.vatBody ?? 'NULL::VARCHAR'} AS vat_text
FROM b6, w_lists L`;
}
