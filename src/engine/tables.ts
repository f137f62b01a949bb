import type { CountryCode } from '../contract/countries.ts';
import {
  CompanyDetailSchema,
  CompanyRowSchema,
  HistoryPeriodSchema,
  WorkplaceSchema,
} from '../contract/api-schemas.ts';

/** The serving database file in each country folder of a snapshot (serving-build.ts); beside it the lookup store (lookup-store.ts). */
export const SERVING_FILE = 'serving.duckdb';
/**
 * Bumped whenever the serving tables change shape or meaning: a file of another version is rebuilt
 * before it is served, so a snapshot written by an older release still serves correctly.
 */
export const SERVING_LAYOUT_VERSION = 11;

/** The alias the country's serving database is attached under. */
export const servingAlias = (country: CountryCode) => `s_${country.toLowerCase()}`;

/**
 * Names of the tables a snapshot serves from, per country, inside its attached serving database (built
 * from the snapshot's Parquet by serving-build.ts): a point lookup in a table sorted by registrikood takes
 * 1-3 ms where the same lookup straight from Parquet reads whole row groups (30-50 ms). Country codes are
 * a closed union, so these identifiers never carry user input.
 */
export const tables = (country: CountryCode) => {
  const db = servingAlias(country);
  return {
    /** For-sale companies, search-row columns plus derived filter and order columns, in rid order. */
    companies: `${db}.co`,
    /** (rid, kood), one row per company activity code, sorted by kood. */
    activities: `${db}.act`,
    /** SE only: (rid, kommun_code) of active workplaces. */
    workplaces: `${db}.wp`,
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
