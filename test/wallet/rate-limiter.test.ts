import { describe, expect, it } from 'vitest';
import { isRateLimitedError, type RateLimitedError } from '../../src/wallet/errors.ts';
import { DEFAULT_RATE_LIMIT, GcraRateLimiter, rateLimitHeaders } from '../../src/wallet/rate-limiter.ts';
import type { Principal } from '../../src/wallet/types.ts';
import { TestClock, principalFor, testWallet } from './helpers.ts';

const std = (keyId: string): Principal => ({ keyId, accountId: 'acc_1', kind: 'standard' });

function limited(fn: () => unknown): RateLimitedError {
  try {
    fn();
  } catch (err) {
    if (isRateLimitedError(err)) return err;
    throw err;
  }
  throw new Error('expected a 429');
}

describe('rate limiting per key (GCRA)', () => {
  it('defaults to bursts of 60 and 600 requests a minute', () => {
    expect(DEFAULT_RATE_LIMIT).toEqual({ requestsPerMinute: 600, burst: 60 });
  });

  it('allows a burst, then answers 429 with Retry-After and refills over time', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter({ requestsPerMinute: 60, burst: 5 }, () => clock.ms);
    const remaining = Array.from({ length: 5 }, () => limiter.take(std('k1'), 'search')!.remaining);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const err = limited(() => limiter.take(std('k1'), 'search'));
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.decision).toEqual({ limit: 5, remaining: 0, resetSeconds: 5, policy: '"per-key";q=5;w=5' });
    clock.advance(999);
    expect(() => limiter.take(std('k1'), 'count')).toThrow();
    clock.advance(1);
    expect(limiter.take(std('k1'), 'count')).toEqual({
      limit: 5,
      remaining: 0,
      resetSeconds: 5,
      policy: '"per-key";q=5;w=5',
    });
    clock.advance(5000);
    expect(limiter.take(std('k1'), 'count')!.remaining).toBe(4);
  });

  it('keys the limit by API key, not by account or address', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter({ requestsPerMinute: 60, burst: 1 }, () => clock.ms);
    limiter.take(std('k1'), 'search');
    expect(() => limiter.take(std('k1'), 'search')).toThrow();
    expect(limiter.take(std('k2'), 'search')).not.toBeNull();
  });

  it('rate-limits free operations such as count too', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter({ requestsPerMinute: 60, burst: 1 }, () => clock.ms);
    limiter.take(std('k1'), 'count');
    expect(() => limiter.take(std('k1'), 'count')).toThrow(/rate limit exceeded/);
  });

  it('exempts admin keys', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter({ requestsPerMinute: 1, burst: 1 }, () => clock.ms);
    const admin: Principal = { keyId: 'ka', accountId: 'acc', kind: 'admin' };
    for (let i = 0; i < 1000; i++) expect(limiter.take(admin, 'search')).toBeNull();
  });

  it('gives header values in the IETF RateLimit draft shape', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter(DEFAULT_RATE_LIMIT, () => clock.ms);
    expect(rateLimitHeaders(limiter.take(std('k1'), 'search')!)).toEqual({
      RateLimit: '"per-key";r=59;t=1',
      'RateLimit-Policy': '"per-key";q=60;w=6',
    });
  });

  it('forgets keys whose bucket is full again, so the map does not grow with idle keys', () => {
    const clock = new TestClock();
    const limiter = new GcraRateLimiter({ requestsPerMinute: 60, burst: 10 }, () => clock.ms);
    for (let i = 0; i < 100; i++) limiter.take(std(`k${i}`), 'search');
    expect(limiter.trackedKeys).toBe(100);
    clock.advance(1000);
    expect(limiter.prune()).toBe(100);
    expect(limiter.trackedKeys).toBe(0);
  });

  it('is wired into the wallet with configurable limits', () => {
    const clock = new TestClock();
    const { wallet } = testWallet({ now: clock.now, rateLimit: { burst: 2 } });
    const p = principalFor(wallet, wallet.createKey({ email: 'a@example.com', kind: 'standard' }).key);
    wallet.rateLimiter.take(p, 'search');
    wallet.rateLimiter.take(p, 'search');
    expect(() => wallet.rateLimiter.take(p, 'search')).toThrow(/rate limit exceeded/);
  });
});
