import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWebApp, Client, linkToken, registeredClient, type WebTestApp } from './web-app.ts';

const run = promisify(execFile);

/** The single-use token of a confirmation page's form (what the browser would post back). */
function onceToken(page: string): string {
  const m = /name="_once" value="([A-Za-z0-9_-]+)"/.exec(page);
  if (!m) throw new Error('the confirmation page carries no _once token');
  return m[1]!;
}
const CLI = path.resolve('bin/regdata.mjs');

/** Self-service accounts and billing on the real app, checked against the wallet's own records. */
describe('self-service accounts', () => {
  let t: WebTestApp;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('grants the 30 registration credits and the trial once, on verification; a used link is refused', async () => {
    const c = new Client(t.app);
    await c.get('/signup');
    await c.post('/signup', { email: 'Once@Test.local', password: 'correct horse battery' });
    // Not verified yet: no account, and sign-in says so only after the right password.
    await expect(t.wallet.balance({ email: 'once@test.local' })).rejects.toThrow(/no account/);
    await c.get('/signin');
    const early = await c.post('/signin', { email: 'once@test.local', password: 'correct horse battery' });
    expect(early.statusCode).toBe(401);
    expect(early.body).toContain('not verified');

    const token = await linkToken(t, 'once@test.local', 'verify');
    await c.get('/verify');
    expect((await c.post('/verify', { token })).statusCode).toBe(200);
    expect((await c.post('/verify', { token })).statusCode).toBe(400);
    // Signing up again with the verified address sends no new link and grants nothing.
    await c.post('/signup', { email: 'once@test.local', password: 'another long password' });
    const b = await t.wallet.balance({ email: 'once@test.local' });
    expect(b.plan).toBe('trial');
    expect(b.lots.map((l) => [l.source, l.amount])).toEqual([['registration', 30]]);
    const lot = b.lots[0]!;
    expect(Date.parse(lot.expiresAt!) - Date.parse(lot.createdAt)).toBe(7 * 86_400_000);
    expect(Date.parse(b.trialEndsAt!) - Date.parse(lot.createdAt)).toBe(7 * 86_400_000);
  });

  it('charges an in-app search exactly rows x price on channel app, like any standard key', async () => {
    const c = await registeredClient(t, 'app-search@test.local', 'correct horse battery');
    const accountId = (await t.wallet.balance({ email: 'app-search@test.local' })).accountId;
    const count = await c.json('/app/api/count', {
      params: { country: 'LV', vat_active: 'true' },
      page_size: 7,
    });
    expect(count.statusCode).toBe(200);
    const counted = count.json() as {
      count: number;
      quote: { credits_first_page: number; rows_first_page: number };
    };
    const search = await c.json('/app/api/search', {
      params: { country: 'LV', vat_active: 'true', page_size: '7', sort_by: 'company_name' },
    });
    expect(search.statusCode).toBe(200);
    const body = search.json() as {
      data: { items: unknown[]; total: number };
      meta: { credits_charged: number };
    };
    const rows = Math.min(7, counted.count);
    expect(body.data.items.length).toBe(rows);
    expect(body.data.total).toBe(counted.count);
    expect(counted.quote.rows_first_page).toBe(rows);
    expect(body.meta.credits_charged).toBeCloseTo(rows * t.wallet.prices.LV, 6);
    expect(counted.quote.credits_first_page).toBeCloseTo(body.meta.credits_charged, 6);
    expect((await t.wallet.balance({ accountId })).balance).toBeCloseTo(30 - rows * t.wallet.prices.LV, 6);
    const records = (await t.wallet.usage({ accountId })).records.filter((r) => r.operation === 'search');
    expect(records.map((r) => [r.channel, r.outcome])).toEqual([['app', 'charged']]);
    // The in-app principal is an internal key the dashboard never lists.
    expect(await t.wallet.accountKeys(accountId)).toEqual([]);
    expect(records[0]!.keyId).toBe((await t.wallet.appPrincipal(accountId)).keyId);
  });

  it('rejects an invalid filter with 422 and charges nothing', async () => {
    const c = await registeredClient(t, 'app-422@test.local', 'correct horse battery');
    const res = await c.json('/app/api/search', { params: { country: 'SE', has_tax_debt: 'true' } });
    expect(res.statusCode).toBe(422);
    expect((await t.wallet.balance({ email: 'app-422@test.local' })).balance).toBe(30);
  });

  it('places a top-up by invoice; the operator confirms it with `regdata orders confirm`', async () => {
    const c = await registeredClient(t, 'topup@test.local', 'correct horse battery');
    await c.get('/dashboard/billing');
    expect((await c.post('/dashboard/billing/orders', { kind: 'topup', credits: '19' })).statusCode).toBe(
      422,
    );
    // The first click only asks for confirmation; nothing is ordered until the second.
    const asked = await c.post('/dashboard/billing/orders', { kind: 'topup', credits: '25' });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Place order for Credit top-up, 25.00 €');
    expect((await t.wallet.listOrders({})).filter((o) => o.email === 'topup@test.local')).toEqual([]);
    const placed = await c.post('/dashboard/billing/orders', {
      kind: 'topup',
      credits: '25',
      confirm: 'yes',
      _once: onceToken(asked.body),
    });
    expect(placed.statusCode).toBe(200);
    const [order] = (await t.wallet.listOrders({ state: 'pending' })).filter(
      (o) => o.email === 'topup@test.local',
    );
    expect(order).toMatchObject({ kind: 'topup', amount: 25, provider: 'invoice', state: 'pending' });
    expect(placed.body).toContain(order!.reference);
    expect((await t.wallet.balance({ email: 'topup@test.local' })).balance).toBe(30);

    const env = { ...process.env, REGDATA_WALLET_DB: t.walletPath, LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, [CLI, 'orders', 'confirm', order!.orderId, '--json'], {
      env,
    });
    expect((JSON.parse(stdout) as { state: string }).state).toBe('paid');
    const b = await t.wallet.balance({ email: 'topup@test.local' });
    expect(b.balance).toBe(55);
    expect(b.lots.find((l) => l.source === 'topup')).toMatchObject({ amount: 25, expiresAt: null });
    // A second confirmation grants nothing more.
    await expect(
      run(process.execPath, [CLI, 'orders', 'confirm', order!.orderId], { env }),
    ).rejects.toThrow();
    expect((await t.wallet.balance({ email: 'topup@test.local' })).balance).toBe(55);
  });

  it('places an order once when its confirmation is posted twice, one after the other or at once', async () => {
    const c = await registeredClient(t, 'twice@test.local', 'correct horse battery');
    await c.get('/dashboard/billing');
    const mine = async () => (await t.wallet.listOrders({})).filter((o) => o.email === 'twice@test.local');
    const asked = await c.post('/dashboard/billing/orders', { kind: 'country', country: 'EE' });
    const form = { kind: 'country', country: 'EE', confirm: 'yes', _once: onceToken(asked.body) };
    const first = await c.post('/dashboard/billing/orders', form);
    const second = await c.post('/dashboard/billing/orders', form);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect((await mine()).map((o) => [o.kind, o.country, o.amount])).toEqual([['country', 'EE', 300]]);
    // The repeat shows the first POST's answer (what a double-clicking browser ends up displaying).
    expect(second.body).toContain(`Order ${(await mine())[0]!.orderId} placed`);

    // Two POSTs of one confirmation in flight together: still one order.
    const again = await c.post('/dashboard/billing/orders', { kind: 'topup', credits: '40' });
    const topup = { kind: 'topup', credits: '40', confirm: 'yes', _once: onceToken(again.body) };
    const both = await Promise.all([
      c.post('/dashboard/billing/orders', topup),
      c.post('/dashboard/billing/orders', topup),
    ]);
    expect(both.map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await mine()).filter((o) => o.kind === 'topup').map((o) => o.amount)).toEqual([40]);

    // A confirmation without its token, or with a made-up one, orders nothing.
    for (const _once of [undefined, 'not-a-token-we-issued']) {
      const res = await c.post('/dashboard/billing/orders', {
        kind: 'unlimited',
        confirm: 'yes',
        ...(_once && { _once }),
      });
      expect(res.statusCode).toBe(409);
    }
    expect((await mine()).filter((o) => o.kind === 'unlimited')).toEqual([]);
    // No credits move until an operator confirms a payment.
    expect((await t.wallet.balance({ email: 'twice@test.local' })).balance).toBe(30);
  });

  it('revokes a key only on the second, confirming click', async () => {
    const c = await registeredClient(t, 'revoke@test.local', 'correct horse battery');
    await c.get('/dashboard/keys');
    const accountId = (await t.wallet.balance({ email: 'revoke@test.local' })).accountId;
    const { keyId } = await t.wallet.createAccountKey({ accountId, name: 'ci' });
    const asked = await c.post(`/dashboard/keys/${keyId}/revoke`, {});
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Yes, revoke key ci');
    expect((await t.wallet.accountKeys(accountId)).find((k) => k.keyId === keyId)!.revokedAt).toBeNull();
    const done = await c.post(`/dashboard/keys/${keyId}/revoke`, { confirm: 'yes' });
    expect(done.statusCode).toBe(303);
    const revokedAt = (await t.wallet.accountKeys(accountId)).find((k) => k.keyId === keyId)!.revokedAt;
    expect(revokedAt).not.toBeNull();
    // A repeated confirming POST (double submit) changes nothing and lands on the same list.
    const repeat = await c.post(`/dashboard/keys/${keyId}/revoke`, { confirm: 'yes' });
    expect(repeat.statusCode).toBe(303);
    expect((await t.wallet.accountKeys(accountId)).find((k) => k.keyId === keyId)!.revokedAt).toBe(revokedAt);
  });

  it('starts a country plan when its order is confirmed: that country is then not charged in the app', async () => {
    const c = await registeredClient(t, 'plan@test.local', 'correct horse battery');
    await c.get('/dashboard/billing');
    const asked = await c.post('/dashboard/billing/orders', { kind: 'country', country: 'NO' });
    expect(asked.body).toContain('Place order for Norway plan, 300 € / month');
    expect((await t.wallet.listOrders({})).filter((o) => o.email === 'plan@test.local')).toEqual([]);
    await c.post('/dashboard/billing/orders', {
      kind: 'country',
      country: 'NO',
      confirm: 'yes',
      _once: onceToken(asked.body),
    });
    const [order] = (await t.wallet.listOrders({ state: 'pending' })).filter(
      (o) => o.email === 'plan@test.local',
    );
    expect(order).toMatchObject({ kind: 'country', country: 'NO', amount: 300 });
    await t.wallet.confirmOrder(order!.orderId);
    await c.get('/search');
    const res = await c.json('/app/api/search', { params: { country: 'NO', page_size: '5' } });
    expect((res.json() as { meta: { credits_charged: number } }).meta.credits_charged).toBe(0);
    expect((await t.wallet.balance({ email: 'plan@test.local' })).balance).toBe(30);
  });
});
