import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishSnapshot } from '../../ingest/pipeline/publish.ts';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import { loadConfig } from '../../src/config.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { copyBase, copyWorld } from '../watchlists/publish-world.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { connectClient } from '../mcp/helpers.ts';
import { rawRequest } from './helpers/real-server.ts';

/*
 * Issue 19, the change feed over real HTTP and MCP: two EE snapshots are published on top of the test
 * world with edits known in advance, and the real server must answer exactly the changes those edits
 * make, oldest first, paged, and charged per item at a price set here. The expected items are written
 * from the edits, never read from changes.parquet.
 */

interface Item {
  registrikood: string;
  change: string;
  fields: string[];
  snapshot_id: string;
  as_of: string;
  diff: { field: string; before: unknown; after: unknown }[] | null;
}

interface Body {
  data: { items: Item[]; page: number; page_size: number; total: number };
  meta: {
    rows_returned: number;
    credits_charged: number;
    credits_reserved: number;
    credit_balance: number;
    data_as_of: string;
    snapshot_id: string;
  };
  detail: { param: string; msg: string; type: string }[];
}

const DAY_MS = 86_400_000;
/** The EE row price this server runs with: the oracle of every charge. */
const PRICE = 0.05;
/** Credits are kept in micro-credits; comparing there keeps float noise out of "exact". */
const micro = (credits: number) => Math.round(credits * 1e6);

let tmp: string;
let store: SnapshotStore;
let server: StartedServer;
let worldDay: string;
const day = (n: number) =>
  new Date(Date.parse(`${worldDay}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
let first: string;
let second: string;
let expectedFirst: Item[];
let expectedSecond: Item[];

async function publishEE(
  base: { companies: string; history: string },
  at: string,
  edits: string[],
): Promise<string> {
  const result = await publishSnapshot({
    store,
    countries: ['EE'],
    carryOver: true,
    label: 'feed',
    now: () => new Date(`${at}T03:00:00Z`),
    stageCountry: async (conn) => {
      await conn.run(
        `CREATE OR REPLACE TABLE stage_companies AS SELECT * FROM read_parquet(${sqlPath(base.companies)})`,
      );
      for (const sql of edits) await conn.run(sql);
      await conn.run(
        `CREATE OR REPLACE TABLE stage_history AS SELECT * FROM read_parquet(${sqlPath(base.history)})
         WHERE registrikood IN (SELECT registrikood FROM stage_companies)`,
      );
      return { source: 'test-edits', sourceDetail: {} };
    },
  });
  return result.snapshotId;
}

beforeAll(async () => {
  let live: string;
  let dataDir: string;
  ({ tmp, dataDir, store, live, worldDay } = copyWorld(inject('testDataDir'), 'feed'));
  const base = copyBase(store, live, tmp);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const rows = (
    await conn.runAndReadAll(
      `SELECT registrikood, arinimi FROM read_parquet(${sqlPath(base.companies)}) WHERE NOT not_for_sale ORDER BY 1 LIMIT 5`,
    )
  ).getRowObjectsJson();
  const codes = rows.map((r) => String(r['registrikood']));
  const name = String(rows[2]!['arinimi']);
  conn.closeSync();
  db.closeSync();
  const [a, b, c, d, e] = codes as [string, string, string, string, string];

  // Day 1: a and b deleted, c renamed, d taken off sale (gone from what a customer can buy).
  first = await publishEE(base, day(1), [
    `DELETE FROM stage_companies WHERE registrikood IN ('${a}', '${b}')`,
    `UPDATE stage_companies SET arinimi = arinimi || ' Feed' WHERE registrikood = '${c}'`,
    `UPDATE stage_companies SET not_for_sale = true WHERE registrikood = '${d}'`,
  ]);
  // Day 2: the register as it was, less e: a, b and d come back, c's name changes back, e goes.
  second = await publishEE(base, day(2), [`DELETE FROM stage_companies WHERE registrikood = '${e}'`]);
  const item =
    (snapshot_id: string, as_of: string) =>
    (registrikood: string, change: string, diff: Item['diff'] = []) => ({
      registrikood,
      change,
      fields: (diff ?? []).map((d) => d.field),
      snapshot_id,
      as_of,
      diff,
    });
  const one = item(first, day(1));
  const two = item(second, day(2));
  // Before and after as written by the edits (contract 1.3.0).
  const renamed = [{ field: 'arinimi', before: name, after: `${name} Feed` }];
  const renamedBack = [{ field: 'arinimi', before: `${name} Feed`, after: name }];
  expectedFirst = [one(a, 'removed'), one(b, 'removed'), one(c, 'changed', renamed), one(d, 'removed')];
  expectedSecond = [
    two(a, 'added'),
    two(b, 'added'),
    two(c, 'changed', renamedBack),
    two(d, 'added'),
    two(e, 'removed'),
  ];

  server = await startServer(
    loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      REGDATA_PRICES: `EE=${PRICE}`,
    }),
    { handleSignals: false, engine: { connections: 2 } },
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

let keys = 0;
async function newKey(credits: number): Promise<{ key: string; email: string }> {
  const email = `feed-${++keys}@test.local`;
  return {
    key: (await server.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits })).key,
    email,
  };
}

async function get(query: string, key: string, headers: Record<string, string> = {}) {
  const res = await rawRequest(`${server.url}/api/v1/data/changes?${query}`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  return { status: res.status, body: JSON.parse(res.body) as Body };
}

describe('GET /api/v1/data/changes', () => {
  it('returns exactly the known edits, oldest first, and charges items x price', async () => {
    // Enough for the hold of 500 items.
    const { key, email } = await newKey(30);
    const before = (await server.wallet.balance({ email })).balance;
    const res = await get(`country=EE&since=${day(0)}&page_size=500`, key);
    expect(res.status).toBe(200);
    const all = [...expectedFirst, ...expectedSecond];
    expect(res.body.data).toEqual({ items: all, page: 1, page_size: 500, total: all.length });
    expect(micro(res.body.meta.credits_charged)).toBe(micro(all.length * PRICE));
    expect(micro(res.body.meta.credits_reserved)).toBe(micro(500 * PRICE));
    expect(res.body.meta.rows_returned).toBe(all.length);
    // Freshness (issue 19 item 4): the live snapshot is the second one, published on day 2.
    expect(res.body.meta).toMatchObject({ data_as_of: day(2), snapshot_id: second });
    const after = (await server.wallet.balance({ email })).balance;
    expect(micro(before - after)).toBe(micro(all.length * PRICE));
    expect(micro(res.body.meta.credit_balance)).toBe(micro(after));
  });

  it('starts at a day or after a snapshot', async () => {
    const { key } = await newKey(10);
    const byDay = await get(`country=EE&since=${day(2)}`, key);
    expect(byDay.body.data.items).toEqual(expectedSecond);
    const bySnapshot = await get(`country=EE&since_snapshot=${first}`, key);
    expect(bySnapshot.body.data.items).toEqual(expectedSecond);
    const fromFirst = await get(`country=EE&since=${day(1)}`, key);
    expect(fromFirst.body.data.total).toBe(expectedFirst.length + expectedSecond.length);
  });

  it('pages like search: the pages concatenate to the whole feed; an empty page is free', async () => {
    const { key, email } = await newKey(10);
    const all = [...expectedFirst, ...expectedSecond];
    const pages: Item[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await get(`country=EE&since=${day(0)}&page=${page}&page_size=4`, key);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page, page_size: 4, total: all.length });
      pages.push(...res.body.data.items);
    }
    expect(pages).toEqual(all);
    const balance = (await server.wallet.balance({ email })).balance;
    const empty = await get(`country=EE&since_snapshot=${second}`, key);
    expect(empty.body.data).toEqual({ items: [], page: 1, page_size: 50, total: 0 });
    expect(empty.body.meta.credits_charged).toBe(0);
    const future = await get(`country=EE&since=${day(30)}`, key);
    expect(future.body.data.total).toBe(0);
    expect((await server.wallet.balance({ email })).balance).toBe(balance);
  });

  it('answers 422 naming the oldest date for a since before the kept history, and charges nothing', async () => {
    const { key, email } = await newKey(10);
    const before = (await server.wallet.balance({ email })).balance;
    const res = await get(`country=EE&since=${day(-1)}`, key);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ param: 'since', type: 'history_too_old' });
    expect(res.body.detail[0]?.msg).toContain(`oldest date available is ${day(0)}`);
    const oldSnapshot = await get(`country=EE&since_snapshot=${day(-1).replaceAll('-', '')}T000000Z`, key);
    expect(oldSnapshot.status).toBe(422);
    expect(oldSnapshot.body.detail[0]?.msg).toContain(day(0));
    expect((await server.wallet.balance({ email })).balance).toBe(before);
  });

  it('rejects unknown, missing, conflicting and out-of-bounds parameters with 422', async () => {
    const { key } = await newKey(10);
    const cases: [string, string][] = [
      [`country=EE&since=${day(0)}&updated=1`, 'updated'],
      ['country=EE', 'since'],
      [`country=EE&since=${day(0)}&since_snapshot=${first}`, 'since_snapshot'],
      [`country=EE&since=${day(0)}&page_size=501`, 'page_size'],
      ['country=EE&since=2026-13-01', 'since'],
      ['country=EE&since_snapshot=latest', 'since_snapshot'],
      [`country=XX&since=${day(0)}`, 'country'],
    ];
    for (const [query, param] of cases) {
      const res = await get(query, key);
      expect(res.status, query).toBe(422);
      expect(
        res.body.detail.map((d) => d.param),
        query,
      ).toContain(param);
    }
  });

  it('reserves page_size items: 402 when the balance cannot cover them; an Idempotency-Key replays', async () => {
    const poor = await newKey(PRICE * 10);
    const refused = await get(`country=EE&since=${day(0)}&page_size=11`, poor.key);
    expect(refused.status).toBe(402);
    const { key, email } = await newKey(10);
    const before = (await server.wallet.balance({ email })).balance;
    const headers = { 'idempotency-key': 'feed-retry-1' };
    const once = await get(`country=EE&since=${day(0)}&page_size=3`, key, headers);
    const again = await get(`country=EE&since=${day(0)}&page_size=3`, key, headers);
    expect(again.body.data).toEqual(once.body.data);
    expect(micro(before - (await server.wallet.balance({ email })).balance)).toBe(micro(3 * PRICE));
  });
});

describe('updated_since on search, count and export', () => {
  /** The edits' oracle: codes added or changed on or after a day, from the expected items, not the file. */
  const touched = (from: string) =>
    [
      ...new Set(
        [...expectedFirst, ...expectedSecond]
          .filter((i) => i.as_of >= from && i.change !== 'removed')
          .map((i) => i.registrikood),
      ),
    ].sort();
  // e was removed on day 2 and is not for sale: no search can return it.
  const api = async (route: string, query: string, key: string) => {
    const res = await rawRequest(`${server.url}/api/v1/data/${route}?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: res.status, body: res.body };
  };

  it('keeps exactly the companies added or changed from that day on', async () => {
    // Enough for the hold of a 500-row page.
    const { key } = await newKey(100);
    for (const from of [day(0), day(1), day(2)]) {
      const q = `country=EE&status=__all__&updated_since=${from}`;
      const search = await api('companies', `${q}&page_size=500`, key);
      expect(search.status, from).toBe(200);
      const data = (JSON.parse(search.body) as { data: { items: { registrikood: string }[]; total: number } })
        .data;
      expect(data.items.map((r) => r.registrikood).sort(), from).toEqual(touched(from));
      expect(data.total).toBe(touched(from).length);
      const count = JSON.parse((await api('count', q, key)).body) as { count: number };
      expect(count.count, from).toBe(touched(from).length);
      const exported = await api('companies/export', `${q}&format=ndjson`, key);
      const lines = exported.body.trimEnd().split('\n').slice(0, -1);
      expect(lines.map((l) => (JSON.parse(l) as { registrikood: string }).registrikood).sort()).toEqual(
        touched(from),
      );
    }
    const later = JSON.parse((await api('count', `country=EE&updated_since=${day(3)}`, key)).body) as {
      count: number;
    };
    expect(later.count).toBe(0);
  });

  it('answers 422 naming the oldest date for a day before the kept history, and charges nothing', async () => {
    const { key, email } = await newKey(10);
    const before = (await server.wallet.balance({ email })).balance;
    for (const route of ['companies', 'count']) {
      const res = await api(route, `country=EE&updated_since=${day(-1)}`, key);
      expect(res.status, route).toBe(422);
      const issue = (JSON.parse(res.body) as Body).detail[0];
      expect(issue).toMatchObject({ param: 'updated_since', type: 'history_too_old' });
      expect(issue?.msg).toContain(`oldest date available is ${day(0)}`);
    }
    expect((await server.wallet.balance({ email })).balance).toBe(before);
  });
});

describe('MCP list_changes', () => {
  it('answers what REST answers, charges the same, and names the date range', async () => {
    const { key, email } = await newKey(10);
    const client = await connectClient(new URL(`${server.url}/mcp`), key);
    try {
      const before = (await server.wallet.balance({ email })).balance;
      const result = (await client.callTool({
        name: 'list_changes',
        arguments: { country: 'EE', since_snapshot: first, page_size: 2 },
      })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      const structured = result.structuredContent as { data: unknown; meta: { credits_charged: number } };
      expect(structured.data).toEqual({
        items: expectedSecond.slice(0, 2),
        page: 1,
        page_size: 2,
        total: expectedSecond.length,
      });
      expect(micro(structured.meta.credits_charged)).toBe(micro(2 * PRICE));
      expect(micro(before - (await server.wallet.balance({ email })).balance)).toBe(micro(2 * PRICE));
      const text = (result.content[0] as { text: string }).text;
      expect(text).toContain(`after snapshot ${first}`);
      expect(text).toContain(`${day(2)} to ${day(2)}`);

      const tooOld = (await client.callTool({
        name: 'list_changes',
        arguments: { country: 'EE', since: day(-1) },
      })) as CallToolResult;
      expect(tooOld.isError).toBe(true);
      const failure = JSON.parse((tooOld.content[0] as { text: string }).text) as {
        status: number;
        detail: { loc: string[]; msg: string }[];
      };
      expect(failure.status).toBe(422);
      expect(failure.detail[0]?.loc).toEqual(['arguments', 'since']);
      expect(failure.detail[0]?.msg).toContain(`oldest date available is ${day(0)}`);
    } finally {
      await client.close();
    }
  });
});

describe('a snapshot written before the feed', () => {
  let legacy: StartedServer;
  let legacyDir: string;
  let generatedDay: string;

  beforeAll(async () => {
    legacyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-feed-legacy-'));
    fs.cpSync(inject('testDataDir'), legacyDir, { recursive: true });
    const legacyStore = new SnapshotStore(legacyDir);
    const id = legacyStore.currentId()!;
    const manifestFile = legacyStore.file(id, 'EE', 'manifest');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as CountryManifest;
    delete manifest.changes;
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    fs.rmSync(legacyStore.file(id, 'EE', 'changes'), { force: true });
    generatedDay = manifest.generated_at.slice(0, 10);
    legacy = await startServer(
      loadConfig({
        PORT: '0',
        REGDATA_DATA_DIR: legacyDir,
        LOG_LEVEL: 'silent',
        REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      }),
      { handleSignals: false, engine: { connections: 2 } },
    );
  }, 120_000);

  afterAll(async () => {
    await legacy?.close();
    if (legacyDir) fs.rmSync(legacyDir, { recursive: true, force: true });
  });

  it('has a history that starts on its generated_at day with nothing in it', async () => {
    const email = 'legacy@test.local';
    const { key } = await legacy.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 10 });
    const before = (await legacy.wallet.balance({ email })).balance;
    const call = async (query: string) => {
      const res = await rawRequest(`${legacy.url}/api/v1/data/changes?${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: res.status, body: JSON.parse(res.body) as Body };
    };
    const empty = await call(`country=EE&since=${generatedDay}`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({ items: [], page: 1, page_size: 50, total: 0 });
    const dayBefore = new Date(Date.parse(`${generatedDay}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
    const old = await call(`country=EE&since=${dayBefore}`);
    expect(old.status).toBe(422);
    expect(old.body.detail[0]?.msg).toContain(`oldest date available is ${generatedDay}`);
    expect((await legacy.wallet.balance({ email })).balance).toBe(before);
  });
});
