import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { buildWebApp, Client, linkToken, registeredClient, type WebTestApp } from './web-app.ts';

/** The dashboard's security properties as named tests (issue 9), on the real app and a real wallet.db. */
describe('dashboard security', () => {
  let t: WebTestApp;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a form post without the CSRF token, with a wrong one, or from another origin; nothing happens', async () => {
    const c = await registeredClient(t, 'csrf@test.local', 'correct horse battery');
    const accountId = (await t.identity.session(c.cookies.get('rd_session')))!.accountId!;
    for (const attempt of [
      { csrf: null },
      { csrf: 'x'.repeat(43) },
      { headers: { origin: 'https://evil.example' } },
    ] as const) {
      const res = await c.post('/dashboard/keys', { name: 'sneaky' }, attempt);
      expect(res.statusCode).toBe(403);
    }
    expect(await t.wallet.accountKeys(accountId)).toEqual([]);
    // The same token from the page works: the refusals above were the CSRF check, not something else.
    const ok = await c.post('/dashboard/keys', { name: 'mine' });
    expect(ok.statusCode).toBe(200);
    expect((await t.wallet.accountKeys(accountId)).map((k) => k.name)).toEqual(['mine']);
  });

  it('refuses in-app JSON calls without the CSRF header, and charges nothing', async () => {
    const c = await registeredClient(t, 'csrf-json@test.local', 'correct horse battery');
    const accountId = (await t.identity.session(c.cookies.get('rd_session')))!.accountId!;
    const before = (await t.wallet.balance({ accountId })).balance;
    const res = await c.json(
      '/app/api/search',
      { params: { country: 'EE', page_size: '5' } },
      { csrf: null },
    );
    expect(res.statusCode).toBe(403);
    expect((await c.json('/app/api/filters?country=EE', undefined, { csrf: null })).statusCode).toBe(403);
    expect((await t.wallet.balance({ accountId })).balance).toBe(before);
  });

  it('refuses the sign-in form itself without the anonymous CSRF token (login CSRF)', async () => {
    await registeredClient(t, 'login-csrf@test.local', 'correct horse battery');
    const c = new Client(t.app);
    await c.get('/signin');
    const res = await c.post(
      '/signin',
      { email: 'login-csrf@test.local', password: 'correct horse battery' },
      { csrf: null },
    );
    expect(res.statusCode).toBe(403);
    expect(c.cookies.has('rd_session')).toBe(false);
  });

  it('never adopts a session id chosen before sign-in (session fixation), and re-sign-in ends the old session', async () => {
    await registeredClient(t, 'fixation@test.local', 'correct horse battery');
    const c = new Client(t.app);
    const planted = 'A'.repeat(43);
    c.cookies.set('rd_session', planted);
    await c.get('/signin');
    // The unknown planted value is cleared, not kept.
    expect(c.cookies.has('rd_session')).toBe(false);
    c.cookies.set('rd_session', planted);
    const res = await c.post('/signin', { email: 'fixation@test.local', password: 'correct horse battery' });
    expect(res.statusCode).toBe(303);
    const first = c.cookies.get('rd_session')!;
    expect(first).not.toBe(planted);
    expect(await t.identity.session(planted)).toBeNull();
    expect((await t.identity.session(first))?.email).toBe('fixation@test.local');

    // Signing in again from the same browser replaces the session; the previous id stops working.
    await c.get('/signin');
    await c.post('/signin', { email: 'fixation@test.local', password: 'correct horse battery' });
    const second = c.cookies.get('rd_session')!;
    expect(second).not.toBe(first);
    expect(await t.identity.session(first)).toBeNull();
  });

  it("never shows or touches another account's keys or usage (object-level authorization)", async () => {
    const alice = await registeredClient(t, 'alice@test.local', 'correct horse battery');
    const bob = await registeredClient(t, 'bob@test.local', 'correct horse battery');
    const bobAccount = (await t.identity.session(bob.cookies.get('rd_session')))!.accountId!;
    await bob.post('/dashboard/keys', { name: 'bob-secret-name' });
    const bobKey = (await t.wallet.accountKeys(bobAccount))[0]!;
    // Bob spends through the in-app search: his usage, his balance.
    const search = await bob.json('/app/api/search', { params: { country: 'EE', page_size: '3' } });
    expect(search.statusCode).toBe(200);

    const keysPage = await alice.get('/dashboard/keys');
    expect(keysPage.body).not.toContain(bobKey.keyId);
    expect(keysPage.body).not.toContain('bob-secret-name');
    const overview = await alice.get('/dashboard');
    expect(overview.body).toContain('No metered calls in this period.');

    const revoke = await alice.post(`/dashboard/keys/${bobKey.keyId}/revoke`, {});
    expect(revoke.statusCode).toBe(404);
    expect((await t.wallet.accountKeys(bobAccount))[0]!.revokedAt).toBeNull();
    // Nor can anyone revoke the internal in-app key through the dashboard.
    const appKeyId = (await t.wallet.appPrincipal(bobAccount)).keyId;
    expect((await bob.post(`/dashboard/keys/${appKeyId}/revoke`, {})).statusCode).toBe(404);
  });

  it('a session never grants API access: the REST API still wants a bearer key', async () => {
    const c = await registeredClient(t, 'cookie-api@test.local', 'correct horse battery');
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/data/countries',
      headers: { cookie: c.cookieHeader },
    });
    expect(res.statusCode).toBe(401);
  });

  it('delays an e-mail after 5 failed sign-ins: the right password waits, then works (issue 16: a delay, not a lock)', async () => {
    await registeredClient(t, 'brute@test.local', 'correct horse battery');
    const c = new Client(t.app);
    await c.get('/signin');
    for (let i = 0; i < 5; i++) {
      expect(
        (await c.post('/signin', { email: 'brute@test.local', password: `guess-number-${i}` })).statusCode,
      ).toBe(401);
    }
    // The right password is refused until the wait is over (1 s after the 5th failure), then accepted.
    let res = await c.post('/signin', { email: 'brute@test.local', password: 'correct horse battery' });
    if (res.statusCode === 429) {
      expect(c.cookies.has('rd_session')).toBe(false);
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBe(1);
      await new Promise((r) => setTimeout(r, wait * 1000 + 50));
      res = await c.post('/signin', { email: 'brute@test.local', password: 'correct horse battery' });
    }
    expect(res.statusCode).toBe(303);
    expect(c.cookies.has('rd_session')).toBe(true);
  });

  it('never writes a password to the log or the database', async () => {
    const passwords = ['first-Secret-pw-1', 'wrong-Secret-pw-2', 'reset-Secret-pw-3'];
    const c = await registeredClient(t, 'nolog@test.local', passwords[0]!);
    await c.post('/signout', {});
    await c.get('/signin');
    await c.post('/signin', { email: 'nolog@test.local', password: passwords[1]! });
    await c.get('/reset');
    await c.post('/reset', { email: 'nolog@test.local' });
    const token = await linkToken(t, 'nolog@test.local', 'reset/confirm');
    await c.get('/reset/confirm');
    expect((await c.post('/reset/confirm', { token, password: passwords[2]! })).statusCode).toBe(200);
    const signedIn = await c.post('/signin', { email: 'nolog@test.local', password: passwords[2]! });
    expect(signedIn.body).toBe('');
    expect(c.cookies.has('rd_session')).toBe(true);

    const logText = t.logs.join('');
    expect(t.logs.length).toBeGreaterThan(10);
    const db = new Database(t.walletPath, { readonly: true });
    const dump = JSON.stringify(db.prepare('SELECT * FROM users').all());
    db.close();
    const files = fs
      .readdirSync(t.walletPath.replace(/wallet\.db$/, ''))
      .map((f) => fs.readFileSync(t.walletPath.replace(/wallet\.db$/, f)).toString('latin1'));
    for (const pw of passwords) {
      expect(logText).not.toContain(pw);
      expect(dump).not.toContain(pw);
      for (const f of files) expect(f).not.toContain(pw);
    }
    // Nor the e-mailed tokens, which are secrets too (they travel in the URL fragment).
    expect(logText).not.toContain(token);
    expect(logText).not.toContain(await linkToken(t, 'nolog@test.local', 'verify'));
  });
});

describe('dashboard assets', () => {
  let t: WebTestApp;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('links script, style and icon by a hash of their bytes: cached for good there, revalidated elsewhere', async () => {
    const page = (await t.app.inject({ url: '/signin' })).body;
    const linked = [...page.matchAll(/(?:href|src)="(\/static\/([\w.-]+)\?v=([0-9a-f]+))"/g)];
    expect(linked.map((m) => m[2]).sort()).toEqual(['favicon.svg', 'style.css']);
    for (const [, url, name, v] of linked) {
      const bytes = fs.readFileSync(new URL(`../../src/web/static/${name}`, import.meta.url));
      // The hash is the file's own, computed here independently.
      expect(v).toBe(crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16));
      const res = await t.app.inject({ url: url! });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(bytes)).toBe(true);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const again = await t.app.inject({
        url: url!,
        headers: { 'if-none-match': res.headers['etag'] as string },
      });
      expect([again.statusCode, again.body]).toEqual([304, '']);
      // An old or missing hash may be any version: the browser must ask again.
      for (const other of [`/static/${name}`, `/static/${name}?v=0000000000000000`]) {
        const r = await t.app.inject({ url: other });
        expect([r.statusCode, r.headers['cache-control']]).toEqual([200, 'no-cache']);
      }
    }
    const c = await registeredClient(t, 'assets@test.local', 'correct horse battery');
    const search = (await c.get('/search')).body;
    expect(search).toMatch(/<script type="module" src="\/static\/app\.js\?v=[0-9a-f]{16}"><\/script>/);
  });

  it('serves the script as ES modules whose imports name the hash of what they import', async () => {
    const c = await registeredClient(t, 'modules@test.local', 'correct horse battery');
    const search = (await c.get('/search')).body;
    const entry = /<script type="module" src="(\/static\/app\.js\?v=[0-9a-f]{16})">/.exec(search)![1]!;
    const preloaded = [...search.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!);
    // Every module is reached from the entry through its imports; each import carries the hash of the
    // module it names, computed here from the bytes served, and the file's text is the served text with
    // those hashes taken out (no other change: no build step).
    const seen = new Set<string>();
    const visit = async (url: string): Promise<void> => {
      if (seen.has(url)) return;
      seen.add(url);
      const res = await t.app.inject({ url });
      expect([url, res.statusCode, res.headers['cache-control']]).toEqual([
        url,
        200,
        'public, max-age=31536000, immutable',
      ]);
      const [path, v] = url.split('?v=') as [string, string];
      expect(crypto.createHash('sha256').update(res.rawPayload).digest('hex').slice(0, 16)).toBe(v);
      const file = fs.readFileSync(new URL(`../../src/web${path}`, import.meta.url), 'utf8');
      expect(res.body.replace(/(['"])(\.\.?\/[^'"?]+)\?v=[0-9a-f]{16}\1/g, '$1$2$1')).toBe(file);
      const imports = [...res.body.matchAll(/(?:from|import)\s*\(?\s*['"](\.\.?\/[^'"]+)['"]/g)];
      for (const m of imports) {
        expect(m[1]).toMatch(/\.js\?v=[0-9a-f]{16}$/);
        const target = new URL(m[1]!, `http://x${url}`);
        await visit(target.pathname + target.search);
      }
    };
    await visit(entry);
    const files = fs
      .readdirSync(new URL('../../src/web/static/', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => `/static/${f.split('\\').join('/')}`);
    expect([...seen].map((u) => u.split('?')[0]).sort()).toEqual(files.sort());
    // The page preloads exactly those URLs, so the browser fetches them at once.
    expect(preloaded.sort()).toEqual([...seen].sort());
    // Helmet's and the pages' CSP allow them: same origin, no inline script.
    const csp = String((await c.get('/search')).headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(search).not.toMatch(/<script(?![^>]*\bsrc=)(?![^>]*type="application\/json")[^>]*>/);
    expect((await t.app.inject({ url: '/static/nothing.js' })).statusCode).toBe(404);
  });
});
