import { describe, expect, it } from 'vitest';
import { AppError, isAppError } from '../../src/errors/app-error.ts';
import { InsufficientCreditsError, isInsufficientCreditsError } from '../../src/wallet/errors.ts';
import { formatCredits } from '../../src/wallet/money.ts';
import type { Principal } from '../../src/wallet/types.ts';
import {
  TestClock,
  call,
  expectAuditClean,
  ledgerEntryCount,
  rawCount,
  principalFor,
  rows,
  testWallet,
  WALLET_BACKENDS,
  useBackend,
} from './helpers.ts';
import { rawExec, rawValue } from './backends.ts';

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

async function paygWallet(credits: number, opts: Parameters<typeof testWallet>[0] = {}) {
  const { wallet, dbPath } = await testWallet(opts);
  const created = await wallet.createKey({
    email: 'payg@example.com',
    kind: 'standard',
    plan: 'payg',
    credits,
  });
  return { wallet, dbPath, principal: await principalFor(wallet, created.key), created };
}

describe.each(WALLET_BACKENDS)('%s: metered calls (spec 8)', (backend) => {
  useBackend(backend);
  it('reserves page_size x price for a search and charges only the rows returned', async () => {
    const { wallet, principal } = await paygWallet(10);
    let balanceDuringRun = -1;
    const res = await wallet.metering.runMetered(call(principal, { reserveRows: 50 }), async () => {
      balanceDuringRun = (await wallet.balance({ email: 'payg@example.com' })).balance;
      return { result: ['r1'], chargeableRows: 17, rowsReturned: 17 };
    });
    // EE 0.04: 50 rows hold 2.00 while the query runs; 17 rows cost 0.68.
    expect(balanceDuringRun).toBe(8);
    expect(res).toEqual({
      result: ['r1'],
      meta: { rows_returned: 17, credits_charged: 0.68, credits_reserved: 2, credit_balance: 9.32 },
    });
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 9.32, pending: 0 });
    await expectAuditClean(wallet);
  });

  it('charges one row at the country price for detail, history and workplaces', async () => {
    const { wallet, principal } = await paygWallet(10);
    const detail = await wallet.metering.runMetered(
      call(principal, { operation: 'detail', country: 'NO', reserveRows: 1 }),
      rows(1),
    );
    expect(detail.meta).toEqual({
      rows_returned: 1,
      credits_charged: 0.1,
      credits_reserved: 0.1,
      credit_balance: 9.9,
    });
    const wp = await wallet.metering.runMetered(
      call(principal, { operation: 'workplaces', country: 'SE', reserveRows: 1 }),
      async () => ({ result: { workplaces: [1, 2, 3] }, chargeableRows: 1, rowsReturned: 3 }),
    );
    expect(wp.meta).toEqual({
      rows_returned: 3,
      credits_charged: 0.24,
      credits_reserved: 0.24,
      credit_balance: 9.66,
    });
  });

  it('voids the hold when the company has no history (chargeable rows 0)', async () => {
    const { wallet, principal, dbPath } = await paygWallet(1);
    const res = await wallet.metering.runMetered(
      call(principal, { operation: 'history', country: 'FI', reserveRows: 1 }),
      async () => ({ result: { periods: [] }, chargeableRows: 0, rowsReturned: 0 }),
    );
    expect(res.meta).toEqual({
      rows_returned: 0,
      credits_charged: 0,
      credits_reserved: 0.04,
      credit_balance: 1,
    });
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 2, holds: 1 }); // one pending, one void
  });

  it('voids the hold and rethrows when the run fails (404, 502)', async () => {
    const { wallet, principal } = await paygWallet(1);
    const notFound = new AppError('not_found', 'no company with code 123 in EE');
    const err = await rejection(
      wallet.metering.runMetered(call(principal, { operation: 'detail', reserveRows: 1 }), async () => {
        throw notFound;
      }),
    );
    expect(err).toBe(notFound);
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 1, pending: 0 });
    expect((await wallet.usage({ email: 'payg@example.com' })).records[0]).toMatchObject({
      outcome: 'voided',
      creditsCharged: 0,
    });
    await expectAuditClean(wallet);
  });

  it('answers 402 "insufficient credits: have <balance>, need <amount>" and runs nothing', async () => {
    const { wallet, principal, dbPath } = await paygWallet(1.99);
    let ran = false;
    const err = await rejection(
      wallet.metering.runMetered(call(principal, { reserveRows: 50 }), async () => {
        ran = true;
        return { result: null, chargeableRows: 0, rowsReturned: 0 };
      }),
    );
    expect(ran).toBe(false);
    expect(err.status).toBe(402);
    expect(err.code).toBe('insufficient_credits');
    expect(err.message).toBe('insufficient credits: have 1.99, need 2.00');
    expect(isInsufficientCreditsError(err) && [err.balanceMicro, err.neededMicro]).toEqual([
      1_990_000, 2_000_000,
    ]);
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 0, holds: 0 });
    expect((await wallet.usage({ email: 'payg@example.com' })).records[0]).toMatchObject({
      outcome: 'rejected',
    });
  });

  it('starts a read-only run at once, and releases its answer only with its charge', async () => {
    const { wallet, dbPath, principal } = await paygWallet(10);
    let started = false;
    const running = wallet.metering.runMetered(
      call(principal, { reserveRows: 50, readOnly: true }),
      async () => {
        started = true;
        return { result: ['r1'], chargeableRows: 17, rowsReturned: 17 };
      },
    );
    // Started before any commit (runMetered has not yielded yet); a call that is not read-only starts its
    // run only after its reserve commits.
    expect(started).toBe(true);
    let laterStarted = false;
    const later = wallet.metering.runMetered(call(principal, { reserveRows: 50 }), async () => {
      laterStarted = true;
      return { result: ['r2'], chargeableRows: 1, rowsReturned: 1 };
    });
    expect(laterStarted).toBe(false);
    const [first, second] = await Promise.all([running, later]);
    // Each balance in meta depends on how the two interleave (the other's hold may be pending); the charges
    // and the end state do not.
    expect(first.meta).toMatchObject({ rows_returned: 17, credits_charged: 0.68, credits_reserved: 2 });
    expect(second.meta).toMatchObject({ rows_returned: 1, credits_charged: 0.04 });
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 9.28, pending: 0 });
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 4, holds: 2 });
    await expectAuditClean(wallet);
  });

  it('writes nothing for a read until its answer exists, then decides, holds and settles it in one commit', async () => {
    const { wallet, dbPath, principal } = await paygWallet(10);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let commits = 0;
    const tx = wallet.store.tx.bind(wallet.store);
    wallet.store.tx = (fn, opts) => {
      commits++;
      return tx(fn, opts);
    };
    const usageLines = () => rawCount(dbPath, 'SELECT count(*) FROM usage_records');
    const before = await usageLines();
    const running = wallet.metering.runMetered(
      call(principal, { operation: 'detail', reserveRows: 1, readOnly: true }),
      async () => {
        await gate;
        return { result: 'row', chargeableRows: 1, rowsReturned: 1 };
      },
    );
    await new Promise((r) => setTimeout(r, 20));
    // Mid-run a crash would leave nothing: no hold, no usage line, the whole balance spendable.
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 0, holds: 0 });
    expect(await usageLines()).toBe(before);
    expect(commits).toBe(0);
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 10, pending: 0 });
    // wallet.balance() commits (it books expiry); the call itself had not.
    commits = 0;
    release();
    expect(await running).toEqual({
      result: 'row',
      meta: { rows_returned: 1, credits_charged: 0.04, credits_reserved: 0.04, credit_balance: 9.96 },
    });
    expect(commits).toBe(1);
    // The same ledger entries as reserve-then-settle: a hold, its pending transfer and its post.
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 2, holds: 1 });
    expect(await usageLines()).toBe(before + 1);
    await expectAuditClean(wallet);
  });

  it('holds a read with an Idempotency-Key before its answer is released (two commits)', async () => {
    const { wallet, dbPath, principal } = await paygWallet(10);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = wallet.metering.runMetered(
      call(principal, { reserveRows: 50, readOnly: true, idempotencyKey: 'k-1' }),
      async () => {
        await gate;
        return { result: ['r1'], chargeableRows: 3, rowsReturned: 3 };
      },
    );
    for (let i = 0; i < 100 && (await ledgerEntryCount(dbPath)).holds === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    // The claim of the key needs its hold: a concurrent duplicate elsewhere must see both.
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 8, pending: 2 });
    release();
    expect((await running).meta).toMatchObject({ credits_charged: 0.12, credit_balance: 9.88 });
    await expectAuditClean(wallet);
  });

  it('drops a read-only answer the balance cannot cover: 402, nothing charged, its error swallowed', async () => {
    const { wallet, dbPath, principal } = await paygWallet(1.99);
    let ran = false;
    const answered = await rejection(
      wallet.metering.runMetered(call(principal, { reserveRows: 50, readOnly: true }), async () => {
        ran = true;
        return { result: ['secret'], chargeableRows: 50, rowsReturned: 50 };
      }),
    );
    // A run that fails meanwhile must not surface either (an unhandled rejection fails the test run).
    const failed = await rejection(
      wallet.metering.runMetered(call(principal, { reserveRows: 50, readOnly: true }), () =>
        Promise.reject(new AppError('not_found', 'gone')),
      ),
    );
    expect(ran).toBe(true);
    expect([answered.status, failed.status]).toEqual([402, 402]);
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 0, holds: 0 });
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 1.99, pending: 0 });
  });

  it('settles a read paid in one commit across lots, and voids a read that returned nothing', async () => {
    const clock = new TestClock();
    const { wallet, principal, dbPath } = await paygWallet(0.5, { now: clock.now });
    await wallet.addCredits({
      email: 'payg@example.com',
      amount: 0.2,
      source: 'grant',
      expiresAt: new Date(clock.ms + 86_400_000),
    });
    // 12 rows reserved (0.48): 0.20 from the expiring lot, 0.28 from the other; 7 rows charged (0.28).
    const res = await wallet.metering.runMetered(
      call(principal, { reserveRows: 12, readOnly: true }),
      rows(7),
    );
    expect(res.meta).toEqual({
      rows_returned: 7,
      credits_charged: 0.28,
      credits_reserved: 0.48,
      credit_balance: 0.42,
    });
    const lots = async () =>
      (await wallet.balance({ email: 'payg@example.com' })).lots.map((l) => [l.amount, l.spent]);
    expect(await lots()).toEqual([
      [0.5, 0.08],
      [0.2, 0.2],
    ]);
    // No rows: the hold is voided in the same commit.
    const none = await wallet.metering.runMetered(
      call(principal, { reserveRows: 3, readOnly: true }),
      rows(0),
    );
    expect(none.meta).toMatchObject({ credits_charged: 0, credits_reserved: 0.12, credit_balance: 0.42 });
    // Two holds, a pending transfer per lot each drew from (2 + 1), and a post or void for each pending.
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 6, holds: 2 });
    expect(await rawCount(dbPath, "SELECT count(*) FROM holds WHERE state = 'voided'")).toBe(1);
    // Each hold was written already resolved, as its settle in the same commit left it.
    expect(await rawCount(dbPath, 'SELECT count(*) FROM holds WHERE resolved_at = created_at')).toBe(2);
    await expectAuditClean(wallet);
  });

  it('holds nothing for a read-only run that fails: no commit before the answer, its usage line after', async () => {
    const { wallet, principal, dbPath } = await paygWallet(10);
    const usageLines = () => rawCount(dbPath, 'SELECT count(*) FROM usage_records');
    const before = await usageLines();
    const entries = await ledgerEntryCount(dbPath);
    let commits = 0;
    const tx = wallet.store.tx.bind(wallet.store);
    wallet.store.tx = (fn, opts) => {
      commits++;
      return tx(fn, opts);
    };
    const err = await rejection(
      wallet.metering.runMetered(call(principal, { reserveRows: 50, readOnly: true }), () =>
        Promise.reject(new AppError('not_found', 'no such company')),
      ),
    );
    expect(err.status).toBe(404);
    // It moves no money: the 404 is answered before anything is written.
    expect(commits).toBe(0);
    await wallet.metering.settleFree();
    expect(commits).toBe(1);
    expect(await ledgerEntryCount(dbPath)).toEqual(entries);
    expect(await usageLines()).toBe(before + 1);
    expect((await wallet.usage({ email: 'payg@example.com' })).records[0]).toMatchObject({
      outcome: 'voided',
      creditsCharged: 0,
    });
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 10, pending: 0 });
    await expectAuditClean(wallet);
  });

  it('books expired lots and answers 402 for a failing read exactly when a hold would have', async () => {
    const clock = new TestClock();
    const { wallet, principal } = await paygWallet(0.2, { now: clock.now });
    await wallet.addCredits({
      email: 'payg@example.com',
      amount: 0.8,
      source: 'grant',
      expiresAt: new Date(clock.ms + 86_400_000),
    });
    const fail = async (rows: number) =>
      (
        await rejection(
          wallet.metering.runMetered(call(principal, { reserveRows: rows, readOnly: true }), () =>
            Promise.reject(new AppError('not_found', 'no such company')),
          ),
        )
      ).status;
    // 1 credit at 0.04 a row: 25 rows are covered, 26 are not.
    expect([await fail(25), await fail(26)]).toEqual([404, 402]);
    // Two days on, the 0.8 lot has expired: 0.2 covers 5 rows, not 6, and the failing read booked the expiry.
    clock.advance(2 * 86_400_000);
    expect([await fail(5), await fail(6)]).toEqual([404, 402]);
    const lots = (await wallet.balance({ email: 'payg@example.com' })).lots;
    expect(lots.map((l) => l.remaining)).toEqual([0.2, 0]);
    // Each 402 wrote its line in its own commit, each 404's line came after its answer (the test clock
    // gives all four one time, so their order in the report is not theirs).
    const outcomes = (await wallet.usage({ email: 'payg@example.com' })).records.map((r) => r.outcome);
    expect(outcomes.sort()).toEqual(['rejected', 'rejected', 'voided', 'voided']);
    await expectAuditClean(wallet);
  });

  it("words a failing read's waiver in its usage line, with nothing charged, whatever the balance", async () => {
    const { wallet, dbPath } = await testWallet();
    const unlimited = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'big@example.com', kind: 'standard', plan: 'unlimited' })).key,
    );
    const trial = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'new@example.com', kind: 'standard' })).key,
    );
    const broke = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'broke@example.com', kind: 'standard', plan: 'payg', credits: 0 }))
        .key,
    );
    const fail = async (p: Principal) =>
      (
        await rejection(
          wallet.metering.runMetered(call(p, { reserveRows: 500, readOnly: true }), () =>
            Promise.reject(new AppError('backend_unavailable', 'no live snapshot holds EE')),
          ),
        )
      ).status;
    expect([await fail(unlimited), await fail(trial), await fail(broke)]).toEqual([502, 502, 402]);
    const line = async (email: string) => (await wallet.usage({ email })).records[0];
    expect(await line('big@example.com')).toMatchObject({ outcome: 'voided', freeReason: 'unlimited' });
    expect(await line('new@example.com')).toMatchObject({ outcome: 'voided', freeReason: 'trial' });
    expect(await line('broke@example.com')).toMatchObject({ outcome: 'rejected', creditsCharged: 0 });
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 0, holds: 0 });
    await expectAuditClean(wallet);
  });

  it('formats 402 amounts so that "have" never looks enough for "need"', async () => {
    expect(new InsufficientCreditsError(35_000, 40_000).message).toBe(
      'insufficient credits: have 0.03, need 0.04',
    );
    expect(new InsufficientCreditsError(0, 120_000_000).message).toBe(
      'insufficient credits: have 0.00, need 120.00',
    );
    expect(formatCredits(45_000, 'up')).toBe('0.05');
    expect(formatCredits(1_234_567_890, 'down')).toBe('1234.56');
  });

  it('spends the lot that expires first, then non-expiring credit', async () => {
    const clock = new TestClock();
    const { wallet, principal } = await paygWallet(0.5, { now: clock.now });
    const inTwoDays = new Date(clock.ms + 2 * 86_400_000);
    const inOneDay = new Date(clock.ms + 86_400_000);
    await wallet.addCredits({
      email: 'payg@example.com',
      amount: 0.4,
      source: 'grant',
      expiresAt: inTwoDays,
    });
    await wallet.addCredits({ email: 'payg@example.com', amount: 0.2, source: 'grant', expiresAt: inOneDay });
    // 12 rows x 0.04 = 0.48: 0.20 from the one-day lot, 0.28 from the two-day lot, nothing from the rest.
    await wallet.metering.runMetered(call(principal, { reserveRows: 12 }), rows(12));
    const lots = (await wallet.balance({ email: 'payg@example.com' })).lots.map((l) => [
      l.amount,
      l.spent,
      l.remaining,
    ]);
    expect(lots).toEqual([
      [0.5, 0, 0.5],
      [0.4, 0.28, 0.12],
      [0.2, 0.2, 0],
    ]);
  });

  it('uses configured prices', async () => {
    const { wallet, principal } = await paygWallet(10, { prices: { EE: 0.05 } });
    expect(wallet.prices).toMatchObject({ EE: 0.05, SE: 0.24 });
    const res = await wallet.metering.runMetered(call(principal, { reserveRows: 10 }), rows(3));
    expect(res.meta).toMatchObject({ credits_reserved: 0.5, credits_charged: 0.15 });
  });

  it('voids and surfaces a run that claims more rows than it reserved', async () => {
    const { wallet, principal } = await paygWallet(10);
    const err = await rejection(wallet.metering.runMetered(call(principal, { reserveRows: 5 }), rows(6)));
    expect(err.code).toBe('internal');
    expect(await wallet.balance({ email: 'payg@example.com' })).toMatchObject({ balance: 10, pending: 0 });
  });

  it('records usage per call with key, operation, country, rows and credits', async () => {
    const { wallet, principal } = await paygWallet(10);
    await wallet.metering.runMetered(call(principal, { reserveRows: 10 }), rows(4));
    await wallet.metering.runMetered(
      call(principal, { operation: 'detail', country: 'LV', reserveRows: 1 }),
      rows(1),
    );
    const report = await wallet.usage({ email: 'payg@example.com' });
    expect(report.totals).toEqual({ requests: 2, rows: 5, credits: 0.24 });
    expect(report.byOperation).toEqual([
      { operation: 'detail', country: 'LV', requests: 1, rows: 1, credits: 0.08 },
      { operation: 'search', country: 'EE', requests: 1, rows: 4, credits: 0.16 },
    ]);
    expect(report.records[0]).toMatchObject({
      keyId: principal.keyId,
      channel: 'rest',
      operation: 'detail',
      country: 'LV',
      outcome: 'charged',
      rowsReturned: 1,
      creditsCharged: 0.08,
      creditsReserved: 0.08,
    });
  });
});

describe.each(WALLET_BACKENDS)('%s: free use: charged 0, no ledger entries (invariant 4)', (backend) => {
  useBackend(backend);
  it('admin keys, unlimited plans, country subscriptions and the trial are never charged', async () => {
    const clock = new TestClock();
    const { wallet, dbPath } = await testWallet({ now: clock.now });
    const admin = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'ops@example.com', kind: 'admin', plan: 'payg' })).key,
    );
    const unlimited = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'big@example.com', kind: 'standard', plan: 'unlimited' })).key,
    );
    const sub = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'se@example.com', kind: 'standard', plan: 'payg' })).key,
    );
    await wallet.addSubscription({ email: 'se@example.com', country: 'se' });
    const trial = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'new@example.com', kind: 'standard' })).key,
    );

    const cases = [
      [admin, 'rest', 'SE', 0],
      [unlimited, 'mcp', 'NO', 0],
      [sub, 'rest', 'SE', 0],
      [trial, 'rest', 'EE', 30],
      [trial, 'mcp', 'LT', 30],
    ] as const;
    for (const [p, channel, country, balance] of cases) {
      for (const operation of ['search', 'detail', 'history', 'workplaces'] as const) {
        const res = await wallet.metering.runMetered(
          call(p, { channel, country, operation, reserveRows: operation === 'search' ? 500 : 1 }),
          rows(operation === 'search' ? 500 : 1),
        );
        expect(res.meta).toEqual({
          rows_returned: operation === 'search' ? 500 : 1,
          credits_charged: 0,
          credits_reserved: 0,
          credit_balance: balance,
        });
      }
    }
    expect(await ledgerEntryCount(dbPath)).toEqual({ transfers: 0, holds: 0 });
    const reasons = (await wallet.usage({ email: 'new@example.com' })).records.map((r) => r.freeReason);
    expect(new Set(reasons)).toEqual(new Set(['trial']));
  });

  it('waives a subscription only for its own countries', async () => {
    const { wallet, dbPath } = await testWallet();
    const p = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'se@example.com', kind: 'standard', plan: 'payg', credits: 1 })).key,
    );
    await wallet.addSubscription({ email: 'se@example.com', country: 'SE' });
    const res = await wallet.metering.runMetered(call(p, { country: 'EE', reserveRows: 1 }), rows(1));
    expect(res.meta.credits_charged).toBe(0.04);
    expect((await ledgerEntryCount(dbPath)).holds).toBe(1);
  });

  it('charges in-app search during the trial against the registration credits', async () => {
    const { wallet } = await testWallet();
    const p = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'new@example.com', kind: 'standard' })).key,
    );
    const res = await wallet.metering.runMetered(call(p, { channel: 'app', reserveRows: 10 }), rows(10));
    expect(res.meta).toEqual({
      rows_returned: 10,
      credits_charged: 0.4,
      credits_reserved: 0.4,
      credit_balance: 29.6,
    });
  });

  it('never answers 402 to a free key, whatever its balance', async () => {
    const { wallet } = await testWallet();
    const p = await principalFor(
      wallet,
      (await wallet.createKey({ email: 'ops@example.com', kind: 'admin', plan: 'payg' })).key,
    );
    const res = await wallet.metering.runMetered(call(p, { reserveRows: 500 }), rows(500));
    expect(res.meta.credit_balance).toBe(0);
  });
});

describe.each(WALLET_BACKENDS)('%s: operator functions', (backend) => {
  useBackend(backend);
  it('enforces the 20-credit minimum top-up and keeps top-ups from expiring', async () => {
    const { wallet } = await testWallet();
    await wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg' });
    await expect(wallet.addCredits({ email: 'a@example.com', amount: 19.99 })).rejects.toThrow(/at least 20/);
    await expect(
      wallet.addCredits({ email: 'a@example.com', amount: 20, expiresAt: new Date(Date.now() + 1e6) }),
    ).rejects.toThrow(/does not expire/);
    expect(await wallet.addCredits({ email: 'a@example.com', amount: 20 })).toMatchObject({
      amount: 20,
      source: 'topup',
      expiresAt: null,
      balance: 20,
    });
    expect((await wallet.addCredits({ email: 'a@example.com', amount: 0.5, source: 'grant' })).balance).toBe(
      20.5,
    );
    await expect(wallet.addCredits({ email: 'nobody@example.com', amount: 20 })).rejects.toThrow(
      /no account/,
    );
    await expect(wallet.addCredits({ email: 'a@example.com', amount: 20.0000001 })).rejects.toThrow(
      /six decimals/,
    );
  });

  it('returns plain data for the CLI', async () => {
    const { wallet } = await testWallet();
    const created = await wallet.createKey({ email: 'a@example.com', kind: 'standard', credits: 5 });
    expect(created).toMatchObject({ kind: 'standard', plan: 'trial', accountCreated: true, balance: 35 });
    const balance = await wallet.balance({ accountId: created.accountId });
    expect(JSON.parse(JSON.stringify(balance))).toEqual(balance);
    expect(balance.lots.map((l) => l.source)).toEqual(['registration', 'grant']);
    expect(await wallet.setPlan({ email: 'a@example.com', plan: 'unlimited' })).toEqual({
      accountId: created.accountId,
      plan: 'unlimited',
    });
    expect((await wallet.addSubscription({ email: 'a@example.com', country: 'pl' })).country).toBe('PL');
    await expect(wallet.addSubscription({ email: 'a@example.com', country: 'DE' })).rejects.toThrow(
      /country must be/,
    );
    expect((await wallet.removeSubscription({ email: 'a@example.com', country: 'PL' })).ended).toBe(true);
  });
});

describe.each(WALLET_BACKENDS)("%s: free calls' usage lines, written after the answer", (backend) => {
  useBackend(backend);

  it('writes the lines of one turn of the event loop in one commit after it, each at its own time', async () => {
    const clock = new TestClock();
    const { wallet, principal, dbPath } = await paygWallet(10, { now: clock.now });
    let commits = 0;
    const tx = wallet.store.tx.bind(wallet.store);
    wallet.store.tx = (fn, opts) => {
      commits++;
      return tx(fn, opts);
    };
    const free = (operation: 'count' | 'filters', country: 'EE' | 'LV') =>
      wallet.metering.recordFree({ principal, channel: 'rest', operation, country });
    const first = free('count', 'EE');
    const at = clock.ms;
    clock.advance(1_500);
    const second = free('filters', 'LV');
    // Nothing is written while the turn that answers them runs; both wait for the same write.
    expect(commits).toBe(0);
    expect(second).toBe(first);
    await first;
    expect(commits).toBe(1);
    const lines = await rawValue(
      dbPath,
      `SELECT string_agg(operation || ' ' || country || ' ' || outcome || ' ' || created_at, ', ' ORDER BY id)
         FROM usage_records`,
    );
    expect(lines).toBe(`count EE free ${at}, filters LV free ${at + 1_500}`);
    // A later call starts the next write.
    const third = free('count', 'LV');
    expect(third).not.toBe(first);
    await third;
    expect(commits).toBe(2);
    await expectAuditClean(wallet);
  });

  it('lets usage reports and close wait for lines not yet written', async () => {
    const { wallet, principal, dbPath } = await paygWallet(10);
    void wallet.metering.recordFree({ principal, channel: 'mcp', operation: 'count', country: 'EE' });
    // Not awaited, as the routes do: the report still lists it.
    expect((await wallet.usage({ email: 'payg@example.com' })).records).toMatchObject([
      { operation: 'count', outcome: 'free', channel: 'mcp' },
    ]);
    void wallet.metering.recordFree({ principal, channel: 'rest', operation: 'count', country: 'LV' });
    await wallet.close();
    expect(await rawCount(dbPath, 'SELECT count(*) FROM usage_records')).toBe(2);
  });

  it('reports lines it could not write, and neither throws nor stops the next ones', async () => {
    const warnings: string[] = [];
    const { wallet, principal, dbPath } = await paygWallet(10, {
      onStoreWarning: (message) => warnings.push(message),
    });
    const free = () =>
      wallet.metering.recordFree({ principal, channel: 'rest', operation: 'count', country: 'EE' });
    // A real failure: the table is gone under the wallet (another connection renames it).
    await rawExec(dbPath, 'ALTER TABLE usage_records RENAME TO usage_records_away');
    void free();
    await expect(free()).resolves.toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^usage: the lines of 2 call\(s\) that moved no money were not written: .*usage_records/,
      ),
    ]);
    await rawExec(dbPath, 'ALTER TABLE usage_records_away RENAME TO usage_records');
    await free();
    expect(await rawCount(dbPath, "SELECT count(*) FROM usage_records WHERE outcome = 'free'")).toBe(1);
  });
});
