import { Accounts, planName } from '../accounts.ts';
import { toIso } from '../clock.ts';
import type { LotRow } from '../ledger.ts';
import { microToCredits } from '../money.ts';
import type { LotInfo, Wallet } from '../wallet-api.ts';
import { balanceOf, type PartContext } from './context.ts';

export type BalancesPart = Pick<Wallet, 'balance'>;

/** An account's balance as its owner sees it: spendable and held credits, lots, plan and subscriptions. */
export function balancesPart({ store, clock, ledger }: PartContext): BalancesPart {
  return {
    balance: (ref) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, ref);
        const now = clock();
        const balance = await balanceOf(ledger, q, account, now);
        const pending = await ledger.pending(q, account.id);
        const lots = await ledger.lots(q, account.id);
        const subscriptions = await Accounts.subscriptions(q, account.id);
        return {
          accountId: account.id,
          email: account.email,
          plan: planName(account, now),
          trialEndsAt: toIso(account.trial_ends_at),
          balance,
          pending: microToCredits(pending),
          lots: lots.map(lotInfo),
          subscriptions: subscriptions.map((s) => ({
            country: s.country,
            startedAt: toIso(s.started_at) ?? '',
            endsAt: toIso(s.ends_at),
            active: s.started_at <= now && (s.ends_at === null || s.ends_at > now),
          })),
        };
      }),
  };
}

function lotInfo(l: LotRow): LotInfo {
  return {
    lotId: l.id,
    source: l.source,
    amount: microToCredits(l.credits_posted),
    spent: microToCredits(l.debits_posted),
    pending: microToCredits(l.debits_pending),
    expired: microToCredits(l.debits_expired),
    remaining: microToCredits(l.credits_posted - l.debits_pending - l.debits_posted - l.debits_expired),
    expiresAt: toIso(l.expires_at),
    createdAt: toIso(l.created_at) ?? '',
  };
}
