import type { CountParams, FilterInput } from '../contract/api-schemas.ts';
import type { CountryCode } from '../contract/countries.ts';
import { ACTIVE_STATUS } from '../contract/data-contract.ts';
import { FILTERS } from '../contract/filters.ts';
import type { DictionaryColumn } from './tables.ts';

/**
 * Precomputed counts (issue 17, lever 4): the exact number of for-sale companies per status for every
 * value of one, and every pair of values of two, of the low-cardinality filters below, built once per
 * snapshot from the serving table `co` (serving-build.ts) into the lookup store's `counts` table. A count
 * or a search total whose filters are at most two of these (plus `status`) is a sum over a few rows of
 * that table, read synchronously: no scan, no place in DuckDB's queue. Everything else is counted by
 * DuckDB as before. The values are those of the serving columns the SQL builder filters on
 * (query-builder.ts), encoded as integers:
 *
 * - `dict`: the dictionary id of the column (`d_<column>`); a row whose value is NULL has none and is -1;
 * - `flag`: true 1, false 0, NULL -1 (`flag = true` matches 1, `= false` 0, NULL neither);
 * - `exclude`: the same encoding; `exclude_*=true` keeps 0 and -1 (IS NOT TRUE), `false` filters nothing;
 * - `int`: the integer itself (bands are non-negative), NULL -1;
 * - `date`: days since 1970-01-01, NULL the smallest INTEGER, which no inclusive range reaches.
 */
export type CountDimKind = 'dict' | 'flag' | 'exclude' | 'int' | 'date';

export interface CountDim {
  /** The filter id (filters.ts). */
  filter: string;
  /** The column of the serving table `co` it is counted on. */
  column: string;
  kind: CountDimKind;
  /** `dict`: the dictionary of the filter's values. */
  dictionary?: DictionaryColumn;
}

export const COUNT_DIMS: readonly CountDim[] = [
  { filter: 'legal_form', column: 'd_oiguslik_vorm', kind: 'dict', dictionary: 'oiguslik_vorm' },
  { filter: 'registered', column: 'esmaregistreerimise_kpv', kind: 'date' },
  { filter: 'ehak_kood', column: 'd_ehak_kood', kind: 'dict', dictionary: 'ehak_kood' },
  { filter: 'lt_locations', column: 'd_ehak_nimetus', kind: 'dict', dictionary: 'ehak_nimetus' },
  { filter: 'vat_active', column: 'vat_active', kind: 'flag' },
  { filter: 'has_email', column: 'f_email', kind: 'flag' },
  { filter: 'has_website', column: 'f_website', kind: 'flag' },
  { filter: 'has_phone', column: 'f_phone', kind: 'flag' },
  { filter: 'has_contact', column: 'f_contact', kind: 'flag' },
  { filter: 'has_domain', column: 'f_domain', kind: 'flag' },
  { filter: 'has_tax_debt', column: 'has_tax_debt', kind: 'flag' },
  { filter: 'exclude_marketing_optout', column: 'marketing_optout', kind: 'exclude' },
  { filter: 'exclude_phone_optout', column: 'phone_optout', kind: 'exclude' },
  { filter: 'employees_band', column: 'f_employees_band', kind: 'int' },
  { filter: 'turnover_band', column: 'se_turnover_band', kind: 'int' },
  { filter: 'annual_report_filed', column: 'annual_report_filed', kind: 'flag' },
  { filter: 'annual_report_audited', column: 'annual_report_audited', kind: 'flag' },
];

/** The value of a NULL date; an inclusive range of real dates never reaches it. */
export const NULL_DATE = -2147483648;

/**
 * Counted alone, never in a pair: the registration date has thousands of distinct days, and its pairs
 * were most of the table (PL at scale 0.05: 310,000 of 470,000 rows, more rows than companies) for
 * counts a scan of two columns answers anyway.
 */
const SINGLE_ONLY = new Set(['registered']);

const hasFilter = (country: CountryCode, id: string) =>
  FILTERS.some((f) => f.id === id && f.countries.includes(country));

/** The dimensions of a country (the filters it has), in COUNT_DIMS order. */
export const countDims = (country: CountryCode): CountDim[] =>
  COUNT_DIMS.filter((d) => hasFilter(country, d.filter));

/** The key of a set of dimensions in the `counts` table: their filter ids in COUNT_DIMS order. */
const setKey = (dims: readonly CountDim[]): string => dims.map((d) => d.filter).join(',');

/** The sets counted for a country: none (status only), each dimension, each pair (SINGLE_ONLY aside). */
export function countSets(country: CountryCode): CountDim[][] {
  const dims = countDims(country);
  const sets: CountDim[][] = [[]];
  for (const [i, a] of dims.entries()) {
    sets.push([a]);
    if (SINGLE_ONLY.has(a.filter)) continue;
    for (const b of dims.slice(i + 1)) if (!SINGLE_ONLY.has(b.filter)) sets.push([a, b]);
  }
  return sets;
}

const encoded = (d: CountDim): string => {
  const c = `"${d.column}"`;
  switch (d.kind) {
    case 'dict':
    case 'int':
      return `coalesce(${c}, -1)::INTEGER`;
    case 'flag':
    case 'exclude':
      return `(CASE WHEN ${c} THEN 1 WHEN NOT ${c} THEN 0 ELSE -1 END)::INTEGER`;
    case 'date':
      return `coalesce((${c} - DATE '1970-01-01')::INTEGER, ${NULL_DATE})`;
  }
};

/**
 * The DuckDB query of the `counts` rows of a country from the serving table `companies` (`co`): (dims,
 * a, b, s, n) with a and b the encoded values (0 where the set has fewer dimensions) and s the status
 * id. One GROUP BY per set over a materialised projection of the encoded columns, so `co` is read once:
 * the same rows as one GROUPING SETS statement at a fifth to a half of its CPU (scale 0.01 EE 0.12 s
 * against 0.62-1.21 s, scale 0.05 PL 0.52 s against 1.0 s), whose cost per set dominated small tables.
 */
export function countsSql(country: CountryCode, companies: string): string {
  const dims = countDims(country);
  const cols = dims.map((d) => `${encoded(d)} AS "${d.filter}"`);
  const parts = countSets(country).map((set) => {
    const a = set[0] ? `"${set[0].filter}"` : '0';
    const b = set[1] ? `"${set[1].filter}"` : '0';
    return `SELECT '${setKey(set)}' AS set_key, ${a}::INTEGER AS a, ${b}::INTEGER AS b, d_staatus AS s,
      count(*)::INTEGER AS n FROM v GROUP BY ALL`;
  });
  return `
    WITH v AS MATERIALIZED (SELECT d_staatus${cols.length ? `, ${cols.join(', ')}` : ''} FROM ${companies})
    SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY set_key, a, b, s`;
}

/** What the `counts` table is asked: one set, the values of its first and second dimension, statuses. */
export interface CountLookup {
  set: string;
  /** The accepted values of each dimension of the set, or an inclusive range (a date). */
  values: (number[] | { min: number; max: number })[];
  /** The status ids, or null for any status. */
  statuses: number[] | null;
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD date, or null when it is not one (DuckDB's CAST decides then). */
function days(value: string | number): number | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const t = Date.parse(`${value}T00:00:00Z`);
  if (!Number.isFinite(t) || new Date(t).toISOString().slice(0, 10) !== value) return null;
  return Math.round(t / DAY_MS);
}

/**
 * The precomputed count that answers `params`, as a lookup, or `0` when no row can match (a value the
 * snapshot lacks), or null when the counts table cannot answer (another filter, more than two
 * dimensions, a value outside the encoding): then DuckDB counts.
 */
export function countLookup(
  params: CountParams,
  dictionaries: Readonly<Record<DictionaryColumn, ReadonlyMap<string, number>>>,
): CountLookup | 0 | null {
  // The table counts whole snapshots; "changed since" is a filter it has no dimension for.
  if (params.updated_since !== undefined) return null;
  const byFilter = new Map(countDims(params.country).map((d) => [d.filter, d]));
  const used: { dim: CountDim; values: number[] | { min: number; max: number } }[] = [];
  let statuses: number[] | null = null;
  let statusSent = false;
  for (const [id, input] of Object.entries(params.filters) as [string, FilterInput | undefined][]) {
    if (input === undefined) continue;
    if (id === 'status') {
      if (input.kind !== 'list') return null;
      statusSent = true;
      if (input.values.includes('__all__')) continue;
      statuses = ids(input.values, dictionaries.staatus);
      if (statuses.length === 0) return 0;
      continue;
    }
    const dim = byFilter.get(id);
    if (!dim) return null;
    const values = valuesOf(dim, input, dictionaries);
    if (values === null) return null;
    if (values === 'all') continue;
    if (Array.isArray(values) && values.length === 0) return 0;
    used.push({ dim, values });
  }
  if (!statusSent) {
    const active = dictionaries.staatus.get(ACTIVE_STATUS);
    if (active === undefined) return 0;
    statuses = [active];
  }
  if (used.length > 2) return null;
  used.sort((x, y) => COUNT_DIMS.indexOf(x.dim) - COUNT_DIMS.indexOf(y.dim));
  if (used.length === 2 && used.some((u) => SINGLE_ONLY.has(u.dim.filter))) return null;
  return { set: setKey(used.map((u) => u.dim)), values: used.map((u) => u.values), statuses };
}

function ids(values: readonly (string | number)[], dict: ReadonlyMap<string, number>): number[] {
  return [...new Set(values.flatMap((v) => (dict.has(String(v)) ? [dict.get(String(v))!] : [])))];
}

/** The accepted encoded values of one filter; 'all' when it filters nothing; null when not encodable. */
function valuesOf(
  dim: CountDim,
  input: FilterInput,
  dictionaries: Readonly<Record<DictionaryColumn, ReadonlyMap<string, number>>>,
): number[] | { min: number; max: number } | 'all' | null {
  switch (dim.kind) {
    case 'dict':
      return input.kind === 'list' ? ids(input.values, dictionaries[dim.dictionary!]) : null;
    case 'int':
      if (input.kind !== 'list') return null;
      if (!input.values.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0)) return null;
      return [...new Set(input.values as number[])];
    case 'flag':
      if (input.kind !== 'scalar' || typeof input.value !== 'boolean') return null;
      return [input.value ? 1 : 0];
    case 'exclude':
      if (input.kind !== 'scalar' || typeof input.value !== 'boolean') return null;
      return input.value ? [0, -1] : 'all';
    case 'date': {
      if (input.kind !== 'range') return null;
      const min = input.min === undefined ? NULL_DATE + 1 : days(input.min);
      const max = input.max === undefined ? 2147483647 : days(input.max);
      return min === null || max === null ? null : { min, max };
    }
  }
}
