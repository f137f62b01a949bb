import { AppError } from '../errors/app-error.ts';
import type { Clock } from './clock.ts';
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

  take(principal: Principal, _operation: MeteredOperation | FreeOperation): RateLimitDecision | null {
    // Spec 5.5 / 8: admin and integration keys are not rate-limited.
    if (principal.kind === 'admin') return null;
    const now = this.clock();
    const tat = Math.max(this.tat.get(principal.keyId) ?? now, now);
    const next = tat + this.intervalMs;
    if (next - now > this.toleranceMs) {
      const retryAfterSeconds = Math.max(1, Math.ceil((next - now - this.toleranceMs) / 1000));
      throw new RateLimitedError(
        `rate limit exceeded: ${this.options.burst} requests in a burst, ${this.options.requestsPerMinute} per minute; retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
        {
          limit: this.options.burst,
          remaining: 0,
          resetSeconds: Math.ceil((tat - now) / 1000),
          policy: this.policy,
        },
      );
    }
    this.tat.set(principal.keyId, next);
    if (this.tat.size > PRUNE_THRESHOLD) this.prune();
    return {
      limit: this.options.burst,
      remaining: Math.floor((this.toleranceMs - (next - now)) / this.intervalMs + 1e-9),
      resetSeconds: Math.ceil((next - now) / 1000),
      policy: this.policy,
    };
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
