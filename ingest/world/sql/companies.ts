import { COUNTRIES, type CountryCode } from '../../../src/contract/countries.ts';
import {
  ACTIVITY_TYPE,
  CONTACT_TYPE,
  LATEST_METRICS_TYPE,
  PERSON_TYPE,
  POSTCODE_COUNTRIES,
  SE_REGISTER_TYPE,
} from '../../../src/contract/data-contract.ts';
import { WORLD_DATE } from '../profiles/index.ts';
import type { DigitPattern } from '../profiles/types.ts';
import type { WorldPlan } from '../world-lists.ts';
import { nameCase } from './base.ts';
import { compileDigitPattern, compileTemplate, type Pieces } from './template.ts';

/**
 * `stage_companies` from `w_base` (and `stage_latest_metrics` where the country has history). One statement; the
 * country-specific parts are small SQL fragments chosen here, everything else is shared.
 */

const ANNUAL_COUNTRIES: readonly CountryCode[] = ['EE', 'LV', 'NO'];

/** A phone or postcode from digit pattern `index` (1-based) of a list, as a SQL CASE. */
export function patternCase(
  patterns: readonly DigitPattern[],
  index: string,
  digits: string,
  pieces: Pieces,
): string {
  return `CASE ${index} ${patterns
    .map((p, k) => `WHEN ${k + 1} THEN ${compileDigitPattern(p.format, p.groups, digits, pieces)}`)
    .join(' ')} END`;
}

function vatSql(country: CountryCode): { kmkr: string; vat: string } {
  // Blank where the number would identify a private person: sole traders (spec 2.2).
  const when = (expr: string): string => `CASE WHEN vat_active AND NOT sole THEN ${expr} END`;
  switch (country) {
    case 'EE':
      return { kmkr: when('vat_text'), vat: 'NULL::VARCHAR' };
    case 'LV':
      return { kmkr: 'NULL::VARCHAR', vat: when(`'LV' || registrikood`) };
    case 'LT':
      return { kmkr: 'NULL::VARCHAR', vat: when('vat_text') };
    case 'NO':
      return { kmkr: 'NULL::VARCHAR', vat: when(`'NO' || registrikood || 'MVA'`) };
    case 'FI':
      return { kmkr: 'NULL::VARCHAR', vat: when(`'FI' || replace(registrikood, '-', '')`) };
    case 'PL':
      return { kmkr: 'NULL::VARCHAR', vat: when(`'PL' || pl_nip`) };
    case 'SE':
      return { kmkr: 'NULL::VARCHAR', vat: when(`'SE' || registrikood || '01'`) };
    default:
      // A country without a VAT-number rule here (a test country) publishes none.
      return { kmkr: 'NULL::VARCHAR', vat: 'NULL::VARCHAR' };
  }
}

/** Annual-report year and revenue basis: EE and NO from the draws, LV from its annual history. */
function annualSql(country: CountryCode): { year: string; revenue: string } {
  if (country === 'LV') {
    return {
      year: `struct_extract(latest_metrics.turnover_period, 'year')`,
      revenue: 'last_quarter_turnover',
    };
  }
  if (country !== 'EE' && country !== 'NO') return { year: 'NULL::INTEGER', revenue: 'NULL::DOUBLE' };
  // Most filers are in for 2025 by the world date; late filers still show 2024. A company files for a
  // year only if it existed at that year's start.
  const year = `CASE WHEN L.form_accounts[form] AND NOT sole AND staatus <> 'K' AND w_u(i, 'ar') < 0.88
      AND reg_date < DATE '2025-01-01'
    THEN CASE WHEN w_u(i, 'ary') < 0.85 THEN 2025 ELSE 2024 END
    WHEN L.form_accounts[form] AND NOT sole AND staatus <> 'K' AND w_u(i, 'ar') < 0.88
      AND reg_date < DATE '2024-01-01' THEN 2024 END`;
  const revenue = `CASE WHEN operating THEN round(rev_base * pow(1 + g, ar_year - 2025)) ELSE 0 END`;
  return { year, revenue };
}

function contactsSql(country: CountryCode, plan: WorldPlan, pieces: Pieces): string {
  const src = (kind: string): string => `L.fam_src_${kind}[fam]`;
  const extra: string[] = [];
  if (country === 'NO') {
    // Contacts listed on one of the company's own sub-units (underenheter) in Enhetsregisteret.
    extra.push(`CASE WHEN emp >= 5 AND w_u(i, 'sub') < 0.35
      THEN {liik: 'TEL', sisu: ${patternCase(plan.landline, "w_pick(L.tel_slots, w_u(i, 'subtelp'))", "w_digits(i, 'subtel')", pieces)},
        "source": 'no_subunit'} END`);
  }
  // Role mailboxes read from the company's own website where the register has no e-mail.
  extra.push(`CASE WHEN has_www AND NOT has_email AND w_u(i, 'own') < 0.12
    THEN {liik: 'EMAIL', sisu: w_pick(L.mailboxes, w_u(i, 'ownbox')) || '@' || domain, "source": 'own_site'} END`);
  return `list_filter([
    CASE WHEN has_email THEN {liik: 'EMAIL', sisu: email, "source": ${src('email')}} END,
    CASE WHEN has_www THEN {liik: 'WWW', sisu: 'www.' || domain, "source": ${src('www')}} END,
    CASE WHEN has_tel THEN {liik: 'TEL', sisu: ${patternCase(plan.landline, 'telp', "w_digits(i, 'tel')", pieces)}, "source": ${src('tel')}} END,
    CASE WHEN has_mob THEN {liik: 'MOB', sisu: ${patternCase(plan.mobile, 'mobp', "w_digits(i, 'mob')", pieces)}, "source": ${src('mob')}} END,
    ${extra.join(',\n    ')}
  ], x -> x IS NOT NULL)::${CONTACT_TYPE}[]`;
}

function seSql(): string {
  // Size classes: src/contract/data-contract.ts SE_EMPLOYEE_BANDS (SCB's official coding, 0 = unknown).
  const band = `CASE WHEN emp_known IS NULL THEN 0 WHEN emp_known = 0 THEN 1 WHEN emp_known <= 4 THEN 2
    WHEN emp_known <= 9 THEN 3 WHEN emp_known <= 19 THEN 4 WHEN emp_known <= 49 THEN 5 WHEN emp_known <= 99 THEN 6
    WHEN emp_known <= 199 THEN 7 WHEN emp_known <= 499 THEN 8 WHEN emp_known <= 999 THEN 9
    WHEN emp_known <= 1499 THEN 10 WHEN emp_known <= 1999 THEN 11 WHEN emp_known <= 2999 THEN 12
    WHEN emp_known <= 3999 THEN 13 WHEN emp_known <= 4999 THEN 14 WHEN emp_known <= 9999 THEN 15 ELSE 16 END`;
  return `${band} AS se_employees_band,
    turnover_class AS se_turnover_band,
    marketing_block AS marketing_optout,
    phone_block AS phone_optout,
    {
      export_import: CASE WHEN NOT operating THEN NULL
        ELSE {code: L.se_export_code[export_class], label: L.se_export_label[export_class]} END,
      owner_category: {code: L.se_owner_code[owner_class], label: L.se_owner_label[owner_class]},
      sme_class: CASE WHEN NOT operating THEN NULL
        ELSE {code: L.se_sme_code[sme_class], label: L.se_sme_label[sme_class]} END,
      listing: CASE WHEN listed THEN {code: L.se_listing_code[listing_class], label: L.se_listing_label[listing_class]} END,
      turnover_class: CASE WHEN turnover_class IS NULL THEN NULL
        ELSE {code: L.se_turnover_code[turnover_class + 1], label: L.se_turnover_label[turnover_class + 1]} END,
      activity_start_date: CASE WHEN staatus <> 'K' AND source_status <> '0'
        THEN reg_date + floor(w_u(i, 'start') * 90)::INTEGER END,
      trade_names: CASE WHEN NOT sole AND w_u(i, 'trade') < 0.06
        THEN [w_pick(L.stem_head, w_u(i, 'th')) || L.stem_joiner || w_pick(L.stem_tail, w_u(i, 'tt')) || ' '
          || w_pickn(L.biz, L.biz_off[sector], L.biz_len[sector], w_u(i, 'tb'))] ELSE []::VARCHAR[] END,
      "source": 'Statistics Sweden (SCB), Business Register (Företagsregistret)'
    }`;
}

/** Person k of a company (k < n_people); person 0 of a sole trader is the owner named in the company name. */
function personSql(k: number): string {
  const role = `w_pickn(L.form_role_slots, L.form_role_slots_off[form], L.form_role_slots_len[form], w_u2(i, ${k}, 'role'))`;
  const name =
    k === 0
      ? `CASE WHEN sole THEN first0 || ' ' || last0
        WHEN w_u2(i, 0, 'sex') < 0.6 THEN w_pick(L.first_m, w_u2(i, 0, 'first')) || ' ' || w_pick(L.last_m, w_u2(i, 0, 'last'))
        ELSE w_pick(L.first_f, w_u2(i, 0, 'first')) || ' ' || w_pick(L.last_f, w_u2(i, 0, 'last')) END`
      : `CASE WHEN w_u2(i, ${k}, 'sex') < 0.6
        THEN w_pick(L.first_m, w_u2(i, ${k}, 'first')) || ' ' || w_pick(L.last_m, w_u2(i, ${k}, 'last'))
        ELSE w_pick(L.first_f, w_u2(i, ${k}, 'first')) || ' ' || w_pick(L.last_f, w_u2(i, ${k}, 'last')) END`;
  const since =
    k === 0
      ? `CASE WHEN w_u2(i, 0, 'since0') < 0.6 THEN reg_date
        ELSE reg_date + floor(w_u2(i, 0, 'since') * datediff('day', reg_date, DATE '${WORLD_DATE}'))::INTEGER END`
      : `reg_date + floor(w_u2(i, ${k}, 'since') * datediff('day', reg_date, DATE '${WORLD_DATE}'))::INTEGER`;
  return `CASE WHEN n_people > ${k} THEN {nimi: ${name}, isiku_tyyp: 'F', roll: L.role_code[${role}],
        roll_tekstina: L.role_label[${role}], algus_kpv: ${since}} END`;
}

/** What the company SQL is built from; `hasHistory` says whether stage_latest_metrics exists to join. */
interface CompaniesSqlInput {
  country: CountryCode;
  plan: WorldPlan;
  pieces: Pieces;
  hasHistory: boolean;
}

export function companiesSql(
  country: CountryCode,
  plan: WorldPlan,
  pieces: Pieces,
  hasHistory: boolean,
): string {
  const input: CompaniesSqlInput = { country, plan, pieces, hasHistory };
  return `
CREATE OR REPLACE TEMP TABLE stage_companies AS
WITH c0 AS (
${drawsSql(input)}
),
c1 AS (
${contactDrawsSql(input)}
),
c2 AS (
${namedRowsSql(input)}
)
SELECT
${registerColumnsSql(input)}
${reportColumnsSql(input)}
FROM c2, w_lists L`;
}

/** c0: per row the draws that need no other draw (reach, capital, margin, people and activity counts). */
function drawsSql({ country, hasHistory }: CompaniesSqlInput): string {
  const annual = annualSql(country);
  return `  SELECT b.*, ${hasHistory ? 'm.* EXCLUDE (registrikood),' : ''}
    CASE WHEN staatus = 'R' THEN 1.0 WHEN staatus = 'T' THEN 0.8 ELSE 0.3 END AS reach,
    w_pick(L.tel_slots, w_u(i, 'telp')) AS telp,
    w_pick(L.mob_slots, w_u(i, 'mobp')) AS mobp,
    CASE WHEN L.form_has_cap[form] THEN
      CASE WHEN w_pickn(L.form_cap_slots, L.form_cap_slots_off[form], L.form_cap_slots_len[form], w_u(i, 'capk')) = 0
        THEN round(L.form_cap_median[form] * exp(1.1 * w_n(i, 'capt')), -2)
        ELSE L.form_cap_amounts[L.form_cap_amounts_off[form]
          + w_pickn(L.form_cap_slots, L.form_cap_slots_off[form], L.form_cap_slots_len[form], w_u(i, 'capk'))] END
      END AS cap_amount,
    greatest(-1.5, least(0.6, 0.05 + 0.12 * w_n(i, 'margin'))) AS margin,
    ${annual.year} AS ar_year,
    CASE L.form_people[form]
      WHEN 'board' THEN CASE WHEN L.form_size_shift[form] >= 1.5 THEN 3 + floor(w_u(i, 'np') * 4)::INTEGER
        WHEN w_u(i, 'np') < 0.7 THEN 1 WHEN w_u(i, 'np') < 0.92 THEN 2 ELSE 3 END
      WHEN 'owner' THEN CASE WHEN sole THEN 1 WHEN w_u(i, 'np') < 0.7 THEN 2 ELSE 3 END
      ELSE 0 END AS n_people,
    CASE WHEN w_u(i, 'nact') < 0.7 THEN 0 WHEN w_u(i, 'nact') < 0.88 THEN 1 WHEN w_u(i, 'nact') < 0.96 THEN 2 ELSE 3 END AS n_extra
  FROM w_base b ${hasHistory ? 'LEFT JOIN stage_latest_metrics m USING (registrikood)' : ''}, w_lists L`;
}

/** c1: contacts, the domain's slug, Sweden's classes and the extra activities. */
function contactDrawsSql({ country, plan, pieces }: CompaniesSqlInput): string {
  const annual = annualSql(country);
  const se = country === 'SE';
  return `  SELECT c0.*,
    w_u(i, 'www') < L.www_p * reach AS has_www,
    -- The slug is a second name build; only rows that show a domain pay for it.
    CASE WHEN w_u(i, 'www') < L.www_p * reach OR w_u(i, 'email') < L.email_p * reach${
      country === 'EE' || country === 'FI' || country === 'SE' ? ` OR staatus <> 'K'` : ''
    } THEN coalesce(nullif(left(${nameCase(plan, pieces, true)}, 28), ''), 'firma' || i::VARCHAR) END AS core_slug,
    w_pick(L.tlds, w_u(i, 'tld')) AS tld,
    w_u(i, 'email') < L.email_p * reach AS has_email,
    w_u(i, 'tel') < L.tel_p * reach * CASE WHEN sole THEN 0.5 ELSE 1.0 END AS has_tel,
    w_u(i, 'mob') < L.mob_p * reach * CASE WHEN sole THEN 1.5 ELSE 1.0 END AS has_mob,
    ${
      se
        ? `w_u(i, 'mblock') < 0.15 AS marketing_block, w_u(i, 'pblock') < 0.1 AS phone_block,
    CASE WHEN source_status = '0' OR (NOT operating AND w_u(i, 'eunk') < 0.3) THEN NULL ELSE emp END AS emp_known,
    CASE WHEN NOT operating THEN NULL ELSE
      (CASE WHEN rev / 1000.0 < 1 THEN 0 WHEN rev / 1000.0 < 500 THEN 1 WHEN rev / 1000.0 < 1000 THEN 2
        WHEN rev / 1000.0 < 5000 THEN 3 WHEN rev / 1000.0 < 10000 THEN 4 WHEN rev / 1000.0 < 20000 THEN 5
        WHEN rev / 1000.0 < 50000 THEN 6 WHEN rev / 1000.0 < 100000 THEN 7 WHEN rev / 1000.0 < 500000 THEN 8
        WHEN rev / 1000.0 < 1000000 THEN 9 WHEN rev / 1000.0 < 5000000 THEN 10 WHEN rev / 1000.0 < 10000000 THEN 11
        ELSE 12 END) END AS turnover_class,
    w_pick(L.se_export_slots, w_u(i, 'exp')) AS export_class,
    CASE WHEN L.form_code[form] IN ('81', '83', '87') THEN 1 ELSE w_pick(L.se_owner_slots, w_u(i, 'own2')) END AS owner_class,
    CASE WHEN emp < 10 THEN 1 WHEN emp < 50 THEN 2 WHEN emp < 250 THEN 3 ELSE 4 END AS sme_class,
    (L.form_code[form] = '49' AND emp >= 50 AND w_u(i, 'listed') < 0.04) AS listed,
    w_pick(L.se_listing_slots, w_u(i, 'lst')) AS listing_class,`
        : ''
    }
    CASE WHEN ar_year IS NOT NULL THEN ${annual.revenue} END AS ar_revenue,
    ${[1, 2, 3]
      .map(
        (k) => `CASE WHEN w_u2(i, ${k}, 'actsame') < 0.6
      THEN w_pickn(L.act_sector_slots, L.act_sector_slots_off[sector], L.act_sector_slots_len[sector], w_u2(i, ${k}, 'acts'))
      ELSE w_pick(L.act_slots, w_u2(i, ${k}, 'acta')) END AS a${k}`,
      )
      .join(',\n    ')}
  FROM c0, w_lists L`;
}

/** c2: the name, e-mail, street address, postcode, activities and people of each row. */
function namedRowsSql({ country, plan, pieces }: CompaniesSqlInput): string {
  const withPeople = COUNTRIES[country].people !== 'none';
  return `  SELECT c1.*,
    core_slug || '.' || tld AS domain,
    CASE WHEN has_www OR w_u(i, 'ownmail') < 0.5
      THEN w_pick(L.mailboxes, w_u(i, 'box')) || '@' || core_slug || '.' || tld
      ELSE first0_slug || '.' || last0_slug || '@' || w_pick(['gmail.com', 'outlook.com'], w_u(i, 'isp')) END AS email,
    CASE WHEN L.form_affix[form] IS NULL OR L.form_affix_pos[form] = 'none' THEN core
      WHEN L.form_affix_pos[form] = 'prefix' THEN L.form_affix[form] || ' ' || core
      WHEN L.form_affix_pos[form] = 'quoted' THEN L.form_affix[form] || ' "' || core || '"'
      ELSE core || ' ' || L.form_affix[form] END AS arinimi,
    w_pick(L.streets, w_u(i, 'street')) || ' ' || (1 + floor(w_u(i, 'house') * 150)::INTEGER)::VARCHAR AS street_addr,
    ${compileDigitPattern(plan.postcode.format, plan.postcode.groups, "w_digits(i, 'pc')", pieces)} AS postcode,
    list_filter([{kood: L.act_kood[act], label: L.act_label[act], is_main: true},
      CASE WHEN n_extra >= 1 AND a1 <> act THEN {kood: L.act_kood[a1], label: L.act_label[a1], is_main: false} END,
      CASE WHEN n_extra >= 2 AND a2 <> act AND a2 <> a1 THEN {kood: L.act_kood[a2], label: L.act_label[a2], is_main: false} END,
      CASE WHEN n_extra >= 3 AND a3 <> act AND a3 <> a1 AND a3 <> a2
        THEN {kood: L.act_kood[a3], label: L.act_label[a3], is_main: false} END
    ], x -> x IS NOT NULL) AS emtak,
    ${
      withPeople
        ? `list_filter([
      ${[0, 1, 2, 3, 4, 5].map(personSql).join(',\n      ')}
    ], x -> x IS NOT NULL)`
        : `[]`
    }::${PERSON_TYPE}[] AS people
  FROM c1, w_lists L`;
}

/** The register columns: identity, status, address, latest figures, VAT and capital. */
function registerColumnsSql({ country, plan, pieces, hasHistory }: CompaniesSqlInput): string {
  const vat = vatSql(country);
  const addressTokens = {
    path: 'L.loc_path[loc]',
    town: 'L.loc_town[loc]',
    street: 'street_addr',
    pc: 'postcode',
    county: 'L.loc_county[loc]',
  };
  return `  registrikood,
  arinimi,
  L.form_code[form] AS oiguslik_vorm,
  L.form_label[form] AS oiguslik_vorm_tekstina,
  NULL::VARCHAR AS oigusliku_vormi_alaliik,
  staatus,
  staatus_tekstina,
  source_status,
  reg_date AS esmaregistreerimise_kpv,
  L.loc_kood[loc] AS ehak_kood,
  L.loc_name[loc] AS ehak_nimetus,
  ${compileTemplate(plan.address.short, addressTokens, pieces)} AS asukoht,
  ${compileTemplate(plan.address.full, addressTokens, pieces)} AS aadress_text,
  ${POSTCODE_COUNTRIES.includes(country) ? 'postcode' : 'NULL::VARCHAR'} AS postcode,
  ${hasHistory ? 'last_quarter_turnover' : 'NULL::DOUBLE'} AS last_quarter_turnover,
  ${hasHistory ? 'last_quarter_employees_number' : 'NULL::INTEGER'} AS last_quarter_employees_number,
  ${hasHistory ? 'last_4_quarters_turnover_sum' : 'NULL::DOUBLE'} AS last_4_quarters_turnover_sum,
  ${hasHistory ? 'last_quarter_turnover_growth_pct' : 'NULL::DOUBLE'} AS last_quarter_turnover_growth_pct,
  ${vat.kmkr} AS kmkr_nr,
  vat_active,
  ${vat.vat} AS vat_number,
  CASE WHEN cap_amount IS NOT NULL THEN
    CASE WHEN L.form_cap_decimals[form] = 0 THEN printf('%.0f %s', cap_amount, L.currency)
      ELSE printf('%.2f %s', cap_amount, L.currency) END END AS kapital,
  cap_amount AS kapital_amount,
  CASE WHEN cap_amount IS NOT NULL THEN L.currency END AS kapital_currency,`;
}

/** The annual report, contacts, activities, people, Sweden's and Poland's columns and the search columns. */
function reportColumnsSql({ country, plan, pieces, hasHistory }: CompaniesSqlInput): string {
  const isAnnual = ANNUAL_COUNTRIES.includes(country);
  const metrics = hasHistory ? 'latest_metrics' : `NULL::${LATEST_METRICS_TYPE}`;
  const se = country === 'SE';
  return `  ${isAnnual ? 'ar_revenue' : 'NULL::DOUBLE'} AS annual_revenue,
  ${
    isAnnual
      ? `CASE WHEN ar_revenue IS NOT NULL THEN CASE WHEN ar_revenue = 0
      THEN -round(exp(6.0 + w_n(i, 'cost')))
      ELSE round(ar_revenue * margin) END END`
      : 'NULL::DOUBLE'
  } AS annual_net_profit,
  ${
    isAnnual
      ? `CASE WHEN ar_revenue IS NOT NULL
      THEN round(ar_revenue * (0.35 * exp(0.8 * w_n(i, 'eq')) - 0.12) + coalesce(cap_amount, 0)) END`
      : 'NULL::DOUBLE'
  } AS annual_equity,
  ${
    isAnnual
      ? `CASE WHEN ar_revenue IS NOT NULL THEN round(greatest(ar_revenue * (0.35 * exp(0.8 * w_n(i, 'eq')) - 0.12), 0)
      + ar_revenue * 0.45 * exp(0.6 * w_n(i, 'assets')) + coalesce(cap_amount, 0) + 100) END`
      : 'NULL::DOUBLE'
  } AS annual_total_assets,
  ${isAnnual ? 'CASE WHEN ar_revenue IS NOT NULL THEN ar_year END' : 'NULL::INTEGER'} AS annual_report_year,
  ${
    country === 'EE'
      ? `CASE WHEN staatus = 'R' THEN w_u(i, 'debt') < 0.025 WHEN staatus IN ('L', 'N', 'T') THEN w_u(i, 'debt') < 0.3
      ELSE false END`
      : 'NULL::BOOLEAN'
  } AS has_tax_debt,
  ${contactsSql(country, plan, pieces)} AS contacts,
  ${
    country === 'EE' || country === 'FI'
      ? `CASE WHEN has_www AND (domain LIKE '%.ee' OR domain LIKE '%.fi') AND w_u(i, 'regdom') < 0.85 THEN [domain]
      WHEN NOT has_www AND staatus = 'R' AND w_u(i, 'regdom') < 0.04
        THEN [core_slug || '.' || ${country === 'EE' ? `'ee'` : `'fi'`}]
      ELSE []::VARCHAR[] END`
      : '[]::VARCHAR[]'
  } AS registered_domains,
  emtak::${ACTIVITY_TYPE}[] AS emtak,
  people,
  ${metrics} AS latest_metrics,
  ${se ? seSql() : `NULL::${SE_REGISTER_TYPE}`} AS se_register,
  ${se ? '' : 'NULL::INTEGER AS se_employees_band, NULL::INTEGER AS se_turnover_band, NULL::BOOLEAN AS marketing_optout, NULL::BOOLEAN AS phone_optout,'}
  ${
    country === 'PL'
      ? `CASE WHEN fam = 1 THEN staatus IN ('R', 'L', 'T') AND reg_date < DATE '2025-01-01' AND w_u(i, 'filed') < 0.78 END`
      : 'NULL::BOOLEAN'
  } AS annual_report_filed,
  ${
    country === 'PL'
      ? `CASE WHEN fam = 1 THEN staatus IN ('R', 'L', 'T') AND reg_date < DATE '2025-01-01' AND w_u(i, 'filed') < 0.78
      AND (L.form_code[form] = '116' OR emp >= 50 OR rev >= 50000000 OR w_u(i, 'audit') < 0.03) END`
      : 'NULL::BOOLEAN'
  } AS annual_report_audited,
  pl_regon,
  pl_nip,
  sole AS is_sole_trader,
  ${COUNTRIES[country].soleTraders.forSale ? 'false' : 'sole'} AS not_for_sale,
  lower(strip_accents(arinimi)) AS search_name,
  CASE WHEN len(people) > 0 THEN lower(strip_accents(array_to_string(list_transform(people, p -> p.nimi), ' | '))) END AS search_people
  ${
    COUNTRIES[country].workplaces
      ? `-- Helper columns for the workplaces (the writer selects contract columns only).
  , i AS w_i, loc AS w_loc, emp AS w_emp, operating AS w_operating, core AS w_core, domain AS w_domain`
      : ''
  }`;
}
