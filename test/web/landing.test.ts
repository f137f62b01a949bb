import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWebApp, registeredClient, type WebTestApp } from './web-app.ts';

/**
 * Issue 30 item 8: the public front page shows what a row costs per country and one example request with
 * its answer. The prices must be the ones charged (spec 8.2), and the example a real request: the same
 * call with an API key answers the same body.
 */

/** Spec 8.2, typed from the spec's own table: the test's independent copy. */
const SPEC_ROW_PRICES = { EE: 0.04, FI: 0.04, PL: 0.04, LV: 0.08, LT: 0.08, NO: 0.1, SE: 0.24 };

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('landing page', () => {
  let t: WebTestApp;
  let page: string;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
    const res = await t.app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    page = res.body;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the row price of every country as spec 8.2 sets it, with the plans', () => {
    const rows = [
      ...page.matchAll(/<th scope="row">[^<]*\((\w\w)\)<\/th>\s*<td data-price="([\d.]+)">([^<]*)<\/td>/g),
    ];
    expect(Object.fromEntries(rows.map((m) => [m[1], Number(m[2])]))).toEqual(SPEC_ROW_PRICES);
    // What the reader sees is the price, with at least cents: "0.10", not "0.1".
    expect(Object.fromEntries(rows.map((m) => [m[1], m[3]!.trim()]))).toEqual({
      EE: '0.04',
      FI: '0.04',
      PL: '0.04',
      LV: '0.08',
      LT: '0.08',
      NO: '0.10',
      SE: '0.24',
    });
    const text = page.replace(/\s+/g, ' ');
    expect(text).toContain('A country plan (300 € a month)');
    expect(text).toContain('Unlimited plan (1500 € a month)');
  });

  it('shows a real request and the answer the API gives to it', async () => {
    const [request, answer] = [
      ...page.matchAll(/<pre class="example" tabindex="0"><code>([^<]*)<\/code><\/pre>/g),
    ].map((m) => unescape(m[1]!));
    const url =
      /^curl -H "Authorization: Bearer YOUR_KEY" \\\n {2}"http:\/\/[^/"]+(\/api\/v1\/data\/[^"]+)"$/.exec(
        request!,
      );
    expect(url).not.toBeNull();
    const key = (await t.wallet.createKey({ email: 'landing@test.local', kind: 'standard' })).key;
    const res = await t.app.inject({ url: url![1]!, headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    const shown = JSON.parse(answer!) as { count: number };
    expect(shown).toEqual(res.json());
    // A count of nothing would be a poor example.
    expect(shown.count).toBeGreaterThan(0);
    expect(page.replace(/\s+/g, ' ')).toContain(
      `(as of <span class="nowrap">${res.headers['data-as-of']}</span>)`,
    );
  });

  it('sends a signed-in visitor to the dashboard', async () => {
    const c = await registeredClient(t, 'landing-in@test.local', 'correct horse battery');
    const res = await c.get('/');
    expect([res.statusCode, res.headers['location']]).toEqual([303, '/dashboard']);
  });
});
