import type { FilterId } from '../contract/filters.ts';

/**
 * How the posting lists (postings.ts) answer each filter, declared once per filter. The builder writes
 * what these name, and the planner (planner.ts) reads it back; the SQL of the same filter (query-builder.ts)
 * stays the oracle the planner is tested against. Keyed by the FilterId union, so a filter without an
 * index does not compile.
 *
 * - `values`: one bitmap per distinct value of a column of `co` (or of the `act`/`wp` code tables); a
 *   list matches any of its values, a scalar its one value. `flag` columns are keyed `true`/`false` (NULL in
 *   neither, as `column = ?` in SQL); `exclude` filters drop the rows keyed `true` (IS NOT TRUE).
 * - `range`: the column's rids in (value, rid) order with their ranks and bucket bitmaps; inclusive bounds.
 * - `text`: trigram posting lists of a folded text, verified against the text (substring match).
 * - `code`: the registration code, one row by the lookup store's unique index.
 */
export type IndexSpec =
  | { kind: 'values'; column: string; table?: 'act' | 'wp'; flag?: true }
  | { kind: 'exclude'; column: string }
  | { kind: 'range'; column: string; valueType: 'number' | 'date' }
  | { kind: 'text'; column: string }
  | { kind: 'code' };

const values = (column: string): IndexSpec => ({ kind: 'values', column });
const flag = (column: string): IndexSpec => ({ kind: 'values', column, flag: true });
const range = (column: string): IndexSpec => ({ kind: 'range', column, valueType: 'number' });

export const FILTER_INDEX: Record<FilterId, IndexSpec> = {
  company_name: { kind: 'text', column: 'search_name' },
  registration_code: { kind: 'code' },
  industry_codes: { kind: 'values', column: 'kood', table: 'act' },
  legal_form: values('oiguslik_vorm'),
  status: values('staatus'),
  share_capital: range('kapital_amount'),
  registered: { kind: 'range', column: 'esmaregistreerimise_kpv', valueType: 'date' },
  location: { kind: 'text', column: 'f_location' },
  ehak_kood: values('ehak_kood'),
  lt_locations: values('ehak_nimetus'),
  vat_active: flag('vat_active'),
  has_email: flag('f_email'),
  has_website: flag('f_website'),
  has_phone: flag('f_phone'),
  has_contact: flag('f_contact'),
  has_domain: flag('f_domain'),
  has_tax_debt: flag('has_tax_debt'),
  exclude_marketing_optout: { kind: 'exclude', column: 'marketing_optout' },
  exclude_phone_optout: { kind: 'exclude', column: 'phone_optout' },
  employees_band: values('f_employees_band'),
  turnover_band: values('se_turnover_band'),
  annual_revenue: range('annual_revenue'),
  annual_net_profit: range('annual_net_profit'),
  annual_equity: range('annual_equity'),
  annual_total_assets: range('annual_total_assets'),
  last_quarter_turnover: range('last_quarter_turnover'),
  last_4_quarters_turnover_sum: range('last_4_quarters_turnover_sum'),
  last_quarter_employees: range('last_quarter_employees_number'),
  last_quarter_turnover_growth_pct: range('last_quarter_turnover_growth_pct'),
  person_name: { kind: 'text', column: 'search_people' },
  annual_report_filed: flag('annual_report_filed'),
  annual_report_audited: flag('annual_report_audited'),
  se_workplace_kommun: { kind: 'values', column: 'kommun_code', table: 'wp' },
};

/** The key of a `values` index in the postings file: its table and column. */
export const valuesKey = (spec: { column: string; table?: string }): string =>
  spec.table ? `${spec.table}.${spec.column}` : spec.column;
