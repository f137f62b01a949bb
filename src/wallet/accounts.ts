import crypto from 'node:crypto';
import type { CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';
import { quoteInput } from '../errors/quote-input.ts';
import type { Queryable } from './store.ts';

/** Stored plan. "trial" is not a plan of its own but a window (trial_ends_at) on a pay-as-you-go account. */
export type StoredPlan = 'payg' | 'unlimited';
/** What operators ask for and see: the trial shows as its own plan while its window is open. */
export type PlanName = 'payg' | 'trial' | 'unlimited';

export interface AccountRow {
  id: string;
  email: string;
  plan: StoredPlan;
  trial_ends_at: number | null;
  created_at: number;
}

export type AccountRef = { email: string } | { accountId: string };

export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  // Deliberately loose: the operator types it, and delivery is not our concern; this only catches slips.
  if (e.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(e)) {
    throw new AppError('validation_failed', `not an e-mail address: ${quoteInput(email)}`);
  }
  return e;
}

export function planName(account: AccountRow, now: number): PlanName {
  if (account.plan === 'unlimited') return 'unlimited';
  return account.trial_ends_at !== null && now < account.trial_ends_at ? 'trial' : 'payg';
}

/** Accounts and subscriptions; every method runs on the Queryable it is given (a transaction or the store). */
export const Accounts = {
  async get(q: Queryable, accountId: string): Promise<AccountRow | undefined> {
    return q.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [accountId]);
  },

  /**
   * The account and whether it subscribes to `country` now, in one read: what a metered call decides on,
   * and each statement is a share of every call's cost (issue 27).
   */
  async forCall(
    q: Queryable,
    accountId: string,
    country: CountryCode,
    now: number,
  ): Promise<{ account: AccountRow; subscribed: boolean } | undefined> {
    const row = await q.get<AccountRow & { subscribed: number | boolean }>(
      `SELECT a.*, EXISTS (SELECT 1 FROM subscriptions s WHERE s.account_id = a.id AND s.country = ?
         AND s.started_at <= ? AND (s.ends_at IS NULL OR s.ends_at > ?)) AS subscribed
       FROM accounts a WHERE a.id = ?`,
      [country, now, now, accountId],
    );
    if (!row) return undefined;
    const { subscribed, ...account } = row;
    return { account, subscribed: Boolean(subscribed) };
  },

  async findByEmail(q: Queryable, email: string): Promise<AccountRow | undefined> {
    return q.get<AccountRow>('SELECT * FROM accounts WHERE email = ?', [normaliseEmail(email)]);
  },

  /** For operator functions: an unknown account is an error worth one clear line. */
  async resolve(q: Queryable, ref: AccountRef): Promise<AccountRow> {
    const row =
      'email' in ref ? await Accounts.findByEmail(q, ref.email) : await Accounts.get(q, ref.accountId);
    if (!row) {
      const what = 'email' in ref ? `e-mail ${normaliseEmail(ref.email)}` : `id ${ref.accountId}`;
      throw new AppError('not_found', `no account with ${what}`);
    }
    return row;
  },

  async create(
    q: Queryable,
    email: string,
    plan: StoredPlan,
    trialEndsAt: number | null,
    now: number,
  ): Promise<AccountRow> {
    const row: AccountRow = {
      id: `acc_${crypto.randomBytes(8).toString('hex')}`,
      email: normaliseEmail(email),
      plan,
      trial_ends_at: trialEndsAt,
      created_at: now,
    };
    await q.run('INSERT INTO accounts (id, email, plan, trial_ends_at, created_at) VALUES (?, ?, ?, ?, ?)', [
      row.id,
      row.email,
      row.plan,
      row.trial_ends_at,
      row.created_at,
    ]);
    return row;
  },

  async count(q: Queryable): Promise<number> {
    return (await q.get<{ n: number }>('SELECT count(*) AS n FROM accounts'))?.n ?? 0;
  },

  async setPlan(q: Queryable, accountId: string, plan: StoredPlan): Promise<void> {
    await q.run('UPDATE accounts SET plan = ? WHERE id = ?', [plan, accountId]);
  },

  async hasActiveSubscription(
    q: Queryable,
    accountId: string,
    country: CountryCode,
    now: number,
  ): Promise<boolean> {
    const row = await q.get(
      `SELECT 1 AS one FROM subscriptions
       WHERE account_id = ? AND country = ? AND started_at <= ? AND (ends_at IS NULL OR ends_at > ?)`,
      [accountId, country, now, now],
    );
    return row !== undefined;
  },

  async subscribe(
    q: Queryable,
    accountId: string,
    country: CountryCode,
    startedAt: number,
    endsAt: number | null,
  ): Promise<void> {
    await q.run(
      `INSERT INTO subscriptions (account_id, country, started_at, ends_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, country) DO UPDATE SET started_at = excluded.started_at, ends_at = excluded.ends_at`,
      [accountId, country, startedAt, endsAt],
    );
  },

  async unsubscribe(q: Queryable, accountId: string, country: CountryCode, now: number): Promise<boolean> {
    const res = await q.run('UPDATE subscriptions SET ends_at = ? WHERE account_id = ? AND country = ?', [
      now,
      accountId,
      country,
    ]);
    return res.changes > 0;
  },

  async subscriptions(
    q: Queryable,
    accountId: string,
  ): Promise<{ country: CountryCode; started_at: number; ends_at: number | null }[]> {
    return q.all(
      'SELECT country, started_at, ends_at FROM subscriptions WHERE account_id = ? ORDER BY country',
      [accountId],
    );
  },
};
