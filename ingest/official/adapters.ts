import type { CountryCode } from '../../src/contract/countries.ts';
import { EE_ADAPTER } from './ee/stage.ts';
import { FI_ADAPTER } from './fi/stage.ts';
import { LT_ADAPTER } from './lt/stage.ts';
import { LV_ADAPTER } from './lv/stage.ts';
import { NO_ADAPTER } from './no/stage.ts';
import { PL_ADAPTER } from './pl/stage.ts';
import { SE_ADAPTER } from './se/stage.ts';
import type { CountryAdapter } from './types.ts';

/** The countries the nightly ingest can build from official files. */
export const ADAPTERS: Partial<Record<CountryCode, CountryAdapter>> = {
  EE: EE_ADAPTER,
  LV: LV_ADAPTER,
  LT: LT_ADAPTER,
  NO: NO_ADAPTER,
  FI: FI_ADAPTER,
  SE: SE_ADAPTER,
  PL: PL_ADAPTER,
};
