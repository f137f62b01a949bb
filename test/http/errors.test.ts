import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isValidRegistrationCode } from '../../src/contract/countries.ts';
import { luhnCheckDigit } from '../../src/contract/registration-codes.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { buildTestApp, emptyDataDir, type TestApp } from '../helpers/app.ts';
import { Oracle, absentEeCode } from '../helpers/oracle.ts';

/** Spec part 7: every error status with its exact body shape, and nothing internal in any body. */

/** Well-formed codes (valid check digits) used where the format must pass and the company need not exist. */
const EE_CODE = '10000018';
const SE_CODE = `556000000${luhnCheckDigit('556000000')}`;

const DATA_ENDPOINTS = [
  '/api/v1/data/filters?country=EE',
  '/api/v1/data/activities?country=EE',
  '/api/v1/data/locations?country=EE',
  '/api/v1/data/count?country=EE',
  '/api/v1/data/companies?country=EE',
  `/api/v1/data/companies/${EE_CODE}/history?country=EE`,
  `/api/v1/data/companies/${EE_CODE}?country=EE`,
  `/api/v1/data/companies/${SE_CODE}/workplaces?country=SE`,
];

function expectDetailString(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
) {
  expect(res.statusCode, res.body).toBe(status);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body['detail']).toBe('string');
  expect(res.headers['x-request-id']).toBeTruthy();
  return body['detail'] as string;
}

function expectValidation(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  expect(res.statusCode, res.body).toBe(422);
  const body = JSON.parse(res.body) as {
    detail: { loc: unknown[]; param: string; msg: string; type: string }[];
  };
  expect(Object.keys(body)).toEqual(['detail']);
  expect(Array.isArray(body.detail)).toBe(true);
  for (const d of body.detail) {
    expect(Object.keys(d).sort()).toEqual(['loc', 'msg', 'param', 'type']);
    expect(typeof d.msg).toBe('string');
  }
  expect(res.headers['x-request-id']).toBeTruthy();
  return body.detail;
}

/** Nothing a client sees may carry SQL, file paths or stack traces. */
function expectNothingInternal(body: string) {
  expect(body).not.toMatch(/SELECT|read_parquet|\.parquet|\/tmp|\/work|node_modules|at .*\(.*:\d+:\d+\)/i);
}

describe('errors on a live snapshot', () => {
  let t: TestApp;
  let oracle: Oracle;
  beforeAll(async () => {
    t = await buildTestApp(inject('testDataDir'));
    oracle = await Oracle.open(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
    oracle?.close();
  });

  it('401 for a missing, malformed or unknown key, on free and metered endpoints alike', async () => {
    for (const url of ['/api/v1/data/countries', '/api/v1/data/companies?country=EE']) {
      expectDetailString(await t.get(url, { key: null }), 401);
      expectDetailString(await t.get(url, { key: 'not-a-key' }), 401);
      expectDetailString(await t.get(url, { key: 'rgd_' + 'A'.repeat(46) }), 401);
    }
  });

  it('400 for a malformed registration code, per country format', async () => {
    const malformed = {
      EE: '10000019', // check digit off by one
      LV: '4000',
      LT: '12345678a',
      NO: '123456789',
      FI: '1234567-8',
      PL: '12345',
      SE: `556000000${(luhnCheckDigit('556000000') + 1) % 10}`,
    } as const;
    for (const [country, code] of Object.entries(malformed) as [keyof typeof malformed, string][]) {
      expect(isValidRegistrationCode(country, code), `${country} ${code}`).toBe(false);
      for (const suffix of ['', '/history']) {
        const detail = expectDetailString(
          await t.get(`/api/v1/data/companies/${code}${suffix}?country=${country}`),
          400,
        );
        expect(detail).toContain('malformed registration code');
      }
    }
    expectDetailString(await t.get('/api/v1/data/companies/123/workplaces?country=SE'), 400);
  });

  it('404 for a well-formed code no company has, and for sole traders that are held but not sold', async () => {
    const code = await absentEeCode(oracle);
    for (const suffix of ['', '/history']) {
      expectDetailString(await t.get(`/api/v1/data/companies/${code}${suffix}?country=EE`), 404);
    }
    const soleTrader = await oracle.scalar<string>(
      `SELECT registrikood FROM ${oracle.file('PL', 'companies')} WHERE not_for_sale LIMIT 1`,
    );
    expect(soleTrader).toBeTruthy();
    expectDetailString(await t.get(`/api/v1/data/companies/${soleTrader}?country=PL`), 404);
    expectDetailString(await t.get(`/api/v1/data/companies/${soleTrader}/history?country=PL`), 404);
  });

  it('422 with one validation error per unknown or misspelt parameter', async () => {
    const detail = expectValidation(await t.get('/api/v1/data/companies?country=EE&compnay_name=x&foo=1'));
    expect(detail.map((d) => [d.param, d.type, d.loc])).toEqual([
      ['compnay_name', 'unknown_parameter', ['query', 'compnay_name']],
      ['foo', 'unknown_parameter', ['query', 'foo']],
    ]);
  });

  it('422 for an unsupported or missing country', async () => {
    for (const url of [
      '/api/v1/data/companies?country=DE',
      '/api/v1/data/count',
      '/api/v1/data/filters?country=ee',
      `/api/v1/data/companies/${SE_CODE}/workplaces?country=EE`,
    ]) {
      const detail = expectValidation(await t.get(url));
      expect(detail[0]!.param).toBe('country');
    }
  });

  it('422 for out-of-bounds values', async () => {
    for (const [url, param] of [
      ['/api/v1/data/companies?country=EE&page_size=501', 'page_size'],
      ['/api/v1/data/companies?country=EE&page_size=0', 'page_size'],
      ['/api/v1/data/companies?country=EE&page=0', 'page'],
      ['/api/v1/data/companies?country=EE&sort_by=nimi', 'sort_by'],
      ['/api/v1/data/companies?country=EE&sort_dir=up', 'sort_dir'],
      ['/api/v1/data/count?country=SE&employees_band=17', 'employees_band'],
      ['/api/v1/data/count?country=EE&has_email=yes', 'has_email'],
      ['/api/v1/data/count?country=EE&annual_revenue_min=abc', 'annual_revenue_min'],
      ['/api/v1/data/count?country=EE&annual_revenue_min=', 'annual_revenue_min'],
      ['/api/v1/data/count?country=EE&registered_from=2020-02-30', 'registered_from'],
      ['/api/v1/data/locations?country=EE&query=a', 'query'],
      ['/api/v1/data/locations?country=EE&max_depth=5', 'max_depth'],
      ['/api/v1/data/activities?country=EE&lang=xx', 'lang'],
    ] as const) {
      const detail = expectValidation(await t.get(url));
      expect(
        detail.map((d) => d.param),
        url,
      ).toContain(param);
    }
  });

  it('422 naming the filter and the country when the country does not have it', async () => {
    const detail = expectValidation(await t.get('/api/v1/data/companies?country=EE&employees_band=1'));
    expect(detail).toHaveLength(1);
    expect(detail[0]!.param).toBe('employees_band');
    expect(detail[0]!.msg).toContain('employees_band');
    expect(detail[0]!.msg).toContain('EE');
    expect(detail[0]!.type).toBe('filter_not_available');
  });

  it('422 invalid_value for a postcode value that is not the start of a postcode, and nothing is charged', async () => {
    const email = 'postcode@test.local';
    const { key } = await t.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 10 });
    const before = (await t.wallet.balance({ email })).balance;
    for (const [country, value] of [
      ['EE', 'abc'],
      ['EE', 'LV-10'], // the LV- prefix is Latvia's alone
      ['SE', '111_22'],
      ['PL', ' '],
      ['NO', '12345678901'],
    ] as const) {
      const url = `/api/v1/data/companies?country=${country}&postcode=${encodeURIComponent(value)}`;
      const detail = expectValidation(await t.get(url, { key }));
      expect(
        detail.map((d) => [d.param, d.type]),
        url,
      ).toEqual([['postcode', 'invalid_value']]);
    }
    // LV takes its prefix; LT has no postcodes at all.
    expect((await t.get('/api/v1/data/count?country=LV&postcode=LV-10')).statusCode).toBe(200);
    const lt = expectValidation(await t.get('/api/v1/data/count?country=LT&postcode=01', { key }));
    expect(lt.map((d) => [d.param, d.type])).toEqual([['postcode', 'filter_not_available']]);
    expect((await t.wallet.balance({ email })).balance).toBe(before);
  });

  it('422 when both spellings of one parameter are sent', async () => {
    const detail = expectValidation(await t.get('/api/v1/data/count?country=EE&company_name=a&arinimi=b'));
    expect(detail[0]!.type).toBe('duplicate_parameter');
    expect(detail[0]!.msg).toContain('company_name');
  });

  it('402 when the balance cannot cover the reserve, and nothing is charged', async () => {
    const { key } = await t.wallet.createKey({ email: 'broke@test.local', kind: 'standard', plan: 'payg' });
    const detail = expectDetailString(
      await t.get('/api/v1/data/companies?country=SE&page_size=10', { key }),
      402,
    );
    expect(detail).toMatch(/^insufficient credits: have 0\.00, need 2\.40$/);
  });

  it('404 with {detail} for an unknown route', async () => {
    expectDetailString(await t.get('/api/v1/data/nothing'), 404);
  });

  it('echoes a safe incoming request id and replaces an unsafe one', async () => {
    const ok = await t.get('/api/v1/data/companies?country=XX', { headers: { 'x-request-id': 'abc-123' } });
    expect(ok.headers['x-request-id']).toBe('abc-123');
    const bad = await t.get('/api/v1/data/companies?country=XX', { headers: { 'x-request-id': 'a b\nc' } });
    expect(bad.headers['x-request-id']).not.toBe('a b\nc');
  });
});

describe('429 when the rate limit is exceeded', () => {
  it('answers {detail} with Retry-After', async () => {
    const t = await buildTestApp(inject('testDataDir'), { rateLimit: { burst: 1, requestsPerMinute: 1 } });
    try {
      const { key } = await t.wallet.createKey({ email: 'fast@test.local', kind: 'standard', plan: 'payg' });
      expect((await t.get('/api/v1/data/countries', { key })).statusCode).toBe(200);
      const res = await t.get('/api/v1/data/countries', { key });
      expectDetailString(res, 429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});

describe('502 when the data backend fails', () => {
  it('answers 502 {detail} on every data endpoint when no snapshot is live, and /healthz says so', async () => {
    const dir = emptyDataDir();
    const t = await buildTestApp(dir);
    try {
      for (const url of DATA_ENDPOINTS) {
        const res = await t.get(url);
        expectDetailString(res, 502);
        expectNothingInternal(res.body);
      }
      expect((await t.get('/api/v1/data/countries')).statusCode).toBe(200);
      const health = await t.get('/healthz', { key: null });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toEqual({ status: 'unavailable' });
      // An admin key sees why: no snapshot.
      expect((await t.get('/healthz')).json()).toMatchObject({ status: 'unavailable', snapshot_id: null });
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 502 without paths or SQL when the snapshot is unreadable', async () => {
    // A copy of the live snapshot's EE folder whose companies.parquet is garbage.
    const src = new SnapshotStore(inject('testDataDir'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-broken-'));
    const store = new SnapshotStore(dir);
    const id = '20260101T000000Z-broken';
    fs.mkdirSync(store.countryDir(id, 'EE'), { recursive: true });
    fs.cpSync(src.countryDir(src.currentId()!, 'EE'), store.countryDir(id, 'EE'), { recursive: true });
    fs.writeFileSync(store.file(id, 'EE', 'companies'), 'not parquet');
    store.promote(id);
    const t = await buildTestApp(dir);
    try {
      expect(t.engine.lastLoadError).toBeTruthy();
      for (const url of DATA_ENDPOINTS.slice(0, 5)) {
        const res = await t.get(url);
        expectDetailString(res, 502);
        expectNothingInternal(res.body);
      }
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
