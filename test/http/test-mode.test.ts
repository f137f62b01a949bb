import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import {
  TEST_WORLD_DIR,
  openTestWorld,
  testWorldStore,
  type TestWorld,
} from '../../src/services/test-world.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { Oracle } from '../helpers/oracle.ts';
import { callOk, connectClient, listen } from '../mcp/helpers.ts';
import { freshPgLocation } from '../wallet/backends.ts';
import { WALLET_BACKENDS } from '../wallet/helpers.ts';
import { buildWebApp, registeredClient } from '../web/web-app.ts';

/**
 * Issue 30 item 6, test mode, over real HTTP: one real app serves the live snapshot (the run's test world,
 * seed 7) to live keys and the server's own test-mode world (src/services/test-world.ts: seed 30, built
 * here by the module the server uses) to `rgd_test_` keys of the same account. Every answer is checked
 * against an independent DuckDB query of the snapshot it must come from, and against the other one.
 */

const P = '/api/v1/data';
const run = promisify(execFile);
const CLI = path.resolve('bin/regdata.mjs');
let liveOracle: Oracle;
let testOracle: Oracle;
let testWorld: TestWorld;
let testEngine: Engine;
let worldDir: string;

beforeAll(async () => {
  worldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-mode-'));
  testWorld = openTestWorld(worldDir);
  // Built by its first use, as a server's first test-key request builds it; callers at once share one build.
  const [first, second] = await Promise.all([testWorld.engine(), testWorld.engine()]);
  testEngine = first;
  expect(second).toBe(first);
  expect(testEngine.snapshot).not.toBeNull();
  expect(testWorldStore(worldDir).list()).toEqual([testEngine.snapshot!.id]);
  // The live store of that data folder sees nothing of it.
  expect(new SnapshotStore(worldDir).list()).toEqual([]);
  liveOracle = await Oracle.open(inject('testDataDir'));
  testOracle = await Oracle.open(path.join(worldDir, TEST_WORLD_DIR));
  // The two worlds must differ for the checks below to mean anything.
  expect(testOracle.snapshotId).not.toBe(liveOracle.snapshotId);
});

afterAll(() => {
  liveOracle?.close();
  testOracle?.close();
  testWorld?.close();
  if (worldDir) fs.rmSync(worldDir, { recursive: true, force: true });
});

/** The companies for sale (what the API serves) of one world's country, read from its Parquet file. */
async function companies(oracle: Oracle, country: 'EE' | 'SE'): Promise<number> {
  return Number(
    await oracle.scalar(
      `SELECT count(*)::INTEGER FROM ${oracle.file(country, 'companies')} WHERE NOT not_for_sale`,
    ),
  );
}

/** A registration code of one world that the other world does not have (one DuckDB query over both). */
async function onlyIn(have: Oracle, lack: Oracle, country: 'EE' | 'SE'): Promise<string> {
  const [row] = await have.rows(
    `SELECT registrikood FROM ${have.file(country, 'companies')}
     EXCEPT SELECT registrikood FROM ${lack.file(country, 'companies')} ORDER BY 1 LIMIT 1`,
  );
  if (!row) throw new Error(`every ${country} code of one world is in the other`);
  return String(row['registrikood']);
}

describe.each(WALLET_BACKENDS)('%s wallet: test keys over HTTP', (backend) => {
  let app: FastifyInstance;
  let wallet: Wallet;
  let engine: Engine;
  let walletDir: string | null = null;
  let base: string;

  beforeAll(async () => {
    const url =
      backend === 'postgres'
        ? await freshPgLocation()
        : path.join(
            (walletDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-mode-w-'))),
            'wallet.db',
          );
    engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 2 });
    wallet = await openWallet({
      dbPath: url,
      sweepIntervalMs: 0,
      rateLimit: { requestsPerMinute: 6000, burst: 1000 },
      // One token a minute after the burst: the rate test below cannot be refilled while it runs.
      testRateLimit: { requestsPerMinute: 1, burst: 40 },
    });
    app = await buildApp({ engine, testWorld, wallet, logger: false });
    const mcpUrl = await listen(app);
    base = mcpUrl.origin;
  });

  afterAll(async () => {
    await app?.close();
    engine?.close();
    await wallet?.close();
    if (walletDir) fs.rmSync(walletDir, { recursive: true, force: true });
  });

  /** A payg account with `credits`, and a live and a test key of it. */
  async function account(email: string, credits = 20) {
    const live = await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits });
    const test = await wallet.createKey({ email, kind: 'standard', mode: 'test' });
    return { live: live.key, test: test.key, email };
  }

  async function get(url: string, key: string) {
    const res = await fetch(`${base}${P}${url}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  async function ledgerState(email: string) {
    const report = await wallet.balance({ email });
    const usage = await wallet.usage({ email });
    return { balance: report.balance, pending: report.pending, credits: usage.totals.credits };
  }

  it('answers a test key from the test world and a live key from the live snapshot (DuckDB on each)', async () => {
    const { live, test } = await account('worlds@example.com');
    const [liveEe, testEe] = [await companies(liveOracle, 'EE'), await companies(testOracle, 'EE')];
    expect(liveEe).not.toBe(testEe);
    const count = async (key: string) =>
      JSON.parse((await get('/count?country=EE&status=__all__', key)).text) as { count: number };
    expect((await count(test)).count).toBe(testEe);
    expect((await count(live)).count).toBe(liveEe);

    const search = async (key: string) =>
      JSON.parse((await get('/companies?country=SE&status=__all__&page_size=5', key)).text) as {
        data: { total: number };
        meta: { snapshot_id: string; credits_charged: number };
      };
    const [s1, s2] = [await search(test), await search(live)];
    expect(s1.data.total).toBe(await companies(testOracle, 'SE'));
    expect(s1.meta).toMatchObject({ snapshot_id: testOracle.snapshotId, credits_charged: 0 });
    expect(s2.data.total).toBe(await companies(liveOracle, 'SE'));
    expect(s2.meta.snapshot_id).toBe(liveOracle.snapshotId);
    expect(s2.meta.credits_charged).toBeGreaterThan(0);
  });

  it('never lets a test key read the live snapshot, on any endpoint, and charges it nothing', async () => {
    const { test, email } = await account('no-live@example.com', 5);
    const liveOnly = await onlyIn(liveOracle, testOracle, 'EE');
    const liveOnlySe = await onlyIn(liveOracle, testOracle, 'SE');
    const testOnly = await onlyIn(testOracle, liveOracle, 'EE');
    const before = await ledgerState(email);
    const day = testEngine.snapshot!.country('EE').manifest.generated_at.slice(0, 10);

    const answers = {
      countries: await get('/countries', test),
      filters: await get('/filters?country=EE', test),
      activities: await get('/activities?country=EE', test),
      locations: await get('/locations?country=EE', test),
      count: await get('/count?country=EE', test),
      search: await get('/companies?country=EE&page_size=500&status=__all__', test),
      detail: await get(`/companies/${testOnly}?country=EE`, test),
      history: await get(`/companies/${testOnly}/history?country=EE`, test),
      changes: await get(`/changes?country=EE&since=${day}`, test),
      estimate: await get('/estimate?operation=export&country=PL&status=__all__&format=csv', test),
      export: await get('/companies/export?country=EE&status=__all__&format=ndjson', test),
    };
    const listed = JSON.parse(answers.countries.text) as { countries: { code: string; companies: number }[] };
    expect(listed.countries.find((c) => c.code === 'SE')?.companies).toBe(await companies(testOracle, 'SE'));
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, `${name}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.text, name).not.toContain(liveOracle.snapshotId);
    }
    // Metered answers name the test world's snapshot; the search is the whole test world's EE.
    for (const name of ['search', 'detail', 'history', 'changes'] as const) {
      expect((JSON.parse(answers[name].text) as { meta: object }).meta, name).toMatchObject({
        snapshot_id: testOracle.snapshotId,
        credits_charged: 0,
      });
    }
    const items = (JSON.parse(answers.search.text) as { data: { items: { registrikood: string }[] } }).data
      .items;
    const expected = await testOracle.rows(
      `SELECT registrikood FROM ${testOracle.file('EE', 'companies')} WHERE NOT not_for_sale ORDER BY 1`,
    );
    expect(items.map((i) => i.registrikood).sort()).toEqual(expected.map((r) => String(r['registrikood'])));
    const lines = answers.export.text.trimEnd().split('\n');
    const meta = (JSON.parse(lines.pop()!) as { meta: Record<string, unknown> }).meta;
    expect(lines).toHaveLength(expected.length);
    expect(meta).toMatchObject({
      snapshot_id: testOracle.snapshotId,
      credits_charged: 0,
      credits_reserved: 0,
    });
    expect(JSON.parse(answers.estimate.text)).toMatchObject({ credits_needed: 0, waiver: 'test' });

    // A live company is not there for a test key: 404, as for a code nobody has.
    expect((await get(`/companies/${liveOnly}?country=EE`, test)).status).toBe(404);
    expect((await get(`/companies/${liveOnly}/history?country=EE`, test)).status).toBe(404);
    expect((await get(`/companies/${liveOnlySe}/workplaces?country=SE`, test)).status).toBe(404);

    // 5 credits would not cover one page of 500 PL rows, let alone the export: nothing was taken.
    expect(await ledgerState(email)).toEqual(before);
  });

  it('never lets a live key read the test world', async () => {
    const { live } = await account('no-test@example.com');
    const testOnly = await onlyIn(testOracle, liveOracle, 'EE');
    expect((await get(`/companies/${testOnly}?country=EE`, live)).status).toBe(404);
    const countries = JSON.parse((await get('/countries', live)).text) as {
      countries: { code: string; companies: number }[];
    };
    const ee = countries.countries.find((c) => c.code === 'EE');
    expect(ee?.companies).toBe(await companies(liveOracle, 'EE'));
    expect(ee?.companies).not.toBe(await companies(testOracle, 'EE'));
  });

  it('serves MCP tools and a signed export link of a test key from the test world, free', async () => {
    const { live, test, email } = await account('mcp@example.com', 1);
    const before = await ledgerState(email);
    const url = new URL(`${base}/mcp`);
    const testClient = await connectClient(url, test);
    const liveClient = await connectClient(url, live);
    try {
      const counted = await callOk(testClient, 'count_companies', { country: 'EE', status: '__all__' });
      expect(counted.structuredContent).toMatchObject({ count: await companies(testOracle, 'EE') });
      const liveCounted = await callOk(liveClient, 'count_companies', { country: 'EE', status: '__all__' });
      expect(liveCounted.structuredContent).toMatchObject({ count: await companies(liveOracle, 'EE') });

      const detail = await callOk(testClient, 'get_company', {
        country: 'EE',
        registration_code: await onlyIn(testOracle, liveOracle, 'EE'),
      });
      expect(detail.structuredContent).toMatchObject({ meta: { snapshot_id: testOracle.snapshotId } });

      const linked = await callOk(testClient, 'export_companies', {
        country: 'EE',
        status: '__all__',
        format: 'ndjson',
      });
      const link = linked.structuredContent as { url: string; credits_needed: number; waiver: string };
      expect(link).toMatchObject({ credits_needed: 0, waiver: 'test' });
      // The link needs no key: it acts for the test key that asked for it, so it serves the test world.
      const download = await fetch(link.url);
      expect(download.status).toBe(200);
      const lines = (await download.text()).trimEnd().split('\n');
      const meta = (JSON.parse(lines.pop()!) as { meta: Record<string, unknown> }).meta;
      expect(lines).toHaveLength(await companies(testOracle, 'EE'));
      expect(meta).toMatchObject({ snapshot_id: testOracle.snapshotId, credits_charged: 0 });
    } finally {
      await testClient.close();
      await liveClient.close();
    }
    // One credit covers none of this at the EE price: nothing was reserved or charged.
    expect(await ledgerState(email)).toEqual(before);
  });

  it('rate-limits a test key in its own bucket: its 429 leaves the live key of the account alone', async () => {
    const { live, test } = await account('limits@example.com');
    for (let i = 0; i < 40; i++) {
      const res = await get('/countries', test);
      expect(res.status, `call ${i + 1}`).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toMatch(/q=40/);
    }
    const limited = await get('/countries', test);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    const liveRes = await get('/countries', live);
    expect(liveRes.status).toBe(200);
    expect(liveRes.headers.get('ratelimit-policy')).toMatch(/q=1000/);
  });
});

describe('startServer', () => {
  it('serves test keys from <data dir>/test-world, apart from the live store; REGDATA_TEST_MODE=false turns it off', async () => {
    // worldDir holds the test world this file built and no live snapshot at all: a live key gets 502.
    const start = (testMode: string) =>
      startServer(
        loadConfig({
          PORT: '0',
          REGDATA_DATA_DIR: worldDir,
          REGDATA_WALLET_URL: `sqlite:${path.join(worldDir, `wallet-${testMode}.db`)}`,
          REGDATA_TEST_MODE: testMode,
          LOG_LEVEL: 'silent',
          REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
        }),
        { handleSignals: false },
      );
    for (const testMode of ['true', 'false']) {
      const server = await start(testMode);
      try {
        const email = 'server@example.com';
        const live = await server.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 20 });
        const test = await server.wallet.createKey({ email, kind: 'standard', mode: 'test' });
        const count = (key: string) =>
          fetch(`${server.url}${P}/count?country=EE&status=__all__`, {
            headers: { authorization: `Bearer ${key}` },
          });
        expect((await count(live.key)).status).toBe(502);
        const res = await count(test.key);
        // Watchlists read no data: a test key manages them where test mode is on, and is refused where not.
        const watchlists = await fetch(`${server.url}/api/v1/account/watchlists`, {
          headers: { authorization: `Bearer ${test.key}` },
        });
        if (testMode === 'true') {
          expect(res.status).toBe(200);
          expect(await res.json()).toMatchObject({ count: await companies(testOracle, 'EE') });
          expect(watchlists.status).toBe(200);
        } else {
          expect(res.status).toBe(403);
          expect(watchlists.status).toBe(403);
        }
      } finally {
        await server.close();
      }
    }
  });
});

describe('test keys without a test world', () => {
  it('answers 403 and never falls back to the live snapshot', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-mode-none-'));
    const engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 1 });
    const wallet = await openWallet({ dbPath: path.join(dir, 'wallet.db'), sweepIntervalMs: 0 });
    const app = await buildApp({ engine, wallet, logger: false });
    try {
      const { key } = await wallet.createKey({ email: 't@example.com', kind: 'standard', mode: 'test' });
      for (const url of ['/countries', '/count?country=EE', '/companies?country=EE']) {
        const res = await app.inject({ url: `${P}${url}`, headers: { authorization: `Bearer ${key}` } });
        expect(res.statusCode, url).toBe(403);
        expect(res.json()).toEqual({
          detail: 'this server does not serve test keys (test mode is off); use a live key',
        });
      }
    } finally {
      await app.close();
      engine.close();
      await wallet.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the dashboard', () => {
  it('creates live and test keys, lists their kind, and the test key reads the test world', async () => {
    const t = await buildWebApp(inject('testDataDir'), { testWorld });
    try {
      const c = await registeredClient(t, 'both-kinds@test.local', 'correct horse battery');
      await c.get('/dashboard/keys');
      const made = await c.post('/dashboard/keys', { name: 'production', mode: 'live' });
      expect(made.statusCode).toBe(200);
      expect(made.body).toContain('Your new live API key');
      const liveKey = /value="(rgd_[0-9A-Za-z]{46})"/.exec(made.body)?.[1];
      const madeTest = await c.post('/dashboard/keys', { name: 'CI', mode: 'test' });
      expect(madeTest.statusCode).toBe(200);
      expect(madeTest.body).toContain('Your new test API key');
      const testKey = /value="(rgd_test_[0-9A-Za-z]{46})"/.exec(madeTest.body)?.[1];
      expect(liveKey).toBeDefined();
      expect(testKey).toBeDefined();
      const refused = await c.post('/dashboard/keys', { name: 'odd', mode: 'sandbox' });
      expect(refused.statusCode).toBe(422);

      const page = (await c.get('/dashboard/keys')).body;
      const rows = [
        ...page.matchAll(
          /<tr data-key-id="[^"]+">\s*<td><code>([^<]+)<\/code><\/td>\s*<td>(\w+)<\/td>\s*<td>([^<]*)<\/td>/g,
        ),
      ];
      expect(rows.map((r) => [r[1]!.replace(/….*/, '…'), r[2], r[3]])).toEqual([
        ['rgd_…', 'live', 'production'],
        ['rgd_test_…', 'test', 'CI'],
      ]);

      const count = await t.app.inject({
        url: `${P}/count?country=EE&status=__all__`,
        headers: { authorization: `Bearer ${testKey!}` },
      });
      expect(count.json()).toMatchObject({ count: await companies(testOracle, 'EE') });

      // The operator's CLI makes them too: --test, standard keys only (an admin test key: usage error, 2).
      const env = { ...process.env, REGDATA_WALLET_DB: t.walletPath, LOG_LEVEL: 'silent' };
      const args = [CLI, 'keys', 'create', '--email', 'both-kinds@test.local', '--kind'];
      const made2 = await run(process.execPath, [...args, 'standard', '--test', '--json'], { env });
      expect(JSON.parse(made2.stdout)).toMatchObject({ kind: 'standard', mode: 'test' });
      expect((JSON.parse(made2.stdout) as { key: string }).key).toMatch(/^rgd_test_[0-9A-Za-z]{46}$/);
      const admin = await run(process.execPath, [...args, 'admin', '--test'], { env }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(admin?.code).toBe(2);
      expect(admin?.stderr).toMatch(/an admin key cannot be a test key/);
    } finally {
      await t.close();
    }
  });
});
