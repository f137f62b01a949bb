import { afterEach, describe, expect, it } from 'vitest';
import { isRateLimitedError, type RateLimitedError } from '../../src/wallet/errors.ts';
import {
  DEFAULT_RATE_LIMIT,
  GcraRateLimiter,
  SharedGcraRateLimiter,
  rateLimitHeaders,
  type RateLimitOptions,
} from '../../src/wallet/rate-limiter.ts';
import type { WalletStore } from '../../src/wallet/store.ts';
import { PostgresStore } from '../../src/wallet/store-postgres.ts';
import type { Principal, RateLimiter } from '../../src/wallet/types.ts';
import {
  TestClock,
  WALLET_BACKENDS,
  currentBackend,
  freshLocation,
  principalFor,
  testWallet,
  useBackend,
} from './helpers.ts';

const std = (keyId: string): Principal => ({ keyId, accountId: 'acc_1', kind: 'standard', mode: 'live' });

async function limited(p: Promise<unknown>): Promise<RateLimitedError> {
  try {
    await p;
  } catch (err) {
    if (isRateLimitedError(err)) return err;
    throw err;
  }
  throw new Error('expected a 429');
}

const stores: WalletStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/**
 * The limiter of the current backend: in memory beside SQLite, the rate_limits table beside PostgreSQL.
 * `replicas` limiters on PostgreSQL share one database, as replicas do.
 */
async function limiters(options: RateLimitOptions, clock: TestClock, replicas = 1): Promise<RateLimiter[]> {
  if (currentBackend() === 'sqlite') return [new GcraRateLimiter(options, () => clock.ms)];
  const location = await freshLocation();
  const out: RateLimiter[] = [];
  for (let i = 0; i < replicas; i++) {
    const store = await PostgresStore.open(location);
    stores.push(store);
    out.push(new SharedGcraRateLimiter(store, options, () => clock.ms));
  }
  return out;
}

async function limiterOf(options: RateLimitOptions, clock: TestClock): Promise<RateLimiter> {
  const [one] = await limiters(options, clock);
  if (!one) throw new Error('no limiter');
  return one;
}

describe.each(WALLET_BACKENDS)('%s: rate limiting per key (GCRA)', (backend) => {
  useBackend(backend);
  it('defaults to bursts of 60 and 600 requests a minute', async () => {
    expect(DEFAULT_RATE_LIMIT).toEqual({ requestsPerMinute: 600, burst: 60 });
  });

  it('allows a burst, then answers 429 with Retry-After and refills over time', async () => {
    const clock = new TestClock();
    const limiter = await limiterOf({ requestsPerMinute: 60, burst: 5 }, clock);
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) remaining.push((await limiter.take(std('k1'), 'search'))!.remaining);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const err = await limited(limiter.take(std('k1'), 'search'));
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.decision).toEqual({ limit: 5, remaining: 0, resetSeconds: 5, policy: '"per-key";q=5;w=5' });
    clock.advance(999);
    await expect(limiter.take(std('k1'), 'count')).rejects.toThrow();
    clock.advance(1);
    expect(await limiter.take(std('k1'), 'count')).toEqual({
      limit: 5,
      remaining: 0,
      resetSeconds: 5,
      policy: '"per-key";q=5;w=5',
    });
    clock.advance(5000);
    expect((await limiter.take(std('k1'), 'count'))!.remaining).toBe(4);
  });

  it('keys the limit by API key, not by account or address', async () => {
    const clock = new TestClock();
    const limiter = await limiterOf({ requestsPerMinute: 60, burst: 1 }, clock);
    await limiter.take(std('k1'), 'search');
    await expect(limiter.take(std('k1'), 'search')).rejects.toThrow();
    expect(await limiter.take(std('k2'), 'search')).not.toBeNull();
  });

  it('rate-limits free operations such as count too', async () => {
    const clock = new TestClock();
    const limiter = await limiterOf({ requestsPerMinute: 60, burst: 1 }, clock);
    await limiter.take(std('k1'), 'count');
    await expect(limiter.take(std('k1'), 'count')).rejects.toThrow(/rate limit exceeded/);
  });

  it('exempts admin keys', async () => {
    const clock = new TestClock();
    const limiter = await limiterOf({ requestsPerMinute: 1, burst: 1 }, clock);
    const admin: Principal = { keyId: 'ka', accountId: 'acc', kind: 'admin', mode: 'live' };
    for (let i = 0; i < 1000; i++) expect(await limiter.take(admin, 'search')).toBeNull();
  });

  it('gives header values in the IETF RateLimit draft shape', async () => {
    const clock = new TestClock();
    const limiter = await limiterOf(DEFAULT_RATE_LIMIT, clock);
    expect(rateLimitHeaders((await limiter.take(std('k1'), 'search'))!)).toEqual({
      RateLimit: '"per-key";r=59;t=1',
      'RateLimit-Policy': '"per-key";q=60;w=6',
    });
  });

  it('forgets keys whose bucket is full again, so the map does not grow with idle keys', async () => {
    const clock = new TestClock();
    if (currentBackend() === 'sqlite') {
      const limiter = new GcraRateLimiter({ requestsPerMinute: 60, burst: 10 }, () => clock.ms);
      for (let i = 0; i < 100; i++) await limiter.take(std(`k${i}`), 'search');
      expect(limiter.trackedKeys).toBe(100);
      clock.advance(1000);
      expect(limiter.prune()).toBe(100);
      expect(limiter.trackedKeys).toBe(0);
    } else {
      const limiter = (await limiterOf({ requestsPerMinute: 60, burst: 10 }, clock)) as SharedGcraRateLimiter;
      for (let i = 0; i < 100; i++) await limiter.take(std(`k${i}`), 'search');
      clock.advance(999);
      expect(await limiter.prune()).toBe(0);
      clock.advance(1);
      expect(await limiter.prune()).toBe(100);
    }
  });

  it('is wired into the wallet with configurable limits', async () => {
    const clock = new TestClock();
    const { wallet } = await testWallet({ now: clock.now, rateLimit: { burst: 2 } });
    const p = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'a@example.com', kind: 'standard' })).key,
    );
    await wallet.rateLimiter.take(p, 'search');
    await wallet.rateLimiter.take(p, 'search');
    await expect(wallet.rateLimiter.take(p, 'search')).rejects.toThrow(/rate limit exceeded/);
  });

  it('holds one budget per key across replicas: concurrent requests on three never exceed the burst', async () => {
    if (currentBackend() === 'sqlite') return; // one process owns an SQLite wallet: nothing to share
    const clock = new TestClock();
    const three = await limiters({ requestsPerMinute: 60, burst: 10 }, clock, 3);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => three[i % 3]!.take(std('shared'), 'search')),
    );
    // The clock does not move: exactly the burst is admitted, whichever replica each request reached.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused.every((o) => isRateLimitedError(o.reason))).toBe(true);
    clock.advance(1000);
    expect(await three[2]!.take(std('shared'), 'search')).toMatchObject({ remaining: 0 });
    await expect(three[0]!.take(std('shared'), 'search')).rejects.toThrow(/rate limit exceeded/);
  });
});
