import crypto from 'node:crypto';
import type { CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';
import type { WalletDb } from './db.ts';

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
    throw new AppError('validation_failed', `not an e-mail address: ${JSON.stringify(email)}`);
  }
  return e;
}

export function planName(account: AccountRow, now: number): PlanName {
  if (account.plan === 'unlimited') return 'unlimited';
  return account.trial_ends_at !== null && now < account.trial_ends_at ? 'trial' : 'payg';
}

export class Accounts {
  private readonly byId;
  private readonly byEmail;
  private readonly insert;
  private readonly updatePlan;
  private readonly activeSubscription;
  private readonly upsertSubscription;
  private readonly endSubscription;
  private readonly listSubscriptions;
  private readonly countAll;

  constructor(private readonly db: WalletDb) {
    this.byId = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
    this.byEmail = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE email = ?');
    this.insert = db.prepare<[string, string, StoredPlan, number | null, number]>(
      'INSERT INTO accounts (id, email, plan, trial_ends_at, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.updatePlan = db.prepare<[StoredPlan, string]>('UPDATE accounts SET plan = ? WHERE id = ?');
    this.activeSubscription = db.prepare<[string, string, number, number], { one: number }>(
      `SELECT 1 AS one FROM subscriptions
       WHERE account_id = ? AND country = ? AND started_at <= ? AND (ends_at IS NULL OR ends_at > ?)`,
    );
    this.upsertSubscription = db.prepare<[string, string, number, number | null]>(
      `INSERT INTO subscriptions (account_id, country, started_at, ends_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, country) DO UPDATE SET started_at = excluded.started_at, ends_at = excluded.ends_at`,
    );
    this.endSubscription = db.prepare<[number, string, string]>(
      'UPDATE subscriptions SET ends_at = ? WHERE account_id = ? AND country = ?',
    );
    this.listSubscriptions = db.prepare<
      [string],
      { country: CountryCode; started_at: number; ends_at: number | null }
    >('SELECT country, started_at, ends_at FROM subscriptions WHERE account_id = ? ORDER BY country');
    this.countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts');
  }

  get(accountId: string): AccountRow | undefined {
    return this.byId.get(accountId);
  }

  findByEmail(email: string): AccountRow | undefined {
    return this.byEmail.get(normaliseEmail(email));
  }

  /** For operator functions: an unknown account is an error worth one clear line. */
  resolve(ref: AccountRef): AccountRow {
    const row = 'email' in ref ? this.findByEmail(ref.email) : this.get(ref.accountId);
    if (!row) {
      const what = 'email' in ref ? `e-mail ${normaliseEmail(ref.email)}` : `id ${ref.accountId}`;
      throw new AppError('not_found', `no account with ${what}`);
    }
    return row;
  }

  create(email: string, plan: StoredPlan, trialEndsAt: number | null, now: number): AccountRow {
    const row: AccountRow = {
      id: `acc_${crypto.randomBytes(8).toString('hex')}`,
      email: normaliseEmail(email),
      plan,
      trial_ends_at: trialEndsAt,
      created_at: now,
    };
    this.insert.run(row.id, row.email, row.plan, row.trial_ends_at, row.created_at);
    return row;
  }

  count(): number {
    return this.countAll.get()?.n ?? 0;
  }

  setPlan(accountId: string, plan: StoredPlan): void {
    this.updatePlan.run(plan, accountId);
  }

  hasActiveSubscription(accountId: string, country: CountryCode, now: number): boolean {
    return this.activeSubscription.get(accountId, country, now, now) !== undefined;
  }

  subscribe(accountId: string, country: CountryCode, startedAt: number, endsAt: number | null): void {
    this.upsertSubscription.run(accountId, country, startedAt, endsAt);
  }

  unsubscribe(accountId: string, country: CountryCode, now: number): boolean {
    return this.endSubscription.run(now, accountId, country).changes > 0;
  }

  subscriptions(accountId: string): { country: CountryCode; started_at: number; ends_at: number | null }[] {
    return this.listSubscriptions.all(accountId);
  }
}
