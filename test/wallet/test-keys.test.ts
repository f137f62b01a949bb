import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.ts';
import {
  KEY_PATTERN,
  TEST_KEY_PATTERN,
  generateApiKey,
  isWellFormedApiKey,
  keyModeOf,
} from '../../src/wallet/key-format.ts';
import { rawExec } from './backends.ts';
import {
  TestClock,
  call,
  expectAuditClean,
  ledgerEntryCount,
  principalFor,
  rawCount,
  rows,
  testWallet,
  WALLET_BACKENDS,
  useBackend,
} from './helpers.ts';

/**
 * Issue 30 item 6, test mode in the wallet: a `rgd_test_` key of the same account is never charged (no hold,
 * no transfer, the balance unchanged), its calls are logged at zero cost with free_reason `test`, and its
 * rate limit is a bucket of its own.
 */

async function failure(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return { code: err.code, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('test key format', () => {
  it('is rgd_test_ + 46 base62 characters with a checksum over the prefix too', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey('test');
      expect(key).toMatch(TEST_KEY_PATTERN);
      expect(key).not.toMatch(KEY_PATTERN);
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(keyModeOf(key)).toBe('test');
    }
    const live = generateApiKey();
    expect(keyModeOf(live)).toBe('live');
    // A live key's body under the test prefix (or the reverse) fails its checksum: the prefix is covered.
    expect(isWellFormedApiKey(`rgd_test_${live.slice(4)}`)).toBe(false);
    const test = generateApiKey('test');
    expect(isWellFormedApiKey(`rgd_${test.slice('rgd_test_'.length)}`)).toBe(false);
  });
});

describe.each(WALLET_BACKENDS)('%s: test keys in the wallet', (backend) => {
  useBackend(backend);

  async function payg(credits: number, opts: Parameters<typeof testWallet>[0] = {}) {
    const { wallet, dbPath } = await testWallet(opts);
    const live = await wallet.createKey({ email: 'ci@example.com', kind: 'standard', plan: 'payg', credits });
    const test = await wallet.createKey({ email: 'ci@example.com', kind: 'standard', mode: 'test' });
    return { wallet, dbPath, live, test };
  }

  it('makes a test key of the same account, authenticated as test mode, listed with its kind', async () => {
    const { wallet, live, test } = await payg(20);
    expect(test).toMatchObject({ accountId: live.accountId, kind: 'standard', mode: 'test' });
    expect(test.key).toMatch(TEST_KEY_PATTERN);
    expect(live).toMatchObject({ mode: 'live' });
    expect(await principalFor(wallet, test.key)).toEqual({
      keyId: test.keyId,
      accountId: live.accountId,
      kind: 'standard',
      mode: 'test',
    });
    expect(await wallet.authenticator.principalOf(test.keyId)).toMatchObject({ mode: 'test' });
    expect((await principalFor(wallet, live.key)).mode).toBe('live');
    const listed = await wallet.listKeys({ email: 'ci@example.com' });
    expect(listed.map((k) => [k.keyId, k.mode])).toEqual([
      [live.keyId, 'live'],
      [test.keyId, 'test'],
    ]);
    const own = await wallet.createAccountKey({ accountId: live.accountId, name: 'CI', mode: 'test' });
    expect(own).toMatchObject({ mode: 'test' });
    expect((await wallet.accountKeys(live.accountId)).find((k) => k.keyId === own.keyId)?.mode).toBe('test');
  });

  it('refuses an admin test key and an unknown mode', async () => {
    const { wallet } = await testWallet();
    expect(
      await failure(wallet.createKey({ email: 'a@example.com', kind: 'admin', mode: 'test' })),
    ).toMatchObject({
      status: 422,
      message: 'an admin key cannot be a test key',
    });
    expect(
      await failure(
        wallet.createKey({ email: 'a@example.com', kind: 'standard', mode: 'sandbox' as unknown as 'test' }),
      ),
    ).toMatchObject({ status: 422 });
  });

  it('refuses a stored row whose mode disagrees with the key prefix', async () => {
    const { wallet, dbPath, test } = await payg(20);
    // Only a hand-edited database can do this; the key must not then read live data as a live key.
    await rawExec(dbPath, 'UPDATE api_keys SET mode = ? WHERE id = ?', ['live', test.keyId]);
    expect(await failure(principalFor(wallet, test.key))).toMatchObject({
      status: 401,
      message: 'invalid API key',
    });
  });

  it('never charges a test key: no hold, no transfer, the balance unchanged, usage at zero cost', async () => {
    const { wallet, dbPath, test } = await payg(0);
    const principal = await principalFor(wallet, test.key);
    const before = await ledgerEntryCount(dbPath);
    // A payg account with no credit at all: a live key would get 402 for this reserve.
    const res = await wallet.metering.runMetered(call(principal, { reserveRows: 500 }), rows(500));
    expect(res.meta).toEqual({
      rows_returned: 500,
      credits_charged: 0,
      credits_reserved: 0,
      credit_balance: 0,
    });
    await wallet.metering.recordFree({ principal, channel: 'mcp', operation: 'count', country: 'EE' });
    expect(
      await wallet.metering.quote({ principal, channel: 'rest', country: 'PL', reserveRows: 500 }),
    ).toMatchObject({ needed: 0, waiver: 'test' });
    expect(await ledgerEntryCount(dbPath)).toEqual(before);
    expect(await wallet.balance({ email: 'ci@example.com' })).toMatchObject({ balance: 0, pending: 0 });
    const usage = await wallet.usage({ email: 'ci@example.com' });
    expect(usage.records.map((r) => [r.keyId, r.outcome, r.freeReason, r.creditsCharged])).toEqual(
      expect.arrayContaining([
        [test.keyId, 'free', 'test', 0],
        [test.keyId, 'free', 'test', 0],
      ]),
    );
    expect(usage.totals.credits).toBe(0);
    expect(await rawCount(dbPath, `SELECT count(*) FROM usage_records WHERE free_reason = 'test'`)).toBe(2);
    await expectAuditClean(wallet);
  });

  it('keeps test and live idempotency apart: one Idempotency-Key on both kinds is two calls', async () => {
    const { wallet, live, test } = await payg(20);
    const liveP = await principalFor(wallet, live.key);
    const testP = await principalFor(wallet, test.key);
    const first = await wallet.metering.runMetered(call(testP, { idempotencyKey: 'ci-1' }), rows(3, 'test'));
    const second = await wallet.metering.runMetered(call(liveP, { idempotencyKey: 'ci-1' }), rows(3, 'live'));
    expect([first.result, second.result]).toEqual(['test', 'live']);
    expect(second.meta.credits_charged).toBeGreaterThan(0);
    // The test key's replay is its own first answer.
    const replay = await wallet.metering.runMetered(
      call(testP, { idempotencyKey: 'ci-1' }),
      rows(3, 'again'),
    );
    expect(replay).toEqual(first);
  });

  it('rate-limits test keys in a bucket of their own, with their own limit', async () => {
    const clock = new TestClock();
    const { wallet, live, test } = await payg(20, {
      now: clock.now,
      rateLimit: { requestsPerMinute: 60, burst: 2 },
      testRateLimit: { requestsPerMinute: 60, burst: 3 },
    });
    const liveP = await principalFor(wallet, live.key);
    const testP = await principalFor(wallet, test.key);
    const take = (p: typeof liveP) => wallet.rateLimiter.take(p, 'count');
    // The test key's 3 tokens, then 429; the live key's bucket is untouched by them.
    for (let i = 0; i < 3; i++) expect((await take(testP))?.limit).toBe(3);
    expect(await failure(take(testP))).toMatchObject({ status: 429 });
    expect(await take(liveP)).toMatchObject({ limit: 2, remaining: 1 });
    expect(await take(liveP)).toMatchObject({ remaining: 0 });
    expect(await failure(take(liveP))).toMatchObject({ status: 429 });
  });
});
