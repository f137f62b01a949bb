import type { CountryCode } from '../../../src/contract/countries.ts';
import { EE } from './ee.ts';
import { FI } from './fi.ts';
import { LT } from './lt.ts';
import { LV } from './lv.ts';
import { NO } from './no.ts';
import { PL } from './pl.ts';
import { SE } from './se.ts';
import type { CountryProfile } from './types.ts';

export const PROFILES: Readonly<Record<CountryCode, CountryProfile>> = { EE, LV, LT, NO, FI, PL, SE };

/** The world profile of a country registered by a test (registerCountry in src/contract/countries.ts). */
export function registerWorldProfile(country: string, profile: CountryProfile): void {
  if (country in PROFILES) throw new Error(`world profile ${country} is declared already`);
  (PROFILES as Record<string, CountryProfile>)[country] = profile;
}

/**
 * The world's "today". Every date the generator writes is relative to this constant, never to the clock,
 * so the same seed gives the same snapshot on any day. Chosen as the first day after the newest data the
 * spec describes: EE's 2026 Q3 tax file is out (published around the 10th of October), LV and LT 2025
 * annual reports are filed.
 */
export const WORLD_DATE = '2026-11-01';
