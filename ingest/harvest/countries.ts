import type { CountryCode } from '../../src/contract/countries.ts';
import type { CountryHarvester } from './types.ts';

/** The countries whose registers are harvested from services (`regdata harvest <CC>`), loaded on demand. */
export const HARVESTERS: Partial<Record<CountryCode, () => Promise<CountryHarvester>>> = {
  PL: async () => (await import('./pl/index.ts')).harvester,
  SE: async () => (await import('./se/index.ts')).harvester,
};
