import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  HttpClient,
  outboxLinks,
  rawRequest,
  startRealServer,
  startRefusal,
  tokenOf,
  type RealServer,
} from './helpers/real-server.ts';

/**
 * Issue 16, findings 1-6 and the small things, each reproduced as an attacker or a newcomer would: over
 * real HTTP against the real server (startServer, configured through the environment as `regdata serve`).
 *
 * A: a development server on loopback (`npm start`: dev mode, outbox, no REGDATA_PUBLIC_URL) behind a
 *    trusted proxy on loopback, so X-Forwarded-For names the client;
 * B: loopback with REGDATA_PUBLIC_URL=https://regdata.example (dev mode, to read its outbox);
 * C: a production-like server on a non-loopback HOST with REGDATA_PUBLIC_URL and /metrics on its own port.
 */
const world = inject('testDataDir');
const PASSWORD = 'correct horse battery';
const PUBLIC = 'https://regdata.example';

let A: RealServer;
let B: RealServer;
let C: RealServer;
/** C listens on 0.0.0.0; we reach it through loopback. */
let cUrl: string;

beforeAll(async () => {
  A = await startRealServer(world, { REGDATA_DEV_MODE: 'true', REGDATA_TRUST_PROXY: '127.0.0.1' });
  B = await startRealServer(world, { REGDATA_DEV_MODE: 'true', REGDATA_PUBLIC_URL: PUBLIC });
  C = await startRealServer(world, {
    HOST: '0.0.0.0',
    REGDATA_PUBLIC_URL: 'http://regdata.internal:8080',
    // A production server starts only with a mailer that works (this machine has no sendmail).
    REGDATA_MAILER: 'file',
    REGDATA_METRICS_PORT: '0',
  });
  cUrl = C.url.replace('0.0.0.0', '127.0.0.1');
});
afterAll(async () => {
  await Promise.all([A?.stop(), B?.stop(), C?.stop()]);
});

/** Sign up and open the e-mailed link through the server's outbox: a verified account. */
async function register(base: string, email: string, xff: string): Promise<void> {
  const c = new HttpClient(base, { 'x-forwarded-for': xff });
  await c.get('/signup');
  expect((await c.post('/signup', { email, password: PASSWORD })).status).toBe(200);
  const link = (await outboxLinks(base)).find((l) => l.includes('/verify#t='));
  await c.get('/verify');
  expect((await c.post('/verify', { token: tokenOf(link!) })).status).toBe(200);
}

/** Starts a server that must be refused; a server that does start is stopped and reported. */
const refusal = (env: Record<string, string>): Promise<string> => startRefusal(world, env);

describe('finding 1: e-mailed links come only from a configured origin', () => {
  it('ignores a forged Host on a loopback server: the reset link points at the listening address', async () => {
    await register(A.url, 'victim1@test.local', '192.0.2.1');
    const attacker = new HttpClient(A.url, { 'x-forwarded-for': '192.0.2.2' });
    await attacker.get('/reset', { host: 'evil.example' });
    const res = await attacker.post('/reset', { email: 'victim1@test.local' }, { host: 'evil.example' });
    expect(res.status).toBe(200);
    const link = (await outboxLinks(A.url))[0]!;
    expect(link).toMatch(new RegExp(`^${A.url}/reset/confirm#t=`));
    expect(link).not.toContain('evil.example');
  });

  it('builds every link from REGDATA_PUBLIC_URL when it is set, whatever the Host', async () => {
    await register(B.url, 'victim2@test.local', '192.0.2.3');
    const c = new HttpClient(B.url);
    await c.get('/reset', { host: 'evil.example' });
    expect((await c.post('/reset', { email: 'victim2@test.local' }, { host: 'evil.example' })).status).toBe(
      200,
    );
    expect((await outboxLinks(B.url))[0]).toMatch(/^https:\/\/regdata\.example\/reset\/confirm#t=/);
  });

  it('refuses to start on a non-loopback HOST without REGDATA_PUBLIC_URL', async () => {
    expect(await refusal({ HOST: '0.0.0.0', REGDATA_MAILER: 'sendmail' })).toMatch(
      /refusing to start: HOST=0\.0\.0\.0 is not a loopback address.*REGDATA_PUBLIC_URL/,
    );
  });
});

describe('finding 2: the outbox only in development mode on loopback', () => {
  it('serves no outbox without development mode (its mailer is not the outbox)', async () => {
    expect((await rawRequest(`${cUrl}/dev/outbox`)).status).toBe(404);
  });

  it('refuses the outbox mailer outside development mode, and development mode off loopback', async () => {
    expect(await refusal({ REGDATA_MAILER: 'outbox' })).toMatch(
      /REGDATA_MAILER=outbox .* needs development mode/,
    );
    const offLoopback = await refusal({
      HOST: '0.0.0.0',
      REGDATA_PUBLIC_URL: PUBLIC,
      REGDATA_MAILER: 'outbox',
    });
    expect(offLoopback).toMatch(/refusing to start/);
    expect(offLoopback).toMatch(/outbox/);
    expect(await refusal({ HOST: '0.0.0.0', REGDATA_PUBLIC_URL: PUBLIC, REGDATA_DEV_MODE: 'true' })).toMatch(
      /development mode .* runs only on a loopback HOST/,
    );
  });

  it('answers the outbox only to a loopback host name (no DNS rebinding)', async () => {
    expect((await rawRequest(`${A.url}/dev/outbox`)).status).toBe(200);
    const rebound = await rawRequest(`${A.url}/dev/outbox`, { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('#t=');
  });
});

describe('finding 3: HEAD never charges', () => {
  it('answers HEAD on every metered route without running it; GET on the same URLs charges', async () => {
    const { key } = await A.wallet.createKey({
      email: 'head@test.local',
      kind: 'standard',
      credits: 1000,
      plan: 'payg',
    });
    const auth = { authorization: `Bearer ${key}` };
    const api = `${A.url}/api/v1/data`;
    const balance = async () => (await A.wallet.balance({ email: 'head@test.local' })).balance;

    const search = await rawRequest(`${api}/companies?country=SE&page_size=100`, { headers: auth });
    expect(search.status).toBe(200);
    const items = (JSON.parse(search.body) as { data: { items: { registrikood: string }[] } }).data.items;
    const code = encodeURIComponent(items[0]!.registrikood);
    const urls = [
      `${api}/companies?country=SE&page_size=100`,
      `${api}/companies/${code}?country=SE`,
      `${api}/companies/${code}/history?country=SE`,
      `${api}/companies/${code}/workplaces?country=SE`,
    ];
    const before = await balance();
    const usageBefore = (await A.wallet.usage({ email: 'head@test.local' })).records.length;
    for (const url of urls) {
      const head = await rawRequest(url, { method: 'HEAD', headers: auth });
      expect(head.status, url).not.toBe(200);
      if (head.status === 405) expect(String(head.headers['allow'])).toContain('GET');
    }
    expect(await balance()).toBe(before);
    expect((await A.wallet.usage({ email: 'head@test.local' })).records.length).toBe(usageBefore);

    // The same search by GET is charged: the HEAD above was refused, not free by accident.
    expect((await rawRequest(urls[0]!, { headers: auth })).status).toBe(200);
    expect(await balance()).toBeLessThan(before);
    // HEAD stays available where nothing is charged.
    expect((await rawRequest(`${A.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('finding 4: mail is throttled per address and per client', () => {
  it('refuses a 4th mail for one address within the hour (the sign-up mail counts), whatever the client', async () => {
    await register(A.url, 'flood@test.local', '192.0.2.20');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const c = new HttpClient(A.url, { 'x-forwarded-for': `198.51.100.${10 + i}` });
      await c.get('/reset');
      const res = await c.post('/reset', { email: 'flood@test.local' });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('refuses an 11th mail-sending request from one client within the hour (sign-up shares the budget)', async () => {
    const c = new HttpClient(A.url, { 'x-forwarded-for': '198.51.100.99' });
    await c.get('/reset');
    for (let i = 0; i < 10; i++) {
      expect((await c.post('/reset', { email: `nobody${i}@test.local` })).status).toBe(200);
    }
    expect((await c.post('/reset', { email: 'nobody10@test.local' })).status).toBe(429);
    await c.get('/signup');
    expect((await c.post('/signup', { email: 'fresh@test.local', password: PASSWORD })).status).toBe(429);
  });

  it('keeps only one live reset link per user: a newer one voids the older', async () => {
    await register(A.url, 'twice@test.local', '192.0.2.30');
    const links: string[] = [];
    for (const xff of ['203.0.113.1', '203.0.113.2']) {
      const c = new HttpClient(A.url, { 'x-forwarded-for': xff });
      await c.get('/reset');
      await c.post('/reset', { email: 'twice@test.local' });
      links.push((await outboxLinks(A.url)).find((l) => l.includes('/reset/confirm#t='))!);
    }
    expect(links[0]).not.toBe(links[1]);
    const c = new HttpClient(A.url, { 'x-forwarded-for': '203.0.113.3' });
    await c.get('/reset/confirm');
    expect(
      (await c.post('/reset/confirm', { token: tokenOf(links[0]!), password: 'a new password 1' })).status,
    ).toBe(400);
    expect(
      (await c.post('/reset/confirm', { token: tokenOf(links[1]!), password: 'a new password 2' })).status,
    ).toBe(200);
  });
});

describe('finding 5: a fair lockout', () => {
  it("behind a trusted proxy, one client's failures do not stop another client signing in", async () => {
    // 21 to 31 scrypt checks: the test's time limit is generous for a loaded machine (no timing target).
    await register(A.url, 'bystander@test.local', '192.0.2.40');
    const attacker = new HttpClient(A.url, { 'x-forwarded-for': '198.51.100.66' });
    await attacker.get('/signin');
    for (let i = 0; i < 31; i++) {
      const res = await attacker.post('/signin', {
        email: `target${i}@test.local`,
        password: 'wrong guess!',
      });
      expect([401, 429]).toContain(res.status);
    }
    // The attacker is slowed down ...
    expect((await attacker.post('/signin', { email: 'target0@test.local', password: 'wrong' })).status).toBe(
      429,
    );
    // ... and the bystander, through the same proxy, is not.
    const bystander = new HttpClient(A.url, { 'x-forwarded-for': '192.0.2.41' });
    await bystander.get('/signin');
    expect(
      (await bystander.post('/signin', { email: 'bystander@test.local', password: PASSWORD })).status,
    ).toBe(303);
  }, 240_000);

  it('delays, not locks: after 5 wrong passwords the owner gets in with the right one after a short wait', async () => {
    // On B no proxy is trusted: guesser and owner are the same client address, as in the report.
    await register(B.url, 'owner@test.local', '192.0.2.50');
    const guesser = new HttpClient(B.url, { 'x-forwarded-for': '198.51.100.77' });
    await guesser.get('/signin');
    for (let i = 0; i < 5; i++) {
      expect(
        (await guesser.post('/signin', { email: 'owner@test.local', password: `guess-${i}-xxxx` })).status,
      ).toBe(401);
    }
    const owner = new HttpClient(B.url, { 'x-forwarded-for': '192.0.2.51' });
    await owner.get('/signin');
    let res = await owner.post('/signin', { email: 'owner@test.local', password: PASSWORD });
    if (res.status === 429) {
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, wait * 1000 + 100));
      res = await owner.post('/signin', { email: 'owner@test.local', password: PASSWORD });
    }
    expect(res.status).toBe(303);
  });

  it('reads REGDATA_TRUST_PROXY in the forms fastify knows, and refuses anything else', async () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ REGDATA_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ REGDATA_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ REGDATA_TRUST_PROXY: '10.0.0.0/8, ::1,127.0.0.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      '127.0.0.1',
    ]);
    expect(() => loadConfig({ REGDATA_TRUST_PROXY: 'proxy.example' })).toThrow(/REGDATA_TRUST_PROXY/);
    expect(() => loadConfig({ REGDATA_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/REGDATA_TRUST_PROXY/);
  });
});

describe('finding 6: cookies and headers', () => {
  it('sets Secure __Host- cookies unless the server is on loopback over plain http', async () => {
    const prod = new HttpClient(cUrl);
    await prod.get('/signin');
    const csrf = prod.lastSetCookies.find((c) => c.includes('rd_csrf'))!;
    expect(csrf).toMatch(/^__Host-rd_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    expect(csrf).toMatch(/; Secure/);
    expect(csrf).not.toMatch(/Domain=/i);

    const dev = new HttpClient(A.url);
    await dev.get('/signin');
    expect(dev.lastSetCookies.find((c) => c.includes('rd_csrf'))).toMatch(/^rd_csrf=[^;]+;(?!.*Secure)/);
  });

  it('signs in with __Host- cookies behind an https REGDATA_PUBLIC_URL', async () => {
    await register(B.url, 'hostcookie@test.local', '192.0.2.60');
    const c = new HttpClient(B.url);
    await c.get('/signin');
    const res = await c.post('/signin', { email: 'hostcookie@test.local', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers['set-cookie']!.join('\n')).toMatch(
      /^__Host-rd_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/m,
    );
    const dashboard = await c.get('/dashboard');
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain('hostcookie@test.local');
  });

  it('sends the security headers on every response: /docs, JSON, errors, 404, pages', async () => {
    const { key } = await A.wallet.createKey({ email: 'headers@test.local', kind: 'standard', credits: 10 });
    const auth = { authorization: `Bearer ${key}` };
    const checks: [string, Record<string, string>][] = [
      ['/docs/', {}],
      ['/docs/static/index.html', {}],
      ['/api/v1/openapi.json', {}],
      ['/api/v1/data/countries', auth],
      ['/api/v1/data/countries', {}],
      ['/api/v1/data/companies?country=XX', auth],
      ['/no/such/path', {}],
      ['/healthz', {}],
      ['/signin', {}],
    ];
    for (const [url, headers] of checks) {
      const res = await rawRequest(`${A.url}${url}`, { headers });
      const where = `${url} (${res.status})`;
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['x-frame-options'], where).toBe('DENY');
      expect(res.headers['content-security-policy'], where).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['referrer-policy'], where).toBeTruthy();
      if (String(res.headers['content-type']).startsWith('text/html')) {
        expect(res.headers['content-security-policy'], where).toMatch(/script-src 'self'/);
      }
    }
  });

  it('serves /metrics only to admin keys, or only on its own port', async () => {
    const admin = (await A.wallet.createKey({ email: 'ops@test.local', kind: 'admin' })).key;
    const standard = (await A.wallet.createKey({ email: 'user@test.local', kind: 'standard' })).key;
    expect((await rawRequest(`${A.url}/metrics`)).status).toBe(401);
    expect(
      (await rawRequest(`${A.url}/metrics`, { headers: { authorization: `Bearer ${standard}` } })).status,
    ).toBe(403);
    const ok = await rawRequest(`${A.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('regdata_http_requests_total');

    const cAdmin = (await C.wallet.createKey({ email: 'ops@test.local', kind: 'admin' })).key;
    expect(
      (await rawRequest(`${cUrl}/metrics`, { headers: { authorization: `Bearer ${cAdmin}` } })).status,
    ).toBe(404);
    expect(C.metricsUrl).not.toBeNull();
    const own = await rawRequest(`${C.metricsUrl!.replace('0.0.0.0', '127.0.0.1')}/metrics`);
    expect(own.status).toBe(200);
    expect(own.body).toContain('regdata_snapshot_loaded 1');
  });

  it('answers /healthz with the status alone, and the details only to an admin key', async () => {
    const res = await rawRequest(`${A.url}/healthz`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
    const standard = (await A.wallet.createKey({ email: 'user2@test.local', kind: 'standard' })).key;
    const asUser = await rawRequest(`${A.url}/healthz`, { headers: { authorization: `Bearer ${standard}` } });
    expect(JSON.parse(asUser.body)).toEqual({ status: 'ok' });
    const admin = (await A.wallet.createKey({ email: 'ops2@test.local', kind: 'admin' })).key;
    const detailed = JSON.parse(
      (await rawRequest(`${A.url}/healthz`, { headers: { authorization: `Bearer ${admin}` } })).body,
    ) as { status: string; snapshot_id: string; countries: Record<string, unknown> };
    expect(detailed.status).toBe('ok');
    expect(detailed.snapshot_id).toBeTruthy();
    expect(Object.keys(detailed.countries).sort()).toEqual(['EE', 'FI', 'LT', 'LV', 'NO', 'PL', 'SE']);
  });
});

describe('small things', () => {
  it('regdata --version prints the package version', async () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    const { stdout } = await promisify(execFile)(process.execPath, [
      path.resolve('bin/regdata.mjs'),
      '--version',
    ]);
    expect(stdout.trim()).toBe(`regdata ${pkg.version}`);
  });
});
