import { AppError } from '../../errors/app-error.ts';
import { Accounts, type AccountRow } from '../accounts.ts';
import { DAY_MS, toIso } from '../clock.ts';
import type { Ledger } from '../ledger.ts';
import { creditsToMicro, microToCredits } from '../money.ts';
import type { Queryable } from '../store.ts';
import type { Wallet } from '../wallet-api.ts';
import { balanceOf, type PartContext } from './context.ts';

/** Spec 5.6: registration grants 30 credits valid 7 days and a 7-day trial; top-ups start at 20. */
export const REGISTRATION_CREDITS = 30;
export const REGISTRATION_VALIDITY_MS = 7 * DAY_MS;
export const TRIAL_MS = 7 * DAY_MS;
export const MIN_TOPUP_CREDITS = 20;

export type CreditsPart = Pick<Wallet, 'addCredits' | 'completeRegistration'>;

/** Credit lots granted by an operator or a top-up, and the registration grant of a new account. */
export function creditsPart({ store, clock, ledger }: PartContext): CreditsPart {
  return {
    addCredits: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, input);
        const source = input.source ?? 'topup';
        const amount = creditsToMicro(input.amount, 'amount');
        if (amount <= 0) throw new AppError('validation_failed', 'amount must be positive');
        if (source === 'topup' && amount < creditsToMicro(MIN_TOPUP_CREDITS)) {
          throw new AppError('validation_failed', `a top-up is at least ${MIN_TOPUP_CREDITS} credits`);
        }
        const now = clock();
        const expiresAt = input.expiresAt ? input.expiresAt.getTime() : null;
        if (source === 'topup' && expiresAt !== null) {
          throw new AppError('validation_failed', 'top-up credit does not expire');
        }
        if (expiresAt !== null && !(expiresAt > now)) {
          throw new AppError('validation_failed', 'expiresAt must be in the future');
        }
        const lotId = await ledger.grant(q, account.id, source, amount, expiresAt, now);
        return {
          accountId: account.id,
          lotId,
          amount: microToCredits(amount),
          source,
          expiresAt: toIso(expiresAt),
          balance: await balanceOf(ledger, q, account, now),
        };
      }),

    completeRegistration: (email) =>
      store.tx(async (q) => {
        const existing = await Accounts.findByEmail(q, email);
        if (existing) return { accountId: existing.id, created: false };
        return { accountId: (await createKeylessAccount(q, ledger, email, clock())).id, created: true };
      }),
  };
}

/** Spec 5.6 registration: a pay-as-you-go account in its 7-day trial, with 30 credits valid 7 days. */
export async function createKeylessAccount(
  q: Queryable,
  ledger: Ledger,
  email: string,
  now: number,
): Promise<AccountRow> {
  const account = await Accounts.create(q, email, 'payg', now + TRIAL_MS, now);
  await ledger.grant(
    q,
    account.id,
    'registration',
    creditsToMicro(REGISTRATION_CREDITS),
    now + REGISTRATION_VALIDITY_MS,
    now,
  );
  return account;
}
