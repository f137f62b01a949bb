import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWorldSnapshot } from '../../ingest/world/index.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import {
  REGDATA_BIN as BIN,
  startReplica as spawnReplica,
  stopReplica,
  type Replica,
} from './helpers/replica-process.ts';
import { SCHED_IDLE, threadStats } from '../helpers/thread-stat.ts';

/*
 * Issue 18 item 3: replicas that share a filesystem follow one `current` pointer. Two real `regdata serve`
 * processes on one data folder, a snapshot promoted and rolled back with the real CLI while both answer
 * requests: both swap each time, with no failed request, and answer what plain SQL over the promoted
 * snapshot's Parquet says. The promoted snapshot has no serving files (as one published before they
 * existed), so both replicas build them into the shared serving cache at the same moment.
 */

const run = promisify(execFile);

let dataDir: string;
let env: NodeJS.ProcessEnv;
let worldId: string;
let newId: string;
let key: string;
const replicas: Replica[] = [];

const startReplica = () => spawnReplica(env);

async function get(
  replica: Replica,
  url: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${replica.url}${url}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const liveOf = async (r: Replica) => (await get(r, '/healthz')).body['snapshot_id'];

async function waitAllLive(id: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const live = await Promise.all(replicas.map(liveOf));
    if (live.every((l) => l === id)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(await Promise.all(replicas.map(liveOf))).toEqual(replicas.map(() => id));
}

/** EE companies for sale in a snapshot, by plain SQL over its Parquet. */
async function eeForSale(id: string): Promise<number> {
  const file = new SnapshotStore(dataDir).file(id, 'EE', 'companies').replaceAll("'", "''");
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const rows = await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM read_parquet('${file}') WHERE staatus = 'R' AND NOT not_for_sale`,
    );
    return Number(rows.getRowObjectsJson()[0]!['n']);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-replicas-'));
  const store = new SnapshotStore(dataDir);
  fs.mkdirSync(store.snapshotsDir);
  const world = new SnapshotStore(inject('testDataDir'));
  worldId = world.currentId()!;
  // Copied, not linked: `snapshots rollback` works on SnapshotStore.list(), which skips linked folders.
  fs.cpSync(world.snapshotDir(worldId), store.snapshotDir(worldId), { recursive: true });
  store.promote(worldId);
  ({ snapshotId: newId } = await buildWorldSnapshot({
    dataDir,
    scale: 0.002,
    seed: 99,
    countries: ['EE', 'LV'],
    label: 'replicas',
    promote: false,
  }));
  for (const c of ['EE', 'LV'] as const) {
    for (const f of ['serving.duckdb', 'lookup.sqlite', 'postings.bin'])
      fs.rmSync(path.join(store.countryDir(newId, c), f));
  }
  env = {
    ...process.env,
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_SNAPSHOT_POLL_MS: '100',
  };
  // The real CLI makes the key in the data folder's wallet.db, which both replicas open.
  key = (
    await run(process.execPath, [BIN, 'keys', 'create', '--email', 'ops@test.local', '--kind', 'admin'], {
      env,
    })
  ).stdout.trim();
  replicas.push(...(await Promise.all([startReplica(), startReplica()])));
}, 240_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => stopReplica(r)));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('two replicas on one data folder', () => {
  it('both serve the live snapshot', async () => {
    expect(await Promise.all(replicas.map(liveOf))).toEqual([worldId, worldId]);
    expect(await eeForSale(newId)).not.toBe(await eeForSale(worldId));
  });

  it("runs every thread but the event loop's at REGDATA_SCAN_THREAD_NICE (default 10)", async () => {
    // The event loop is the main thread, whose id is the pid. Threads started after the server began
    // listening are lowered by its timer (every 5 s), so the check allows for one round of it.
    for (const r of replicas) {
      const pid = r.proc.pid!;
      let threads = threadStats(pid);
      for (let i = 0; i < 60 && threads.some((t) => t.tid !== pid && t.nice !== 10); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        threads = threadStats(pid);
      }
      expect(threads.length).toBeGreaterThan(4);
      expect(threads.find((t) => t.tid === pid)?.nice).toBe(0);
      expect(threads.filter((t) => t.tid !== pid && t.nice !== 10)).toEqual([]);
    }
  });

  it('runs its planner threads, and no other thread, under SCHED_IDLE (REGDATA_PLANNER_SCHED default)', async () => {
    // A planner thread starts with the first plan it is given; REGDATA_PLANNER_THREADS is 2 by default.
    const idle = (pid: number) =>
      threadStats(pid)
        .filter((t) => t.policy === SCHED_IDLE)
        .map((t) => t.tid);
    for (const r of replicas) {
      const answers = await Promise.all(
        ['EE', 'LV', 'LT'].map((c) => get(r, `/api/v1/data/count?country=${c}&registered_from=2001-02-03`)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const pid = r.proc.pid!;
      const threads = idle(pid);
      expect(threads.length).toBeGreaterThanOrEqual(1);
      expect(threads.length).toBeLessThanOrEqual(2);
      expect(threads).not.toContain(pid);
    }
  });

  it('both swap after a promote and after a rollback, answering every request meanwhile', async () => {
    const expected = new Map([
      [worldId, await eeForSale(worldId)],
      [newId, await eeForSale(newId)],
    ]);
    const failures: string[] = [];
    const seen = new Set<number>();
    let running = true;
    const load = replicas.map(async (r) => {
      while (running) {
        const res = await get(r, '/api/v1/data/count?country=EE');
        if (res.status !== 200) failures.push(`${r.url}: ${res.status} ${JSON.stringify(res.body)}`);
        else seen.add(res.body['count'] as number);
        // Paced: the point is answers during the swaps, not load (two serving builds share the machine).
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });

    await run(process.execPath, [BIN, 'snapshots', 'promote', newId], { env });
    await waitAllLive(newId);
    for (const r of replicas) {
      expect((await get(r, '/api/v1/data/count?country=EE')).body['count']).toBe(expected.get(newId));
    }
    // Each replica built the missing serving files itself; both builds ended in one complete pair.
    const cache = path.join(dataDir, 'serving-cache', newId, 'EE');
    expect(fs.readdirSync(cache).sort()).toEqual(['lookup.sqlite', 'postings.bin', 'serving.duckdb']);

    await run(process.execPath, [BIN, 'snapshots', 'rollback'], { env });
    await waitAllLive(worldId);
    running = false;
    await Promise.all(load);

    expect(failures).toEqual([]);
    // Every answer was exactly one snapshot's answer.
    expect([...seen].every((n) => [...expected.values()].includes(n))).toBe(true);
    for (const r of replicas) expect(r.proc.exitCode).toBeNull();
  }, 240_000);
});
