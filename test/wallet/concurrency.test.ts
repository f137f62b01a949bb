import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isInsufficientCreditsError } from '../../src/wallet/errors.ts';
import type { UsageMeta } from '../../src/wallet/types.ts';
import { spawnWalletChild } from './child.ts';
import { call, expectAuditClean, micro, principalFor, testWallet } from './helpers.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('invariant 2: never negative, under concurrency', () => {
  it('hundreds of parallel calls against a balance that covers only some: every 402 is justified', async () => {
    const { wallet } = testWallet();
    const email = 'busy@example.com';
    const initial = 40;
    const p = principalFor(
      wallet,
      wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: initial }).key,
    );
    const balance = () => micro(wallet.balance({ email }).balance);

    const calls: { reserve: number; before: number; after: number; promise: Promise<{ meta: UsageMeta }> }[] =
      [];
    for (let i = 0; i < 400; i++) {
      // Launch in waves so that settles (and their refunds) interleave with new reserves.
      if (i % 25 === 0) await sleep(1);
      const reserveRows = 1 + ((i * 37) % 50);
      const rowsBack = (i * 13) % (reserveRows + 1);
      const before = balance();
      // The reserve commits synchronously inside runMetered, so the balance read right after it is the
      // balance "at that moment", before any other call can settle.
      const promise = wallet.metering.runMetered(
        call(p, { reserveRows, fingerprint: `i=${i}` }),
        async () => {
          await sleep((i * 7) % 5);
          return { result: i, chargeableRows: rowsBack, rowsReturned: rowsBack };
        },
      );
      promise.catch(() => {}); // examined below, in order
      calls.push({ reserve: reserveRows * 40_000, before, after: balance(), promise });
    }

    let charged = 0;
    let rejected = 0;
    for (const c of calls) {
      try {
        const res = await c.promise;
        expect(c.after).toBe(c.before - c.reserve);
        expect(res.meta.credits_reserved).toBe(c.reserve / 1e6);
        charged += micro(res.meta.credits_charged);
      } catch (err) {
        if (!isInsufficientCreditsError(err)) throw err;
        rejected++;
        expect(err.balanceMicro).toBe(c.before);
        expect(err.balanceMicro).toBeLessThan(err.neededMicro);
        expect(c.after).toBe(c.before);
      }
    }
    // Both outcomes must be well represented for the test to mean anything.
    expect(rejected).toBeGreaterThan(50);
    expect(calls.length - rejected).toBeGreaterThan(50);
    expect(balance()).toBe(micro(initial) - charged);
    expect(wallet.balance({ email }).lots.every((l) => l.remaining >= 0)).toBe(true);
    expectAuditClean(wallet);
  });

  it('three processes spending one balance at once: final balance = initial - what the responses charged', async () => {
    const { wallet, dbPath } = testWallet();
    const email = 'shared@example.com';
    const initial = 40;
    const keys = [1, 2, 3].map(
      (i) =>
        wallet.createKey({ email, kind: 'standard', plan: 'payg', ...(i === 1 && { credits: initial }) }).key,
    );
    const children = keys.map((key) =>
      spawnWalletChild({ dbPath, keys: [key], mode: 'burst', calls: 150, concurrency: 12, maxRows: 40 }),
    );
    const exits = await Promise.all(children.map((c) => c.exited));
    expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);
    const summaries = children.map((c) => {
      const done = c.lines.find((l) => l.startsWith('done '));
      if (!done) throw new Error(`child did not finish: ${c.stderr()}`);
      expect(c.lines.filter((l) => l.startsWith('error') || l === 'replay-mismatch')).toEqual([]);
      return JSON.parse(done.slice(5)) as {
        charged: number;
        ok: number;
        rejected: number;
        unjustified: number;
      };
    });
    const charged = summaries.reduce((s, x) => s + x.charged, 0);
    expect(summaries.reduce((s, x) => s + x.unjustified, 0)).toBe(0);
    expect(summaries.reduce((s, x) => s + x.rejected, 0)).toBeGreaterThan(0);
    expect(micro(wallet.balance({ email }).balance)).toBe(micro(initial) - charged);
    expect(wallet.balance({ email }).pending).toBe(0);
    expectAuditClean(wallet);
    const db = new Database(dbPath, { readonly: true });
    try {
      expect(
        db
          .prepare(
            'SELECT count(*) FROM credit_lots WHERE credits_posted - debits_pending - debits_posted - debits_expired < 0',
          )
          .pluck()
          .get(),
      ).toBe(0);
    } finally {
      db.close();
    }
  });
});
