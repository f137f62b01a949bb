import type { CountParams, FilterInput, SearchParams } from '../../src/contract/api-schemas.ts';
import { SORT_FIELDS } from '../../src/contract/api-schemas.ts';
import { FILTERS } from '../../src/contract/filters.ts';
import { HISTORY_COLUMNS, ROW_COLUMNS, SORT_COLUMNS, pgTables } from './load.ts';

/**
 * The PostgreSQL peer's SQL for the API's filters, with the API's semantics (spec 4.3, src/contract/filters.ts):
 * active companies unless `status` is sent, partial case- and accent-insensitive name/person/location
 * matches, any-of code lists, inclusive ranges. Every value is a bound parameter ($n).
 */
export interface PgSql {
  text: string;
  values: unknown[];
}

/** DuckDB's lower(strip_accents(x)), which folded the stored texts: marks removed, then lower case. */
export function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC').toLowerCase();
}

/** A LIKE pattern matching `s` anywhere. */
export function containsPattern(s: string): string {
  return `%${fold(s).replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function list(input: FilterInput): (string | number)[] {
  if (input.kind === 'list') return input.values;
  if (input.kind === 'scalar') return [input.value as string | number];
  throw new Error('expected a list');
}
function scalar(input: FilterInput): string | number | boolean {
  if (input.kind !== 'scalar') throw new Error('expected a scalar');
  return input.value;
}

type Sql = (input: FilterInput, p: Params) => string;

const anyOf =
  (column: string, type: 'text' | 'int'): Sql =>
  (input, p) =>
    `${column} = ANY(${p.add(list(input).map(String))}::${type}[])`;
const overlaps =
  (column: string): Sql =>
  (input, p) =>
    `${column} && ${p.add(list(input).map(String))}::text[]`;
const contains =
  (column: string): Sql =>
  (input, p) => {
    const parts = list(input).map((v) => `${column} LIKE ${p.add(containsPattern(String(v)))}`);
    return parts.length > 1 ? `(${parts.join(' OR ')})` : (parts[0] as string);
  };
const flag =
  (column: string): Sql =>
  (input, p) =>
    `${column} = ${p.add(scalar(input))}`;
const exclude =
  (column: string): Sql =>
  (input) =>
    scalar(input) === true ? `${column} IS NOT TRUE` : '';
const range =
  (column: string, cast = ''): Sql =>
  (input, p) => {
    if (input.kind !== 'range') throw new Error('expected a range');
    const parts: string[] = [];
    if (input.min !== undefined) parts.push(`${column} >= ${p.add(input.min)}${cast}`);
    if (input.max !== undefined) parts.push(`${column} <= ${p.add(input.max)}${cast}`);
    return parts.join(' AND ');
  };

const FILTER_SQL: Record<string, Sql> = {
  company_name: contains('search_name'),
  registration_code: (input, p) => `registrikood = ${p.add(String(scalar(input)))}`,
  industry_codes: overlaps('emtak_codes'),
  legal_form: anyOf('oiguslik_vorm', 'text'),
  status: anyOf('staatus', 'text'),
  share_capital: range('kapital_amount'),
  registered: range('esmaregistreerimise_kpv', '::date'),
  location: contains('f_location'),
  // The served postcode's digits start with the sent value's (postcodeDigits: `LV-10` and `291 8` as digits).
  postcode: (input, p) => {
    const parts = list(input).map(
      (v) =>
        `f_postcode LIKE ${p.add(
          `${String(v)
            .trim()
            .replace(/^LV-?/i, '')
            .replace(/[^0-9]/g, '')}%`,
        )}`,
    );
    return parts.length > 1 ? `(${parts.join(' OR ')})` : (parts[0] as string);
  },
  ehak_kood: anyOf('ehak_kood', 'text'),
  lt_locations: anyOf('ehak_nimetus', 'text'),
  vat_active: flag('vat_active'),
  has_email: flag('f_email'),
  has_website: flag('f_website'),
  has_phone: flag('f_phone'),
  has_contact: flag('f_contact'),
  has_domain: flag('f_domain'),
  has_tax_debt: flag('has_tax_debt'),
  exclude_marketing_optout: exclude('marketing_optout'),
  exclude_phone_optout: exclude('phone_optout'),
  employees_band: anyOf('f_employees_band', 'int'),
  turnover_band: anyOf('se_turnover_band', 'int'),
  annual_revenue: range('annual_revenue'),
  annual_net_profit: range('annual_net_profit'),
  annual_equity: range('annual_equity'),
  annual_total_assets: range('annual_total_assets'),
  last_quarter_turnover: range('last_quarter_turnover'),
  last_4_quarters_turnover_sum: range('last_4_quarters_turnover_sum'),
  last_quarter_employees: range('last_quarter_employees_number'),
  last_quarter_turnover_growth_pct: range('last_quarter_turnover_growth_pct'),
  person_name: contains('search_people'),
  annual_report_filed: flag('annual_report_filed'),
  annual_report_audited: flag('annual_report_audited'),
  se_workplace_kommun: overlaps('wp_kommun'),
};

for (const f of FILTERS) {
  if (!FILTER_SQL[f.id]) throw new Error(`PostgreSQL peer: no SQL for filter ${f.id}`);
}

function where(params: CountParams, p: Params): string {
  const parts: string[] = [];
  const status = params.filters['status'];
  if (status === undefined) parts.push(`staatus = 'R'`);
  for (const f of FILTERS) {
    const input = params.filters[f.id];
    if (input === undefined) continue;
    if (f.id === 'status' && input.kind === 'list' && input.values.includes('__all__')) continue;
    const sql = (FILTER_SQL[f.id] as Sql)(input, p);
    if (sql) parts.push(sql);
  }
  return parts.length ? parts.join(' AND ') : 'true';
}

export function countSql(params: CountParams): PgSql {
  const p = new Params();
  const w = where(params, p);
  return {
    text: `SELECT count(*) AS n FROM ${pgTables(params.country).companies} WHERE ${w}`,
    values: p.values,
  };
}

/** One page of search rows in the API's order: (key, registrikood), nulls last, registrikood breaking ties. */
export function pageSql(params: SearchParams): PgSql {
  const p = new Params();
  const w = where(params, p);
  const dir = params.sort_dir === 'desc' ? 'DESC' : 'ASC';
  const column = SORT_COLUMNS[SORT_FIELDS[params.sort_by]] as string;
  const order =
    column === 'registrikood' ? `registrikood ${dir}` : `${column} ${dir} NULLS LAST, registrikood ${dir}`;
  const limit = p.add(params.page_size);
  const offset = p.add((params.page - 1) * params.page_size);
  return {
    text:
      `SELECT ${ROW_COLUMNS.map((c) => `"${c}"`).join(', ')} FROM ${pgTables(params.country).companies} ` +
      `WHERE ${w} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
    values: p.values,
  };
}

export function detailSql(country: CountParams['country'], code: string): PgSql {
  return { text: `SELECT doc FROM ${pgTables(country).detail} WHERE registrikood = $1`, values: [code] };
}

export function historySql(country: CountParams['country'], code: string): PgSql {
  // The API's chronological order (src/engine/snapshot-loader.ts): annual rows after the year's periods.
  return {
    text:
      `SELECT ${HISTORY_COLUMNS.map((c) => `"${c}"`).join(', ')} FROM ${pgTables(country).history} ` +
      `WHERE registrikood = $1 ORDER BY year, (quarter = 0 AND month = 0), quarter, month, granularity`,
    values: [code],
  };
}

export function nameSql(country: CountParams['country'], code: string): PgSql {
  return {
    text: `SELECT arinimi FROM ${pgTables(country).companies} WHERE registrikood = $1`,
    values: [code],
  };
}
