import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

/*
 * Issue 4: a usage record per request. Free operations (discovery and count) are recorded as free with
 * nothing reserved or charged; metered ones as before. The records are read back through the wallet's own
 * usage report, and the balance is read independently to prove the free calls cost nothing.
 */
describe('usage records of free operations', () => {
  let t: TestApp;
  let key: string;
  const email = 'usage@test.local';

  beforeAll(async () => {
    t = await buildTestApp(inject('testDataDir'));
    key = (await t.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 5 })).key;
  });
  afterAll(async () => t?.close());

  it('records countries, filters, activities, locations and count as free, charging nothing', async () => {
    const before = (await t.wallet.balance({ email })).balance;
    const urls = [
      '/api/v1/data/countries',
      '/api/v1/data/filters?country=EE',
      '/api/v1/data/activities?country=LV',
      '/api/v1/data/locations?country=LT',
      '/api/v1/data/count?country=FI',
    ];
    for (const url of urls) expect((await t.get(url, { key })).statusCode).toBe(200);
    // A rejected call (422) ran nothing and leaves no record.
    expect((await t.get('/api/v1/data/count?country=EE&no_such_filter=1', { key })).statusCode).toBe(422);

    const records = (await t.wallet.usage({ email })).records;
    const seen = records.map((r) => [r.operation, r.country, r.outcome, r.freeReason, r.creditsCharged]);
    expect(seen.sort()).toEqual(
      [
        ['activities', 'LV', 'free', 'free_operation', 0],
        ['count', 'FI', 'free', 'free_operation', 0],
        ['countries', '', 'free', 'free_operation', 0],
        ['filters', 'EE', 'free', 'free_operation', 0],
        ['locations', 'LT', 'free', 'free_operation', 0],
      ].sort(),
    );
    expect(records.every((r) => r.channel === 'rest' && r.creditsReserved === 0)).toBe(true);
    expect((await t.wallet.balance({ email })).balance).toBe(before);
    const audit = await t.wallet.audit();
    expect(audit.usageMismatches).toEqual([]);
    expect(audit.openHolds).toBe(0);
  });

  it('keeps recording metered calls beside them', async () => {
    const res = await t.get('/api/v1/data/companies?country=EE&page_size=2', { key });
    expect(res.statusCode).toBe(200);
    const meta = res.json().meta as { credits_charged: number };
    const search = (await t.wallet.usage({ email })).records.filter((r) => r.operation === 'search');
    expect(search).toHaveLength(1);
    expect(search[0]!.creditsCharged).toBe(meta.credits_charged);
  });
});
