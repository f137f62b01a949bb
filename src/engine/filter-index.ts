import type { FilterId } from '../contract/filters.ts';
import type { DictionaryColumn } from './tables.ts';

/**
 * Every filter's engine side, declared once per filter: how the posting lists (postings.ts) answer it,
 * which the builder writes and the planner (planner.ts) reads, and the column its SQL filters on, from
 * which query-builder.ts derives the statement that the DuckDB fallback runs and the property test holds
 * the planner to. Keyed by the FilterId union, so a filter without a declaration does not compile; its
 * parameters, type and countries are in src/contract/filters.ts.
 *
 * - `values`: one bitmap per distinct value of a column of `co`; a list matches any of its values. In SQL
 *   an IN list over the dictionary ids (`dictionary`, text columns, tables.ts) or the integers themselves.
 * - `codes`: the same over a side table of (rid, code) (`act`, `wp`), tested in SQL behind the row's code
 *   signature `sig`.
 * - `flag`: bitmaps keyed `true`/`false` (NULL in neither, as `column = ?` in SQL).
 * - `exclude`: `true` drops the rows whose column is true (IS NOT TRUE); `false` filters nothing.
 * - `range`: the column's rids in (value, rid) order with ranks and bucket bitmaps; inclusive bounds.
 * - `text`: trigram posting lists of a folded text, verified against the text; in SQL `contains` behind
 *   the bigram signature `sig`.
 * - `prefix`: one bitmap per leading substring of a short column's values (the postcode's digits, at most
 *   ten: ~5 bitmaps a row), so a prefix is one lookup; in SQL `starts_with`.
 * - `code`: the registration code, one row by the lookup store's unique index.
 */
export type IndexSpec =
  | { kind: 'values'; column: DictionaryColumn; encoding: 'dictionary' }
  | { kind: 'values'; column: string; encoding: 'integer' }
  | { kind: 'codes'; column: string; table: 'act' | 'wp'; sig: string }
  | { kind: 'flag'; column: string }
  | { kind: 'exclude'; column: string }
  | { kind: 'range'; column: string; valueType: 'number' | 'date' }
  | { kind: 'text'; column: string; sig: string }
  | { kind: 'prefix'; column: string }
  | { kind: 'code' };

const dictionary = (column: DictionaryColumn): IndexSpec => ({
  kind: 'values',
  column,
  encoding: 'dictionary',
});
const flag = (column: string): IndexSpec => ({ kind: 'flag', column });
const range = (column: string): IndexSpec => ({ kind: 'range', column, valueType: 'number' });

/** `status`, which the planner also applies by default (active only). */
export const STATUS_INDEX = {
  kind: 'values',
  column: 'staatus',
  encoding: 'dictionary',
} as const satisfies IndexSpec;

export const FILTER_INDEX: Record<FilterId, IndexSpec> = {
  company_name: { kind: 'text', column: 'search_name', sig: 'sig_name' },
  registration_code: { kind: 'code' },
  industry_codes: { kind: 'codes', column: 'kood', table: 'act', sig: 'sig_activities' },
  legal_form: dictionary('oiguslik_vorm'),
  // The default (active only) and `__all__` are the planner's and buildWhere's; this is explicit codes.
  status: STATUS_INDEX,
  share_capital: range('kapital_amount'),
  registered: { kind: 'range', column: 'esmaregistreerimise_kpv', valueType: 'date' },
  location: { kind: 'text', column: 'f_location', sig: 'sig_location' },
  // A parent code matches only rows tagged with exactly it (spec 4.2): no expansion.
  ehak_kood: dictionary('ehak_kood'),
  // LT rows carry location names, not codes; the tree's `locations` arrays list those names.
  lt_locations: dictionary('ehak_nimetus'),
  // f_postcode is the postcode's digits, as postcodeDigits (filters.ts) makes of a sent value.
  postcode: { kind: 'prefix', column: 'f_postcode' },
  vat_active: flag('vat_active'),
  has_email: flag('f_email'),
  has_website: flag('f_website'),
  has_phone: flag('f_phone'),
  has_contact: flag('f_contact'),
  has_domain: flag('f_domain'),
  has_tax_debt: flag('has_tax_debt'),
  exclude_marketing_optout: { kind: 'exclude', column: 'marketing_optout' },
  exclude_phone_optout: { kind: 'exclude', column: 'phone_optout' },
  // f_employees_band is se_employees_band with NULL folded into 0 (unknown), never into "0 employees" (1).
  employees_band: { kind: 'values', column: 'f_employees_band', encoding: 'integer' },
  turnover_band: { kind: 'values', column: 'se_turnover_band', encoding: 'integer' },
  annual_revenue: range('annual_revenue'),
  annual_net_profit: range('annual_net_profit'),
  annual_equity: range('annual_equity'),
  annual_total_assets: range('annual_total_assets'),
  last_quarter_turnover: range('last_quarter_turnover'),
  last_4_quarters_turnover_sum: range('last_4_quarters_turnover_sum'),
  last_quarter_employees: range('last_quarter_employees_number'),
  last_quarter_turnover_growth_pct: range('last_quarter_turnover_growth_pct'),
  person_name: { kind: 'text', column: 'search_people', sig: 'sig_people' },
  annual_report_filed: flag('annual_report_filed'),
  annual_report_audited: flag('annual_report_audited'),
  // The workplaces table holds active workplaces only, so this finds companies with an active one there.
  se_workplace_kommun: { kind: 'codes', column: 'kommun_code', table: 'wp', sig: 'sig_kommun' },
};

/** The key of a bitmap-per-value index in the postings file: its side table, if any, and column. */
export const valuesKey = (spec: { column: string; table?: string }): string =>
  spec.table ? `${spec.table}.${spec.column}` : spec.column;
