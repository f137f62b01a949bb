import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { callOk, connectClient } from '../mcp/helpers.ts';
import { rawRequest, startRealServer, type RealServer } from './helpers/real-server.ts';

/*
 * Freshness on every answer (issue 19 item 4), over a real socket: the Data-As-Of header, meta.data_as_of
 * and meta.snapshot_id, /countries' as_of and companies, and the date in MCP texts. The expected values
 * are read from the snapshot's own manifests, not from the server.
 */

let server: RealServer;
let key: string;
let snapshotId: string;
const manifests = new Map<string, CountryManifest>();

beforeAll(async () => {
  server = await startRealServer(inject('testDataDir'), {});
  key = (await server.wallet.createKey({ email: 'fresh@test.local', kind: 'standard', credits: 50 })).key;
  const store = new SnapshotStore(server.dataDir);
  snapshotId = store.currentId()!;
  for (const c of COUNTRY_CODES) {
    manifests.set(
      c,
      JSON.parse(fs.readFileSync(store.file(snapshotId, c, 'manifest'), 'utf8')) as CountryManifest,
    );
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const day = (c: string) => manifests.get(c)!.generated_at.slice(0, 10);

async function get(path: string) {
  const res = await rawRequest(`${server.url}/api/v1/data${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { ...res, json: JSON.parse(res.body) as Record<string, unknown> };
}

describe('freshness on every answer', () => {
  it('/countries gives each country its day and its companies for sale', async () => {
    const res = await get('/countries');
    expect(res.status).toBe(200);
    const items = (res.json['countries'] as Record<string, unknown>[]).map((c) => [
      c['code'],
      c['as_of'],
      c['companies'],
    ]);
    expect(items).toEqual(
      COUNTRY_CODES.map((c) => [c, day(c), manifests.get(c)!.row_counts.companies_for_sale]),
    );
  });

  it('free answers about a country carry Data-As-Of', async () => {
    for (const path of ['/count?country=LV', '/filters?country=NO', '/activities?country=EE']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['data-as-of'], path).toBe(day(path.slice(-2)));
    }
  });

  it('metered answers carry the header and meta.data_as_of and meta.snapshot_id, also when replayed', async () => {
    const search = await get('/companies?country=FI&page_size=2');
    expect(search.status).toBe(200);
    expect(search.headers['data-as-of']).toBe(day('FI'));
    expect(search.json['meta']).toMatchObject({ data_as_of: day('FI'), snapshot_id: snapshotId });

    const code = ((search.json['data'] as { items: { registrikood: string }[] }).items[0] ?? {}).registrikood;
    const headers = { authorization: `Bearer ${key}`, 'idempotency-key': 'fresh-1' };
    const url = `${server.url}/api/v1/data/companies/${code}?country=FI`;
    const first = await rawRequest(url, { headers });
    const replay = await rawRequest(url, { headers });
    expect(first.status).toBe(200);
    expect(JSON.parse(replay.body)).toEqual(JSON.parse(first.body));
    expect(JSON.parse(first.body).meta).toMatchObject({ data_as_of: day('FI'), snapshot_id: snapshotId });
    expect(replay.headers['data-as-of']).toBe(day('FI'));
  });

  it('MCP texts state the date', async () => {
    const client = await connectClient(new URL(`${server.url}/mcp`), key);
    try {
      const count = await callOk(client, 'count_companies', { country: 'LT' });
      const search = await callOk(client, 'search_companies', { country: 'LT', page_size: 1 });
      const text = (r: typeof count) => (r.content as { type: string; text: string }[])[0]!.text;
      expect(text(count)).toContain(`data as of ${day('LT')}`);
      expect(text(search)).toContain(`Data as of ${day('LT')}.`);
    } finally {
      await client.close();
    }
  });
});
