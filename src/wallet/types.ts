import type { CountryCode } from '../contract/countries.ts';

/**
 * The seam between the HTTP/MCP layers and the wallet. Every method is async: the same interface is served
 * by the embedded SQLite ledger and by PostgreSQL (REGDATA_WALLET_URL), and callers never know which. Routes and MCP tools never touch the ledger; they
 * authenticate, then wrap a metered service call in `Metering.runMetered`, which owns idempotency, the
 * reserve (pending hold), the settle of the rows actually returned, and the void on 404 / no data.
 */

export type KeyKind = 'standard' | 'admin';
/**
 * Issue 30 item 6: a live key reads the live snapshot and is metered; a test key (`rgd_test_`) reads the
 * synthetic test world only, is never charged and has a rate-limit bucket of its own (docs/api-decisions.md
 * "Test mode"). Both belong to the same account.
 */
export type KeyMode = 'live' | 'test';
export type Channel = 'rest' | 'mcp' | 'app' | 'webhook';
export type MeteredOperation =
  | 'search'
  | 'detail'
  | 'history'
  | 'workplaces'
  | 'changes'
  | 'export'
  /** Watchlist events pulled (issue 31): charged once per event, however often it is read. */
  | 'events';
export type FreeOperation =
  | 'countries'
  | 'filters'
  | 'activities'
  | 'locations'
  | 'count'
  | 'estimate'
  /** The MCP tool export_companies: a priced, signed download link; the download is the metered export. */
  | 'export_link'
  /** Managing watchlists (issue 31): account management, never charged. */
  | 'watchlists';

/** An export reserves up to its max_rows (capped by REGDATA_EXPORT_MAX_ROWS, itself at most this). */
export const MAX_EXPORT_RESERVE_ROWS = 10_000_000;

export interface Principal {
  keyId: string;
  accountId: string;
  kind: KeyKind;
  mode: KeyMode;
}

export interface Authenticator {
  /** Resolves `Authorization: Bearer <key>`; throws AppError('unauthorized') for missing, malformed, unknown or revoked keys. */
  authenticate(authorizationHeader: string | undefined): Promise<Principal>;
  /**
   * The principal of a key named by its id (a signed export link names its key so); throws
   * AppError('forbidden') when the key is unknown or revoked: the link no longer speaks for anyone.
   */
  principalOf(keyId: string): Promise<Principal>;
}

export interface RateLimitDecision {
  /** Values for the RateLimit / RateLimit-Policy headers. */
  limit: number;
  remaining: number;
  resetSeconds: number;
  policy: string;
}

export interface RateLimiter {
  /** Consumes one token for the key; throws AppError('rate_limited') carrying retry-after seconds when empty. Admin keys pass. */
  take(principal: Principal, operation: MeteredOperation | FreeOperation): Promise<RateLimitDecision | null>;
}

/** Spec 2.8: the usage meta of every metered response. */
export interface UsageMeta {
  rows_returned: number | null;
  credits_charged: number;
  credits_reserved: number | null;
  credit_balance: number;
}

export interface MeteredCall {
  principal: Principal;
  channel: Channel;
  operation: MeteredOperation;
  country: CountryCode;
  /** Rows to reserve up front: page_size for search, 1 for detail/history/workplaces (spec 8.3-8.4). */
  reserveRows: number;
  /** Optional Idempotency-Key header value. */
  idempotencyKey?: string;
  /**
   * How long the hold may stay pending before the sweeper voids it (default: the wallet's hold timeout).
   * An export streams for as long as its client reads, longer than a page of search ever takes.
   */
  holdTimeoutMs?: number;
  /** Canonical form of the request's parameters; the same idempotency key with another fingerprint is a 422. */
  fingerprint: string;
  /**
   * `run` only reads (no side effect). Without an Idempotency-Key it runs before anything is written and
   * the call is decided, held and settled in one commit (docs/wallet.md "A read pays in one commit"); with
   * one, it may start while the hold is being made. Either way its answer is dropped unless it is paid for.
   */
  readOnly?: boolean;
}

export interface MeteredOutcome<T> {
  result: T;
  /** Rows to charge for; 0 voids the hold (no history, no workplaces). */
  chargeableRows: number;
  /** Rows reported in meta.rows_returned. */
  rowsReturned: number;
}

/** A free call (discovery, count): logged for the operator's usage view, never touching the ledger. */
export interface FreeCall {
  principal: Principal;
  channel: Channel;
  operation: FreeOperation;
  /** null for calls about no country (the country list). */
  country: CountryCode | null;
  /** Rows of the answer where that means something (count: the number counted is not rows returned). */
  rowsReturned?: number | null;
}

/** What a metered call would reserve now (the free cost estimate of issue 19), in credits. */
export interface Quote {
  unitPrice: number;
  /** rows x unitPrice, or 0 when a waiver applies. */
  needed: number;
  balance: number;
  waiver: 'test' | 'admin' | 'unlimited' | 'subscription' | 'trial' | null;
}

export interface Metering {
  /** The reserve `call` would make now and whether a waiver applies; reserves nothing. */
  quote(call: Pick<MeteredCall, 'principal' | 'channel' | 'country' | 'reserveRows'>): Promise<Quote>;
  /**
   * Records a free call in usage_records (spec 8: a usage record per request); charges nothing. The line
   * is written after the current turn of the event loop, so the answer need not wait for it; the promise
   * resolves once it is written (or its write failed, which the wallet reports as a warning).
   */
  recordFree(call: FreeCall): Promise<void>;
  /** Resolves once every free call's line recorded so far is written (or failed). */
  settleFree(): Promise<void>;
  /**
   * Reserve, run, settle. A throw from `run` (404, 502, ...) voids the hold and is rethrown; 402 is thrown
   * when the balance cannot cover the reserve, before `run` starts (a `readOnly` call's `run` may have
   * run, and its answer is dropped).
   */
  runMetered<T>(
    call: MeteredCall,
    run: () => Promise<MeteredOutcome<T>>,
  ): Promise<{ result: T; meta: UsageMeta }>;
}
