import { COUNTRY_CODES, isCountryCode, type CountryCode } from '../../contract/countries.ts';
import { AppError } from '../../errors/app-error.ts';
import type { AccountRow } from '../accounts.ts';
import type { Clock } from '../clock.ts';
import type { ApiKeys } from '../keys.ts';
import type { Ledger } from '../ledger.ts';
import { microToCredits } from '../money.ts';
import type { Queryable, WalletStore } from '../store.ts';

/**
 * What every part of the wallet works with. Each part (keys, credits, plans, orders, balances, usage) is a
 * function of this context returning its slice of the Wallet interface; openWallet spreads them into one.
 */
export interface PartContext {
  store: WalletStore;
  clock: Clock;
  ledger: Ledger;
  keys: ApiKeys;
}

/** The spendable balance in credits, after booking what has expired; inside the caller's transaction. */
export async function balanceOf(
  ledger: Ledger,
  q: Queryable,
  account: AccountRow,
  now: number,
): Promise<number> {
  await ledger.lockAccount(q, account.id);
  await ledger.bookExpiry(q, account.id, now);
  return microToCredits(await ledger.available(q, account.id, now));
}

export function parseCountry(country: string): CountryCode {
  const cc = country.trim().toUpperCase();
  if (!isCountryCode(cc)) {
    throw new AppError('validation_failed', `country must be one of ${COUNTRY_CODES.join(', ')}`);
  }
  return cc;
}
