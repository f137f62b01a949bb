import { COUNTRY_CODES, type CountryCode } from './countries.ts';
import { POSTCODE_COUNTRIES } from './data-contract.ts';

/**
 * Every search/count filter of spec 4.3, declared once: parameter names (English, plus the deprecated
 * Estonian alias of spec 9), type, and the countries that have it. The snapshot writer turns these into
 * each country's filters.json (spec 2.7); request validation and the SQL builder in src/engine key off the
 * same ids, so /filters lists exactly what search and count accept.
 */

export type FilterType =
  'text' | 'select' | 'multi_select' | 'boolean' | 'number_range' | 'date_range' | 'tree';
export type FilterValueType = 'string' | 'number' | 'integer' | 'boolean' | 'date';

/** Where a filter's `options` come from when the snapshot is written. */
export type OptionsSource =
  'legal_forms' | 'statuses' | 'se_employee_bands' | 'se_turnover_bands' | 'se_kommuner';

/**
 * Every filter id, as a literal union: tables keyed by filter (its SQL in query-builder.ts, its index in
 * filter-index.ts) are `Record<FilterId, ...>`, so a filter added here without SQL or without an index
 * does not compile.
 */
export const FILTER_IDS = [
  'company_name',
  'registration_code',
  'industry_codes',
  'legal_form',
  'status',
  'share_capital',
  'registered',
  'location',
  'ehak_kood',
  'lt_locations',
  'postcode',
  'vat_active',
  'has_email',
  'has_website',
  'has_phone',
  'has_contact',
  'has_domain',
  'has_tax_debt',
  'exclude_marketing_optout',
  'exclude_phone_optout',
  'employees_band',
  'turnover_band',
  'annual_revenue',
  'annual_net_profit',
  'annual_equity',
  'annual_total_assets',
  'last_quarter_turnover',
  'last_4_quarters_turnover_sum',
  'last_quarter_employees',
  'last_quarter_turnover_growth_pct',
  'person_name',
  'annual_report_filed',
  'annual_report_audited',
  'se_workplace_kommun',
] as const;
export type FilterId = (typeof FILTER_IDS)[number];

interface FilterBase {
  id: FilterId;
  label: string;
  type: FilterType;
  valueType: FilterValueType;
  countries: readonly CountryCode[];
  note?: string;
  /** Per-country caveats, merged into `note` for that country. */
  countryNotes?: Partial<Record<CountryCode, string>>;
}

export interface SingleParamFilter extends FilterBase {
  kind: 'single';
  param: string;
  /** Deprecated Estonian-named alias (spec 4.3, 9). */
  alias?: string;
  multi: boolean;
  options?: OptionsSource;
  /** `activities` or `locations`: the tree endpoint clients pick codes from. */
  optionsEndpoint?: 'activities' | 'locations';
  /** Checks one value for the country: why it is not a value of this filter, or null (a 422 says why). */
  checkValue?: (value: string, country: CountryCode) => string | null;
  /** The value as the engine matches it, after checkValue passed (the postcode's digits). */
  normalize?: (value: string, country: CountryCode) => string;
}

export interface RangeFilter extends FilterBase {
  kind: 'range';
  /** `min`/`max` (number_range) or `from`/`to` (date_range) parameters. */
  params: readonly [string, string];
  aliases?: readonly [string, string];
}

export type FilterDef = SingleParamFilter | RangeFilter;

const ALL = COUNTRY_CODES;
const ANNUAL: readonly CountryCode[] = ['EE', 'NO', 'LV'];
const QUARTERLY: readonly CountryCode[] = ['EE', 'LV', 'LT'];
const TREE_LOCATIONS: readonly CountryCode[] = ['EE', 'LV', 'FI', 'PL'];
const WITH_PEOPLE: readonly CountryCode[] = ['EE', 'LV', 'NO', 'FI', 'PL'];

/**
 * `industry_codes` per country: the classification edition served, and what happens to a code of the
 * retired edition (docs/api-decisions.md): it is mapped forward, never matched against nothing.
 */
export const INDUSTRY_EDITION_NOTES: Readonly<Record<CountryCode, string>> = {
  EE: 'Edition: EMTAK 2025; EMTAK 2008 codes are mapped forward to EMTAK 2025.',
  LV: 'Edition: NACE Rev. 2.1; NACE Rev. 2 codes are mapped forward to Rev. 2.1.',
  LT: 'Edition: EVRK 2.1; EVRK 2 (NACE Rev. 2) codes are mapped forward to EVRK 2.1.',
  NO: 'Edition: SN2025; SN2007 codes are mapped forward to SN2025.',
  FI: 'Edition: NACE Rev. 2.1; NACE Rev. 2 codes are mapped forward to Rev. 2.1.',
  PL: 'Edition: PKD 2025; PKD 2007 codes are mapped forward to PKD 2025.',
  SE: 'Edition: SNI 2025; SNI 2007 codes are mapped forward to SNI 2025.',
};

const single = (d: Omit<SingleParamFilter, 'kind'>): SingleParamFilter => ({ kind: 'single', ...d });
const numberRange = (
  id: FilterId,
  label: string,
  countries: readonly CountryCode[],
  extra: Partial<RangeFilter> = {},
): RangeFilter => ({
  kind: 'range',
  id,
  label,
  type: 'number_range',
  valueType: 'number',
  countries,
  params: [`${id}_min`, `${id}_max`],
  ...extra,
});

export const FILTERS: readonly FilterDef[] = [
  single({
    id: 'company_name',
    param: 'company_name',
    alias: 'arinimi',
    label: 'Company name contains',
    type: 'text',
    valueType: 'string',
    multi: true,
    countries: ALL,
    note: 'Case- and accent-insensitive partial match; several values match any of them.',
  }),
  single({
    id: 'registration_code',
    param: 'registration_code',
    alias: 'registrikood',
    label: 'Registration code',
    type: 'text',
    valueType: 'string',
    multi: false,
    countries: ALL,
    note: 'Exact registration code.',
  }),
  single({
    id: 'industry_codes',
    param: 'industry_codes',
    alias: 'emtak_codes',
    label: 'Activity codes',
    type: 'tree',
    valueType: 'string',
    multi: true,
    countries: ALL,
    optionsEndpoint: 'activities',
    note: 'Leaf codes from /activities; a company matches when any of its activity codes is sent.',
    // The edition each tree serves (ingest/reference; a test holds the two together).
    countryNotes: INDUSTRY_EDITION_NOTES,
  }),
  single({
    id: 'legal_form',
    param: 'legal_form',
    alias: 'oiguslik_vorm',
    label: 'Legal form',
    type: 'multi_select',
    valueType: 'string',
    multi: true,
    countries: ALL,
    options: 'legal_forms',
  }),
  single({
    id: 'status',
    param: 'status',
    alias: 'staatus',
    label: 'Status',
    type: 'multi_select',
    valueType: 'string',
    multi: true,
    countries: ALL,
    options: 'statuses',
    note: 'Omitted: active (R) only. `__all__`: every status.',
  }),
  {
    ...numberRange('share_capital', 'Share capital', ['EE', 'LV', 'NO', 'PL']),
    aliases: ['kapital_min', 'kapital_max'],
    countryNotes: { EE: 'EUR', LV: 'EUR', NO: 'NOK', PL: 'PLN' },
  },
  {
    kind: 'range',
    id: 'registered',
    label: 'First registration date',
    type: 'date_range',
    valueType: 'date',
    countries: ALL,
    params: ['registered_from', 'registered_to'],
    aliases: ['esmaregistreerimise_from', 'esmaregistreerimise_to'],
    note: 'YYYY-MM-DD, inclusive.',
  },
  single({
    id: 'location',
    param: 'location',
    label: 'Location (free text)',
    type: 'text',
    valueType: 'string',
    multi: false,
    countries: ['NO', 'SE'],
    note: 'Case- and accent-insensitive partial match on municipality, county and address.',
  }),
  single({
    id: 'ehak_kood',
    param: 'ehak_kood',
    label: 'Location',
    type: 'tree',
    valueType: 'string',
    multi: true,
    countries: TREE_LOCATIONS,
    optionsEndpoint: 'locations',
    note: "Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code.",
  }),
  single({
    id: 'lt_locations',
    param: 'lt_locations',
    label: 'Location',
    type: 'tree',
    valueType: 'string',
    multi: true,
    countries: ['LT'],
    optionsEndpoint: 'locations',
    note: "Send a node's `locations` array (repeat the parameter); the node's `kood` does not match.",
  }),
  single({
    id: 'postcode',
    param: 'postcode',
    label: 'Postcode starts with',
    type: 'text',
    valueType: 'string',
    multi: true,
    countries: POSTCODE_COUNTRIES,
    note: 'Prefix of the digits: `101` matches 10115; `291 8`, `61-6`, `LV-10` mean 2918, 616, 10. Any of several.',
    checkValue: (value, country) => {
      const digits = postcodeDigits(value, country);
      return digits === null
        ? `\`${value}\` is not the start of a postcode: send digits, with spaces or hyphens as the country writes them${
            country === 'LV' ? ' (and the `LV-` prefix if you like)' : ''
          }`
        : null;
    },
    normalize: (value, country) => postcodeDigits(value, country) ?? value,
  }),
  single({
    id: 'vat_active',
    param: 'vat_active',
    label: 'VAT-registered',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ALL,
  }),
  single({
    id: 'has_email',
    param: 'has_email',
    label: 'Has e-mail',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ALL,
  }),
  single({
    id: 'has_website',
    param: 'has_website',
    label: 'Has website',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ALL,
  }),
  single({
    id: 'has_phone',
    param: 'has_phone',
    label: 'Has phone',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ALL,
  }),
  single({
    id: 'has_contact',
    param: 'has_contact',
    label: 'Has any contact',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ALL,
  }),
  single({
    id: 'has_domain',
    param: 'has_domain',
    label: 'Has registered domain',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['EE', 'FI'],
    note: 'Registry-sourced domains, separate from websites.',
  }),
  single({
    id: 'has_tax_debt',
    param: 'has_tax_debt',
    label: 'Tax debt',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['EE'],
    note: 'true: on the public tax-debtor list; false: not on it.',
  }),
  single({
    id: 'exclude_marketing_optout',
    param: 'exclude_marketing_optout',
    label: 'Exclude postal marketing blocks',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['SE'],
  }),
  single({
    id: 'exclude_phone_optout',
    param: 'exclude_phone_optout',
    label: 'Exclude telephone marketing blocks',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['SE'],
  }),
  single({
    id: 'employees_band',
    param: 'employees_band',
    label: 'Employees (SCB size class)',
    type: 'multi_select',
    valueType: 'integer',
    multi: true,
    countries: ['SE'],
    options: 'se_employee_bands',
    note: '0 = unknown, never treated as zero employees.',
  }),
  single({
    id: 'turnover_band',
    param: 'turnover_band',
    label: 'Turnover (SCB class)',
    type: 'multi_select',
    valueType: 'integer',
    multi: true,
    countries: ['SE'],
    options: 'se_turnover_bands',
  }),
  numberRange('annual_revenue', 'Annual revenue', ANNUAL, {
    countryNotes: { EE: 'EUR', LV: 'EUR', NO: 'NOK' },
  }),
  numberRange('annual_net_profit', 'Annual net profit', ANNUAL, {
    note: 'Negative = loss; min 0 = profitable only.',
  }),
  numberRange('annual_equity', 'Annual equity', ANNUAL),
  numberRange('annual_total_assets', 'Annual total assets', ANNUAL),
  numberRange('last_quarter_turnover', 'Last quarter turnover (EUR)', QUARTERLY),
  numberRange('last_4_quarters_turnover_sum', 'Trailing four-quarter turnover (EUR)', QUARTERLY),
  numberRange('last_quarter_employees', 'Employees, latest period', ['EE', 'LV', 'LT', 'NO']),
  numberRange('last_quarter_turnover_growth_pct', 'Quarter-over-quarter turnover growth (%)', QUARTERLY),
  single({
    id: 'person_name',
    param: 'person_name',
    label: 'Person (board member / representative)',
    type: 'text',
    valueType: 'string',
    multi: false,
    countries: WITH_PEOPLE,
    note: 'Partial, case- and accent-insensitive match on names of publicly registered people.',
  }),
  single({
    id: 'annual_report_filed',
    param: 'annual_report_filed',
    label: 'Annual report filed',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['PL'],
    note: 'KRS entities: true = a financial statement was filed for the latest closed year.',
  }),
  single({
    id: 'annual_report_audited',
    param: 'annual_report_audited',
    label: 'Annual report audited',
    type: 'boolean',
    valueType: 'boolean',
    multi: false,
    countries: ['PL'],
  }),
  single({
    id: 'se_workplace_kommun',
    param: 'se_workplace_kommun',
    label: 'Has a workplace in kommun',
    type: 'multi_select',
    valueType: 'string',
    multi: true,
    countries: ['SE'],
    options: 'se_kommuner',
    note: 'SCB kommun codes; finds companies with an active workplace there.',
  }),
];

// Each id is declared exactly once (the union above cannot say so by itself).
if (FILTERS.map((f) => f.id).join() !== FILTER_IDS.join()) {
  throw new Error('FILTERS must declare each of FILTER_IDS once, in that order');
}

/** Postcodes are at most 10 characters in the served countries (`LV-1010`, `291 80`). */
const POSTCODE_PREFIX = /^[0-9][0-9 -]{0,9}$/;

/**
 * The digits a postcode filter value matches on (`LV-10` → `10`, `291 8` → `2918`), or null when the value
 * is not the start of a postcode: the postcode filter's one normalisation, used by request validation, the
 * planner and the SQL alike, against the served postcode's digits (`f_postcode`, serving-build.ts).
 */
export function postcodeDigits(value: string, country: CountryCode): string | null {
  const v = value.trim();
  const rest = country === 'LV' ? v.replace(/^LV-?/i, '') : v;
  return POSTCODE_PREFIX.test(rest) ? rest.replace(/[^0-9]/g, '') : null;
}

export function filtersFor(country: CountryCode): FilterDef[] {
  return FILTERS.filter((f) => f.countries.includes(country));
}

/** Every query parameter name a filter answers to (English and deprecated alias), for one country. */
export function filterParamNames(f: FilterDef): { param: string; alias?: string }[] {
  if (f.kind === 'single') return [f.alias ? { param: f.param, alias: f.alias } : { param: f.param }];
  return f.params.map((p, i) => {
    const alias = f.aliases?.[i];
    return alias ? { param: p, alias } : { param: p };
  });
}

/** Spec 2.7 filter spec as written to filters.json and served by /filters. */
export interface FilterSpecJson {
  param: string | null;
  param_min: string | null;
  param_max: string | null;
  param_from: string | null;
  param_to: string | null;
  type: FilterType;
  label: string;
  multi: boolean | null;
  options: { value: string | number; label: string; count?: number }[] | null;
  options_url: string | null;
  note: string | null;
  /** Extra: the deprecated Estonian-named spelling(s) still accepted. */
  deprecated_aliases?: string[];
}

export function filterSpecJson(
  f: FilterDef,
  country: CountryCode,
  options: Partial<Record<OptionsSource, { value: string | number; label: string; count?: number }[]>>,
): FilterSpecJson {
  const notes = [f.note, f.countryNotes?.[country]].filter((n): n is string => Boolean(n));
  const base = {
    param: null,
    param_min: null,
    param_max: null,
    param_from: null,
    param_to: null,
    type: f.type,
    label: f.label,
    multi: null,
    options: null,
    options_url: null,
    note: notes.length ? notes.join(' ') : null,
  };
  if (f.kind === 'range') {
    const [a, b] = f.params;
    const spec: FilterSpecJson =
      f.type === 'date_range'
        ? { ...base, param_from: a, param_to: b }
        : { ...base, param_min: a, param_max: b };
    return f.aliases ? { ...spec, deprecated_aliases: [...f.aliases] } : spec;
  }
  const spec: FilterSpecJson = {
    ...base,
    param: f.param,
    multi: f.multi,
    options: f.options ? (options[f.options] ?? []) : null,
    options_url: f.optionsEndpoint ? `/api/v1/data/${f.optionsEndpoint}?country=${country}` : null,
  };
  return f.alias ? { ...spec, deprecated_aliases: [f.alias] } : spec;
}
