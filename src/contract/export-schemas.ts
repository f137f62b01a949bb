import { z } from 'zod';
import {
  CountJsonObject,
  CountrySchema,
  SearchQueryObject,
  refineFilters,
  toCountParams,
  type SearchParams,
  type SortBy,
} from './api-schemas.ts';
import type { CountryCode } from './countries.ts';

/**
 * The export and the cost estimate of issue 19 (docs/api-decisions.md): one schema each for the REST
 * validation, the OpenAPI document and the MCP tool, beside api-schemas.ts like the change feed's.
 */

export const EXPORT_FORMATS = ['csv', 'ndjson', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What max_rows is when not sent (issue 19); the largest accepted comes from REGDATA_EXPORT_MAX_ROWS. */
export const DEFAULT_EXPORT_ROWS = 100_000;

export type ExportParams = Omit<SearchParams, 'page' | 'page_size'> & {
  format: ExportFormat;
  max_rows: number;
};

/** Search's filters and sort, no paging: an export is every matching row, up to max_rows. */
const { page: _page, page_size: _pageSize, ...SEARCH_WITHOUT_PAGING } = SearchQueryObject.shape;

export const ExportQueryObject = z.strictObject({
  ...SEARCH_WITHOUT_PAGING,
  format: z
    .enum(EXPORT_FORMATS)
    .describe('`csv` (RFC 4180, header row), `ndjson` (one JSON object a line) or `parquet`'),
  max_rows: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_EXPORT_ROWS)
    .describe(
      `The most rows to export (default ${DEFAULT_EXPORT_ROWS}; the largest accepted is the ` +
        "server's REGDATA_EXPORT_MAX_ROWS, 1,000,000 unless configured). The reserve is " +
        'min(matching rows, max_rows) x the row price',
    ),
});

type RawExport = z.output<typeof ExportQueryObject>;

export const toExportParams = (raw: RawExport): ExportParams => ({
  ...toCountParams(raw),
  sort_by: raw.sort_by as SortBy,
  sort_dir: raw.sort_dir,
  format: raw.format,
  max_rows: raw.max_rows,
});

export const ExportQuerySchema = ExportQueryObject.superRefine(refineFilters).transform(toExportParams);

/**
 * The REST route's query: the export's, plus the three parameters of a signed download link (the MCP tool
 * export_companies hands them out; docs/api-decisions.md "Export over MCP"). They are the route's alone:
 * the estimate and the tool parse ExportQuerySchema, which does not know them.
 */
export const ExportRouteQueryObject = ExportQueryObject.extend({
  key_id: z
    .string()
    .optional()
    .describe('Download link only: the id of the API key the link was issued to (never the key itself)'),
  expires: z
    .string()
    .optional()
    .describe('Download link only: when the link stops working, in seconds since 1970-01-01 UTC'),
  signature: z
    .string()
    .optional()
    .describe(
      'Download link only: the signature over every other parameter. With key_id, expires and signature ' +
        'no Authorization header is sent; a changed, added or removed parameter, or an expired link, is a 403',
    ),
});

export const ExportRouteQuerySchema = ExportRouteQueryObject.superRefine(refineFilters).transform((raw) => ({
  params: toExportParams(raw),
  signed: raw.key_id !== undefined || raw.expires !== undefined || raw.signature !== undefined,
}));

/**
 * The MCP tool export_companies: the export's parameters as JSON arguments (typed values, English names,
 * like search_companies). Parsed without a transform: the tool writes the validated arguments back into
 * the link's query string, and makes ExportParams with toExportParams.
 */
export const ExportJsonObject = CountJsonObject.extend({
  sort_by: SearchQueryObject.shape.sort_by,
  sort_dir: SearchQueryObject.shape.sort_dir,
  format: ExportQueryObject.shape.format,
  max_rows: z
    .number()
    .int()
    .min(1)
    .default(DEFAULT_EXPORT_ROWS)
    .describe(ExportQueryObject.shape.max_rows.description ?? 'The most rows to export'),
});

/** What export_companies answers: the export priced now, and the link that runs it. */
export const ExportLinkDataSchema = z.object({
  country: CountrySchema,
  format: z.enum(EXPORT_FORMATS),
  rows: z
    .number()
    .int()
    .describe('The rows the download would export and reserve now: min(matching, max_rows)'),
  unit_price: z.number().describe("The country's row price in credits"),
  credits_needed: z.number().describe('What the download reserves when it starts (0 when a waiver applies)'),
  credit_balance: z.number().describe('Credits available now'),
  waived: z.boolean(),
  waiver: z.enum(['test', 'admin', 'unlimited', 'subscription', 'trial']).nullable(),
  url: z
    .string()
    .describe(
      'GET it without an Authorization header before expires_at. Each download is one export metered to ' +
        'your key: reserved when it starts, the rows sent charged, the rest released',
    ),
  expires_at: z.string().describe('When the link stops working (ISO 8601, UTC)'),
  data_as_of: z.string().describe("The day the country's data was published into the live snapshot"),
  snapshot_id: z.string(),
});
export type ExportLinkData = z.output<typeof ExportLinkDataSchema>;

// ---------------------------------------------------------------------------------------------------------
// The cost estimate

export const ESTIMATE_OPERATIONS = [
  'search',
  'export',
  'changes',
  'detail',
  'history',
  'workplaces',
] as const;
export type EstimateOperation = (typeof ESTIMATE_OPERATIONS)[number];

/**
 * `operation` and `country` are validated here; the rest of the query is that operation's own parameters,
 * checked by its own schema (src/services/estimate.ts), so an estimate accepts exactly what the call does.
 */
export const EstimateQueryObject = z.looseObject({
  operation: z.enum(ESTIMATE_OPERATIONS).describe('The operation to price'),
  country: CountrySchema,
  registrikood: z
    .string()
    .optional()
    .describe('detail, history, workplaces: the registration code (the path parameter of the call)'),
});

export interface EstimateRequest {
  operation: EstimateOperation;
  country: CountryCode;
  /** The remaining query parameters, as sent: the operation's own schema parses them. */
  rest: Record<string, unknown>;
}

export const EstimateQuerySchema = EstimateQueryObject.transform(
  ({ operation, ...rest }): EstimateRequest => ({
    operation,
    country: rest.country,
    rest,
  }),
);

export const EstimateDataSchema = z.object({
  country: CountrySchema,
  operation: z.enum(ESTIMATE_OPERATIONS),
  rows: z.number().int().describe('The rows the call would reserve (its own reserve rule)'),
  unit_price: z.number().describe("The country's row price in credits"),
  credits_needed: z
    .number()
    .describe('What the call would reserve: rows x unit_price, or 0 when a waiver applies'),
  credit_balance: z.number().describe('Credits available now'),
  waived: z.boolean(),
  waiver: z
    .enum(['test', 'admin', 'unlimited', 'subscription', 'trial'])
    .nullable()
    .describe('Why the call would be free, or null'),
  would_succeed: z
    .boolean()
    .describe('Whether the balance covers credits_needed now (false: the call would answer 402)'),
});
export type EstimateData = z.output<typeof EstimateDataSchema>;
