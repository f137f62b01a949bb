import type { DuckDBValue } from '@duckdb/node-api';
import { ACTIVE_STATUS } from '../contract/data-contract.ts';
import { FILTERS, type FilterDef } from '../contract/filters.ts';
import {
  CompanyRowSchema,
  SORT_FIELDS,
  type CountParams,
  type FilterInput,
  type SearchParams,
} from '../contract/api-schemas.ts';
import { tables } from './tables.ts';

/**
 * The one place where filters become SQL. Every value is a bound parameter; the only text that varies is
 * the number of `?` placeholders of an IN list and which fixed predicates are present, so a request can
 * never change the shape of a statement beyond that.
 */
export interface BoundSql {
  sql: string;
  params: DuckDBValue[];
}

type Tables = ReturnType<typeof tables>;
type FilterId = FilterDef['id'];
type FilterSql = (input: FilterInput, t: Tables) => BoundSql;

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

function listOf(input: FilterInput): (string | number)[] {
  if (input.kind !== 'list') throw new Error(`expected a list filter value, got ${input.kind}`);
  return input.values;
}
function scalarOf(input: FilterInput): string | number | boolean {
  if (input.kind !== 'scalar') throw new Error(`expected a scalar filter value, got ${input.kind}`);
  return input.value;
}
function boolOf(input: FilterInput): boolean {
  const v = scalarOf(input);
  if (typeof v !== 'boolean') throw new Error('expected a boolean filter value');
  return v;
}

const inList =
  (column: string): FilterSql =>
  (input) => {
    const values = listOf(input);
    return { sql: `${column} IN (${placeholders(values.length)})`, params: values };
  };

const equals =
  (column: string): FilterSql =>
  (input) => ({ sql: `${column} = ?`, params: [scalarOf(input)] });

/** Inclusive bounds (spec 4.3 `_min/_max`, `_from/_to`); dates arrive as YYYY-MM-DD strings. */
const range =
  (column: string, cast = ''): FilterSql =>
  (input) => {
    if (input.kind !== 'range') throw new Error(`expected a range filter value, got ${input.kind}`);
    const parts: string[] = [];
    const params: DuckDBValue[] = [];
    const bound = cast ? `CAST(? AS ${cast})` : '?';
    if (input.min !== undefined) {
      parts.push(`${column} >= ${bound}`);
      params.push(input.min);
    }
    if (input.max !== undefined) {
      parts.push(`${column} <= ${bound}`);
      params.push(input.max);
    }
    return { sql: parts.join(' AND '), params };
  };

/** Partial, case- and accent-insensitive: the column is folded at ingest, the value with the same function. */
const containsFolded =
  (column: string): FilterSql =>
  (input) => {
    const values = input.kind === 'list' ? input.values : [scalarOf(input)];
    const sql = values.map(() => `contains(${column}, lower(strip_accents(?)))`).join(' OR ');
    return { sql: values.length > 1 ? `(${sql})` : sql, params: values.map(String) };
  };

/** `true` keeps rows where the flag is true, `false` rows where it is false (unknown matches neither). */
const flag =
  (column: string): FilterSql =>
  (input) => ({ sql: `${column} = ?`, params: [boolOf(input)] });

/** `exclude_*_optout=true` drops blocked companies; `false` excludes nothing. */
const exclude =
  (column: string): FilterSql =>
  (input) =>
    boolOf(input) ? { sql: `${column} IS NOT TRUE`, params: [] } : { sql: '', params: [] };

/**
 * Filter id to SQL. Typed as a record over the filter ids so that, once filters.ts declares its ids as a
 * literal union, a filter without SQL is a compile error; until then `assertEveryFilterHasSql` checks the
 * same at module load.
 */
const FILTER_SQL: Record<FilterId, FilterSql> = {
  company_name: containsFolded('search_name'),
  registration_code: equals('registrikood'),
  // A semi-join on the flat (rid, kood) table: filtering the emtak list column directly is ~30x slower.
  industry_codes: (input, t) => {
    const values = listOf(input);
    return {
      sql: `rid IN (SELECT rid FROM ${t.activities} WHERE kood IN (${placeholders(values.length)}))`,
      params: values,
    };
  },
  legal_form: inList('oiguslik_vorm'),
  // `status` is special-cased in buildWhere (default active-only, `__all__`); this handles explicit codes.
  status: inList('staatus'),
  share_capital: range('kapital_amount'),
  registered: range('esmaregistreerimise_kpv', 'DATE'),
  location: containsFolded('f_location'),
  // A parent code matches only rows tagged with exactly it (spec 4.2): no expansion here.
  ehak_kood: inList('ehak_kood'),
  // LT rows carry location names, not codes; the tree's `locations` arrays list those names.
  lt_locations: inList('ehak_nimetus'),
  vat_active: flag('vat_active'),
  has_email: flag('f_email'),
  has_website: flag('f_website'),
  has_phone: flag('f_phone'),
  has_contact: flag('f_contact'),
  has_domain: flag('f_domain'),
  has_tax_debt: flag('has_tax_debt'),
  exclude_marketing_optout: exclude('marketing_optout'),
  exclude_phone_optout: exclude('phone_optout'),
  // f_employees_band is se_employees_band with NULL folded into 0 (unknown), never into "0 employees" (1).
  employees_band: inList('f_employees_band'),
  turnover_band: inList('se_turnover_band'),
  annual_revenue: range('annual_revenue'),
  annual_net_profit: range('annual_net_profit'),
  annual_equity: range('annual_equity'),
  annual_total_assets: range('annual_total_assets'),
  last_quarter_turnover: range('last_quarter_turnover'),
  last_4_quarters_turnover_sum: range('last_4_quarters_turnover_sum'),
  last_quarter_employees: range('last_quarter_employees_number'),
  last_quarter_turnover_growth_pct: range('last_quarter_turnover_growth_pct'),
  person_name: containsFolded('search_people'),
  annual_report_filed: flag('annual_report_filed'),
  annual_report_audited: flag('annual_report_audited'),
  se_workplace_kommun: (input, t) => {
    const values = listOf(input);
    return {
      sql: `registrikood IN (SELECT registrikood FROM ${t.workplaces} WHERE kommun_code IN (${placeholders(values.length)}))`,
      params: values,
    };
  },
};

/** The filter ids declared in filters.ts and the ids mapped here must be the same set. */
export function assertEveryFilterHasSql(): void {
  const declared = new Set(FILTERS.map((f) => f.id));
  const missing = [...declared].filter((id) => !(id in FILTER_SQL));
  const extra = Object.keys(FILTER_SQL).filter((id) => !declared.has(id));
  if (missing.length || extra.length) {
    throw new Error(
      `filter SQL out of step with filters.ts: missing ${missing.join(', ')}; extra ${extra.join(', ')}`,
    );
  }
}
assertEveryFilterHasSql();

export const ALL_STATUSES = '__all__';

/** WHERE clause of search and count: active-only unless `status` is sent (spec 3, 4.3). */
export function buildWhere(params: CountParams): BoundSql {
  const t = tables(params.country);
  const parts: string[] = [];
  const values: DuckDBValue[] = [];
  const status = params.filters['status'];
  if (status === undefined) {
    parts.push('staatus = ?');
    values.push(ACTIVE_STATUS);
  }
  // Filters in declaration order, so the same request always yields the same statement text (one prepare).
  for (const f of FILTERS) {
    const input = params.filters[f.id];
    if (input === undefined) continue;
    if (f.id === 'status' && input.kind === 'list' && input.values.includes(ALL_STATUSES)) continue;
    const sql = FILTER_SQL[f.id];
    if (!sql) throw new Error(`no SQL for filter ${f.id}`);
    const bound = sql(input, t);
    if (bound.sql === '') continue;
    parts.push(bound.sql);
    values.push(...bound.params);
  }
  return { sql: parts.length ? parts.join(' AND ') : 'true', params: values };
}

/** Search-row columns (spec 2.2 and extras), straight from CompanyRowSchema so the two cannot drift. */
export const COMPANY_ROW_COLUMNS = Object.keys(CompanyRowSchema.shape);
const quote = (c: string) => `"${c}"`;

const SORT_COLUMN: Record<(typeof SORT_FIELDS)[keyof typeof SORT_FIELDS], string> = {
  registrikood: 'registrikood',
  arinimi: 'arinimi',
  esmaregistreerimise_kpv: 'esmaregistreerimise_kpv',
  // `kapital` is text with a currency; the numeric amount orders it.
  kapital: 'kapital_amount',
  annual_revenue: 'annual_revenue',
  last_quarter_turnover: 'last_quarter_turnover',
  last_quarter_employees_number: 'last_quarter_employees_number',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
};

export function buildCountQuery(params: CountParams): BoundSql {
  const where = buildWhere(params);
  return {
    sql: `SELECT count(*)::INTEGER AS n FROM ${tables(params.country).companies} WHERE ${where.sql}`,
    params: where.params,
  };
}

/**
 * One page of rows. Nulls sort last in both directions and registrikood (unique) breaks ties in the same
 * direction, so the order is total and pages never overlap or skip.
 */
export function buildSearchQuery(params: SearchParams): BoundSql {
  const where = buildWhere(params);
  const dir = params.sort_dir === 'desc' ? 'DESC' : 'ASC';
  const column = SORT_COLUMN[SORT_FIELDS[params.sort_by]];
  const order =
    column === 'registrikood' ? `registrikood ${dir}` : `${column} ${dir} NULLS LAST, registrikood ${dir}`;
  return {
    sql:
      `SELECT ${COMPANY_ROW_COLUMNS.map(quote).join(', ')} FROM ${tables(params.country).companies} ` +
      `WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`,
    params: [...where.params, params.page_size, (params.page - 1) * params.page_size],
  };
}
