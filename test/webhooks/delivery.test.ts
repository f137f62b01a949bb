import { publishEdited } from '../watchlists/publish-world.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import {
  Deliverer,
  MAX_ATTEMPTS,
  RETRY_SCHEDULE_MS,
  WAIT_FOR_CREDITS_MS,
} from '../../src/webhooks/deliverer.ts';
import { Endpoints } from '../../src/webhooks/endpoints.ts';
import { isPublicAddress } from '../../src/webhooks/url-policy.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';

/*
 * Issue 31, webhook delivery with real parts: the test world published with edits through the real
 * publish, a real SQLite wallet, the real engine, and loopback receivers that answer 2xx (verifying the
 * signature with the Standard Webhooks library), 500, hang, drop the connection, or redirect. Time is a
 * test clock the deliverer reads, so the retry schedule is walked without waiting.
 */

const PRICE = 0.05;
const micro = (c: number) => Math.round(c * 1e6);

let tmp: string;
let store: SnapshotStore;
let wallet: Wallet;
let engine: Engine;
let deliverer: Deliverer;
let endpoints: Endpoints;
let receiver: http.Server;
let base: string;
let now = Date.now();
let codes: string[];

/** What each receiver path got: bodies whose signature verified, and every attempt. */
const got = new Map<string, { verified: unknown[]; attempts: number }>();
const secrets = new Map<string, string>();
/** How each path answers its n-th attempt (1-based). */
const behaviour: Record<string, (n: number, res: http.ServerResponse, req: http.IncomingMessage) => void> = {
  '/ok': (_n, res) => res.writeHead(204).end(),
  '/flaky': (n, res) => (n <= 2 ? res.writeHead(500).end('down') : res.writeHead(200).end('ok')),
  '/hang': () => {},
  '/drop': (_n, res, req) => req.socket.destroy(),
  '/moved': (_n, res) => res.writeHead(302, { location: '/ok' }).end(),
  '/poor': (_n, res) => res.writeHead(200).end(),
};

interface Account {
  email: string;
  accountId: string;
  endpointId: string;
}
const accounts: Record<string, Account> = {};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-webhooks-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
  store = new SnapshotStore(dataDir);
  const live = store.currentId()!;
  const worldDay = (
    JSON.parse(fs.readFileSync(store.file(live, 'EE', 'manifest'), 'utf8')) as CountryManifest
  ).generated_at.slice(0, 10);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  codes = (
    await conn.runAndReadAll(
      `SELECT registrikood FROM read_parquet(${sqlPath(store.file(live, 'EE', 'companies'))})
       WHERE NOT not_for_sale ORDER BY 1 LIMIT 2`,
    )
  )
    .getRowObjectsJson()
    .map((r) => String(r['registrikood']));
  conn.closeSync();
  db.closeSync();

  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = got.get(req.url!) ?? { verified: [], attempts: 0 };
      entry.attempts++;
      got.set(req.url!, entry);
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        entry.verified.push(
          new Webhook(secrets.get(req.url!)!).verify(body, req.headers as Record<string, string>),
        );
      } catch {
        // Counted as an attempt, not as a verified delivery.
      }
      behaviour[req.url!]!(entry.attempts, res, req);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  wallet = await openWallet({
    dbPath: path.join(tmp, 'wallet.db'),
    sweepIntervalMs: 0,
    prices: { EE: PRICE },
  });
  const lists = new Watchlists(wallet.store, () => now);
  endpoints = new Endpoints(wallet.store, () => now, { allowPrivate: true });
  for (const [name, credits] of [
    ['ok', 10],
    ['flaky', 10],
    ['hang', 10],
    ['drop', 10],
    ['moved', 10],
    ['poor', 0],
  ] as const) {
    const email = `${name}@hooks.test`;
    const { accountId } = await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits });
    await lists.create(accountId, { name, country: 'EE', companies: codes });
    const endpoint = await endpoints.create(accountId, `${base}/${name}`);
    secrets.set(`/${name}`, endpoint.secret);
    accounts[name] = { email, accountId, endpointId: endpoint.id };
  }

  const companies = path.join(tmp, 'companies.parquet');
  const history = path.join(tmp, 'history.parquet');
  fs.copyFileSync(store.file(live, 'EE', 'companies'), companies);
  fs.copyFileSync(store.file(live, 'EE', 'history'), history);
  const [a, c] = codes as [string, string];
  const snapshotId = await publishEdited({
    store,
    base: { companies, history },
    label: 'hooks',
    at: new Date(Date.parse(`${worldDay}T03:00:00Z`) + 86_400_000),
    edits: [
      `DELETE FROM stage_companies WHERE registrikood = '${a}'`,
      `UPDATE stage_companies SET arinimi = arinimi || ' Hooked' WHERE registrikood = '${c}'`,
    ],
    watchlists: lists,
  });
  engine = await Engine.open(store, { connections: 2 });
  expect(engine.snapshot!.id).toBe(snapshotId);
  deliverer = new Deliverer({
    store: wallet.store,
    engine,
    metering: wallet.metering,
    principalOf: (accountId) => wallet.appPrincipal(accountId),
    policy: { allowPrivate: true },
    clock: () => now,
    limits: { timeoutMs: 500, maxResponseBytes: 1024 },
  });
}, 300_000);

afterAll(async () => {
  await deliverer?.stop();
  engine?.close();
  await wallet?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const balance = async (name: string) => (await wallet.balance({ email: accounts[name]!.email })).balance;
const log = (name: string) => deliverer.log(accounts[name]!.accountId, accounts[name]!.endpointId);
/** Runs every due delivery (all accounts) until none is left at this clock. */
async function drain(): Promise<void> {
  while ((await deliverer.runOnce(50)) > 0) {
    // keep going
  }
}

describe('webhook delivery', () => {
  it('queues each event once per endpoint, whichever replica or call does it', async () => {
    const first = await deliverer.enqueue();
    // Six accounts, each watching the two companies the publish removed and changed.
    expect(first).toBe(12);
    expect(await deliverer.enqueue()).toBe(0);
  });

  it('delivers signed events the receiver verifies, equal to what the pull serves, charged once', async () => {
    const before = await balance('ok');
    await drain();
    const ok = got.get('/ok')!;
    expect(ok.verified).toHaveLength(2);
    const data = ok.verified.map((v) => (v as { data: { registrikood: string; change: string } }).data);
    expect(data.map((d) => [d.registrikood, d.change]).sort()).toEqual(
      [
        [codes[0], 'removed'],
        [codes[1], 'changed'],
      ].sort(),
    );
    expect(micro(before - (await balance('ok')))).toBe(micro(2 * PRICE));
    const entries = await log('ok');
    expect(entries.map((e) => e.state)).toEqual(['delivered', 'delivered']);
    // The log and the wallet's usage agree to the micro-credit.
    const usage = await wallet.usage({ email: accounts['ok']!.email });
    const webhookCredits = usage.records
      .filter((r) => r.channel === 'webhook')
      .reduce((s, r) => s + micro(r.creditsCharged), 0);
    expect(webhookCredits).toBe(entries.reduce((s, e) => s + micro(e.charged), 0));
    // A replay goes out again and costs nothing: the event was charged already.
    expect(
      await deliverer.replay(accounts['ok']!.accountId, accounts['ok']!.endpointId, entries[0]!.id),
    ).toBe(true);
    await drain();
    expect(ok.verified).toHaveLength(3);
    expect(micro(before - (await balance('ok')))).toBe(micro(2 * PRICE));
  });

  it('retries a failing endpoint on the schedule, free until the attempt that succeeds', async () => {
    const before = await balance('flaky');
    // The first attempt of each of the two failed in the drain above (attempts 1 and 2 of the path).
    expect((await log('flaky')).map((e) => e.state)).toEqual(['pending', 'pending']);
    expect(await deliverer.runOnce(50)).toBe(0);
    now += RETRY_SCHEDULE_MS[0];
    await drain();
    const entries = await log('flaky');
    expect(entries.map((e) => [e.state, e.attempts])).toEqual([
      ['delivered', 2],
      ['delivered', 2],
    ]);
    expect(micro(before - (await balance('flaky')))).toBe(micro(2 * PRICE));
  });

  it('switches off an endpoint every attempt fails for a day, charges nothing, and tells the account', async () => {
    for (const step of RETRY_SCHEDULE_MS.slice(1)) {
      now += step;
      await drain();
    }
    for (const name of ['hang', 'drop', 'moved']) {
      const entries = await log(name);
      expect(
        entries.map((e) => [e.state, e.attempts]),
        name,
      ).toEqual([
        ['failed', MAX_ATTEMPTS],
        ['failed', MAX_ATTEMPTS],
      ]);
      expect(await balance(name)).toBe(10);
      const [endpoint] = await endpoints.list(accounts[name]!.accountId);
      expect(endpoint!.disabled_at).not.toBeNull();
      const mail = await wallet.store.all<{ kind: string }>(
        'SELECT kind FROM mail_queue WHERE recipient = ?',
        [accounts[name]!.email],
      );
      expect(mail.map((m) => m.kind)).toEqual(['webhook_disabled']);
    }
    expect(got.get('/moved')!.attempts).toBe(2 * MAX_ATTEMPTS);
    expect((await log('moved'))[0]!.last_error).toBe('redirect not followed');
    expect((await log('hang'))[0]!.last_error).toMatch(/no answer within 500 ms/);
  });

  it('holds events the balance cannot cover, unsent and unbilled, and sends them after a top-up', async () => {
    expect(got.get('/poor')).toBeUndefined();
    expect((await log('poor')).map((e) => e.state)).toEqual(['waiting', 'waiting']);
    const mail = await wallet.store.all<{ kind: string }>('SELECT kind FROM mail_queue WHERE recipient = ?', [
      accounts['poor']!.email,
    ]);
    expect(mail.map((m) => m.kind)).toEqual(['events_waiting']);
    await wallet.addCredits({ email: accounts['poor']!.email, amount: 20 });
    now += WAIT_FOR_CREDITS_MS;
    await drain();
    expect(got.get('/poor')!.verified).toHaveLength(2);
    expect(micro(20 - (await balance('poor')))).toBe(micro(2 * PRICE));
  });
});

describe('endpoint URLs', () => {
  it('admits public unicast addresses only', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.1',
      '172.16.5.4',
      '169.254.169.254',
      '::1',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      '100.64.0.1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('refuses loopback, http and credentials in production, with the 422 detail', async () => {
    const strict = new Endpoints(wallet.store, () => now, { allowPrivate: false });
    const { accountId } = accounts['ok']!;
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'http://example.com/hook',
      'https://u:p@example.com/',
      'nonsense',
    ]) {
      const err = await strict.create(accountId, url).catch((e: unknown) => e);
      expect(err, url).toMatchObject({
        status: 422,
        issues: [{ loc: ['body', 'url'], type: 'invalid_webhook_url' }],
      });
    }
  });
});
