import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';
import { buildTestApp } from '../helpers/app.ts';
import { rawRequest } from '../http/helpers/real-server.ts';
import { publishWorld, type PublishWorld } from '../watchlists/publish-world.ts';
import { TOOL_NAMES, callFail, callOk, connectClient, listen } from './helpers.ts';

/*
 * Issue 31 over MCP: the SDK's client against a real server on a socket. manage_watchlists answers what
 * the REST routes answer and charges nothing; list_events pulls the events of a real publish, charged as
 * REST charges them (each event once per account, whichever channel pulls it first). Expected events
 * are written from the edits of the publish.
 */

const PRICE = 0.05;
const micro = (credits: number) => Math.round(credits * 1e6);

let world: PublishWorld;
let server: StartedServer;
let codes: string[];
const clients: Client[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rest(method: string, url: string, key: string, body?: unknown): Promise<any> {
  const res = await rawRequest(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.body ? JSON.parse(res.body) : null };
}

let n = 0;
async function account(credits = 30) {
  const email = `mcp-watch-${++n}@test.local`;
  const { key } = await server.wallet.createKey({ email, kind: 'standard', plan: 'payg', credits });
  const client = await connectClient(new URL(`${server.url}/mcp`), key);
  clients.push(client);
  const balance = async () => (await server.wallet.balance({ email })).balance;
  return { key, client, balance };
}

const manage = (client: Client, args: Record<string, unknown>) => callOk(client, 'manage_watchlists', args);

beforeAll(async () => {
  world = await publishWorld(inject('testDataDir'), 'watch-mcp');
  codes = world.codes;
  server = await world.serve(PRICE);
}, 180_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.close();
  world?.remove();
});

describe('manage_watchlists', () => {
  it('creates over MCP what REST reads, and reads what REST created, free of charge', async () => {
    const { key, client, balance } = await account();
    const before = await balance();
    const [a, b, c] = codes as [string, string, string];
    const made = await manage(client, {
      action: 'create',
      name: 'suppliers',
      country: 'EE',
      companies: [b, a],
    });
    const id = (made.structuredContent as { data: { id: string } }).data.id;
    expect(made.structuredContent).toEqual((await rest('GET', `/api/v1/account/watchlists/${id}`, key)).body);
    expect(made.content[0]).toMatchObject({
      text: expect.stringContaining(`${id} "suppliers" EE: list of 2`),
    });

    const viaRest = await rest('POST', '/api/v1/account/watchlists', key, {
      name: 'OÜ',
      country: 'EE',
      search: { legal_form: ['OÜ'] },
    });
    expect(viaRest.status).toBe(201);
    const shown = await manage(client, { action: 'show', id: viaRest.body.data.id });
    expect(shown.structuredContent).toEqual(viaRest.body);
    expect(shown.content[0]).toMatchObject({ text: expect.stringContaining('saved search legal_form: OÜ') });

    const listed = await manage(client, { action: 'list' });
    expect(listed.structuredContent).toEqual((await rest('GET', '/api/v1/account/watchlists', key)).body);

    const added = await manage(client, { action: 'add_companies', id, companies: [c, a] });
    expect((added.structuredContent as { data: { registrikoodid: string[] } }).data.registrikoodid).toEqual(
      [a, b, c].sort(),
    );
    const removed = await manage(client, { action: 'remove_companies', id, companies: [b, codes[3]] });
    expect(removed.structuredContent).toEqual({ data: { removed: 1 } });
    expect((await rest('GET', `/api/v1/account/watchlists/${id}`, key)).body.data.registrikoodid).toEqual(
      [a, c].sort(),
    );
    expect((await manage(client, { action: 'delete', id })).structuredContent).toEqual({
      data: { deleted: id },
    });
    expect((await rest('GET', `/api/v1/account/watchlists/${id}`, key)).status).toBe(404);
    expect(await balance()).toBe(before);
  });

  it('answers bad arguments with the 422 detail REST gives, located in arguments, and stores nothing', async () => {
    const { key, client, balance } = await account();
    const before = await balance();
    const bodies: Record<string, unknown>[] = [
      { name: 'x', country: 'EE', companies: [codes[0], '123'] },
      { name: 'x', country: 'EE', companies: [codes[0]], search: {} },
      { name: 'x', country: 'EE' },
      { name: 'x', country: 'EE', search: { employees_band: ['lots'] } },
      { name: 'x', country: 'XX', companies: [codes[0]] },
    ];
    for (const body of bodies) {
      const viaRest = await rest('POST', '/api/v1/account/watchlists', key, body);
      expect(viaRest.status).toBe(422);
      const failed = await callFail(client, 'manage_watchlists', { action: 'create', ...body });
      expect(failed.status, JSON.stringify(body)).toBe(422);
      const asRest = (failed.detail as { loc: unknown[] }[]).map((i) => ({
        ...i,
        loc: ['body', ...i.loc.slice(1)],
      }));
      expect(asRest, JSON.stringify(body)).toEqual(viaRest.body.detail);
    }
    expect((await callFail(client, 'manage_watchlists', { action: 'show' })).detail).toEqual([
      { loc: ['arguments', 'id'], param: 'id', msg: 'required by action show', type: 'missing' },
    ]);
    const stray = await callFail(client, 'manage_watchlists', { action: 'list', name: 'x' });
    expect(stray).toMatchObject({ status: 422, detail: [{ param: 'name', type: 'unknown_parameter' }] });
    const unknown = await callFail(client, 'manage_watchlists', { action: 'list', colour: 'red' });
    expect(unknown).toMatchObject({ status: 422, detail: [{ param: 'colour', type: 'unknown_parameter' }] });
    expect((await callFail(client, 'manage_watchlists', { action: 'rename' })).status).toBe(422);
    const missing = await callFail(client, 'manage_watchlists', {
      action: 'delete',
      id: 'wl_AAAAAAAAAAAAAAAA',
    });
    expect(missing.status).toBe(404);
    expect((await rest('GET', '/api/v1/account/watchlists', key)).body.data.items).toEqual([]);
    expect(await balance()).toBe(before);
  });
});

describe('list_events', () => {
  it('pulls the events of a publish, charged once per account whichever channel reads them first', async () => {
    const one = await account();
    const two = await account();
    const [a, b, c, d] = codes as [string, string, string, string];
    await manage(one.client, { action: 'create', name: 'w', country: 'EE', companies: [a, b] });
    await manage(two.client, { action: 'create', name: 'v', country: 'EE', companies: [b, d] });
    const search = await manage(one.client, {
      action: 'create',
      name: 'marked',
      country: 'EE',
      search: { company_name: ['Qzxmcpwatch'] },
    });
    const searchId = (search.structuredContent as { data: { id: string } }).data.id;
    await world.publishEE(server.engine, new Watchlists(server.wallet.store, Date.now), [
      `DELETE FROM stage_companies WHERE registrikood = '${a}'`,
      `UPDATE stage_companies SET arinimi = arinimi || ' Qzxmcpwatch', search_name = search_name || ' qzxmcpwatch' WHERE registrikood IN ('${b}', '${c}')`,
    ]);
    const [before1, before2] = [await one.balance(), await two.balance()];

    // Account one pulls over MCP first: a removed, b changed (on the list and entering the search), c entered.
    const page = await callOk(one.client, 'list_events', { country: 'EE' });
    const data = (page.structuredContent as { data: { items: any[]; next_after: string } }).data; // eslint-disable-line @typescript-eslint/no-explicit-any
    const got = [...data.items]
      .sort((x, y) => (x.registrikood < y.registrikood ? -1 : 1))
      .map((e) => [e.registrikood, e.change, e.watchlists.map((w: any) => w.membership)]); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(got).toEqual(
      [
        [a, 'removed', ['member']],
        [b, 'changed', expect.arrayContaining(['member', 'entered'])],
        [c, 'changed', ['entered']],
      ].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    );
    expect(data.items.find((e) => e.registrikood === c).watchlists).toEqual([
      { id: searchId, membership: 'entered' },
    ]);
    expect(
      (page.structuredContent as { meta: { credits_charged: number } }).meta.credits_charged,
    ).toBeCloseTo(3 * PRICE, 9);
    const text = (page.content[0] as { text: string }).text;
    expect(text).toMatch(new RegExp(`${b} changed: arinimi ".*" -> ".* Qzxmcpwatch"`));
    expect(text).toContain(`Next page: after=${data.next_after}`);
    // REST reads the same page, free now; the cursor ends the feed.
    const viaRest = await rest('GET', '/api/v1/data/events?country=EE', one.key);
    expect(viaRest.body.data).toEqual(data);
    expect(viaRest.body.meta.credits_charged).toBe(0);
    const after = await callOk(one.client, 'list_events', { country: 'EE', after: data.next_after });
    expect((after.structuredContent as { data: unknown }).data).toMatchObject({
      items: [],
      next_after: null,
    });
    expect((after.content[0] as { text: string }).text).toContain('No new events; keep your cursor');
    expect(micro(before1 - (await one.balance()))).toBe(micro(3 * PRICE));

    // Account two the other way round: REST first (charged), then MCP (free), the same events.
    const first = await rest('GET', '/api/v1/data/events?country=EE&page_size=50', two.key);
    expect(first.body.data.items.map((e: { registrikood: string }) => e.registrikood)).toEqual([b]);
    const second = await callOk(two.client, 'list_events', { country: 'EE' });
    expect((second.structuredContent as { data: unknown }).data).toEqual(first.body.data);
    expect((second.structuredContent as { meta: { credits_charged: number } }).meta.credits_charged).toBe(0);
    expect(micro(before2 - (await two.balance()))).toBe(micro(PRICE));
  });

  it('answers a bad or too-old cursor and a page_size above 200 with 422, charging nothing', async () => {
    const { client, balance } = await account();
    const before = await balance();
    const old = await callFail(client, 'list_events', {
      country: 'EE',
      after: '20200101T000000Z.EE.0123456789abcdef',
    });
    expect(old).toMatchObject({
      status: 422,
      detail: [{ loc: ['arguments', 'after'], type: 'cursor_too_old' }],
    });
    expect((await callFail(client, 'list_events', { country: 'EE', after: 'yesterday' })).status).toBe(422);
    const big = await callFail(client, 'list_events', { country: 'EE', page_size: 201 });
    expect(big).toMatchObject({ status: 422, detail: [{ loc: ['arguments', 'page_size'] }] });
    expect((await callFail(client, 'list_events', {})).status).toBe(422);
    expect(await balance()).toBe(before);
  });
});

describe('an app without watchlists', () => {
  it('lists neither tool', async () => {
    const t = await buildTestApp(inject('testDataDir'), { watchlists: false });
    try {
      const client = await connectClient(await listen(t.app), t.adminKey);
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(TOOL_NAMES);
      await client.close();
    } finally {
      await t.close();
    }
  });
});
