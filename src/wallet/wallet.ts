import crypto from 'node:crypto';
import { COUNTRY_CODES, isCountryCode, type CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';
import {
  Accounts,
  normaliseEmail,
  planName,
  type AccountRef,
  type AccountRow,
  type PlanName,
} from './accounts.ts';
import { DAY_MS, toIso, type Clock } from './clock.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './idempotency.ts';
import { ApiKeys, type KeyListing } from './keys.ts';
import { Ledger, type LedgerAudit, type LotSource } from './ledger.ts';
import { WalletMetering } from './metering.ts';
import { buildPriceTable, creditsToMicro, microToCredits, type PriceTable } from './money.ts';
import {
  DEFAULT_RATE_LIMIT,
  GcraRateLimiter,
  SharedGcraRateLimiter,
  type RateLimitOptions,
} from './rate-limiter.ts';
import { parseWalletUrl, type Queryable, type WalletStore } from './store.ts';
import { PostgresStore } from './store-postgres.ts';
import { openSqliteStore } from './store-sqlite.ts';
import { Instances, SWEEP_LOCK, Sweeper, sessionName, type SweepReport } from './sweeper.ts';
import type { Authenticator, KeyKind, Metering, Principal, RateLimiter } from './types.ts';
import { UsageLog, type FreeReason, type UsageOutcome } from './usage.ts';

/** Spec 5.6: registration grants 30 credits valid 7 days and a 7-day trial; top-ups start at 20. */
export const REGISTRATION_CREDITS = 30;
export const REGISTRATION_VALIDITY_MS = 7 * DAY_MS;
export const TRIAL_MS = 7 * DAY_MS;
export const MIN_TOPUP_CREDITS = 20;
export const DEFAULT_SWEEP_INTERVAL_MS = 30_000;
/** A metered call running longer than this has its hold voided by the sweeper (and is then not charged). */
export const DEFAULT_HOLD_TIMEOUT_MS = 5 * 60_000;
export const DEMO_EMAIL = 'demo@localhost';
/**
 * Spec 5.6 plan prices in euro per month. A confirmed country plan runs for PLAN_PERIOD_MS; the accounts table
 * has no end date for Unlimited, so a confirmed Unlimited order lasts until an operator sets the plan back.
 */
export const UNLIMITED_EUR_PER_MONTH = 1500;
export const COUNTRY_PLAN_EUR_PER_MONTH = 300;
export const PLAN_PERIOD_MS = 30 * DAY_MS;
export const APP_KEY_NAME = 'in-app search';

export interface WalletOptions {
  /**
   * REGDATA_WALLET_URL: `sqlite:<path>` (or a bare path) for the embedded ledger, `postgres://…` for
   * PostgreSQL. ':memory:' is not supported (the sweeper and CLI need a file).
   */
  url?: string;
  /** The SQLite file; the same as `url: 'sqlite:<path>'` (kept for callers that name a file). */
  dbPath?: string;
  /** An open store (shared with Identity); the caller closes it after the wallet. */
  store?: WalletStore;
  /** Injected clock for tests; every timestamp in the wallet comes from it. */
  now?: () => Date;
  /** Row prices in credits, overriding spec 8.2 defaults per country. */
  prices?: Partial<Record<CountryCode, number>>;
  rateLimit?: Partial<RateLimitOptions>;
  /** 0 disables the periodic sweep; the start-up sweep always runs. */
  sweepIntervalMs?: number;
  holdTimeoutMs?: number;
  idempotencyTtlMs?: number;
  busyTimeoutMs?: number;
  /** PostgreSQL pool size of this process. */
  poolSize?: number;
  /** Live API keys per account (REGDATA_MAX_LIVE_KEYS); DEFAULT_MAX_LIVE_KEYS when absent. */
  maxLiveKeys?: number;
}

export interface CreatedKey {
  /** The secret: shown this once, stored nowhere. */
  key: string;
  keyId: string;
  accountId: string;
  email: string;
  kind: KeyKind;
  plan: PlanName;
  accountCreated: boolean;
  /** Spendable balance in credits after any credits granted with the key. */
  balance: number;
}

export interface KeyInfo {
  keyId: string;
  kind: KeyKind;
  name: string | null;
  /** Last four characters of the key, for telling keys apart. */
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface LotInfo {
  lotId: number;
  source: LotSource;
  amount: number;
  spent: number;
  pending: number;
  expired: number;
  remaining: number;
  expiresAt: string | null;
  createdAt: string;
}

export interface BalanceReport {
  accountId: string;
  email: string;
  plan: PlanName;
  trialEndsAt: string | null;
  /** Spendable credits now. */
  balance: number;
  /** Credits held by calls in progress. */
  pending: number;
  lots: LotInfo[];
  subscriptions: { country: CountryCode; startedAt: string; endsAt: string | null; active: boolean }[];
}

export interface UsageReport {
  accountId: string;
  email: string;
  from: string;
  to: string;
  totals: { requests: number; rows: number; credits: number };
  byOperation: { operation: string; country: string; requests: number; rows: number; credits: number }[];
  records: {
    id: number;
    at: string;
    keyId: string;
    channel: string;
    operation: string;
    country: string;
    outcome: UsageOutcome;
    freeReason: FreeReason | null;
    rowsReturned: number | null;
    creditsReserved: number;
    creditsCharged: number;
  }[];
}

export type OrderKind = 'topup' | 'unlimited' | 'country';
export type OrderState = 'pending' | 'paid' | 'cancelled';

export interface OrderInfo {
  orderId: string;
  accountId: string;
  email: string;
  kind: OrderKind;
  country: CountryCode | null;
  /** Euro to pay; for a top-up also the credits granted (1 credit = 1 euro). */
  amount: number;
  provider: string;
  reference: string;
  state: OrderState;
  createdAt: string;
  resolvedAt: string | null;
}

/** One bucket of usage_records: requests, rows and credits of one channel and country in one time slot. */
export interface UsagePoint {
  bucketStart: string;
  channel: string;
  country: string;
  requests: number;
  rows: number;
  credits: number;
}

/**
 * Every operation is async and backend-blind: the same object over SQLite or PostgreSQL. Amounts are in
 * credits (JSON-ready); the ledger underneath counts integer micro-credits.
 */
export interface Wallet {
  /** The database it works on; Identity (sessions, users) shares it. */
  store: WalletStore;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  metering: Metering;
  /** Row prices in effect, in credits. */
  prices: Readonly<Record<CountryCode, number>>;
  createKey(input: {
    email: string;
    kind: KeyKind;
    credits?: number;
    plan?: PlanName;
    name?: string;
  }): Promise<CreatedKey>;
  /** Creates the demo account and key only when the wallet has no account at all; otherwise null. */
  createDemoKeyIfEmpty(input?: { email?: string; plan?: PlanName }): Promise<CreatedKey | null>;
  revokeKey(ref: { keyId: string } | { key: string }): Promise<{
    keyId: string;
    accountId: string;
    revokedAt: string;
    alreadyRevoked: boolean;
  }>;
  listKeys(ref: AccountRef): Promise<KeyInfo[]>;
  addCredits(input: AccountRef & { amount: number; source?: 'topup' | 'grant'; expiresAt?: Date }): Promise<{
    accountId: string;
    lotId: number;
    amount: number;
    source: LotSource;
    expiresAt: string | null;
    balance: number;
  }>;
  setPlan(input: AccountRef & { plan: 'payg' | 'unlimited' }): Promise<{ accountId: string; plan: PlanName }>;
  addSubscription(input: AccountRef & { country: string; until?: Date }): Promise<{
    accountId: string;
    country: CountryCode;
    startedAt: string;
    endsAt: string | null;
  }>;
  removeSubscription(input: AccountRef & { country: string }): Promise<{
    accountId: string;
    country: CountryCode;
    ended: boolean;
  }>;
  balance(ref: AccountRef): Promise<BalanceReport>;
  usage(input: AccountRef & { since?: Date; until?: Date; limit?: number }): Promise<UsageReport>;
  /**
   * Spec 5.6, self-service: the account of a verified e-mail. A new account gets the trial and the 30
   * registration credits; an existing one (made by an operator, or a repeated call) is returned unchanged.
   */
  completeRegistration(email: string): Promise<{ accountId: string; created: boolean }>;
  /**
   * The principal of the account's in-app search: a standard key row marked internal, created on first use.
   * Metered and rate-limited like any standard key; its stored hash is random bytes, so no bearer key can
   * ever authenticate as it.
   */
  appPrincipal(accountId: string): Promise<Principal>;
  /** The account's own keys (the internal in-app key left out). */
  accountKeys(accountId: string): Promise<KeyInfo[]>;
  /** A standard key on an existing account, named by its holder. */
  createAccountKey(input: { accountId: string; name: string }): Promise<CreatedKey>;
  /** Revokes one of the account's own keys; another account's key id, or the in-app key, is not_found. */
  revokeAccountKey(input: {
    accountId: string;
    keyId: string;
  }): Promise<{ keyId: string; revokedAt: string }>;
  /** Metered calls of the account grouped by time bucket, channel and country (charged and free calls). */
  usageSeries(input: {
    accountId: string;
    since: Date;
    until: Date;
    bucketMs: number;
  }): Promise<UsagePoint[]>;
  /** A top-up (at least MIN_TOPUP_CREDITS) or a plan purchase awaiting payment. */
  placeOrder(input: {
    accountId: string;
    kind: OrderKind;
    country?: string;
    credits?: number;
    provider: string;
    reference: string;
  }): Promise<OrderInfo>;
  /** Payment received: grants the credits, starts a country plan for PLAN_PERIOD_MS or sets Unlimited, in one transaction. */
  confirmOrder(orderId: string): Promise<OrderInfo>;
  cancelOrder(orderId: string): Promise<OrderInfo>;
  listOrders(filter?: { accountId?: string; state?: OrderState; limit?: number }): Promise<OrderInfo[]>;
  /** Ledger self-check (invariant 1 and the lot/hold/usage cross-checks), in micro-credits. */
  audit(): Promise<LedgerAudit>;
  sweep(): Promise<SweepReport>;
  close(): Promise<void>;
}

/** Opens the store a wallet URL names: `sqlite:<path>` (or a bare path) or `postgres://…`. */
export async function openWalletStore(
  url: string,
  opts: { busyTimeoutMs?: number; poolSize?: number; applicationName?: string } = {},
): Promise<WalletStore> {
  const where = parseWalletUrl(url);
  if (where.kind === 'postgres')
    return PostgresStore.open(where.url, { poolSize: opts.poolSize, applicationName: opts.applicationName });
  return openSqliteStore(where.path, { busyTimeoutMs: opts.busyTimeoutMs });
}

export async function openWallet(opts: WalletOptions): Promise<Wallet> {
  const clock: Clock = opts.now ? () => (opts.now as () => Date)().getTime() : Date.now;
  const prices: PriceTable = buildPriceTable(opts.prices);
  const rateLimit: RateLimitOptions = { ...DEFAULT_RATE_LIMIT, ...opts.rateLimit };
  const sweepIntervalMs = opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const holdTimeoutMs = opts.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS;
  const idempotencyTtlMs = opts.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;
  if (!(holdTimeoutMs > 0) || !(idempotencyTtlMs > 0) || !(sweepIntervalMs >= 0)) {
    throw new AppError('validation_failed', 'wallet timeouts must be positive');
  }
  const url = opts.url ?? opts.dbPath;
  if (!opts.store && url === undefined)
    throw new AppError('internal', 'openWallet needs a url, dbPath or store');
  // A store passed in belongs to the caller (closed by it); one opened here is closed with the wallet.
  const ownStore = !opts.store;
  const instanceId = `ins_${crypto.randomBytes(8).toString('hex')}`;
  const store =
    opts.store ??
    (await openWalletStore(url as string, {
      busyTimeoutMs: opts.busyTimeoutMs,
      poolSize: opts.poolSize,
      applicationName: sessionName(instanceId),
    }));
  // The limiter's state must be shared where the wallet is: in memory beside SQLite (one machine, and a
  // restart forgives everyone), in the database beside PostgreSQL (every replica sees every request).
  const rateLimiter: GcraRateLimiter | SharedGcraRateLimiter =
    store.dialect === 'postgres'
      ? new SharedGcraRateLimiter(store, rateLimit, clock)
      : new GcraRateLimiter(rateLimit, clock);

  const ledger = new Ledger();
  const keys = new ApiKeys(store, clock, opts.maxLiveKeys);
  const usage = new UsageLog();
  const idempotency = new IdempotencyStore();
  const instances = new Instances(instanceId);
  const sweeper = new Sweeper(store, ledger, idempotency, usage, instances, clock, holdTimeoutMs);
  const metering = new WalletMetering(store, clock, ledger, usage, idempotency, sweeper, {
    instanceId,
    prices,
    holdTimeoutMs,
    idempotencyTtlMs,
  });

  try {
    await store.tx((q) => instances.register(q, clock(), sweepIntervalMs));
    await sweeper.sweep();
  } catch (err) {
    if (ownStore) await store.close();
    throw err;
  }
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  if (sweepIntervalMs > 0) {
    timer = setInterval(() => {
      // A failed sweep (lock held too long by the CLI, the database restarting) is retried at the next
      // tick; the holds it would have voided stay reserved a little longer, never lost.
      if (sweeping) return;
      sweeping = (async () => {
        await sweeper.sweep();
        if (rateLimiter instanceof SharedGcraRateLimiter) await rateLimiter.prune();
        else rateLimiter.prune();
      })()
        .catch(() => undefined)
        .finally(() => {
          sweeping = null;
        });
    }, sweepIntervalMs);
    timer.unref();
  }
  let closed = false;

  const balanceOf = async (q: Queryable, account: AccountRow, now: number): Promise<number> => {
    await ledger.lockAccount(q, account.id);
    await ledger.bookExpiry(q, account.id, now);
    return microToCredits(await ledger.available(q, account.id, now));
  };

  const createKeyTx = async (
    q: Queryable,
    input: {
      email: string;
      kind: KeyKind;
      credits?: number;
      plan?: PlanName;
      name?: string;
    },
  ): Promise<CreatedKey> => {
    if (input.kind !== 'standard' && input.kind !== 'admin') {
      throw new AppError(
        'validation_failed',
        `key kind must be standard or admin, not ${String(input.kind)}`,
      );
    }
    const grant = input.credits === undefined ? 0 : creditsToMicro(input.credits, 'credits');
    const email = normaliseEmail(input.email);
    const now = clock();
    let account = await Accounts.findByEmail(q, email);
    const accountCreated = !account;
    if (!account) {
      const plan = input.plan ?? 'trial';
      if (plan === 'trial') {
        account = await createKeylessAccount(q, ledger, email, now);
      } else if (plan === 'payg' || plan === 'unlimited') {
        account = await Accounts.create(q, email, plan, null, now);
      } else {
        throw new AppError('validation_failed', `plan must be payg, trial or unlimited, not ${String(plan)}`);
      }
    } else if (input.plan !== undefined && input.plan !== planName(account, now)) {
      // Silently changing (or re-granting a trial to) an existing account from `keys create` would be a
      // surprise; plan changes go through setPlan.
      throw new AppError(
        'validation_failed',
        `account ${email} exists with plan ${planName(account, now)}; change plans with setPlan`,
      );
    }
    if (grant > 0) await ledger.grant(q, account.id, 'grant', grant, null, now);
    const { key, keyId } = await keys.create(q, account.id, input.kind, input.name ?? null, now);
    return {
      key,
      keyId,
      accountId: account.id,
      email,
      kind: input.kind,
      plan: planName(account, now),
      accountCreated,
      balance: await balanceOf(q, account, now),
    };
  };

  const parseCountry = (country: string): CountryCode => {
    const cc = country.trim().toUpperCase();
    if (!isCountryCode(cc)) {
      throw new AppError('validation_failed', `country must be one of ${COUNTRY_CODES.join(', ')}`);
    }
    return cc;
  };

  const orderInfo = (row: OrderRow): OrderInfo => ({
    orderId: row.id,
    accountId: row.account_id,
    email: row.email,
    kind: row.kind,
    country: row.country,
    amount: microToCredits(row.amount),
    provider: row.provider,
    reference: row.reference,
    state: row.state,
    createdAt: toIso(row.created_at) ?? '',
    resolvedAt: toIso(row.resolved_at),
  });
  const orderById = async (q: Queryable, orderId: string): Promise<OrderRow | undefined> =>
    q.get<OrderRow>(`${SELECT_ORDERS} WHERE o.id = ?`, [orderId]);
  const pendingOrder = async (q: Queryable, orderId: string): Promise<OrderRow> => {
    const lock = q.dialect === 'postgres' ? ' FOR UPDATE OF o' : '';
    const row = await q.get<OrderRow>(`${SELECT_ORDERS} WHERE o.id = ?${lock}`, [orderId]);
    if (!row) throw new AppError('not_found', `no order ${orderId}`);
    if (row.state !== 'pending') throw new AppError('validation_failed', `order ${orderId} is ${row.state}`);
    return row;
  };
  const keyInfo = (k: KeyListing): KeyInfo => ({
    keyId: k.id,
    kind: k.kind,
    name: k.name,
    hint: k.hint,
    createdAt: toIso(k.created_at) ?? '',
    revokedAt: toIso(k.revoked_at),
    lastUsedAt: toIso(k.last_used_at),
  });
  const appKeyOf = (q: Queryable, accountId: string) =>
    q.get<{ id: string }>('SELECT id FROM api_keys WHERE account_id = ? AND internal = 1', [accountId]);

  return {
    store,
    authenticator: keys,
    rateLimiter,
    metering,
    prices: Object.fromEntries(COUNTRY_CODES.map((c) => [c, microToCredits(prices[c])])) as Record<
      CountryCode,
      number
    >,

    createKey: (input) => store.tx((q) => createKeyTx(q, input)),

    createDemoKeyIfEmpty: (input = {}) =>
      store.tx(async (q) => {
        // Checked and created in one transaction, so two processes starting together make one demo account
        // (PostgreSQL: the advisory lock stands in for SQLite's write lock, which a SELECT would not take).
        if (q.dialect === 'postgres') await q.get('SELECT pg_advisory_xact_lock(?)', [DEMO_LOCK]);
        return (await Accounts.count(q)) > 0
          ? null
          : createKeyTx(q, {
              email: input.email ?? DEMO_EMAIL,
              kind: 'standard',
              plan: input.plan ?? 'trial',
              name: 'demo',
            });
      }),

    revokeKey: (ref) =>
      store.tx(async (q) => {
        const { row, alreadyRevoked } = await keys.revoke(q, ref, clock());
        return {
          keyId: row.id,
          accountId: row.account_id,
          revokedAt: toIso(row.revoked_at) ?? '',
          alreadyRevoked,
        };
      }),

    listKeys: async (ref) => (await keys.list(store, (await Accounts.resolve(store, ref)).id)).map(keyInfo),

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
          balance: await balanceOf(q, account, now),
        };
      }),

    setPlan: (input) =>
      store.tx(async (q) => {
        if (input.plan !== 'payg' && input.plan !== 'unlimited') {
          throw new AppError('validation_failed', 'plan must be payg or unlimited');
        }
        const account = await Accounts.resolve(q, input);
        await Accounts.setPlan(q, account.id, input.plan);
        return { accountId: account.id, plan: planName({ ...account, plan: input.plan }, clock()) };
      }),

    addSubscription: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, input);
        const country = parseCountry(input.country);
        const now = clock();
        const endsAt = input.until ? input.until.getTime() : null;
        if (endsAt !== null && !(endsAt > now))
          throw new AppError('validation_failed', 'until must be in the future');
        await Accounts.subscribe(q, account.id, country, now, endsAt);
        return { accountId: account.id, country, startedAt: toIso(now) ?? '', endsAt: toIso(endsAt) };
      }),

    removeSubscription: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, input);
        const country = parseCountry(input.country);
        return {
          accountId: account.id,
          country,
          ended: await Accounts.unsubscribe(q, account.id, country, clock()),
        };
      }),

    balance: (ref) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, ref);
        const now = clock();
        const balance = await balanceOf(q, account, now);
        const trialEnds = account.trial_ends_at;
        const pending = await ledger.pending(q, account.id);
        const lots = await ledger.lots(q, account.id);
        const subscriptions = await Accounts.subscriptions(q, account.id);
        return {
          accountId: account.id,
          email: account.email,
          plan: planName(account, now),
          trialEndsAt: toIso(trialEnds),
          balance,
          pending: microToCredits(pending),
          lots: lots.map((l) => ({
            lotId: l.id,
            source: l.source,
            amount: microToCredits(l.credits_posted),
            spent: microToCredits(l.debits_posted),
            pending: microToCredits(l.debits_pending),
            expired: microToCredits(l.debits_expired),
            remaining: microToCredits(
              l.credits_posted - l.debits_pending - l.debits_posted - l.debits_expired,
            ),
            expiresAt: toIso(l.expires_at),
            createdAt: toIso(l.created_at) ?? '',
          })),
          subscriptions: subscriptions.map((s) => ({
            country: s.country,
            startedAt: toIso(s.started_at) ?? '',
            endsAt: toIso(s.ends_at),
            active: s.started_at <= now && (s.ends_at === null || s.ends_at > now),
          })),
        };
      }),

    usage: async (input) => {
      const account = await Accounts.resolve(store, input);
      const to = input.until ? input.until.getTime() : clock() + 1;
      const from = input.since ? input.since.getTime() : 0;
      const limit = Math.max(1, Math.min(input.limit ?? 100, 10_000));
      const groups = await usage.summary(store, account.id, from, to);
      const records = await usage.list(store, account.id, from, to, limit);
      return {
        accountId: account.id,
        email: account.email,
        from: toIso(from) ?? '',
        to: toIso(to) ?? '',
        totals: {
          requests: groups.reduce((s, g) => s + g.requests, 0),
          rows: groups.reduce((s, g) => s + g.rows, 0),
          credits: microToCredits(groups.reduce((s, g) => s + g.charged, 0)),
        },
        byOperation: groups.map((g) => ({
          operation: g.operation,
          country: g.country,
          requests: g.requests,
          rows: g.rows,
          credits: microToCredits(g.charged),
        })),
        records: records.map((r) => ({
          id: r.id,
          at: toIso(r.created_at) ?? '',
          keyId: r.key_id,
          channel: r.channel,
          operation: r.operation,
          country: r.country,
          outcome: r.outcome,
          freeReason: r.free_reason,
          rowsReturned: r.rows_returned,
          creditsReserved: microToCredits(r.reserved),
          creditsCharged: microToCredits(r.charged),
        })),
      };
    },

    completeRegistration: (email) =>
      store.tx(async (q) => {
        const existing = await Accounts.findByEmail(q, email);
        if (existing) return { accountId: existing.id, created: false };
        return { accountId: (await createKeylessAccount(q, ledger, email, clock())).id, created: true };
      }),

    appPrincipal: async (accountId) => {
      const found = await appKeyOf(store, accountId);
      if (found) return { keyId: found.id, accountId, kind: 'standard' };
      return store.tx(async (q) => {
        // PostgreSQL: the account row lock makes the check-then-insert one decision across replicas.
        const lock = q.dialect === 'postgres' ? ' FOR UPDATE' : '';
        await q.get(`SELECT id FROM accounts WHERE id = ?${lock}`, [accountId]);
        const again = await appKeyOf(q, accountId);
        if (again) return { keyId: again.id, accountId, kind: 'standard' as const };
        const account = await Accounts.resolve(q, { accountId });
        const keyId = `key_${crypto.randomBytes(8).toString('hex')}`;
        await q.run(
          `INSERT INTO api_keys (id, account_id, kind, name, secret_hash, hint, created_at, internal)
           VALUES (?, ?, 'standard', ?, ?, '', ?, 1)`,
          [keyId, account.id, APP_KEY_NAME, crypto.randomBytes(32), clock()],
        );
        return { keyId, accountId: account.id, kind: 'standard' as const };
      });
    },

    accountKeys: async (accountId) =>
      (
        await store.all<KeyListing>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? AND internal = 0 ORDER BY created_at, rowid`,
          [accountId],
        )
      ).map(keyInfo),

    createAccountKey: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, { accountId: input.accountId });
        const name = input.name.trim();
        if (name.length < 1 || name.length > 80) {
          throw new AppError('validation_failed', 'a key name is 1-80 characters');
        }
        const now = clock();
        const { key, keyId } = await keys.create(q, account.id, 'standard', name, now);
        return {
          key,
          keyId,
          accountId: account.id,
          email: account.email,
          kind: 'standard' as const,
          plan: planName(account, now),
          accountCreated: false,
          balance: await balanceOf(q, account, now),
        };
      }),

    revokeAccountKey: (input) =>
      store.tx(async (q) => {
        // Scoped in SQL: a key id of another account (or the in-app key) is indistinguishable from none.
        const row = await q.get<KeyListing>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ? AND internal = 0`,
          [input.keyId, input.accountId],
        );
        if (!row) throw new AppError('not_found', 'no such API key');
        const { row: revoked } = await keys.revoke(q, { keyId: row.id }, clock());
        return { keyId: revoked.id, revokedAt: toIso(revoked.revoked_at) ?? '' };
      }),

    usageSeries: async (input) => {
      const from = input.since.getTime();
      const to = input.until.getTime();
      const bucket = Math.trunc(input.bucketMs);
      if (!(bucket > 0) || !(to > from)) {
        throw new AppError('validation_failed', 'usage series needs since < until and a positive bucket');
      }
      // Integer division in both dialects: created_at is an integer column and the bound values integers
      // (PostgreSQL infers bigint for them from the column).
      const groups = await store.all<{
        bucket: number;
        channel: string;
        country: string;
        requests: number;
        rows: number;
        charged: number;
      }>(
        `SELECT (created_at - ?) / ? AS bucket, channel, country, count(*) AS requests,
           coalesce(sum(rows_returned), 0) AS rows, sum(charged) AS charged
         FROM usage_records WHERE account_id = ? AND created_at >= ? AND created_at < ?
           AND outcome IN ('charged', 'free')
         GROUP BY 1, channel, country ORDER BY 1, channel, country`,
        [from, bucket, input.accountId, from, to],
      );
      return groups.map((g) => ({
        bucketStart: toIso(from + g.bucket * bucket) ?? '',
        channel: g.channel,
        country: g.country,
        requests: g.requests,
        rows: g.rows,
        credits: microToCredits(g.charged),
      }));
    },

    placeOrder: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, { accountId: input.accountId });
        let amount: number;
        let country: CountryCode | null = null;
        if (input.kind === 'topup') {
          amount = creditsToMicro(input.credits ?? 0, 'credits');
          if (amount < creditsToMicro(MIN_TOPUP_CREDITS)) {
            throw new AppError('validation_failed', `a top-up is at least ${MIN_TOPUP_CREDITS} credits`);
          }
        } else if (input.kind === 'unlimited') {
          amount = creditsToMicro(UNLIMITED_EUR_PER_MONTH);
        } else if (input.kind === 'country') {
          country = parseCountry(input.country ?? '');
          amount = creditsToMicro(COUNTRY_PLAN_EUR_PER_MONTH);
        } else {
          throw new AppError('validation_failed', 'order kind must be topup, unlimited or country');
        }
        const id = `ord_${crypto.randomBytes(6).toString('hex')}`;
        const now = clock();
        await q.run(
          `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, account.id, input.kind, country, amount, input.provider, input.reference, now],
        );
        return orderInfo((await orderById(q, id)) as OrderRow);
      }),

    confirmOrder: (orderId) =>
      store.tx(async (q) => {
        const order = await pendingOrder(q, orderId);
        const now = clock();
        let lotId: number | null = null;
        if (order.kind === 'topup') {
          lotId = await ledger.grant(q, order.account_id, 'topup', order.amount, null, now);
        } else if (order.kind === 'unlimited') {
          await Accounts.setPlan(q, order.account_id, 'unlimited');
        } else if (order.country) {
          await Accounts.subscribe(q, order.account_id, order.country, now, now + PLAN_PERIOD_MS);
        }
        await q.run(RESOLVE_ORDER, ['paid', now, lotId, order.id]);
        return orderInfo((await orderById(q, order.id)) as OrderRow);
      }),

    cancelOrder: (orderId) =>
      store.tx(async (q) => {
        const order = await pendingOrder(q, orderId);
        await q.run(RESOLVE_ORDER, ['cancelled', clock(), null, order.id]);
        return orderInfo((await orderById(q, order.id)) as OrderRow);
      }),

    listOrders: async (filter = {}) =>
      (
        await store.all<OrderRow>(
          `${SELECT_ORDERS}
           WHERE (CAST(? AS TEXT) IS NULL OR o.account_id = ?) AND (CAST(? AS TEXT) IS NULL OR o.state = ?)
           ORDER BY o.created_at DESC, o.id DESC LIMIT ?`,
          [
            filter.accountId ?? null,
            filter.accountId ?? null,
            filter.state ?? null,
            filter.state ?? null,
            Math.max(1, Math.min(filter.limit ?? 100, 1000)),
          ],
        )
      ).map(orderInfo),

    audit: () =>
      store.tx(async (q) => {
        // PostgreSQL: booking every account's expiry locks lots of many accounts; waiting for the sweep
        // lock keeps the two multi-account transactions from deadlocking each other.
        if (q.dialect === 'postgres') await q.get('SELECT pg_advisory_xact_lock(?)', [SWEEP_LOCK]);
        return ledger.audit(q, clock());
      }),

    sweep: () => sweeper.sweep(),

    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      try {
        await sweeping;
        // A clean shutdown releases what this process still holds, so the next start finds nothing open.
        await store.tx(async (q) => {
          const now = clock();
          for (const hold of await q.all<{ id: number }>(
            `SELECT id FROM holds WHERE state = 'pending' AND instance_id = ? ORDER BY id`,
            [instanceId],
          )) {
            await ledger.void(q, hold.id, 'closed', now);
          }
          await q.run(`DELETE FROM idempotency_keys WHERE state = 'in_flight' AND instance_id = ?`, [
            instanceId,
          ]);
          await instances.unregister(q);
        });
      } finally {
        if (ownStore) await store.close();
      }
    },
  };
}

/** Any constant: serialises createDemoKeyIfEmpty across replicas on PostgreSQL. */
const DEMO_LOCK = 7_391_555_020;

/** Spec 5.6 registration: a pay-as-you-go account in its 7-day trial, with 30 credits valid 7 days. */
async function createKeylessAccount(
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

interface OrderRow {
  id: string;
  account_id: string;
  email: string;
  kind: OrderKind;
  country: CountryCode | null;
  amount: number;
  provider: string;
  reference: string;
  state: OrderState;
  created_at: number;
  resolved_at: number | null;
}

const SELECT_ORDERS = `SELECT o.id, o.account_id, a.email, o.kind, o.country, o.amount, o.provider, o.reference,
  o.state, o.created_at, o.resolved_at FROM orders o JOIN accounts a ON a.id = o.account_id`;
const RESOLVE_ORDER = `UPDATE orders SET state = ?, resolved_at = ?, lot_id = ? WHERE id = ? AND state = 'pending'`;
const KEY_COLUMNS = 'id, account_id, kind, name, hint, created_at, revoked_at, last_used_at';
