import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWorldSnapshot } from '../../ingest/world/index.ts';
import { loadConfig } from '../../src/config.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/*
 * Issue 6: the running server picks up a promoted snapshot without a restart; in-flight requests finish on
 * the old one, new requests use the new one, nothing fails. Two real snapshots (the shared world and a
 * second world with another seed) are promoted in turn many times while four clients hammer a real socket;
 * every answer must be exactly one snapshot's answer, computed beforehand by plain SQL over its Parquet.
 */

interface Expected {
  id: string;
  count: number;
  firstCodes: string[];
}

const PAGE = 5;
const SWAPS = 8;

async function expectedFor(store: SnapshotStore, id: string): Promise<Expected> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const file = store.file(id, 'EE', 'companies').replaceAll("'", "''");
    const forSale = `FROM read_parquet('${file}') WHERE staatus = 'R' AND NOT coalesce(not_for_sale, false)`;
    const count = (await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n ${forSale}`)).getRowObjectsJson();
    const codes = (
      await conn.runAndReadAll(`SELECT registrikood ${forSale} ORDER BY registrikood LIMIT ${PAGE}`)
    ).getRowObjectsJson();
    return { id, count: Number(count[0]!['n']), firstCodes: codes.map((r) => String(r['registrikood'])) };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('hot swap under load', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-swap-'));
  const store = new SnapshotStore(dataDir);
  let server: StartedServer;
  let key: string;
  let a: Expected;
  let b: Expected;
  let onlyInA: string;

  beforeAll(async () => {
    const world = new SnapshotStore(inject('testDataDir'));
    const worldId = world.currentId()!;
    fs.mkdirSync(store.snapshotsDir, { recursive: true });
    fs.symlinkSync(world.snapshotDir(worldId), store.snapshotDir(worldId));
    const other = await buildWorldSnapshot({
      dataDir,
      scale: 0.002,
      seed: 4242,
      countries: ['EE', 'LV'],
      label: 'swap-b',
      promote: false,
    });
    store.promote(worldId);
    a = await expectedFor(store, worldId);
    b = await expectedFor(store, other.snapshotId);
    onlyInA = a.firstCodes.find((c) => !b.firstCodes.includes(c))!;

    server = await startServer(
      loadConfig({
        PORT: '0',
        REGDATA_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
        REGDATA_SNAPSHOT_POLL_MS: '50',
      }),
      { handleSignals: false },
    );
    key = (await server.wallet.createKey({ email: 'swap@test.local', kind: 'admin' })).key;
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function waitForLive(id: string): Promise<void> {
    for (let i = 0; i < 600 && server.engine.snapshot?.id !== id; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(server.engine.snapshot?.id).toBe(id);
  }

  it('the two snapshots answer differently (otherwise the test could not tell them apart)', async () => {
    expect(a.count).not.toBe(b.count);
    expect(a.firstCodes).not.toEqual(b.firstCodes);
    expect(onlyInA).toBeDefined();
  });

  it('serves every request from exactly one snapshot while the pointer flips, with zero failures', async () => {
    const get = async (url: string) => {
      const res = await fetch(`${server.url}/api/v1/data${url}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    type Seen = 'a' | 'b' | 'inconsistent';
    const seen: Seen[] = [];
    const failures: string[] = [];
    let running = true;

    const worker = async (n: number): Promise<void> => {
      for (let i = n; running; i++) {
        const kind = i % 3;
        if (kind === 0) {
          const r = await get('/count?country=EE');
          const count = r.body['count'];
          if (r.status !== 200) failures.push(`count ${r.status} ${JSON.stringify(r.body)}`);
          else seen.push(count === a.count ? 'a' : count === b.count ? 'b' : 'inconsistent');
        } else if (kind === 1) {
          const r = await get(`/companies?country=EE&sort_by=registrikood&page_size=${PAGE}`);
          if (r.status !== 200) {
            failures.push(`search ${r.status} ${JSON.stringify(r.body)}`);
            continue;
          }
          const data = r.body['data'] as { total: number; items: { registrikood: string }[] };
          const codes = data.items.map((item) => item.registrikood);
          const matches = (e: Expected) =>
            data.total === e.count && JSON.stringify(codes) === JSON.stringify(e.firstCodes);
          seen.push(matches(a) ? 'a' : matches(b) ? 'b' : 'inconsistent');
        } else {
          const r = await get(`/companies/${onlyInA}?country=EE`);
          const code = (r.body['data'] as { registrikood?: string } | undefined)?.registrikood;
          if (r.status === 200 && code === onlyInA) seen.push('a');
          else if (r.status === 404) seen.push('b');
          else failures.push(`detail ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
    };

    const workers = [0, 1, 2, 3].map((n) => worker(n));
    for (let i = 0; i < SWAPS; i++) {
      store.promote(b.id);
      await waitForLive(b.id);
      await new Promise((r) => setTimeout(r, 100));
      store.promote(a.id);
      await waitForLive(a.id);
      await new Promise((r) => setTimeout(r, 100));
    }
    running = false;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    expect(seen.filter((s) => s === 'inconsistent')).toEqual([]);
    // Both snapshots really served under load.
    expect(seen.filter((s) => s === 'a').length).toBeGreaterThan(0);
    expect(seen.filter((s) => s === 'b').length).toBeGreaterThan(0);
  }, 120_000);

  it('keeps serving the live snapshot when a promoted one cannot be loaded', async () => {
    const brokenId = '20000101T000000Z-broken';
    fs.cpSync(store.snapshotDir(b.id), store.snapshotDir(brokenId), { recursive: true });
    const companies = store.file(brokenId, 'EE', 'companies');
    fs.truncateSync(companies, Math.floor(fs.statSync(companies).size / 2));
    const live = server.engine.snapshot!.id;

    store.promote(brokenId);
    await server.snapshots.check();
    expect(server.engine.snapshot?.id).toBe(live);
    const res = await fetch(`${server.url}/api/v1/data/count?country=EE`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { count: number }).count).toBe(live === a.id ? a.count : b.count);

    // Once the pointer names a good snapshot again it is picked up.
    const other = live === a.id ? b.id : a.id;
    store.promote(other);
    await waitForLive(other);
  }, 60_000);
});
