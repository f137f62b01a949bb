import type { CountryCode } from '../../src/contract/countries.ts';
import type { CountryAdapter } from './types.ts';

/** The countries the nightly ingest can build from official files. */
export const ADAPTERS: Partial<Record<CountryCode, CountryAdapter>> = {};
