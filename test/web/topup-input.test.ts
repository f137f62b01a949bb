import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWebApp, registeredClient, type WebTestApp } from './web-app.ts';

/** Issue 33 item 5: a top-up amount is whole credits in plain digits, refused before any confirmation. */
describe('top-up amounts', () => {
  let t: WebTestApp;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const refused = [
    '0x20',
    '0x14',
    '1e300',
    '1e2',
    'Infinity',
    '+20',
    '-20',
    ' 20',
    '20 ',
    '20\n',
    '\t20',
    '20.0',
    '20.5',
    '020',
    '0b10100',
    '２０',
    '20abc',
    '',
    '1000000000',
    '99999999999999999999',
  ];

  it('refuses every amount that is not plain digits with a clear message, before the confirmation page', async () => {
    const c = await registeredClient(t, 'strict-topup@test.local', 'correct horse battery');
    await c.get('/dashboard/billing');
    for (const credits of refused) {
      for (const extra of [{}, { confirm: 'yes' }] as Record<string, string>[]) {
        const res = await c.post('/dashboard/billing/orders', { kind: 'topup', credits, ...extra });
        expect(res.statusCode, JSON.stringify(credits)).toBe(422);
        expect(res.body, JSON.stringify(credits)).toContain(
          'a top-up is a whole number of credits in plain digits (such as 50), at least 20',
        );
        expect(res.body, JSON.stringify(credits)).not.toContain('Place this order?');
      }
    }
    expect((await t.wallet.listOrders({})).filter((o) => o.email === 'strict-topup@test.local')).toEqual([]);
  });

  it('still takes plain digits: under the minimum is refused as such, 20 and 999999999 are asked to confirm', async () => {
    const c = await registeredClient(t, 'plain-topup@test.local', 'correct horse battery');
    await c.get('/dashboard/billing');
    const low = await c.post('/dashboard/billing/orders', { kind: 'topup', credits: '19' });
    expect(low.statusCode).toBe(422);
    expect(low.body).toContain('a top-up is at least 20 credits');
    for (const [credits, shown] of [
      ['20', '20.00 €'],
      ['999999999', '999999999.00 €'],
    ] as const) {
      const res = await c.post('/dashboard/billing/orders', { kind: 'topup', credits });
      expect(res.statusCode, credits).toBe(200);
      expect(res.body, credits).toContain('Place this order?');
      expect(res.body, credits).toContain(shown);
    }
  });
});
