import type { CountryCode } from '../contract/countries.ts';

/**
 * Names of the native tables a loaded snapshot serves from, per country. They are built from the
 * snapshot's Parquet at load (see snapshot-loader.ts): a point lookup in a native table sorted by
 * registrikood takes 2-4 ms where the same lookup straight from Parquet reads whole row groups (30-50 ms).
 * Country codes are a closed union, so these identifiers never carry user input.
 */
export const tables = (country: CountryCode) => {
  const cc = country.toLowerCase();
  return {
    /** For-sale companies with derived flat filter columns. */
    companies: `co_${cc}`,
    /** (rid, kood): one row per company activity code, sorted by kood. */
    activities: `act_${cc}`,
    history: `hi_${cc}`,
    /** SE only. */
    workplaces: `wp_${cc}`,
  };
};
