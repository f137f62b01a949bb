import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';

/**
 * Money is held as integer micro-credits (1 credit = 1 euro = 1,000,000 µc) so that sums over the ledger
 * are exact: a price of 0.04 is 40,000 µc, and no float ever reaches SQLite.
 */
export type Micro = number;

export const MICRO_PER_CREDIT = 1_000_000;

/** Above this an amount is certainly a typo; it also keeps every product far below 2^53. */
const MAX_CREDITS = 1_000_000_000;

export function creditsToMicro(credits: number, what = 'amount'): Micro {
  if (!Number.isFinite(credits) || credits < 0 || credits > MAX_CREDITS) {
    throw new AppError('validation_failed', `${what} must be a number between 0 and ${MAX_CREDITS}`);
  }
  const micro = Math.round(credits * MICRO_PER_CREDIT);
  // 0.04 * 1e6 is 40000.000000000004 in floating point; anything further off than that has more than six
  // decimals and cannot be represented exactly.
  if (Math.abs(micro - credits * MICRO_PER_CREDIT) > 1e-3) {
    throw new AppError('validation_failed', `${what} has more than six decimals`);
  }
  return micro;
}

/** For JSON output (meta, CLI): exact for every amount with at most six decimals. */
export function microToCredits(micro: Micro): number {
  return micro / MICRO_PER_CREDIT;
}

/**
 * Two decimals for the 402 message. The balance is rounded down and the need up, so the message can
 * never read "have 0.04, need 0.04" for a balance of 0.035 and a need of 0.04.
 */
export function formatCredits(micro: Micro, rounding: 'down' | 'up'): string {
  const cents = rounding === 'down' ? Math.floor(micro / 10_000) : Math.ceil(micro / 10_000);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export type PriceTable = Readonly<Record<CountryCode, Micro>>;

/** Spec 8.2 defaults from src/contract/countries.ts, overridden per country by configuration. */
export function buildPriceTable(overrides: Partial<Record<CountryCode, number>> = {}): PriceTable {
  const table = {} as Record<CountryCode, Micro>;
  for (const code of COUNTRY_CODES) {
    const price = overrides[code] ?? COUNTRIES[code].defaultRowPrice;
    table[code] = creditsToMicro(price, `row price for ${code}`);
  }
  return Object.freeze(table);
}
