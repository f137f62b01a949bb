import type { CountryCode } from '../contract/countries.ts';
import {
  CompanyDetailSchema,
  CompanyRowSchema,
  HistoryPeriodSchema,
  WorkplaceSchema,
} from '../contract/api-schemas.ts';

/** The attached compressed in-memory database holding the per-company JSON documents. */
export const COLD_DB = 'cold';
/** The attached in-memory database of the tables filters and sorts scan (compressed or not: EngineOptions). */
export const HOT_DB = 'hot';

/**
 * Names of the native tables a loaded snapshot serves from, per country. They are built from the
 * snapshot's Parquet at load (see snapshot-loader.ts): a point lookup in a native table sorted by
 * registrikood takes 2-4 ms where the same lookup straight from Parquet reads whole row groups (30-50 ms).
 * Country codes are a closed union, so these identifiers never carry user input.
 */
export const tables = (country: CountryCode) => {
  const cc = country.toLowerCase();
  return {
    /** Hot: for-sale companies, search-row columns plus derived filter and order columns. */
    companies: `${HOT_DB}.co_${cc}`,
    /** Hot: (rid, kood), one row per company activity code, sorted by kood. */
    activities: `${HOT_DB}.act_${cc}`,
    /** Hot, SE only: (rid, kommun_code) of active workplaces. */
    workplaces: `${HOT_DB}.wp_${cc}`,
    /** Cold: (registrikood, doc) with the whole detail as JSON. */
    detail: `${COLD_DB}.detail_${cc}`,
    /** Cold: (registrikood, doc) with the chronological periods as a JSON array. */
    history: `${COLD_DB}.history_${cc}`,
    /** Cold, SE only: (registrikood, doc) with the active workplaces, main first, as a JSON array. */
    workplaceDocs: `${COLD_DB}.workplaces_${cc}`,
  };
};
export type Tables = ReturnType<typeof tables>;

/**
 * Low-cardinality text columns filtered with IN lists. Each gets an integer id column (`d_<name>`) at load
 * and a value-to-id dictionary in memory, because an IN list over integers scans ~5x faster than over text.
 */
export const DICTIONARY_COLUMNS = ['staatus', 'oiguslik_vorm', 'ehak_kood', 'ehak_nimetus'] as const;
export type DictionaryColumn = (typeof DICTIONARY_COLUMNS)[number];

/**
 * Sort keys other than registrikood (which orders by `rid`). Each gets an order column `o_<key>`: the
 * row's position by (key, registrikood), NULL when the key is NULL, so a page is a Top-N over one integer
 * instead of a text or double plus the registrikood tie-breaker.
 */
export const ORDER_COLUMNS = {
  arinimi: 'arinimi',
  esmaregistreerimise_kpv: 'esmaregistreerimise_kpv',
  kapital: 'kapital_amount',
  annual_revenue: 'annual_revenue',
  last_quarter_turnover: 'last_quarter_turnover',
  last_quarter_employees_number: 'last_quarter_employees_number',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
} as const;

/** Search-row columns (spec 2.2 and extras), straight from CompanyRowSchema so the two cannot drift. */
export const COMPANY_ROW_COLUMNS = Object.keys(CompanyRowSchema.shape);

/** Every detail field (spec 2.3 and extras): the cold detail document. */
export const DETAIL_COLUMNS = Object.keys(CompanyDetailSchema.shape);

export const HISTORY_PERIOD_COLUMNS = Object.keys(HistoryPeriodSchema.shape);
export const WORKPLACE_COLUMNS = Object.keys(WorkplaceSchema.shape);
