import { describe, expect, it } from 'vitest';
import { isInsufficientCreditsError } from '../../src/wallet/errors.ts';
import type { UsageMeta } from '../../src/wallet/types.ts';
import { spawnWalletChild } from './child.ts';
import { rawRows } from './backends.ts';
import {
  WALLET_BACKENDS,
  call,
  expectAuditClean,
  micro,
  principalFor,
  rawCount,
  testWallet,
  useBackend,
} from './helpers.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.each(WALLET_BACKENDS)('%s: invariant 2: never negative, under concurrency', (backend) => {
  useBackend(backend);
  // readOnly: a read without an Idempotency-Key is decided, held and settled in one commit after its run.
  it.each([
    ['reserve, run, settle', false],
    ['one commit after the run (read-only)', true],
  ])(
    'hundreds of parallel calls against a balance that covers only some: every 402 is justified (%s)',
    async (_, readOnly) => {
      const { wallet, dbPath } = await testWallet();
      const email = 'busy@example.com';
      const initial = 40;
      const p = await principalFor(
        wallet,
        (await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: initial })).key,
      );
      const balance = async () => micro((await wallet.balance({ email })).balance);

      const calls: { reserve: number; promise: Promise<{ meta: UsageMeta }> }[] = [];
      for (let i = 0; i < 400; i++) {
        // Launch in waves so that settles (and their refunds) interleave with new reserves.
        if (i % 25 === 0) await sleep(1);
        const reserveRows = 1 + ((i * 37) % 50);
        const rowsBack = (i * 13) % (reserveRows + 1);
        const promise = wallet.metering.runMetered(
          call(p, { reserveRows, fingerprint: `i=${i}`, readOnly }),
          async () => {
            await sleep((i * 7) % 5);
            return { result: i, chargeableRows: rowsBack, rowsReturned: rowsBack };
          },
        );
        promise.catch(() => {}); // examined below, in order
        calls.push({ reserve: reserveRows * 40_000, promise });
      }

      await Promise.allSettled(calls.map((c) => c.promise));
      // The oracle for "justified": every balance the account ever had, replayed from the transfer log in
      // commit order (independent of the wallet's own arithmetic). A 402 must quote one of them, below its need.
      const history = new Set<number>([0]);
      let running = 0;
      for (const t of await rawRows<{ kind: string; amount: number; pending_amount: number | null }>(
        dbPath,
        `SELECT t.kind, t.amount, p.amount AS pending_amount FROM transfers t
       LEFT JOIN transfers p ON p.id = t.pending_id ORDER BY t.id`,
      )) {
        const amount = Number(t.amount);
        if (t.kind === 'grant') running += amount;
        else if (t.kind === 'pending' || t.kind === 'expire') running -= amount;
        else if (t.kind === 'void') running += amount;
        else if (t.kind === 'post') running += Number(t.pending_amount) - amount;
        history.add(running);
      }

      let charged = 0;
      let rejected = 0;
      for (const c of calls) {
        try {
          const res = await c.promise;
          expect(res.meta.credits_reserved).toBe(c.reserve / 1e6);
          charged += micro(res.meta.credits_charged);
        } catch (err) {
          if (!isInsufficientCreditsError(err)) throw err;
          rejected++;
          expect(history.has(err.balanceMicro)).toBe(true);
          expect(err.balanceMicro).toBeLessThan(err.neededMicro);
        }
      }
      // Both outcomes must be well represented for the test to mean anything.
      // (On PostgreSQL each commit is a few round trips, so more settles land between reserves and fewer
      // calls are refused; how many depends on the machine's load.)
      const enough = backend === 'postgres' ? 20 : 50;
      expect(rejected).toBeGreaterThan(enough);
      expect(calls.length - rejected).toBeGreaterThan(enough);
      expect(await balance()).toBe(micro(initial) - charged);
      expect((await wallet.balance({ email })).lots.every((l) => l.remaining >= 0)).toBe(true);
      await expectAuditClean(wallet);
    },
  );

  it('three processes spending one balance at once: final balance = initial - what the responses charged', async () => {
    const { wallet, dbPath } = await testWallet();
    const email = 'shared@example.com';
    const initial = 40;
    const keys: string[] = [];
    for (const i of [1, 2, 3]) {
      const created = await wallet.createKey({
        email,
        kind: 'standard',
        plan: 'payg',
        ...(i === 1 && { credits: initial }),
      });
      keys.push(created.key);
    }
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
    expect(micro((await wallet.balance({ email })).balance)).toBe(micro(initial) - charged);
    expect((await wallet.balance({ email })).pending).toBe(0);
    await expectAuditClean(wallet);
    expect(
      await rawCount(
        dbPath,
        'SELECT count(*) FROM credit_lots WHERE credits_posted - debits_pending - debits_posted - debits_expired < 0',
      ),
    ).toBe(0);
  });
});
