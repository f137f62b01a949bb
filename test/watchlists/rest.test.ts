import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';
import { rawRequest } from '../http/helpers/real-server.ts';
import { publishWorld, type PublishWorld } from './publish-world.ts';

/*
 * Issue 31 over real HTTP: watchlists managed under /api/v1/account with the spec's error bodies, a real
 * publish computing their events from the server's own wallet, and the pull /api/v1/data/events charging
 * each event once at a price set here. Expected events are written from the edits of the publish.
 */

const PRICE = 0.05;
const micro = (credits: number) => Math.round(credits * 1e6);

let world: PublishWorld;
let server: StartedServer;
let codes: string[];
let published: string;

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(method: string, url: string, key: string | null, body?: unknown): Promise<Res> {
  const res = await rawRequest(`${server.url}${url}`, {
    method,
    headers: {
      ...(key !== null && { authorization: `Bearer ${key}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.body ? JSON.parse(res.body) : null };
}

let keys = 0;
async function newKey(credits = 30): Promise<{ key: string; email: string }> {
  const email = `watch-${++keys}@test.local`;
  return {
    key: (await server.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits })).key,
    email,
  };
}

beforeAll(async () => {
  world = await publishWorld(inject('testDataDir'), 'watch-rest');
  codes = world.codes;
  server = await world.serve(PRICE);
}, 180_000);

afterAll(async () => {
  await server?.close();
  world?.remove();
});

/** Publishes EE with `edits`, computing events from the server's wallet, and serves it. */
const publishEE = (edits: string[]) =>
  world.publishEE(server.engine, new Watchlists(server.wallet.store, Date.now), edits);

describe('watchlists over REST', () => {
  it('creates, lists, reads, extends, trims and deletes a list, free of charge', async () => {
    const { key, email } = await newKey();
    const before = (await server.wallet.balance({ email })).balance;
    const [a, b, c] = codes as [string, string, string];
    const created = await call('POST', '/api/v1/account/watchlists', key, {
      name: 'suppliers',
      country: 'EE',
      companies: [a, b, a],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'suppliers',
      country: 'EE',
      kind: 'companies',
      companies: 2,
    });
    expect(created.body.data.registrikoodid).toEqual([a, b].sort());
    const id = created.body.data.id as string;
    const added = await call('POST', `/api/v1/account/watchlists/${id}/companies`, key, { companies: [c] });
    expect(added.status).toBe(200);
    expect(added.body.data.registrikoodid).toEqual([a, b, c].sort());
    const removed = await call('DELETE', `/api/v1/account/watchlists/${id}/companies/${b}`, key);
    expect(removed.body.data).toEqual({ removed: 1 });
    const listed = await call('GET', '/api/v1/account/watchlists', key);
    expect(listed.body.data.items.map((w: { id: string; companies: number }) => [w.id, w.companies])).toEqual(
      [[id, 2]],
    );
    expect((await call('GET', `/api/v1/account/watchlists/${id}`, key)).body.data.registrikoodid).toEqual(
      [a, c].sort(),
    );
    const search = await call('POST', '/api/v1/account/watchlists', key, {
      name: 'private limited',
      country: 'EE',
      search: { legal_form: ['OÜ'] },
    });
    expect(search.status).toBe(201);
    expect(search.body.data).toMatchObject({ kind: 'search', search: { legal_form: ['OÜ'] }, companies: 0 });
    expect((await call('DELETE', `/api/v1/account/watchlists/${id}`, key)).status).toBe(204);
    expect((await call('GET', `/api/v1/account/watchlists/${id}`, key)).status).toBe(404);
    await call('DELETE', `/api/v1/account/watchlists/${search.body.data.id}`, key);
    expect((await server.wallet.balance({ email })).balance).toBe(before);
  });

  it('answers bad input with the spec status and detail, and stores nothing', async () => {
    const { key } = await newKey();
    const post = (body: unknown) => call('POST', '/api/v1/account/watchlists', key, body);
    const bad = await post({ name: 'x', country: 'EE', companies: [codes[0], '123'] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'companies', 1], type: 'malformed_registration_code' }),
    ]);
    const both = await post({ name: 'x', country: 'EE', companies: [codes[0]], search: {} });
    expect(both.status).toBe(422);
    const neither = await post({ name: 'x', country: 'EE' });
    expect(neither.status).toBe(422);
    const unknown = await post({ name: 'x', country: 'EE', companies: [codes[0]], colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ param: 'colour', type: 'unknown_parameter' });
    const badFilter = await post({ name: 'x', country: 'EE', search: { employees_band: ['lots'] } });
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'search']);
    const country = await post({ name: 'x', country: 'XX', companies: [codes[0]] });
    expect(country.status).toBe(422);
    expect((await call('GET', '/api/v1/account/watchlists', key)).body.data.items).toEqual([]);
    expect((await call('GET', '/api/v1/account/watchlists', null)).status).toBe(401);
    expect((await call('GET', '/api/v1/account/watchlists/wl_AAAAAAAAAAAAAAAA', key)).status).toBe(404);
    expect((await call('GET', '/api/v1/account/watchlists/nope', key)).status).toBe(422);
  });

  it("keeps one account's watchlists from another", async () => {
    const one = await newKey();
    const two = await newKey();
    const made = await call('POST', '/api/v1/account/watchlists', one.key, {
      name: 'mine',
      country: 'EE',
      companies: [codes[0]],
    });
    const id = made.body.data.id as string;
    expect((await call('GET', `/api/v1/account/watchlists/${id}`, two.key)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/account/watchlists/${id}`, two.key)).status).toBe(404);
    expect((await call('GET', `/api/v1/account/watchlists/${id}`, one.key)).status).toBe(200);
    await call('DELETE', `/api/v1/account/watchlists/${id}`, one.key);
  });
});

describe('GET /api/v1/data/events', () => {
  it('serves the events of a publish, each charged once at the row price', async () => {
    const { key, email } = await newKey(30);
    const other = await newKey(30);
    const [a, b, c, d] = codes as [string, string, string, string];
    await call('POST', '/api/v1/account/watchlists', key, { name: 'w', country: 'EE', companies: [a, b, c] });
    await call('POST', '/api/v1/account/watchlists', other.key, { name: 'o', country: 'EE', companies: [d] });
    published = await publishEE([
      `DELETE FROM stage_companies WHERE registrikood = '${a}'`,
      `UPDATE stage_companies SET arinimi = arinimi || ' Watched' WHERE registrikood = '${c}'`,
    ]);
    const before = (await server.wallet.balance({ email })).balance;
    const first = await call('GET', '/api/v1/data/events?country=EE&page_size=10', key);
    expect(first.status).toBe(200);
    const items = first.body.data.items as { registrikood: string; change: string; fields: string[] }[];
    // Events come in id order, whose hash part is not the code order: compare them by code.
    const byCode = [...items].sort((x, y) => (x.registrikood < y.registrikood ? -1 : 1));
    expect(byCode.map((e) => [e.registrikood, e.change, e.fields])).toEqual(
      [
        [a, 'removed', []],
        [c, 'changed', ['arinimi']],
      ].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    );
    expect(first.body.data.next_after).toBe((first.body.data.items as { id: string }[]).at(-1)!.id);
    expect(micro(first.body.meta.credits_charged)).toBe(micro(2 * PRICE));
    // Read again from the start: the same events, free this time.
    const again = await call('GET', '/api/v1/data/events?country=EE', key);
    expect(again.body.data.items).toEqual(first.body.data.items);
    expect(again.body.meta.credits_charged).toBe(0);
    const after = await call(
      'GET',
      `/api/v1/data/events?country=EE&after=${encodeURIComponent(first.body.data.next_after)}`,
      key,
    );
    expect(after.body.data).toMatchObject({ items: [], next_after: null });
    expect(micro(before - (await server.wallet.balance({ email })).balance)).toBe(micro(2 * PRICE));
    // The other account's list was untouched by the publish: no event of this account leaks to it.
    const theirs = await call('GET', '/api/v1/data/events?country=EE', other.key);
    expect(theirs.body.data.items).toEqual([]);
    expect(theirs.body.meta.credits_charged).toBe(0);
  });

  it('answers a cursor from before the kept events with a 422 naming the oldest, and charges nothing', async () => {
    const { key, email } = await newKey(30);
    const before = (await server.wallet.balance({ email })).balance;
    const old = await call(
      'GET',
      '/api/v1/data/events?country=EE&after=20200101T000000Z.EE.0123456789abcdef',
      key,
    );
    expect(old.status).toBe(422);
    expect(old.body.detail[0]).toMatchObject({ loc: ['query', 'after'], type: 'cursor_too_old' });
    expect(old.body.detail[0].msg).toContain(published.slice(0, 4));
    const malformed = await call('GET', '/api/v1/data/events?country=EE&after=yesterday', key);
    expect(malformed.status).toBe(422);
    const missing = await call('GET', '/api/v1/data/events', key);
    expect(missing.status).toBe(422);
    expect((await server.wallet.balance({ email })).balance).toBe(before);
  });
});

describe('webhook endpoints over REST', () => {
  it('makes an endpoint whose secret is shown once, rotates it, logs and deletes, all free', async () => {
    const { key, email } = await newKey();
    const before = (await server.wallet.balance({ email })).balance;
    // Created, never called: nothing is published while it exists.
    const made = await call('POST', '/api/v1/account/webhooks', key, { url: 'https://8.8.8.8/hooks' });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ url: 'https://8.8.8.8/hooks', disabled_at: null });
    expect(made.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = made.body.data.id as string;
    const listed = await call('GET', '/api/v1/account/webhooks', key);
    expect(listed.body.data.items).toEqual([
      {
        id,
        url: 'https://8.8.8.8/hooks',
        created_at: made.body.data.created_at,
        disabled_at: null,
        disabled_reason: null,
      },
    ]);
    const rotated = await call('POST', `/api/v1/account/webhooks/${id}/rotate-secret`, key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(made.body.data.secret);
    expect((await call('GET', `/api/v1/account/webhooks/${id}/deliveries`, key)).body.data.items).toEqual([]);
    expect((await call('POST', `/api/v1/account/webhooks/${id}/deliveries/1/replay`, key)).status).toBe(404);
    const other = await newKey();
    expect((await call('GET', `/api/v1/account/webhooks/${id}/deliveries`, other.key)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/account/webhooks/${id}`, other.key)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/account/webhooks/${id}`, key)).status).toBe(204);
    expect((await call('GET', '/api/v1/account/webhooks', key)).body.data.items).toEqual([]);
    expect((await server.wallet.balance({ email })).balance).toBe(before);
  });

  it('refuses URLs that point into private networks, with the 422 detail', async () => {
    const { key } = await newKey();
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.0.0.1/x',
      'https://169.254.169.254/latest',
      'http://8.8.8.8/x',
      'https://[::1]/x',
    ]) {
      const res = await call('POST', '/api/v1/account/webhooks', key, { url });
      expect(res.status, url).toBe(422);
      expect(res.body.detail[0], url).toMatchObject({ loc: ['body', 'url'], type: 'invalid_webhook_url' });
    }
    const unknown = await call('POST', '/api/v1/account/webhooks', key, {
      url: 'https://8.8.8.8/',
      events: 'all',
    });
    expect(unknown.status).toBe(422);
    expect((await call('GET', '/api/v1/account/webhooks', key)).body.data.items).toEqual([]);
  });
});
