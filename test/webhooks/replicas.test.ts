import { publishEdited } from '../watchlists/publish-world.ts';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { Endpoints } from '../../src/webhooks/endpoints.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';
import { startReplica, stopReplica, type Replica } from '../http/helpers/replica-process.ts';

/*
 * Issue 31: three real `regdata serve` processes on one PostgreSQL wallet deliver the events of a publish.
 * The receiver holds the first request it gets without answering, finds the replica that sent it (the
 * process owning the connection's other end, from `ss`), and kills it with SIGKILL mid-delivery. The two
 * left must deliver every event: each acknowledged once, and charged once.
 */

const PG_URL = inject('walletPgUrl');
const PRICE = 0.05;
const ACCOUNTS = 4;
const micro = (c: number) => Math.round(c * 1e6);

let tmp: string;
let dbName: string;
let walletUrl: string;
let wallet: Wallet;
let receiver: http.Server;
const replicas: Replica[] = [];
/** Acknowledged deliveries per webhook-id, and the port of the held request's sender. */
const acked = new Map<string, number>();
let held: { port: number; res: http.ServerResponse } | null = null;
let killedPid: number | null = null;

function pidOfPeer(port: number): number {
  // The sender's side of the connection is the socket whose local port is the one the receiver saw.
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`], {
    encoding: 'utf8',
  });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (!pid) throw new Error(`no process owns port ${port}: ${out}`);
  return Number(pid);
}

beforeAll(async () => {
  if (!PG_URL) return;
  dbName = `hooks_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${dbName}`;
  walletUrl = url.toString();

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-hook-replicas-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
  const store = new SnapshotStore(dataDir);
  const live = store.currentId()!;

  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (held === null) {
        held = { port: req.socket.remotePort!, res };
        killedPid = pidOfPeer(held.port);
        process.kill(killedPid, 'SIGKILL');
        return;
      }
      const id = String(req.headers['webhook-id']);
      acked.set(id, (acked.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  // The test's own wallet on the same database: accounts, watchlists, endpoints; it sweeps when told to.
  wallet = await openWallet({
    url: walletUrl,
    sweepIntervalMs: 0,
    poolSize: 2,
    holdTimeoutMs: 1_000,
    prices: { EE: PRICE },
  });
  const lists = new Watchlists(wallet.store, Date.now);
  const endpoints = new Endpoints(wallet.store, Date.now, { allowPrivate: true });
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const codes = (
    await conn.runAndReadAll(
      `SELECT registrikood FROM read_parquet(${sqlPath(store.file(live, 'EE', 'companies'))})
       WHERE NOT not_for_sale ORDER BY 1 LIMIT 12`,
    )
  )
    .getRowObjectsJson()
    .map((r) => String(r['registrikood']));
  conn.closeSync();
  db.closeSync();
  for (let i = 0; i < ACCOUNTS; i++) {
    const { accountId } = await wallet.createKey({
      email: `r${i}@hooks.test`,
      kind: 'standard',
      plan: 'payg',
      credits: 10,
    });
    await lists.create(accountId, { name: 'all', country: 'EE', companies: codes });
    await endpoints.create(accountId, hookUrl);
  }
  const companies = path.join(tmp, 'companies.parquet');
  const history = path.join(tmp, 'history.parquet');
  fs.copyFileSync(store.file(live, 'EE', 'companies'), companies);
  fs.copyFileSync(store.file(live, 'EE', 'history'), history);
  await publishEdited({
    store,
    base: { companies, history },
    label: 'replicas',
    at: new Date(Date.now() + 60_000),
    // Every watched company changes: 12 events per account.
    edits: [
      `UPDATE stage_companies SET arinimi = arinimi || ' Moved' WHERE registrikood IN (${codes.map((x) => `'${x}'`).join(', ')})`,
    ],
    watchlists: lists,
  });
  const env = {
    ...process.env,
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_URL: walletUrl,
    REGDATA_WALLET_POOL_SIZE: '3',
    REGDATA_PRICES: `EE=${PRICE}`,
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    REGDATA_WEBHOOKS_ALLOW_PRIVATE: 'true',
    REGDATA_WEBHOOKS_POLL_MS: '100',
    REGDATA_WEBHOOKS_TIMEOUT_MS: '5000',
    REGDATA_WEBHOOKS_LEASE_MS: '1000',
  };
  replicas.push(...(await Promise.all([startReplica(env), startReplica(env), startReplica(env)])));
}, 240_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => stopReplica(r)));
  await wallet?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  if (PG_URL && dbName) {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
});

describe.skipIf(!PG_URL)('webhooks from three replicas on one PostgreSQL wallet', () => {
  it('delivers every event once and charges it once, though a replica is killed mid-delivery', async () => {
    const expected = ACCOUNTS * 12;
    const deadline = Date.now() + 120_000;
    while (acked.size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(killedPid).not.toBeNull();
    expect(replicas.map((r) => r.proc.pid)).toContain(killedPid);
    expect(acked.size).toBe(expected);
    expect([...acked.values()].every((n) => n === 1)).toBe(true);
    // The dead replica's hold is voided by a sweep; then every account paid for exactly its 12 events.
    await new Promise((r) => setTimeout(r, 1_100));
    await wallet.sweep();
    for (let i = 0; i < ACCOUNTS; i++) {
      const email = `r${i}@hooks.test`;
      expect(micro(10 - (await wallet.balance({ email })).balance), email).toBe(micro(12 * PRICE));
    }
    const charged = await wallet.store.get<{ n: number }>('SELECT count(*) AS n FROM event_charges');
    expect(Number(charged?.n)).toBe(expected);
  }, 180_000);
});
