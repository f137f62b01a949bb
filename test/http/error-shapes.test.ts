import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rawSocketRequest, startRealServerWithAdmin, type RealServer } from './helpers/real-server.ts';

/**
 * Issue 16 finding 7, over a real socket against the real server: every non-2xx REST body is `{detail}`
 * with a fixed text, whatever raised it (router, body parser, Node's HTTP parser, a wrong method), with no
 * framework error code and nothing of the request echoed back.
 */

let t: RealServer & { adminKey: string };
beforeAll(async () => {
  t = await startRealServerWithAdmin(inject('testDataDir'));
});
afterAll(async () => {
  await t?.stop();
});

const FRAMEWORK_CODE = /FST_|"code"|"statusCode"|"error"/;

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${t.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${t.adminKey}`, ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** `{detail: string}` and nothing else; the text names no framework code and echoes none of `sent`. */
function expectDetail(res: { status: number; body: string }, status: number, ...sent: string[]): string {
  expect(res.status, res.body).toBe(status);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body['detail']).toBe('string');
  expect(res.body).not.toMatch(FRAMEWORK_CODE);
  for (const s of sent) expect(res.body).not.toContain(s);
  return body['detail'] as string;
}

describe('errors raised before a route runs', () => {
  it('414 for a path parameter over 100 characters, without the path or a framework code', async () => {
    const long = 'x1'.repeat(60);
    const res = await call(`/api/v1/data/companies/${long}?country=EE`);
    expectDetail(res, 414, long, '/api/v1/data/companies');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('400 for a path that is not valid percent-encoding, without echoing it', async () => {
    expectDetail(await call('/api/v1/data/companies/%zzq?country=EE'), 400, '%zzq');
  });

  it('400 for a malformed request line (an invalid method), from the HTTP parser', async () => {
    const res = await rawSocketRequest(
      t.url,
      'F@O /api/v1/data/countries HTTP/1.1\r\nHost: localhost\r\n\r\n',
    );
    expectDetail(res, 400, 'F@O');
    expect(res.head).toMatch(/content-type: application\/json/i);
  });

  it('431 for request headers over the size limit', async () => {
    const big = 'b'.repeat(20_000);
    const res = await rawSocketRequest(
      t.url,
      `GET /api/v1/data/countries HTTP/1.1\r\nHost: localhost\r\nX-Big: ${big}\r\nConnection: close\r\n\r\n`,
    );
    expectDetail(res, 431, big.slice(0, 100));
  });
});

describe('wrong method and unknown path', () => {
  it('405 with Allow for a known path with another method, on every kind of route', async () => {
    for (const [method, path, allowed] of [
      ['POST', '/api/v1/data/countries', 'GET'],
      ['DELETE', '/api/v1/data/companies?country=EE', 'GET'],
      ['PUT', '/api/v1/data/companies/10000018?country=EE', 'GET'],
      ['PATCH', '/api/v1/data/companies/10000018/history?country=EE', 'GET'],
      ['POST', '/healthz', 'GET'],
      ['POST', '/api/v1/openapi.json', 'GET'],
      ['PUT', '/mcp', 'POST'],
    ] as const) {
      const res = await call(path, { method });
      expectDetail(res, 405);
      const allow = (res.headers.get('allow') ?? '').split(', ');
      expect(allow, `${method} ${path}`).toContain(allowed);
      expect(allow).not.toContain(method);
    }
  });

  it('404 for an unknown path, without echoing it', async () => {
    expectDetail(await call('/api/v1/data/n0thing-here'), 404, 'n0thing-here');
    expectDetail(await call('/n0where', { method: 'POST' }), 404, 'n0where');
  });
});

describe('request bodies', () => {
  // The in-app search endpoints take JSON bodies; the parser runs before the session check.
  const endpoint = '/app/api/count';
  const json = { 'content-type': 'application/json' };

  it('400 for a body that is not JSON, without the parser message or the body', async () => {
    const res = await call(endpoint, { method: 'POST', headers: json, body: '{"country": EE' });
    expectDetail(res, 400, 'EE', 'Unexpected', 'position');
  });

  it('413 for a body over the limit', async () => {
    const res = await call(endpoint, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ q: 'a'.repeat(2 * 1024 * 1024) }),
    });
    expectDetail(res, 413);
  });

  it('415 for a content type nothing parses, without echoing it', async () => {
    const res = await call(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'text/x-made-up' },
      body: 'x',
    });
    expectDetail(res, 415, 'x-made-up');
  });
});
