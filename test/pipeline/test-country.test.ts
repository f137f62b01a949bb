import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// First: registers the throwaway country before anything reads the country list.
import { TEST_COUNTRY } from '../helpers/test-country.ts';
import { COUNTRIES, COUNTRY_CODES } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * Issue 32: a country is one profile. A country declared only in a test (test/helpers/test-country.ts:
 * profile, reference data, world profile, nothing else) runs through the world generator, the publish
 * pipeline (write, audit, serving build) and the HTTP API, and the API follows its profile: its code
 * rule, its people policy, its sole-trader rule, its price. The answers are checked against the published
 * Parquet files read with DuckDB.
 */

const ZZ = TEST_COUNTRY;
let dataDir: string;
let t: TestApp;
let instance: DuckDBInstance;
let conn: DuckDBConnection;
let companies: string;

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-country-'));
  // Imported after the registration: the API's schemas are built from the country list when loaded.
  const { buildWorldSnapshot } = await import('../../ingest/world/index.ts');
  const { buildTestApp } = await import('../helpers/app.ts');
  const { snapshotId } = await buildWorldSnapshot({ dataDir, scale: 0.2, seed: 3, countries: [ZZ] });
  const file = new SnapshotStore(dataDir).file(snapshotId, ZZ, 'companies');
  companies = `read_parquet('${file.replaceAll("'", "''")}')`;
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  t = await buildTestApp(dataDir);
});

afterAll(async () => {
  await t?.close();
  conn?.closeSync();
  instance?.closeSync();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a country declared only by its profile', () => {
  it('is in the country list of this process only, after the seven production declares', () => {
    expect(COUNTRY_CODES).toEqual(['EE', 'LV', 'LT', 'NO', 'FI', 'PL', 'SE', ZZ]);
  });

  it('is published: every code follows its rule, sole traders are not for sale, no history', async () => {
    const [c] = await rows(
      `SELECT count(*)::INTEGER AS n,
         count(*) FILTER (WHERE NOT regexp_full_match(registrikood, '[1-9][0-9]{6}'))::INTEGER AS bad_codes,
         count(*) FILTER (WHERE is_sole_trader AND NOT not_for_sale)::INTEGER AS sold_sole,
         count(*) FILTER (WHERE is_sole_trader)::INTEGER AS sole
       FROM ${companies}`,
    );
    expect(c).toEqual({ n: 400, bad_codes: 0, sold_sole: 0, sole: expect.any(Number) });
    expect(Number(c!['sole'])).toBeGreaterThan(0);
  });

  it('is listed by /countries with its name and for-sale count', async () => {
    const [{ n } = {}] = await rows(`SELECT count(*)::INTEGER AS n FROM ${companies} WHERE NOT not_for_sale`);
    const res = await t.get('/api/v1/data/countries');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().countries.find((c: { code: string }) => c.code === ZZ)).toEqual({
      code: ZZ,
      name: 'Testland',
      as_of: expect.any(String),
      companies: n,
    });
  });

  it('counts and searches by its filters, as the Parquet file says', async () => {
    const [{ n } = {}] = await rows(
      `SELECT count(*)::INTEGER AS n FROM ${companies} WHERE NOT not_for_sale AND staatus = 'R'`,
    );
    const count = await t.get(`/api/v1/data/count?country=${ZZ}`);
    expect(count.statusCode, count.body).toBe(200);
    expect(count.json()).toEqual({ country: ZZ, count: n, count_mode: 'exact' });
    const search = await t.get(`/api/v1/data/companies?country=${ZZ}&page_size=5`);
    expect(search.statusCode, search.body).toBe(200);
    expect(search.json().data.total).toBe(n);
    expect(search.json().data.items).toHaveLength(5);
  });

  it('serves a detail with people as initials, and is priced at its own price', async () => {
    const [row] = await rows(
      `SELECT registrikood, [p.nimi FOR p IN people] AS names FROM ${companies}
       WHERE NOT not_for_sale AND len(people) > 0 ORDER BY registrikood LIMIT 1`,
    );
    const code = String(row!['registrikood']);
    const res = await t.get(`/api/v1/data/companies/${code}?country=${ZZ}`);
    expect(res.statusCode, res.body).toBe(200);
    const { data } = res.json();
    const initials = (name: string) =>
      name
        .split(/[\s-]+/u)
        .filter(Boolean)
        .map((w) => `${[...w][0]!.toUpperCase()}.`)
        .join(' ');
    expect(data.people.map((p: { nimi: string }) => p.nimi)).toEqual(
      (row!['names'] as string[]).map(initials),
    );
    expect(t.wallet.prices[ZZ]).toBe(COUNTRIES[ZZ].defaultRowPrice);
  });

  it('can be subscribed to in the wallet, which keeps no country list of its own', async () => {
    const sub = await t.wallet.addSubscription({ email: 'admin@test.local', country: ZZ });
    expect(sub.country).toBe(ZZ);
    await expect(t.wallet.addSubscription({ email: 'admin@test.local', country: 'YY' })).rejects.toThrow(
      `country must be one of ${COUNTRY_CODES.join(', ')}`,
    );
  });

  it('answers 400 for a code that breaks its rule and 404 for one that keeps it but is absent', async () => {
    const bad = await t.get(`/api/v1/data/companies/0123456?country=${ZZ}`);
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().detail).toContain('7 digits, the first not 0');
    const [{ n } = {}] = await rows(
      `SELECT count(*)::INTEGER AS n FROM ${companies} WHERE registrikood = '9999999'`,
    );
    expect(n).toBe(0);
    expect((await t.get(`/api/v1/data/companies/9999999?country=${ZZ}`)).statusCode).toBe(404);
  });

  it('has no workplaces and no history series', async () => {
    const code = String(
      (await rows(`SELECT registrikood FROM ${companies} WHERE NOT not_for_sale LIMIT 1`))[0]![
        'registrikood'
      ],
    );
    expect((await t.get(`/api/v1/data/companies/${code}/workplaces?country=${ZZ}`)).statusCode).toBe(422);
    const history = await t.get(`/api/v1/data/companies/${code}/history?country=${ZZ}`);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data.granularity).toBe('none');
  });
});
