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
import { openWalletDb, writeTx, type WalletDb } from './db.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './idempotency.ts';
import { ApiKeys, type KeyListing } from './keys.ts';
import { Ledger, type LedgerAudit, type LotSource } from './ledger.ts';
import { WalletMetering } from './metering.ts';
import { buildPriceTable, creditsToMicro, microToCredits, type PriceTable } from './money.ts';
import { DEFAULT_RATE_LIMIT, GcraRateLimiter, type RateLimitOptions } from './rate-limiter.ts';
import { Instances, Sweeper, type SweepReport } from './sweeper.ts';
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
  /** data/wallet.db by default in the server; ':memory:' is not supported (the sweeper and CLI need a file). */
  dbPath: string;
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

export interface Wallet {
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
  }): CreatedKey;
  /** Creates the demo account and key only when the wallet has no account at all; otherwise null. */
  createDemoKeyIfEmpty(input?: { email?: string; plan?: PlanName }): CreatedKey | null;
  revokeKey(ref: { keyId: string } | { key: string }): {
    keyId: string;
    accountId: string;
    revokedAt: string;
    alreadyRevoked: boolean;
  };
  listKeys(ref: AccountRef): KeyInfo[];
  addCredits(input: AccountRef & { amount: number; source?: 'topup' | 'grant'; expiresAt?: Date }): {
    accountId: string;
    lotId: number;
    amount: number;
    source: LotSource;
    expiresAt: string | null;
    balance: number;
  };
  setPlan(input: AccountRef & { plan: 'payg' | 'unlimited' }): { accountId: string; plan: PlanName };
  addSubscription(input: AccountRef & { country: string; until?: Date }): {
    accountId: string;
    country: CountryCode;
    startedAt: string;
    endsAt: string | null;
  };
  removeSubscription(input: AccountRef & { country: string }): {
    accountId: string;
    country: CountryCode;
    ended: boolean;
  };
  balance(ref: AccountRef): BalanceReport;
  usage(input: AccountRef & { since?: Date; until?: Date; limit?: number }): UsageReport;
  /**
   * Spec 5.6, self-service: the account of a verified e-mail. A new account gets the trial and the 30
   * registration credits; an existing one (made by an operator, or a repeated call) is returned unchanged.
   */
  completeRegistration(email: string): { accountId: string; created: boolean };
  /**
   * The principal of the account's in-app search: a standard key row marked internal, created on first use.
   * Metered and rate-limited like any standard key; its stored hash is random bytes, so no bearer key can
   * ever authenticate as it.
   */
  appPrincipal(accountId: string): Principal;
  /** The account's own keys (the internal in-app key left out). */
  accountKeys(accountId: string): KeyInfo[];
  /** A standard key on an existing account, named by its holder. */
  createAccountKey(input: { accountId: string; name: string }): CreatedKey;
  /** Revokes one of the account's own keys; another account's key id, or the in-app key, is not_found. */
  revokeAccountKey(input: { accountId: string; keyId: string }): { keyId: string; revokedAt: string };
  /** Metered calls of the account grouped by time bucket, channel and country (charged and free calls). */
  usageSeries(input: { accountId: string; since: Date; until: Date; bucketMs: number }): UsagePoint[];
  /** A top-up (at least MIN_TOPUP_CREDITS) or a plan purchase awaiting payment. */
  placeOrder(input: {
    accountId: string;
    kind: OrderKind;
    country?: string;
    credits?: number;
    provider: string;
    reference: string;
  }): OrderInfo;
  /** Payment received: grants the credits, starts a country plan for PLAN_PERIOD_MS or sets Unlimited, in one transaction. */
  confirmOrder(orderId: string): OrderInfo;
  cancelOrder(orderId: string): OrderInfo;
  listOrders(filter?: { accountId?: string; state?: OrderState; limit?: number }): OrderInfo[];
  /** Ledger self-check (invariant 1 and the lot/hold/usage cross-checks), in micro-credits. */
  audit(): LedgerAudit;
  sweep(): SweepReport;
  close(): void;
}

export function openWallet(opts: WalletOptions): Wallet {
  const clock: Clock = opts.now ? () => (opts.now as () => Date)().getTime() : Date.now;
  const prices: PriceTable = buildPriceTable(opts.prices);
  const rateLimit: RateLimitOptions = { ...DEFAULT_RATE_LIMIT, ...opts.rateLimit };
  const sweepIntervalMs = opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const holdTimeoutMs = opts.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS;
  const idempotencyTtlMs = opts.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;
  if (!(holdTimeoutMs > 0) || !(idempotencyTtlMs > 0) || !(sweepIntervalMs >= 0)) {
    throw new AppError('validation_failed', 'wallet timeouts must be positive');
  }
  const rateLimiter = new GcraRateLimiter(rateLimit, clock);

  const db = openWalletDb(opts.dbPath, { busyTimeoutMs: opts.busyTimeoutMs });
  const instanceId = `ins_${crypto.randomBytes(8).toString('hex')}`;
  const accounts = new Accounts(db);
  const ledger = new Ledger(db);
  const keys = new ApiKeys(db, clock);
  const usage = new UsageLog(db);
  const idempotency = new IdempotencyStore(db);
  const instances = new Instances(db, instanceId);
  const sweeper = new Sweeper(db, ledger, idempotency, usage, instances, clock, holdTimeoutMs);
  const metering = new WalletMetering(db, clock, accounts, ledger, usage, idempotency, sweeper, {
    instanceId,
    prices,
    holdTimeoutMs,
    idempotencyTtlMs,
  });

  try {
    writeTx(db, () => instances.register(clock(), sweepIntervalMs));
    sweeper.sweep();
  } catch (err) {
    db.close();
    throw err;
  }
  let timer: NodeJS.Timeout | null = null;
  if (sweepIntervalMs > 0) {
    timer = setInterval(() => {
      // A failed sweep (lock held too long by the CLI, say) is retried at the next tick; the holds it
      // would have voided stay reserved a little longer, never lost.
      try {
        sweeper.sweep();
        rateLimiter.prune();
      } catch {
        // nothing to do until the next tick
      }
    }, sweepIntervalMs);
    timer.unref();
  }
  let closed = false;

  const balanceOf = (account: AccountRow, now: number): number => {
    ledger.bookExpiry(account.id, now);
    return microToCredits(ledger.available(account.id, now));
  };

  const createKeyTx = (input: {
    email: string;
    kind: KeyKind;
    credits?: number;
    plan?: PlanName;
    name?: string;
  }): CreatedKey => {
    if (input.kind !== 'standard' && input.kind !== 'admin') {
      throw new AppError(
        'validation_failed',
        `key kind must be standard or admin, not ${String(input.kind)}`,
      );
    }
    const grant = input.credits === undefined ? 0 : creditsToMicro(input.credits, 'credits');
    const email = normaliseEmail(input.email);
    const now = clock();
    let account = accounts.findByEmail(email);
    const accountCreated = !account;
    if (!account) {
      const plan = input.plan ?? 'trial';
      if (plan === 'trial') {
        account = createKeylessAccount(accounts, ledger, email, now);
      } else if (plan === 'payg' || plan === 'unlimited') {
        account = accounts.create(email, plan, null, now);
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
    if (grant > 0) ledger.grant(account.id, 'grant', grant, null, now);
    const { key, keyId } = keys.create(account.id, input.kind, input.name ?? null, now);
    return {
      key,
      keyId,
      accountId: account.id,
      email,
      kind: input.kind,
      plan: planName(account, now),
      accountCreated,
      balance: balanceOf(account, now),
    };
  };

  const parseCountry = (country: string): CountryCode => {
    const cc = country.trim().toUpperCase();
    if (!isCountryCode(cc)) {
      throw new AppError('validation_failed', `country must be one of ${COUNTRY_CODES.join(', ')}`);
    }
    return cc;
  };

  const selfService = selfServiceStatements(db);
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
  const pendingOrder = (orderId: string): OrderRow => {
    const row = selfService.orderById.get(orderId);
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

  return {
    authenticator: keys,
    rateLimiter,
    metering,
    prices: Object.fromEntries(COUNTRY_CODES.map((c) => [c, microToCredits(prices[c])])) as Record<
      CountryCode,
      number
    >,

    createKey: (input) => writeTx(db, () => createKeyTx(input)),

    createDemoKeyIfEmpty: (input = {}) =>
      writeTx(db, () =>
        // Checked and created in one transaction, so two processes starting together make one demo account.
        accounts.count() > 0
          ? null
          : createKeyTx({
              email: input.email ?? DEMO_EMAIL,
              kind: 'standard',
              plan: input.plan ?? 'trial',
              name: 'demo',
            }),
      ),

    revokeKey: (ref) =>
      writeTx(db, () => {
        const { row, alreadyRevoked } = keys.revoke(ref, clock());
        return {
          keyId: row.id,
          accountId: row.account_id,
          revokedAt: toIso(row.revoked_at) ?? '',
          alreadyRevoked,
        };
      }),

    listKeys: (ref) => keys.list(accounts.resolve(ref).id).map(keyInfo),

    addCredits: (input) =>
      writeTx(db, () => {
        const account = accounts.resolve(input);
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
        const lotId = ledger.grant(account.id, source, amount, expiresAt, now);
        return {
          accountId: account.id,
          lotId,
          amount: microToCredits(amount),
          source,
          expiresAt: toIso(expiresAt),
          balance: balanceOf(account, now),
        };
      }),

    setPlan: (input) =>
      writeTx(db, () => {
        if (input.plan !== 'payg' && input.plan !== 'unlimited') {
          throw new AppError('validation_failed', 'plan must be payg or unlimited');
        }
        const account = accounts.resolve(input);
        accounts.setPlan(account.id, input.plan);
        return { accountId: account.id, plan: planName({ ...account, plan: input.plan }, clock()) };
      }),

    addSubscription: (input) =>
      writeTx(db, () => {
        const account = accounts.resolve(input);
        const country = parseCountry(input.country);
        const now = clock();
        const endsAt = input.until ? input.until.getTime() : null;
        if (endsAt !== null && !(endsAt > now))
          throw new AppError('validation_failed', 'until must be in the future');
        accounts.subscribe(account.id, country, now, endsAt);
        return { accountId: account.id, country, startedAt: toIso(now) ?? '', endsAt: toIso(endsAt) };
      }),

    removeSubscription: (input) =>
      writeTx(db, () => {
        const account = accounts.resolve(input);
        const country = parseCountry(input.country);
        return { accountId: account.id, country, ended: accounts.unsubscribe(account.id, country, clock()) };
      }),

    balance: (ref) =>
      writeTx(db, () => {
        const account = accounts.resolve(ref);
        const now = clock();
        const balance = balanceOf(account, now);
        const trialEnds = account.trial_ends_at;
        return {
          accountId: account.id,
          email: account.email,
          plan: planName(account, now),
          trialEndsAt: toIso(trialEnds),
          balance,
          pending: microToCredits(ledger.pending(account.id)),
          lots: ledger.lots(account.id).map((l) => ({
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
          subscriptions: accounts.subscriptions(account.id).map((s) => ({
            country: s.country,
            startedAt: toIso(s.started_at) ?? '',
            endsAt: toIso(s.ends_at),
            active: s.started_at <= now && (s.ends_at === null || s.ends_at > now),
          })),
        };
      }),

    usage: (input) => {
      const account = accounts.resolve(input);
      const to = input.until ? input.until.getTime() : clock() + 1;
      const from = input.since ? input.since.getTime() : 0;
      const limit = Math.max(1, Math.min(input.limit ?? 100, 10_000));
      const groups = usage.summary(account.id, from, to);
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
        records: usage.list(account.id, from, to, limit).map((r) => ({
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
      writeTx(db, () => {
        const existing = accounts.findByEmail(email);
        if (existing) return { accountId: existing.id, created: false };
        return { accountId: createKeylessAccount(accounts, ledger, email, clock()).id, created: true };
      }),

    appPrincipal: (accountId) => {
      const found = selfService.appKeyOf.get(accountId);
      if (found) return { keyId: found.id, accountId, kind: 'standard' };
      return writeTx(db, () => {
        const again = selfService.appKeyOf.get(accountId);
        if (again) return { keyId: again.id, accountId, kind: 'standard' as const };
        const account = accounts.resolve({ accountId });
        const keyId = `key_${crypto.randomBytes(8).toString('hex')}`;
        selfService.insertAppKey.run(keyId, account.id, APP_KEY_NAME, crypto.randomBytes(32), clock());
        return { keyId, accountId: account.id, kind: 'standard' as const };
      });
    },

    accountKeys: (accountId) => selfService.ownKeys.all(accountId).map(keyInfo),

    createAccountKey: (input) =>
      writeTx(db, () => {
        const account = accounts.resolve({ accountId: input.accountId });
        const name = input.name.trim();
        if (name.length < 1 || name.length > 80) {
          throw new AppError('validation_failed', 'a key name is 1-80 characters');
        }
        const now = clock();
        const { key, keyId } = keys.create(account.id, 'standard', name, now);
        return {
          key,
          keyId,
          accountId: account.id,
          email: account.email,
          kind: 'standard' as const,
          plan: planName(account, now),
          accountCreated: false,
          balance: balanceOf(account, now),
        };
      }),

    revokeAccountKey: (input) =>
      writeTx(db, () => {
        // Scoped in SQL: a key id of another account (or the in-app key) is indistinguishable from none.
        const row = selfService.ownKey.get(input.keyId, input.accountId);
        if (!row) throw new AppError('not_found', 'no such API key');
        const { row: revoked } = keys.revoke({ keyId: row.id }, clock());
        return { keyId: revoked.id, revokedAt: toIso(revoked.revoked_at) ?? '' };
      }),

    usageSeries: (input) => {
      const from = input.since.getTime();
      const to = input.until.getTime();
      const bucket = Math.trunc(input.bucketMs);
      if (!(bucket > 0) || !(to > from)) {
        throw new AppError('validation_failed', 'usage series needs since < until and a positive bucket');
      }
      return selfService.series.all(from, bucket, input.accountId, from, to).map((g) => ({
        bucketStart: toIso(from + g.bucket * bucket) ?? '',
        channel: g.channel,
        country: g.country,
        requests: g.requests,
        rows: g.rows,
        credits: microToCredits(g.charged),
      }));
    },

    placeOrder: (input) =>
      writeTx(db, () => {
        const account = accounts.resolve({ accountId: input.accountId });
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
        selfService.insertOrder.run(
          id,
          account.id,
          input.kind,
          country,
          amount,
          input.provider,
          input.reference,
          now,
        );
        return orderInfo(selfService.orderById.get(id) as OrderRow);
      }),

    confirmOrder: (orderId) =>
      writeTx(db, () => {
        const order = pendingOrder(orderId);
        const now = clock();
        let lotId: number | null = null;
        if (order.kind === 'topup') {
          lotId = ledger.grant(order.account_id, 'topup', order.amount, null, now);
        } else if (order.kind === 'unlimited') {
          accounts.setPlan(order.account_id, 'unlimited');
        } else if (order.country) {
          accounts.subscribe(order.account_id, order.country, now, now + PLAN_PERIOD_MS);
        }
        selfService.resolveOrder.run('paid', now, lotId, order.id);
        return orderInfo(selfService.orderById.get(order.id) as OrderRow);
      }),

    cancelOrder: (orderId) =>
      writeTx(db, () => {
        const order = pendingOrder(orderId);
        selfService.resolveOrder.run('cancelled', clock(), null, order.id);
        return orderInfo(selfService.orderById.get(order.id) as OrderRow);
      }),

    listOrders: (filter = {}) =>
      selfService.orders
        .all(
          filter.accountId ?? null,
          filter.accountId ?? null,
          filter.state ?? null,
          filter.state ?? null,
          Math.max(1, Math.min(filter.limit ?? 100, 1000)),
        )
        .map(orderInfo),

    audit: () => writeTx(db, () => ledger.audit(clock())),

    sweep: () => sweeper.sweep(),

    close: () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      try {
        // A clean shutdown releases what this process still holds, so the next start finds nothing open.
        writeTx(db, () => {
          const now = clock();
          for (const hold of db
            .prepare<[string], { id: number }>(
              `SELECT id FROM holds WHERE state = 'pending' AND instance_id = ?`,
            )
            .all(instanceId)) {
            ledger.void(hold.id, 'closed', now);
          }
          db.prepare(`DELETE FROM idempotency_keys WHERE state = 'in_flight' AND instance_id = ?`).run(
            instanceId,
          );
          instances.unregister();
        });
      } finally {
        db.close();
      }
    },
  };
}

/** Spec 5.6 registration: a pay-as-you-go account in its 7-day trial, with 30 credits valid 7 days. */
function createKeylessAccount(accounts: Accounts, ledger: Ledger, email: string, now: number): AccountRow {
  const account = accounts.create(email, 'payg', now + TRIAL_MS, now);
  ledger.grant(
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

const ORDER_COLUMNS = `o.id, o.account_id, a.email, o.kind, o.country, o.amount, o.provider, o.reference, o.state,
  o.created_at, o.resolved_at`;

/** Statements of the dashboard's methods; every account-facing one is scoped by account_id in SQL. */
function selfServiceStatements(db: WalletDb) {
  const KEY_COLUMNS = 'id, account_id, kind, name, hint, created_at, revoked_at, last_used_at';
  return {
    appKeyOf: db.prepare<[string], { id: string }>(
      'SELECT id FROM api_keys WHERE account_id = ? AND internal = 1',
    ),
    insertAppKey: db.prepare<[string, string, string, Buffer, number]>(
      `INSERT INTO api_keys (id, account_id, kind, name, secret_hash, hint, created_at, internal)
       VALUES (?, ?, 'standard', ?, ?, '', ?, 1)`,
    ),
    ownKeys: db.prepare<[string], KeyListing>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? AND internal = 0 ORDER BY created_at, rowid`,
    ),
    ownKey: db.prepare<[string, string], KeyListing>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ? AND internal = 0`,
    ),
    series: db.prepare<
      [number, number, string, number, number],
      { bucket: number; channel: string; country: string; requests: number; rows: number; charged: number }
    >(
      `SELECT (created_at - ?) / ? AS bucket, channel, country, count(*) AS requests,
         coalesce(sum(rows_returned), 0) AS rows, sum(charged) AS charged
       FROM usage_records WHERE account_id = ? AND created_at >= ? AND created_at < ?
         AND outcome IN ('charged', 'free')
       GROUP BY bucket, channel, country ORDER BY bucket, channel, country`,
    ),
    insertOrder: db.prepare<[string, string, OrderKind, string | null, number, string, string, number]>(
      `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    orderById: db.prepare<[string], OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders o JOIN accounts a ON a.id = o.account_id WHERE o.id = ?`,
    ),
    resolveOrder: db.prepare<[OrderState, number, number | null, string]>(
      `UPDATE orders SET state = ?, resolved_at = ?, lot_id = ? WHERE id = ? AND state = 'pending'`,
    ),
    orders: db.prepare<[string | null, string | null, string | null, string | null, number], OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders o JOIN accounts a ON a.id = o.account_id
       WHERE (? IS NULL OR o.account_id = ?) AND (? IS NULL OR o.state = ?)
       ORDER BY o.created_at DESC, o.id DESC LIMIT ?`,
    ),
  };
}
