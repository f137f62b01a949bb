import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import Fastify from 'fastify';
import { installHttpSemantics } from '../../src/http/http-semantics.ts';
import { rawRequest, rawSocketRequest, startRealServer, type RealServer } from './helpers/real-server.ts';

/**
 * Issue 33 item 5, over a real socket against the real server (`regdata serve --dev`, as `npm start`):
 * Host headers (RFC 9112), HEAD wherever GET is (RFC 9110) but never charging, and the REST 401's
 * WWW-Authenticate as MCP sends it (RFC 6750).
 */
const world = inject('testDataDir');
let S: RealServer;
let key: string;
const EMAIL = 'semantics@test.local';

beforeAll(async () => {
  S = await startRealServer(world, { REGDATA_DEV_MODE: 'true' });
  ({ key } = await S.wallet.createKey({ email: EMAIL, kind: 'standard', credits: 1000, plan: 'payg' }));
});
afterAll(async () => {
  await S?.stop();
});

describe('Host (RFC 9112 3.2)', () => {
  it('answers a request with two Host headers 400 with a {detail} body, and runs nothing', async () => {
    const { host } = new URL(S.url);
    const before = (await S.wallet.usage({ email: EMAIL })).records.length;
    const res = await rawSocketRequest(
      S.url,
      `GET /api/v1/data/companies?country=EE&page_size=5 HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\n` +
        `Authorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ detail: 'the request has more than one Host header' });
    expect((await S.wallet.usage({ email: EMAIL })).records.length).toBe(before);
  });

  it('still answers one Host header', async () => {
    const { host } = new URL(S.url);
    const res = await rawSocketRequest(
      S.url,
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
  });
});

describe('HEAD (RFC 9110 9.3.2)', () => {
  it('answers HEAD with the GET headers and no body on pages, static files and free endpoints', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const api = `${S.url}/api/v1/data`;
    const targets: [string, Record<string, string>][] = [
      [`${S.url}/`, {}],
      [`${S.url}/signin`, {}],
      [`${S.url}/signup`, {}],
      [`${S.url}/reset`, {}],
      [`${S.url}/dev/outbox`, {}],
      [`${S.url}/static/style.css`, {}],
      [`${S.url}/static/app.js`, {}],
      [`${S.url}/favicon.ico`, {}],
      [`${S.url}/docs`, {}],
      [`${S.url}/api/v1/openapi.json`, {}],
      [`${api}/countries`, auth],
      [`${api}/filters?country=EE`, auth],
      [`${api}/activities?country=EE`, auth],
      [`${api}/locations?country=EE&max_depth=1`, auth],
      [`${api}/count?country=EE`, auth],
      [`${api}/estimate?operation=search&country=EE`, auth],
    ];
    const before = (await S.wallet.balance({ email: EMAIL })).balance;
    for (const [url, headers] of targets) {
      const get = await rawRequest(url, { headers });
      const head = await rawRequest(url, { method: 'HEAD', headers });
      expect(head.status, url).toBe(get.status);
      expect(head.status, url).toBeLessThan(400);
      expect(head.body, url).toBe('');
      expect(head.headers['content-type'], url).toBe(get.headers['content-type']);
    }
    // Free endpoints stay free by HEAD too.
    expect((await S.wallet.balance({ email: EMAIL })).balance).toBe(before);
  });

  it('refuses HEAD on the change feed and the export (metered), with Allow: GET, and charges nothing', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const api = `${S.url}/api/v1/data`;
    const balance = async () => (await S.wallet.balance({ email: EMAIL })).balance;
    const before = await balance();
    for (const url of [
      `${api}/changes?country=EE&since_snapshot=0&page_size=50`,
      `${api}/companies/export?country=EE&format=csv&max_rows=10`,
    ]) {
      const head = await rawRequest(url, { method: 'HEAD', headers: auth });
      expect(head.status, url).toBe(405);
      expect(head.headers['allow'], url).toBe('GET');
    }
    expect(await balance()).toBe(before);
  });
});

describe('WWW-Authenticate on REST 401s (RFC 6750 3)', () => {
  it('names the Bearer scheme without a key, and invalid_token with a bad or revoked one', async () => {
    const api = `${S.url}/api/v1/data`;
    const missing = await rawRequest(`${api}/countries`);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="regdata"');
    expect(JSON.parse(missing.body)).toHaveProperty('detail');

    const bad = await rawRequest(`${api}/companies?country=EE`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toBe('Bearer realm="regdata", error="invalid_token"');

    const { key: revoked } = await S.wallet.createKey({ email: 'revoked@test.local', kind: 'standard' });
    await S.wallet.revokeKey({ key: revoked });
    const gone = await rawRequest(`${S.url}/metrics`, { headers: { authorization: `Bearer ${revoked}` } });
    expect(gone.status).toBe(401);
    expect(gone.headers['www-authenticate']).toBe('Bearer realm="regdata", error="invalid_token"');
  });

  it('sends no WWW-Authenticate with a wrong dashboard password (not a bearer challenge)', async () => {
    const page = await rawRequest(`${S.url}/signin`);
    expect(page.headers['www-authenticate']).toBeUndefined();
  });
});

describe('a metered route must refuse HEAD', () => {
  it('throws at registration of a GET route that documents a 402 without opting out of HEAD', () => {
    const app = Fastify({ logger: false, exposeHeadRoutes: true });
    installHttpSemantics(app);
    const metered = { schema: { response: { 402: { type: 'object' } } } };
    expect(() => app.get('/metered', metered, async () => ({}))).toThrow(
      /GET \/metered must set exposeHeadRoute: false/,
    );
    expect(() =>
      app.get('/opted-out', { ...metered, exposeHeadRoute: false }, async () => ({})),
    ).not.toThrow();
  });
});
