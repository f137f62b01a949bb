import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/wallet/clock.ts';
import {
  TestClock,
  call,
  deferred,
  expectAuditClean,
  principalFor,
  rawCount,
  rows,
  testWallet,
  WALLET_BACKENDS,
  useBackend,
} from './helpers.ts';

const SEVEN_DAYS = 7 * DAY_MS;

describe.each(WALLET_BACKENDS)(
  '%s: registration credits and the trial last exactly 7 days (invariant 5)',
  (backend) => {
    useBackend(backend);
    it('keeps both until 7 days minus 1 ms and ends both at exactly 7 days', async () => {
      const clock = new TestClock();
      const { wallet, dbPath } = await testWallet({ now: clock.now });
      const created = await wallet.createKey({ email: 'new@example.com', kind: 'standard' });
      const p = await principalFor(wallet, created.key);
      const registeredAt = clock.ms;

      clock.ms = registeredAt + SEVEN_DAYS - 1;
      expect(await wallet.balance({ email: 'new@example.com' })).toMatchObject({
        plan: 'trial',
        balance: 30,
      });
      const inTrial = await wallet.metering.runMetered(call(p, { reserveRows: 500 }), rows(500));
      expect(inTrial.meta).toMatchObject({ credits_charged: 0, credit_balance: 30 });

      clock.ms = registeredAt + SEVEN_DAYS;
      const after = await wallet.balance({ email: 'new@example.com' });
      expect(after).toMatchObject({
        plan: 'payg',
        balance: 0,
        trialEndsAt: new Date(registeredAt + SEVEN_DAYS).toISOString(),
      });
      // Expiry is a ledger entry; the lot itself is still there, fully expired.
      expect(after.lots).toEqual([
        expect.objectContaining({ source: 'registration', amount: 30, expired: 30, remaining: 0 }),
      ]);
      expect(
        await rawCount(dbPath, `SELECT count(*) FROM transfers WHERE kind = 'expire' AND amount = 30000000`),
      ).toBe(1);

      // After the trial, pay-per-row continues with no cutoff: here that means 402 until a top-up.
      await expect(wallet.metering.runMetered(call(p, { reserveRows: 1 }), rows(1))).rejects.toThrow(
        'insufficient credits: have 0.00, need 0.04',
      );
      await wallet.addCredits({ email: 'new@example.com', amount: 20 });
      const paid = await wallet.metering.runMetered(call(p, { reserveRows: 1 }), rows(1));
      expect(paid.meta).toMatchObject({ credits_charged: 0.04, credit_balance: 19.96 });
      await expectAuditClean(wallet);
    });

    it('spends registration credits (in-app) before top-ups, and expires only what is left of them', async () => {
      const clock = new TestClock();
      const { wallet } = await testWallet({ now: clock.now });
      const p = await principalFor(
        wallet,
        (await wallet.createKey({ email: 'new@example.com', kind: 'standard' })).key,
      );
      await wallet.addCredits({ email: 'new@example.com', amount: 20 });
      await wallet.metering.runMetered(call(p, { channel: 'app', reserveRows: 100 }), rows(100));
      expect((await wallet.balance({ email: 'new@example.com' })).balance).toBe(46);
      clock.advance(SEVEN_DAYS);
      const b = await wallet.balance({ email: 'new@example.com' });
      expect(b.balance).toBe(20);
      expect(b.lots.map((l) => [l.source, l.spent, l.expired])).toEqual([
        ['registration', 4, 26],
        ['topup', 0, 0],
      ]);
      await expectAuditClean(wallet);
    });

    it('posts a hold taken before expiry and expires the released remainder at settle', async () => {
      const clock = new TestClock();
      const { wallet } = await testWallet({ now: clock.now });
      const p = await principalFor(
        wallet,
        (await wallet.createKey({ email: 'new@example.com', kind: 'standard' })).key,
      );
      clock.advance(SEVEN_DAYS - 1000);
      const gate = deferred<void>();
      // run() is called once the reserve has committed: the balance is read after the hold exists.
      const running = deferred<void>();
      const pending = wallet.metering.runMetered(call(p, { channel: 'app', reserveRows: 100 }), async () => {
        running.resolve();
        await gate.promise;
        return { result: null, chargeableRows: 10, rowsReturned: 10 };
      });
      await running.promise;
      expect(await wallet.balance({ email: 'new@example.com' })).toMatchObject({ balance: 26, pending: 4 });
      clock.advance(2000);
      // Expired while the hold is open: the held 4 credits stay held, the free 26 expire now.
      expect(await wallet.balance({ email: 'new@example.com' })).toMatchObject({ balance: 0, pending: 4 });
      gate.resolve();
      const res = await pending;
      expect(res.meta).toMatchObject({ credits_charged: 0.4, credit_balance: 0 });
      const lot = (await wallet.balance({ email: 'new@example.com' })).lots[0]!;
      expect([lot.spent, lot.expired, lot.pending, lot.remaining]).toEqual([0.4, 29.6, 0, 0]);
      await expectAuditClean(wallet);
    });

    it('ends a subscription and its waiver at its end date', async () => {
      const clock = new TestClock();
      const { wallet } = await testWallet({ now: clock.now });
      const p = await principalFor(
        wallet,
        (await wallet.createKey({ email: 's@example.com', kind: 'standard', plan: 'payg', credits: 1 })).key,
      );
      await wallet.addSubscription({
        email: 's@example.com',
        country: 'EE',
        until: new Date(clock.ms + 30 * DAY_MS),
      });
      clock.advance(30 * DAY_MS - 1);
      expect(
        (await wallet.metering.runMetered(call(p, { reserveRows: 1 }), rows(1))).meta.credits_charged,
      ).toBe(0);
      clock.advance(1);
      expect(
        (await wallet.metering.runMetered(call(p, { reserveRows: 1 }), rows(1))).meta.credits_charged,
      ).toBe(0.04);
    });
  },
);
