import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/**
 * The real process side over a real socket: startServer on port 0 with its own data folder (the shared
 * world's snapshot linked in, a fresh wallet.db), then graceful shutdown with a request in flight.
 */
function linkedDataDir(): string {
  const world = new SnapshotStore(inject('testDataDir'));
  const id = world.currentId()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-server-'));
  const store = new SnapshotStore(dir);
  fs.mkdirSync(store.snapshotsDir);
  fs.symlinkSync(world.snapshotDir(id), store.snapshotDir(id));
  store.promote(id);
  return dir;
}

describe('server over a real socket', () => {
  let server: StartedServer;
  let key: string;
  const dataDir = linkedDataDir();
  const config = loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
  });

  beforeAll(async () => {
    server = await startServer(config, { handleSignals: false });
    key = (await server.wallet.createKey({ email: 'socket@test.local', kind: 'admin' })).key;
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz: the status without auth, the live snapshot and its age per country to an admin key', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const res = await fetch(`${server.url}/healthz`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      snapshot_id: string;
      countries: Record<string, { age_seconds: number }>;
    };
    expect(body.status).toBe('ok');
    expect(body.snapshot_id).toBe(new SnapshotStore(dataDir).currentId());
    expect(Object.keys(body.countries).sort()).toEqual(['EE', 'FI', 'LT', 'LV', 'NO', 'PL', 'SE']);
    expect(body.countries['EE']!.age_seconds).toBeGreaterThanOrEqual(0);
  });

  it('answers a search with a request id header, and counts it in /metrics', async () => {
    const res = await fetch(`${server.url}/api/v1/data/companies?country=EE&industry_codes=x&page_size=5`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key}` } })
    ).text();
    expect(metrics).toMatch(
      /regdata_http_requests_total\{method="GET",route="\/api\/v1\/data\/companies",status="200"\} \d+/,
    );
    expect(metrics).toContain('regdata_http_request_duration_seconds_bucket');
    expect(metrics).toMatch(/regdata_db_query_duration_seconds_count\{query="plan"\} \d+/);
    expect(metrics).toMatch(/regdata_snapshot_age_seconds\{country="EE",snapshot_id="[^"]+"\} \d/);
  });

  it('finishes an in-flight request on shutdown, then refuses new connections', async () => {
    const received = new Promise<void>((resolve) => server.app.server.once('request', () => resolve()));
    const inFlight = fetch(
      `${server.url}/api/v1/data/companies?country=PL&page_size=500&sort_by=company_name`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    await received;
    const closed = server.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { items: unknown[] } }).data.items.length).toBeGreaterThan(0);
    await closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
