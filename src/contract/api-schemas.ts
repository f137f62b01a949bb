import { z } from 'zod';
import { COUNTRIES, COUNTRY_CODES, workplaceCountries, type CountryCode } from './countries.ts';
import { FILTERS, filterParamNames, type FilterDef } from './filters.ts';
import type { ValidationIssue } from '../errors/app-error.ts';
import { sparseObjectParser } from './sparse-object.ts';

/**
 * The zod schemas of every request and response of spec parts 2 and 4: the single source of request
 * validation, the TypeScript types, the OpenAPI document (through fastify-type-provider-zod) and the MCP
 * tool schemas. Search/count parameters are derived from src/contract/filters.ts, so a filter declared
 * there is accepted here, listed by /filters and mapped to SQL by src/engine without a second list.
 */

// ---------------------------------------------------------------------------------------------------------
// Query-string scalars. Query values arrive as strings; these parse them without hiding mistakes.

/** `true` / `false` only (spec 4.3 booleans); anything else is a 422 rather than a silent default. */
export const queryBoolean = () => z.stringbool({ truthy: ['true'], falsy: ['false'], case: 'sensitive' });

/** A finite number from a query string (zod 4 rejects NaN and Infinity; the HTTP layer rejects empty values). */
const queryNumber = () => z.coerce.number();

const queryInteger = () => z.coerce.number().int();

export const CountrySchema = z.enum(COUNTRY_CODES).meta({
  id: 'Country',
  description: 'ISO 3166-1 alpha-2 code of one of the seven countries',
  examples: ['EE'],
});

// ---------------------------------------------------------------------------------------------------------
// Discovery requests (spec 4.2)

export const FiltersQuerySchema = z.strictObject({ country: CountrySchema });

export const ActivitiesQuerySchema = z.strictObject({
  country: CountrySchema,
  lang: z
    .string()
    .min(2)
    .max(8)
    .default('en')
    .describe("Label language: `en` (default) or the country's own language where the classifier has labels"),
});

export const LocationsQuerySchema = z.strictObject({
  country: CountrySchema,
  query: z
    .string()
    .min(2)
    .max(80)
    .optional()
    .describe('Case-insensitive name search: matching nodes flat, at most 100, instead of the tree'),
  max_depth: queryInteger()
    .min(1)
    .max(4)
    .optional()
    .describe('Prunes the tree below this depth; 1 = top level only'),
});

// ---------------------------------------------------------------------------------------------------------
// Search and count requests (spec 4.3), derived from the filter declarations.

/** Normalised value of one filter after parsing: what the engine's query builder receives. */
export type FilterInput =
  | { kind: 'list'; values: (string | number)[] }
  | { kind: 'scalar'; value: string | number | boolean }
  | { kind: 'range'; min?: number | string; max?: number | string };

/** Filter id (src/contract/filters.ts) to its parsed value; absent filters are absent keys. */
export type FilterValues = Readonly<Record<string, FilterInput>>;

/** Spec 4.3 sort keys and the column each sorts by; the English names are aliases (docs/api-decisions.md). */
export const SORT_FIELDS = {
  registrikood: 'registrikood',
  registration_code: 'registrikood',
  arinimi: 'arinimi',
  company_name: 'arinimi',
  esmaregistreerimise_kpv: 'esmaregistreerimise_kpv',
  registered_date: 'esmaregistreerimise_kpv',
  kapital: 'kapital',
  share_capital: 'kapital',
  annual_revenue: 'annual_revenue',
  last_quarter_turnover: 'last_quarter_turnover',
  last_quarter_employees_number: 'last_quarter_employees_number',
  last_quarter_employees: 'last_quarter_employees_number',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
} as const;
export type SortBy = keyof typeof SORT_FIELDS;
export type SortField = (typeof SORT_FIELDS)[SortBy];
const SORT_BY_VALUES = Object.keys(SORT_FIELDS) as [SortBy, ...SortBy[]];

/**
 * Where parameter values come from: a query string (every value a string) or a JSON body (MCP tool
 * arguments), where booleans and numbers arrive typed and a JSON Schema must say so.
 */
type Wire = 'query' | 'json';

/** The zod type of one parameter of a filter (each repeatable parameter is an array). */
function filterParamSchema(f: FilterDef, wire: Wire): z.ZodType {
  const scalar = (): z.ZodType => {
    switch (f.valueType) {
      case 'string':
        return z.string().min(1).max(200);
      case 'number':
        return wire === 'query' ? queryNumber() : z.number();
      case 'integer': {
        const int = wire === 'query' ? queryInteger() : z.number().int();
        return f.id === 'employees_band' ? int.min(0).max(16) : int.min(0);
      }
      case 'boolean':
        return wire === 'query' ? queryBoolean() : z.boolean();
      case 'date':
        return z.iso.date();
    }
  };
  const value = (): z.ZodType =>
    f.id === 'registration_code' ? registrationCodeString().min(1).max(200) : scalar();
  // A whole location node is sent as its `codes` (666 for the largest EE county); the URL bounds the rest.
  if (f.kind === 'single' && f.multi) {
    return wire === 'query' ? z.array(value()).min(1).max(2000) : scalarOrList(value(), 2000);
  }
  return value();
}

/**
 * A JSON argument that takes a list also takes one value (`"status": "__all__"`, `"company_name": "x"`):
 * agents send a single value as a scalar as often as not, and a query string cannot tell them apart anyway.
 * The JSON Schema still says "array" (what clients that build arguments from the schema should send);
 * parsing wraps a lone value, so the list's own bounds and item errors apply to it.
 */
export function scalarOrList<T extends z.ZodType>(item: T, max: number) {
  return z.preprocess(
    (v) => (v === undefined || v === null || Array.isArray(v) ? v : [v]),
    z.array(item).min(1).max(max),
  );
}

/** Said when a registration code arrives as a JSON number: the number has already lost its leading zeros. */
export const REGISTRATION_CODE_NUMBER_HINT =
  'send the registration code as a JSON string, e.g. "0123456789": as a number it loses leading zeros';

/** Registration codes are strings everywhere; a number gets a hint instead of zod's bare type error. */
export const registrationCodeString = () =>
  z.string({
    error: (issue) =>
      issue.code === 'invalid_type' && typeof issue.input === 'number'
        ? REGISTRATION_CODE_NUMBER_HINT
        : undefined,
  });

function describeFilter(f: FilterDef): string {
  const where = f.countries.length === COUNTRY_CODES.length ? 'all countries' : f.countries.join(', ');
  return [f.label, f.note, `Countries: ${where}.`].filter(Boolean).join('. ').replace(/\.\./g, '.');
}

interface FilterParam {
  filter: FilterDef;
  /** 0 = param / min / from, 1 = max / to. */
  slot: 0 | 1;
  english: string;
  alias?: string;
}

/** Every query parameter of search/count that belongs to a filter, English and alias spelling. */
export const FILTER_PARAMS: readonly FilterParam[] = FILTERS.flatMap((filter) =>
  filterParamNames(filter).map(({ param, alias }, i): FilterParam =>
    alias
      ? { filter, slot: i === 0 ? 0 : 1, english: param, alias }
      : { filter, slot: i === 0 ? 0 : 1, english: param },
  ),
);

/** Query strings take the English names and the deprecated aliases; JSON bodies the English names only. */
function filterShape(wire: Wire = 'query'): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const p of FILTER_PARAMS) {
    const description = describeFilter(p.filter);
    shape[p.english] = filterParamSchema(p.filter, wire).optional().describe(description);
    if (p.alias && wire === 'query') {
      shape[p.alias] = filterParamSchema(p.filter, wire)
        .optional()
        .meta({ deprecated: true, description: `Deprecated Estonian-named alias of \`${p.english}\`.` });
    }
  }
  return shape;
}

const PAGING_SHAPE = {
  page: queryInteger().min(1).default(1).describe('Page number, from 1'),
  page_size: queryInteger().min(1).max(500).default(50).describe('Rows per page, 1-500'),
  sort_by: z
    .enum(SORT_BY_VALUES)
    .default('registrikood')
    .describe('Sort key; ties are broken by registrikood so paging is stable'),
  sort_dir: z
    .enum(['asc', 'desc'])
    .default('asc')
    .describe('Sort direction: ascending (default) or descending'),
};

/**
 * Issue 19: only the companies added or changed by a snapshot published on or after a day, from the change
 * history every snapshot keeps (changes.parquet). Not a filter of filters.ts: it is the same for every
 * country and reads the history, not a column of the companies.
 */
const UPDATED_SINCE_SHAPE = {
  updated_since: z.iso
    .date()
    .optional()
    .describe(
      'Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day ' +
        'before the kept change history is a 422 naming the oldest date available',
    ),
};

/** Raw (wire) objects: what OpenAPI documents and what the MCP layer can reuse field by field. */
export const CountQueryObject = z.strictObject({
  country: CountrySchema,
  ...filterShape(),
  ...UPDATED_SINCE_SHAPE,
});
export const SearchQueryObject = z.strictObject({
  country: CountrySchema,
  ...filterShape(),
  ...UPDATED_SINCE_SHAPE,
  ...PAGING_SHAPE,
});

/**
 * The same filters as JSON arguments (the MCP tools): typed booleans and numbers, no deprecated aliases.
 * Parse with `.superRefine(refineFilters).transform(toCountParams)` like the query objects below.
 */
export const CountJsonObject = z.strictObject({
  country: CountrySchema,
  ...filterShape('json'),
  ...UPDATED_SINCE_SHAPE,
});

type RawQuery = Record<string, unknown> & { country: CountryCode };

/**
 * Each filter parameter's position in FILTER_PARAMS, under both spellings. A request sends a handful of the
 * ~45 parameters, so the per-request rules below visit only the keys that were sent (measured: looping over
 * every FILTER_PARAMS entry per request was a fifth of a search's validation time).
 */
const PARAM_POSITION: ReadonlyMap<string, number> = new Map(
  FILTER_PARAMS.flatMap((p, i): [string, number][] =>
    p.alias
      ? [
          [p.english, i],
          [p.alias, i],
        ]
      : [[p.english, i]],
  ),
);

/** The filter parameters sent (either spelling, not undefined), in FILTER_PARAMS order. */
function sentFilterParams(raw: RawQuery): FilterParam[] {
  const positions: number[] = [];
  for (const key of Object.keys(raw)) {
    const i = PARAM_POSITION.get(key);
    if (i !== undefined && raw[key] !== undefined && !positions.includes(i)) positions.push(i);
  }
  // Issues and filters come out in declaration order whatever order the keys arrived in.
  if (positions.length > 1) positions.sort((a, b) => a - b);
  return positions.map((i) => FILTER_PARAMS[i] as FilterParam);
}

/** Each channel points to its own way of listing a country's filters: REST a path, MCP a tool. */
const listing = (country: string, wire: Wire) =>
  wire === 'query' ? `see /filters?country=${country}` : `see list_filters for ${country}`;

/**
 * Cross-parameter rules of spec 4.3 and docs/api-decisions.md, as zod issues (so they are 422s):
 * a filter the country's /filters does not list, and both spellings of one parameter in one request.
 */
export function filterIssues(raw: RawQuery, wire: Wire = 'query'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const p of sentFilterParams(raw)) {
    const sentEnglish = raw[p.english] !== undefined;
    const sentAlias = p.alias !== undefined && raw[p.alias] !== undefined;
    if (sentEnglish && sentAlias) {
      issues.push({
        loc: ['query', p.alias as string],
        param: p.alias as string,
        msg: `both \`${p.english}\` and its deprecated alias \`${p.alias}\` were sent; send one`,
        type: 'duplicate_parameter',
      });
    }
    const param = sentEnglish ? p.english : (p.alias as string);
    if (!p.filter.countries.includes(raw.country)) {
      issues.push({
        loc: ['query', param],
        param,
        msg: `filter \`${param}\` is not available for country ${raw.country} (${listing(raw.country, wire)})`,
        type: 'filter_not_available',
      });
      continue;
    }
    const check = p.filter.kind === 'single' ? p.filter.checkValue : undefined;
    if (check) {
      const sent = raw[param];
      for (const value of Array.isArray(sent) ? sent : [sent]) {
        const msg = check(String(value), raw.country);
        if (msg) issues.push({ loc: ['query', param], param, msg, type: 'invalid_value' });
      }
    }
  }
  return issues;
}

/** Folds the English and alias parameters of each filter into one FilterInput per filter id. */
export function toFilterValues(raw: RawQuery): FilterValues {
  const out: Record<string, FilterInput> = {};
  for (const p of sentFilterParams(raw)) {
    const v = raw[p.english] ?? (p.alias !== undefined ? raw[p.alias] : undefined);
    if (v === undefined) continue;
    const f = p.filter;
    if (f.kind === 'range') {
      // A range's min (slot 0) comes before its max in FILTER_PARAMS, so only a max finds one already set.
      const prev = out[f.id];
      out[f.id] =
        p.slot === 0
          ? { kind: 'range', min: v as number | string }
          : prev?.kind === 'range'
            ? { kind: 'range', min: prev.min as number | string, max: v as number | string }
            : { kind: 'range', max: v as number | string };
    } else if (Array.isArray(v)) {
      const norm = f.normalize;
      const values = v as (string | number)[];
      out[f.id] = {
        kind: 'list',
        values: norm ? values.map((x) => norm(String(x), raw.country)) : values,
      };
    } else {
      out[f.id] = { kind: 'scalar', value: v as string | number | boolean };
    }
  }
  return out;
}

function addFilterIssues(issues: ValidationIssue[], ctx: z.RefinementCtx): void {
  for (const issue of issues) {
    ctx.addIssue({ code: 'custom', message: issue.msg, path: [issue.param], params: { type: issue.type } });
  }
}

export function refineFilters(raw: RawQuery, ctx: z.RefinementCtx): void {
  addFilterIssues(filterIssues(raw, 'query'), ctx);
}

/** refineFilters for JSON arguments (the MCP tools): the same rules, worded with tool names. */
export function refineJsonFilters(raw: RawQuery, ctx: z.RefinementCtx): void {
  addFilterIssues(filterIssues(raw, 'json'), ctx);
}

export interface CountParams {
  country: CountryCode;
  filters: FilterValues;
  /** YYYY-MM-DD: only companies added or changed by a snapshot published on or after it (issue 19). */
  updated_since?: string;
}
export interface SearchParams extends CountParams {
  page: number;
  page_size: number;
  sort_by: SortBy;
  sort_dir: 'asc' | 'desc';
}

// Object literals rather than spreads: these run on every search and count (spreading was measurable).
export const toCountParams = (raw: RawQuery): CountParams => {
  const since = raw['updated_since'];
  return typeof since === 'string'
    ? { country: raw.country, filters: toFilterValues(raw), updated_since: since }
    : { country: raw.country, filters: toFilterValues(raw) };
};

export const toSearchParams = (raw: RawQuery): SearchParams => {
  const since = raw['updated_since'];
  const country = raw.country;
  const filters = toFilterValues(raw);
  const page = raw['page'] as number;
  const page_size = raw['page_size'] as number;
  const sort_by = raw['sort_by'] as SortBy;
  const sort_dir = raw['sort_dir'] as 'asc' | 'desc';
  return typeof since === 'string'
    ? { country, filters, updated_since: since, page, page_size, sort_by, sort_dir }
    : { country, filters, page, page_size, sort_by, sort_dir };
};

/*
 * Every search and count parses one of these, so their valid inputs take a fast path: the parameters that
 * were sent, each through its own compiled schema (sparse-object.ts), then the filter rules and the
 * transform as below. An input that fails anywhere on it goes to the ordinary parser, so the 422s are zod's
 * own; the runtime schema documents exactly what the fast path does (the OpenAPI document is generated from
 * it).
 */
function fastQuery<T>(object: z.ZodObject, transform: (raw: RawQuery) => T): z.ZodType<T> {
  const fields = sparseObjectParser(object);
  // Both objects declare `country`, so their output is a RawQuery; a generic ZodObject's type cannot say so.
  const runtime = (object as unknown as z.ZodType<RawQuery>).superRefine(refineFilters).transform(transform);
  return z.withParser(runtime as z.ZodType<T>, (input) => {
    const raw = fields(input);
    if (raw === z.INVALID || filterIssues(raw as RawQuery).length > 0) return z.INVALID;
    return transform(raw as RawQuery);
  });
}

export const CountQuerySchema = fastQuery(CountQueryObject, toCountParams);

export const SearchQuerySchema = fastQuery(SearchQueryObject, toSearchParams);

// ---------------------------------------------------------------------------------------------------------
// Company requests (spec 4.4-4.6)

export const CompanyPathSchema = z.strictObject({
  registrikood: registrationCodeString()
    .min(1)
    .max(40)
    .describe('Registration code in the country’s own format'),
});
export const CompanyQuerySchema = z.strictObject({ country: CountrySchema });
const WORKPLACE_COUNTRIES = workplaceCountries() as [CountryCode, ...CountryCode[]];
export const WorkplacesQuerySchema = z.strictObject({
  country: z
    .enum(WORKPLACE_COUNTRIES)
    .describe(
      WORKPLACE_COUNTRIES.length === 1
        ? `\`${WORKPLACE_COUNTRIES[0]}\`: ${COUNTRIES[WORKPLACE_COUNTRIES[0]].name} is the only country with workplaces`
        : `${WORKPLACE_COUNTRIES.join(', ')}: the countries with workplaces`,
    ),
});

// ---------------------------------------------------------------------------------------------------------
// Responses (spec part 2)

const nstr = () => z.string().nullish();
const nnum = () => z.number().nullish();
const nint = () => z.number().int().nullish();
const nbool = () => z.boolean().nullish();
const ndate = () => z.iso.date().nullish();
// Search rows and details are built from every column of their schema (src/engine/lookup-store.ts), so each
// field is always sent, null where the register has no value: required and nullable in the document.
const rstr = () => z.string().nullable();
const rnum = () => z.number().nullable();
const rint = () => z.number().int().nullable();
const rbool = () => z.boolean().nullable();
const rdate = () => z.iso.date().nullable();

export const CountryItemSchema = z
  .object({
    code: CountrySchema,
    name: z.string(),
    as_of: z.iso
      .date()
      .nullable()
      .describe("The day the country's data was published into the live snapshot; null when none is loaded"),
    companies: z.number().int().nullable().describe('Companies for sale in the live snapshot'),
  })
  .meta({ id: 'CountryItem' });
export const CountriesResponseSchema = z.object({ countries: z.array(CountryItemSchema) });

export const FilterSpecSchema = z
  .looseObject({
    param: nstr(),
    param_min: nstr(),
    param_max: nstr(),
    param_from: nstr(),
    param_to: nstr(),
    type: z.enum(['text', 'select', 'multi_select', 'boolean', 'number_range', 'date_range', 'tree']),
    label: z.string(),
    multi: nbool(),
    options: z
      .array(z.looseObject({ value: z.union([z.string(), z.number()]), label: z.string() }))
      .nullish(),
    options_url: nstr(),
    note: nstr(),
  })
  .meta({ id: 'FilterSpec' });
export const FiltersResponseSchema = z.object({
  country: z.string(),
  industry_system: z.enum(['EMTAK', 'NACE', 'EVRK', 'PKD', 'SNI']),
  filters: z.array(FilterSpecSchema),
});
export type FiltersResponse = z.output<typeof FiltersResponseSchema>;

export interface TreeNode {
  kood: string;
  label: string;
  children: TreeNode[];
  codes?: string[] | undefined;
  locations?: string[] | undefined;
  [extra: string]: unknown;
}
export const TreeNodeSchema: z.ZodType<TreeNode> = z
  .looseObject({
    kood: z.string(),
    label: z.string(),
    get children() {
      return z.array(TreeNodeSchema);
    },
    codes: z.array(z.string()).optional().describe('EE/LV/FI/PL locations: this node and all descendants'),
    locations: z.array(z.string()).optional().describe('LT locations: name variants to send as lt_locations'),
  })
  .meta({ id: 'TreeNode' });
export const TreeResponseSchema = z.array(TreeNodeSchema);

export const CountResponseSchema = z.object({
  country: z.string(),
  count: z.number().int().nullable(),
  count_mode: z.string().nullable(),
});

/** Spec 2.2 search row, plus the per-country extras docs/api-decisions.md lists. */
export const CompanyRowSchema = z
  .looseObject({
    registrikood: z.string(),
    arinimi: rstr(),
    oiguslik_vorm: rstr(),
    oiguslik_vorm_tekstina: rstr(),
    staatus: rstr(),
    esmaregistreerimise_kpv: rdate(),
    ehak_kood: rstr(),
    ehak_nimetus: rstr(),
    asukoht: rstr(),
    postcode: rstr().describe(
      'As the country writes it (`10115`, `LV-1010`, `61-626`, `291 80`); null in LT',
    ),
    last_quarter_turnover: rnum(),
    last_quarter_employees_number: rint(),
    last_4_quarters_turnover_sum: rnum(),
    last_quarter_turnover_growth_pct: rnum(),
    kmkr_nr: rstr(),
    vat_active: rbool(),
    vat_number: rstr(),
    kapital: rstr(),
    annual_revenue: rnum(),
    annual_net_profit: rnum(),
    annual_equity: rnum(),
    annual_total_assets: rnum(),
    annual_report_year: rint(),
    has_tax_debt: rbool(),
    se_employees_band: rint(),
    se_turnover_band: rint(),
    marketing_optout: rbool(),
    phone_optout: rbool(),
    annual_report_filed: rbool(),
    annual_report_audited: rbool(),
  })
  .meta({ id: 'CompanyRow' });
export type CompanyRow = z.output<typeof CompanyRowSchema>;

export const UsageMetaSchema = z
  .object({
    rows_returned: z.number().int().nullable(),
    credits_charged: z.number(),
    credits_reserved: z.number().nullable(),
    credit_balance: z.number(),
    data_as_of: z.iso
      .date()
      .describe("The day the country's data was published into the live snapshot (as the Data-As-Of header)"),
    snapshot_id: z.string().describe('The snapshot that answered'),
  })
  .meta({ id: 'UsageMeta' });

export const SearchDataSchema = z.looseObject({
  items: z.array(CompanyRowSchema),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int().describe('All companies matching'),
  sort_by: z.string(),
  sort_dir: z.string(),
});
export type SearchData = z.output<typeof SearchDataSchema>;
/** MCP's search_companies with `fields`: rows projected to the fields asked for (the code always). */
export const ProjectedSearchDataSchema = SearchDataSchema.extend({
  items: z.array(CompanyRowSchema.partial().required({ registrikood: true })),
});
export const SearchResponseSchema = z.object({ data: SearchDataSchema, meta: UsageMetaSchema });

const PeriodSchema = z.looseObject({
  year: z.number().int().nullish(),
  quarter: z.number().int().nullish(),
  month: z.number().int().nullish(),
  as_of: ndate(),
});
const LabelledCodeSchema = z.looseObject({ code: nstr(), label: nstr() }).nullish();

export const CompanyDetailSchema = z
  .looseObject({
    ...CompanyRowSchema.shape,
    oigusliku_vormi_alaliik: rstr(),
    staatus_tekstina: rstr(),
    source_status: rstr().describe("The register's own status code before normalisation"),
    aadress_text: rstr(),
    kapital_amount: rnum().describe('Share capital as a number, in kapital_currency'),
    kapital_currency: rstr(),
    pl_regon: rstr(),
    pl_nip: rstr(),
    is_sole_trader: rbool(),
    contacts: z.array(z.looseObject({ liik: z.string(), sisu: z.string(), source: z.string().nullable() })),
    registered_domains: z.array(z.string()),
    emtak: z.array(z.looseObject({ kood: z.string(), label: nstr(), is_main: nbool() })),
    people: z.array(
      z.looseObject({
        nimi: z.string(),
        isiku_tyyp: nstr(),
        roll: nstr(),
        roll_tekstina: nstr(),
        algus_kpv: ndate(),
      }),
    ),
    latest_metrics: z
      .looseObject({
        year: z.number().int().nullish(),
        quarter: z.number().int().nullish(),
        month: z.number().int().nullish(),
        turnover: nnum(),
        employees: nint(),
        turnover_period: PeriodSchema.nullish(),
        employees_period: PeriodSchema.nullish(),
      })
      .nullable(),
    se_register: z
      .looseObject({
        export_import: LabelledCodeSchema,
        owner_category: LabelledCodeSchema,
        sme_class: LabelledCodeSchema,
        listing: LabelledCodeSchema,
        turnover_class: LabelledCodeSchema,
        activity_start_date: ndate(),
        trade_names: z.array(z.string()).nullish(),
        source: nstr(),
      })
      .nullable(),
  })
  .meta({ id: 'CompanyDetail' });
export type CompanyDetail = z.output<typeof CompanyDetailSchema>;
export const DetailResponseSchema = z.object({ data: CompanyDetailSchema, meta: UsageMetaSchema });

export const HistoryPeriodSchema = z
  .looseObject({
    period: z.string(),
    granularity: z.enum(['monthly', 'quarterly', 'annual', 'year_to_date', 'snapshot']),
    year: z.number().int(),
    quarter: z.number().int(),
    month: z.number().int(),
    turnover: nnum(),
    employees: nint(),
    state_taxes: nnum(),
    labour_taxes: nnum(),
    as_of: ndate(),
  })
  .meta({ id: 'HistoryPeriod' });
export const HistoryDataSchema = z
  .looseObject({
    registrikood: z.string(),
    arinimi: rstr(),
    country: z.string(),
    granularity: z.string().describe('quarterly, monthly, annual, snapshot, none, or mixed when rows differ'),
    periods: z.array(HistoryPeriodSchema),
  })
  .meta({ id: 'HistoryData' });
export type HistoryData = z.output<typeof HistoryDataSchema>;
export const HistoryResponseSchema = z.object({ data: HistoryDataSchema, meta: UsageMetaSchema });

export const WorkplaceSchema = z
  .looseObject({
    cfar_nr: z.number().int(),
    name: z.string(),
    is_main: z.boolean(),
    visit_address: nstr(),
    visit_postcode: nstr(),
    visit_town: nstr(),
    postal_address: nstr(),
    postal_code: nstr(),
    postal_town: nstr(),
    kommun_code: z.string(),
    kommun_name: nstr(),
    activity_codes: z.array(z.string()),
    employees_band_code: z.number().int(),
    phone: nstr(),
    email: nstr(),
    sweref99tm_n: nnum(),
    sweref99tm_e: nnum(),
    marketing_optout: z.boolean(),
    phone_optout: z.boolean(),
  })
  .meta({ id: 'Workplace' });
export const WorkplacesDataSchema = z.looseObject({
  registrikood: z.string(),
  workplaces: z.array(WorkplaceSchema),
  source: z.string().describe('Attribution: consumers passing the data on must name this source'),
});
export type WorkplacesData = z.output<typeof WorkplacesDataSchema>;
export const WorkplacesResponseSchema = z.object({ data: WorkplacesDataSchema, meta: UsageMetaSchema });

export const ErrorResponseSchema = z.object({ detail: z.string() }).meta({ id: 'Error' });
export const ValidationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).describe('Where: ["query", name] or ["path", name]'),
    param: z.string().describe('The parameter name as sent'),
    msg: z.string(),
    type: z.string().describe('Machine-readable kind, e.g. unknown_parameter, too_big, filter_not_available'),
  })
  .meta({ id: 'ValidationIssue' });
export const ValidationErrorResponseSchema = z
  .object({ detail: z.array(ValidationIssueSchema) })
  .meta({ id: 'ValidationError' });

/** `status` for everyone; `snapshot_id` and `countries` only for an admin key (docs/api-decisions.md). */
export const HealthResponseSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  snapshot_id: z.string().nullable().optional(),
  countries: z
    .record(
      z.string(),
      z.object({ generated_at: z.string(), age_seconds: z.number(), companies_for_sale: z.number().int() }),
    )
    .optional(),
});
export type HealthResponse = z.output<typeof HealthResponseSchema>;
