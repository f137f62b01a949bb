import { z } from 'zod';
import {
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
    .enum(['admin', 'unlimited', 'subscription', 'trial'])
    .nullable()
    .describe('Why the call would be free, or null'),
  would_succeed: z
    .boolean()
    .describe('Whether the balance covers credits_needed now (false: the call would answer 402)'),
});
export type EstimateData = z.output<typeof EstimateDataSchema>;
