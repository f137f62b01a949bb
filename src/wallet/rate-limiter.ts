import { AppError } from '../errors/app-error.ts';
import type { Clock } from './clock.ts';
import type { Queryable } from './store.ts';
import { RateLimitedError } from './errors.ts';
import type { FreeOperation, MeteredOperation, Principal, RateLimitDecision, RateLimiter } from './types.ts';

export interface RateLimitOptions {
  /** Sustained rate per standard key. */
  requestsPerMinute: number;
  /** Requests a key may make back to back after being idle. */
  burst: number;
}

/** Documented in docs/wallet.md: 10 requests/second sustained per key, bursts of 60. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { requestsPerMinute: 600, burst: 60 };

/**
 * Test keys (issue 30 item 6): 2 requests/second sustained per key, bursts of 60. A CI run is bursty and
 * short; the synthetic world costs nothing to answer, so the sustained rate is what keeps a runaway loop
 * of free calls from taking the cores live customers pay for. docs/api-decisions.md "Test mode".
 */
export const DEFAULT_TEST_RATE_LIMIT: RateLimitOptions = { requestsPerMinute: 120, burst: 60 };

/** Above this many idle entries the map is pruned on the spot rather than waiting for the sweeper. */
const PRUNE_THRESHOLD = 10_000;

/**
 * GCRA (the generic cell rate algorithm, as in redis-cell and Stripe's limiter): one number per key, the
 * theoretical arrival time (TAT). It behaves as a token bucket of `burst` tokens refilled at
 * `requestsPerMinute`, without a timer. Keyed by API key id, not IP (issue 4). In memory: a restart
 * forgives everyone, which is the cheap side to err on, and no request pays a disk write for it.
 */
export class GcraRateLimiter implements RateLimiter {
  private readonly tat = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  readonly policy: string;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly clock: Clock,
  ) {
    if (!(options.requestsPerMinute > 0) || !Number.isInteger(options.burst) || options.burst < 1) {
      throw new AppError(
        'validation_failed',
        'rate limit needs requestsPerMinute > 0 and an integer burst >= 1',
      );
    }
    this.intervalMs = 60_000 / options.requestsPerMinute;
    this.toleranceMs = options.burst * this.intervalMs;
    // draft-ietf-httpapi-ratelimit-headers: quota q per window w seconds; here the window is the time a
    // fully drained bucket takes to refill.
    this.policy = `"per-key";q=${options.burst};w=${Math.ceil(this.toleranceMs / 1000)}`;
  }

  take(principal: Principal, operation: MeteredOperation | FreeOperation): Promise<RateLimitDecision | null> {
    try {
      return Promise.resolve(this.takeNow(principal, operation));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The synchronous core: the decision needs no I/O when the state is this process's memory. */
  takeNow(principal: Principal, _operation: MeteredOperation | FreeOperation): RateLimitDecision | null {
    // Spec 5.5 / 8: admin and integration keys are not rate-limited.
    if (principal.kind === 'admin') return null;
    const now = this.clock();
    const tat = Math.max(this.tat.get(principal.keyId) ?? now, now);
    const next = tat + this.intervalMs;
    if (next - now > this.toleranceMs)
      throw limited(this.options, this.policy, tat, next, now, this.toleranceMs);
    this.tat.set(principal.keyId, next);
    if (this.tat.size > PRUNE_THRESHOLD) this.prune();
    return allowed(this.options, this.policy, next, now, this.intervalMs, this.toleranceMs);
  }

  /** A key whose TAT is in the past has a full bucket, the same as an absent entry, so it is dropped. */
  prune(): number {
    const now = this.clock();
    let dropped = 0;
    for (const [keyId, tat] of this.tat) {
      if (tat <= now) {
        this.tat.delete(keyId);
        dropped++;
      }
    }
    return dropped;
  }

  /** For tests and metrics. */
  get trackedKeys(): number {
    return this.tat.size;
  }
}

function limited(
  options: RateLimitOptions,
  policy: string,
  tat: number,
  next: number,
  now: number,
  toleranceMs: number,
): RateLimitedError {
  const retryAfterSeconds = Math.max(1, Math.ceil((next - now - toleranceMs) / 1000));
  return new RateLimitedError(
    `rate limit exceeded: ${options.burst} requests in a burst, ${options.requestsPerMinute} per minute; retry in ${retryAfterSeconds} s`,
    retryAfterSeconds,
    { limit: options.burst, remaining: 0, resetSeconds: Math.ceil((tat - now) / 1000), policy },
  );
}

function allowed(
  options: RateLimitOptions,
  policy: string,
  next: number,
  now: number,
  intervalMs: number,
  toleranceMs: number,
): RateLimitDecision {
  return {
    limit: options.burst,
    remaining: Math.floor((toleranceMs - (next - now)) / intervalMs + 1e-9),
    resetSeconds: Math.ceil((next - now) / 1000),
    policy,
  };
}

/**
 * The same GCRA with the TAT in the database (PostgreSQL), so a key's limit holds across every replica:
 * one atomic upsert per request advances the TAT only if the request is allowed, so concurrent requests on
 * several replicas can never together exceed the burst. The tolerance is the clock skew between replicas:
 * each uses its own clock for "now", so a replica whose clock runs δ ms ahead lets through at most
 * δ / interval requests more than the limit (with NTP, a few ms: well under one request at 600/min).
 */
export class SharedGcraRateLimiter implements RateLimiter {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  readonly policy: string;

  constructor(
    private readonly store: Queryable,
    private readonly options: RateLimitOptions,
    private readonly clock: Clock,
  ) {
    const local = new GcraRateLimiter(options, clock);
    this.intervalMs = 60_000 / options.requestsPerMinute;
    this.toleranceMs = options.burst * this.intervalMs;
    this.policy = local.policy;
  }

  async take(
    principal: Principal,
    _operation: MeteredOperation | FreeOperation,
  ): Promise<RateLimitDecision | null> {
    if (principal.kind === 'admin') return null;
    const now = this.clock();
    const row = await this.store.get<{ tat: number }>(
      `INSERT INTO rate_limits (key_id, tat) VALUES (?, ?::float8 + ?::float8)
       ON CONFLICT (key_id) DO UPDATE SET tat = greatest(rate_limits.tat, ?::float8) + ?::float8
         WHERE greatest(rate_limits.tat, ?::float8) + ?::float8 - ?::float8 <= ?::float8
       RETURNING tat`,
      [
        principal.keyId,
        now,
        this.intervalMs,
        now,
        this.intervalMs,
        now,
        this.intervalMs,
        now,
        this.toleranceMs,
      ],
    );
    if (row) return allowed(this.options, this.policy, row.tat, now, this.intervalMs, this.toleranceMs);
    const current = await this.store.get<{ tat: number }>('SELECT tat FROM rate_limits WHERE key_id = ?', [
      principal.keyId,
    ]);
    const tat = Math.max(current?.tat ?? now, now);
    throw limited(this.options, this.policy, tat, tat + this.intervalMs, now, this.toleranceMs);
  }

  /** Rows whose TAT has passed are full buckets, the same as no row; the sweeper drops them. */
  async prune(): Promise<number> {
    return (await this.store.run('DELETE FROM rate_limits WHERE tat <= ?::float8', [this.clock()])).changes;
  }
}

type Limiter = GcraRateLimiter | SharedGcraRateLimiter;

/**
 * Live and test keys in separate buckets with separate limits: a test key's calls never spend a live key's
 * tokens (nor the reverse), and its limit is its own. Each limiter keeps one entry per key id; a key is
 * one mode for life, so no key's state is ever in both.
 */
export class ModeRateLimiter implements RateLimiter {
  constructor(
    readonly live: Limiter,
    readonly test: Limiter,
  ) {}

  take(principal: Principal, operation: MeteredOperation | FreeOperation): Promise<RateLimitDecision | null> {
    return (principal.mode === 'test' ? this.test : this.live).take(principal, operation);
  }

  /** Full buckets dropped from both (the sweeper's periodic call). */
  async prune(): Promise<number> {
    return (await this.live.prune()) + (await this.test.prune());
  }
}

/**
 * Header values for a successful response (draft-ietf-httpapi-ratelimit-headers). On a 429 use
 * `err.decision` for these and `err.retryAfterSeconds` for Retry-After.
 */
export function rateLimitHeaders(
  decision: RateLimitDecision,
): Record<'RateLimit' | 'RateLimit-Policy', string> {
  return {
    RateLimit: `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`,
    'RateLimit-Policy': decision.policy,
  };
}
