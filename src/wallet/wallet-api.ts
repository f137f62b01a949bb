/**
 * What the wallet offers its callers (services, http, cli, mcp, web): one object over SQLite or PostgreSQL.
 * wallet.ts assembles it from the parts in parts/ and re-exports these types.
 */
import type { CountryCode } from '../contract/countries.ts';
import type { AccountRef, PlanName } from './accounts.ts';
import type { KeySet } from './keys.ts';
import type { LedgerAudit, LotSource } from './ledger.ts';
import type { RateLimitOptions } from './rate-limiter.ts';
import type { WalletStore } from './store.ts';
import type { SweepReport } from './sweeper.ts';
import type { Authenticator, KeyKind, KeyMode, Metering, Principal, RateLimiter } from './types.ts';
import type { FreeReason, UsageOutcome } from './usage.ts';

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
  /** Test keys' own limit (issue 30); DEFAULT_TEST_RATE_LIMIT where absent. */
  testRateLimit?: Partial<RateLimitOptions>;
  /** 0 disables the periodic sweep; the start-up sweep always runs. */
  sweepIntervalMs?: number;
  holdTimeoutMs?: number;
  idempotencyTtlMs?: number;
  busyTimeoutMs?: number;
  /** PostgreSQL pool size of this process. */
  poolSize?: number;
  /** Live API keys per account (REGDATA_MAX_LIVE_KEYS); DEFAULT_MAX_LIVE_KEYS when absent. */
  maxLiveKeys?: number;
  /** Where the SQLite store reports a failed checkpoint thread (wal-checkpointer.ts); the server logs it. */
  onStoreWarning?: (message: string) => void;
}

export interface CreatedKey {
  /** The secret: shown this once, stored nowhere. */
  key: string;
  keyId: string;
  accountId: string;
  email: string;
  kind: KeyKind;
  /** live, or test (`rgd_test_`: the synthetic test world, never charged). */
  mode: KeyMode;
  plan: PlanName;
  accountCreated: boolean;
  /** Spendable balance in credits after any credits granted with the key. */
  balance: number;
}

export interface KeyInfo {
  keyId: string;
  kind: KeyKind;
  mode: KeyMode;
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
    /** Default live; an admin key is always live. */
    mode?: KeyMode;
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
  /** The account's own keys (with the in-app key), or with `grants` the keys of MCP clients' OAuth grants. */
  listKeys(ref: AccountRef, set?: KeySet): Promise<KeyInfo[]>;
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
  /**
   * The account's own keys (the internal in-app key left out), or with `grants` the keys its MCP clients'
   * OAuth grants act through (keys.ts KeySet).
   */
  accountKeys(accountId: string, set?: KeySet): Promise<KeyInfo[]>;
  /**
   * A standard key on an existing account, named by its holder; live unless `mode` says test. `set`
   * 'grants': the key an MCP client's OAuth grant will act through, counted against the cap of connected
   * clients rather than the account's own keys (ApiKeys.create).
   */
  createAccountKey(input: {
    accountId: string;
    name: string;
    mode?: KeyMode;
    set?: KeySet;
  }): Promise<CreatedKey>;
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
