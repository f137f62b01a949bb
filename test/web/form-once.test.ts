import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { FORM_TOKEN_TTL_MS, FormOnce } from '../../src/web/form-once.ts';
import type { WalletStore } from '../../src/wallet/store.ts';
import { openWallet, openWalletStore, type Wallet } from '../../src/wallet/wallet.ts';
import { freshPgLocation, rawValue, WALLET_BACKENDS } from '../wallet/backends.ts';
import { buildWebApp, Client, registeredClient } from './web-app.ts';

/**
 * The single-use order tokens: one spend per token, only by its account, only before it expires; kept in
 * the wallet's database, so they hold across processes (two stores on one database stand for two
 * replicas) and across two real apps on one PostgreSQL database.
 */

const opened: { close(): Promise<void> }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function location(backend: string): Promise<string> {
  if (backend === 'postgres') return freshPgLocation();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-form-once-'));
  dirs.push(dir);
  return path.join(dir, 'wallet.db');
}

/** A wallet with two accounts, and a second store on the same database (another replica's). */
async function setup(backend: string): Promise<{ where: string; wallet: Wallet; other: WalletStore }> {
  const where = await location(backend);
  const wallet = await openWallet({ dbPath: where, sweepIntervalMs: 0 });
  opened.push(wallet);
  await wallet.createKey({ email: 'one@test.local', kind: 'standard' });
  await wallet.createKey({ email: 'two@test.local', kind: 'standard' });
  const other = await openWalletStore(where);
  opened.push(other);
  return { where, wallet, other };
}

const accountOf = async (wallet: Wallet, email: string) => (await wallet.balance({ email })).accountId;

describe.each(WALLET_BACKENDS)('%s: FormOnce', (backend) => {
  it('lets exactly one of any number of spends of a token through, on whichever process they arrive', async () => {
    const { wallet, other } = await setup(backend);
    const acc = await accountOf(wallet, 'one@test.local');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.nat({ max: 3 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
        async (tokens, spends) => {
          const here = new FormOnce(wallet.store);
          const there = new FormOnce(other);
          const issued: string[] = [];
          for (let i = 0; i < tokens; i++) issued.push(await (i % 2 ? there : here).issue(acc));
          // All spends at once, each on one of the two processes.
          const results = await Promise.all(
            spends.map(([i, onOther]) => (onOther ? there : here).spend(issued[i % tokens]!, acc)),
          );
          const through = new Map<string, number>();
          results.forEach((r, n) => {
            const token = issued[spends[n]![0] % tokens]!;
            if (r.state === 'spent') through.set(token, (through.get(token) ?? 0) + 1);
            else expect(r.state).toBe('used');
          });
          // Independent count: each distinct token that was spent at all got through exactly once.
          const distinct = new Set(spends.map(([i]) => issued[i % tokens]));
          expect([...through.values()].every((n) => n === 1)).toBe(true);
          expect(through.size).toBe(distinct.size);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('answers a repeat, on another process too, with what the first spend recorded', async () => {
    const { wallet, other } = await setup(backend);
    const acc = await accountOf(wallet, 'one@test.local');
    const here = new FormOnce(wallet.store);
    const there = new FormOnce(other);
    const t = await here.issue(acc);
    expect(await there.spend(t, acc)).toEqual({ state: 'spent' });
    expect(await here.spend(t, acc)).toEqual({ state: 'used', outcome: null });
    await there.record(t, 'Order ord_1 placed.');
    expect(await here.spend(t, acc)).toEqual({ state: 'used', outcome: 'Order ord_1 placed.' });
  });

  it("refuses another account's token, an unknown one and an expired one", async () => {
    const { wallet } = await setup(backend);
    const acc = await accountOf(wallet, 'one@test.local');
    const acc2 = await accountOf(wallet, 'two@test.local');
    let now = 1_000_000;
    const once = new FormOnce(wallet.store, () => now);
    const t = await once.issue(acc);
    expect((await once.spend(t, acc2)).state).toBe('unknown');
    expect((await once.spend('made-up', acc)).state).toBe('unknown');
    now += FORM_TOKEN_TTL_MS;
    expect((await once.spend(t, acc)).state).toBe('unknown');
  });

  it('deletes expired tokens when issuing, so the table does not grow with time', async () => {
    const { wallet, where } = await setup(backend);
    const acc = await accountOf(wallet, 'one@test.local');
    let now = 0;
    const once = new FormOnce(wallet.store, () => now);
    for (let i = 0; i < 20; i++) await once.issue(acc);
    expect(Number(await rawValue(where, 'SELECT count(*) FROM form_tokens'))).toBe(20);
    now += FORM_TOKEN_TTL_MS;
    await once.issue(acc);
    expect(Number(await rawValue(where, 'SELECT count(*) FROM form_tokens'))).toBe(1);
  });
});

describe.skipIf(!inject('walletPgUrl'))('order confirmations across two apps on one PostgreSQL', () => {
  it('accepts a confirmation rendered by one app once on the other, and refuses its reuse', async () => {
    const url = await freshPgLocation();
    const a = await buildWebApp(inject('testDataDir'), { walletUrl: url });
    opened.push(a);
    const b = await buildWebApp(inject('testDataDir'), { walletUrl: url });
    opened.push(b);
    const ca = await registeredClient(a, 'replica@test.local', 'correct horse battery');
    const asked = await ca.post('/dashboard/billing/orders', { kind: 'topup', credits: '25' });
    const once = /name="_once" value="([A-Za-z0-9_-]+)"/.exec(asked.body)?.[1];
    expect(once).toBeDefined();
    // The same browser, its next request routed to the other replica: the session is in the database too.
    const cb = new Client(b.app);
    cb.cookies = new Map(ca.cookies);
    cb.csrf = ca.csrf;
    const form = { kind: 'topup', credits: '25', confirm: 'yes', _once: once! };
    const first = await cb.post('/dashboard/billing/orders', form);
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/Order ord_\w+ placed/);
    const orders = await b.wallet.listOrders({});
    expect(orders.filter((o) => o.email === 'replica@test.local').map((o) => o.amount)).toEqual([25]);
    // Posted again, to either app: nothing more is ordered, and the first answer is shown.
    for (const c of [cb, ca]) {
      const again = await c.post('/dashboard/billing/orders', form);
      expect(again.statusCode).toBe(200);
      expect(again.body).toContain(`Order ${orders[0]!.orderId} placed`);
    }
    expect((await a.wallet.listOrders({})).filter((o) => o.email === 'replica@test.local')).toHaveLength(1);
  });
});
