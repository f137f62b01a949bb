import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, CallToolResult, Tool } from '@modelcontextprotocol/client';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { buildTestApp, emptyDataDir, type TestApp } from '../helpers/app.ts';
import { Oracle, absentEeCode } from '../helpers/oracle.ts';
import {
  TOOL_NAMES,
  WATCHLIST_TOOL_NAMES,
  callFail,
  callOk,
  connectClient,
  listen,
  toQuery,
} from './helpers.ts';

/**
 * Issue 5: the SDK's client over real HTTP against the real app. Every tool is checked against the REST
 * answer for the same input, and REST and MCP are checked to draw on one balance.
 */

let t: TestApp;
let oracle: Oracle;
let url: URL;
let admin: Client;

const REST = '/api/v1/data';

beforeAll(async () => {
  t = await buildTestApp(inject('testDataDir'));
  oracle = await Oracle.open(inject('testDataDir'));
  url = await listen(t.app);
  admin = await connectClient(url, t.adminKey);
});
afterAll(async () => {
  await admin?.close();
  await t?.close();
  oracle?.close();
});

async function rest(path: string, key: string | null = t.adminKey) {
  const res = await t.get(`${REST}${path}`, { key });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function restOk(path: string, key = t.adminKey) {
  const res = await rest(path, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function someCode(country: CountryCode, where = 'true'): Promise<string> {
  const code = await oracle.scalar<string>(
    `SELECT registrikood FROM ${oracle.file(country, 'companies')} WHERE NOT not_for_sale AND (${where})
     ORDER BY registrikood LIMIT 1`,
  );
  expect(code, `${country}: a company where ${where}`).toBeTruthy();
  return code;
}

/** The test's own tree walks, not the server's. */
function pruned(nodes: TreeNode[], depth: number): TreeNode[] {
  return nodes.map((n) => ({ ...n, children: depth > 1 ? pruned(n.children, depth - 1) : [] }));
}
function allNodes(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((n) => [n, ...allNodes(n.children)]);
}
function leaves(n: TreeNode): string[] {
  return n.children.length ? n.children.flatMap(leaves) : [n.kood];
}

describe('tools/list', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await admin.listTools()).tools;
  });

  it('lists the tools with read-only annotations, idempotent exactly when free', async () => {
    expect(tools.map((x) => x.name)).toEqual([...TOOL_NAMES, ...WATCHLIST_TOOL_NAMES]);
    // Managing watchlists writes to the account and can delete from it; creating twice makes two.
    for (const tool of tools) {
      const manage = tool.name === 'manage_watchlists';
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(!manage);
      expect(tool.annotations?.destructiveHint, tool.name).toBe(manage);
      const metered =
        ['search_companies', 'list_changes', 'list_events'].includes(tool.name) ||
        tool.name.startsWith('get_company');
      const idempotent = !metered && !manage;
      expect(tool.annotations?.idempotentHint, tool.name).toBe(idempotent);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description, tool.name).toMatch(metered ? /METERED/ : /free/i);
    }
  });

  it('derives search arguments from the REST filters: JSON types, English names, small default page', async () => {
    const search = tools.find((x) => x.name === 'search_companies') as Tool;
    const props = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props['vat_active']?.['type']).toBe('boolean');
    expect(props['share_capital_min']?.['type']).toBe('number');
    expect(props['industry_codes']?.['type']).toBe('array');
    expect(props['has_tax_debt']?.['description']).toMatch(/Countries: EE/);
    expect(props['page_size']).toMatchObject({ default: 10, maximum: 50 });
    expect(props['fields']?.['type']).toBe('array');
    // Deprecated Estonian aliases stay REST-only.
    expect(props['arinimi']).toBeUndefined();
    expect(props['kapital_min']).toBeUndefined();
    // Prices of every country are quoted.
    expect(search.description).toContain(`SE ${t.wallet.prices.SE}`);
  });

  it('keeps the whole listing small enough for an agent to load', async () => {
    // The data tools were under 60k before issue 31; the change history's before and after values (contract
    // 1.3.0) added about 1k to list_changes, and the two watchlist tools (one for all management) under 10k.
    const data = tools.filter((x) => !WATCHLIST_TOOL_NAMES.includes(x.name));
    expect(JSON.stringify(data).length).toBeLessThan(62_000);
    expect(JSON.stringify(tools).length).toBeLessThan(70_000);
  });
});

describe('each tool answers what REST answers for the same input', () => {
  it('list_countries and list_filters', async () => {
    const countries = await callOk(admin, 'list_countries', {});
    expect(countries.structuredContent).toEqual(await restOk('/countries'));
    expect(countries.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('EE Estonia') });
    for (const country of ['EE', 'SE', 'PL'] as const) {
      const filters = await callOk(admin, 'list_filters', { country });
      expect(filters.structuredContent).toEqual(await restOk(`/filters?country=${country}`));
    }
  });

  it('list_activities: the REST tree cut at depth 2 by default, whole at full depth, and a name search', async () => {
    const tree = (await restOk('/activities?country=EE')) as unknown as TreeNode[];
    const byDefault = await callOk(admin, 'list_activities', { country: 'EE' });
    expect(byDefault.structuredContent).toEqual({ nodes: pruned(tree, 2) });
    const whole = await callOk(admin, 'list_activities', { country: 'EE', max_depth: 6 });
    expect(whole.structuredContent).toEqual({ nodes: tree });

    const found = (await callOk(admin, 'list_activities', { country: 'EE', query: 'software' }))
      .structuredContent as { nodes: TreeNode[] };
    const expected = allNodes(tree).filter((n) => n.label.toLowerCase().includes('software'));
    expect(found.nodes.map((n) => n.kood)).toEqual(expected.map((n) => n.kood));
    for (const n of found.nodes) {
      const original = expected.find((e) => e.kood === n.kood) as TreeNode;
      expect(n.codes).toEqual(leaves(original));
    }
  });

  it('list_locations: top level by default, depth and name search as REST', async () => {
    expect((await callOk(admin, 'list_locations', { country: 'EE' })).structuredContent).toEqual({
      nodes: await restOk('/locations?country=EE&max_depth=1'),
    });
    expect(
      (await callOk(admin, 'list_locations', { country: 'LT', max_depth: 2 })).structuredContent,
    ).toEqual({
      nodes: await restOk('/locations?country=LT&max_depth=2'),
    });
    expect(
      (await callOk(admin, 'list_locations', { country: 'EE', query: 'tallinn' })).structuredContent,
    ).toEqual({ nodes: await restOk('/locations?country=EE&query=tallinn') });
  });

  it('count_companies with lists, booleans, ranges and dates', async () => {
    const cases: Record<string, unknown>[] = [
      { country: 'EE' },
      { country: 'EE', vat_active: true, registered_from: '2010-01-01' },
      { country: 'NO', share_capital_min: 30000, has_email: false },
      { country: 'SE', employees_band: [1, 2, 3], status: ['__all__'] },
      { country: 'PL', company_name: ['a', 'e'], registered_to: '2015-12-31' },
    ];
    for (const args of cases) {
      const mcp = await callOk(admin, 'count_companies', args);
      expect(mcp.structuredContent, JSON.stringify(args)).toEqual(await restOk(`/count?${toQuery(args)}`));
    }
  });

  it('search_companies: the REST page, and `fields` projects its rows', async () => {
    const args = { country: 'LV', page: 2, page_size: 7, sort_by: 'company_name', sort_dir: 'desc' };
    const mcp = await callOk(admin, 'search_companies', args);
    const body = await restOk(`/companies?${toQuery(args)}`);
    expect((mcp.structuredContent as { data: unknown }).data).toEqual(body['data']);

    const fields = ['arinimi', 'staatus', 'last_quarter_turnover'];
    const narrow = (await callOk(admin, 'search_companies', { ...args, fields })).structuredContent as {
      data: { items: Record<string, unknown>[] };
    };
    const full = (body['data'] as { items: Record<string, unknown>[] }).items;
    expect(narrow.data.items).toEqual(
      full.map((r) => ({
        registrikood: r['registrikood'],
        arinimi: r['arinimi'],
        staatus: r['staatus'],
        last_quarter_turnover: r['last_quarter_turnover'],
      })),
    );
  });

  it('search_companies defaults to a page of 10', async () => {
    const mcp = (await callOk(admin, 'search_companies', { country: 'EE' })).structuredContent as {
      data: { page_size: number; items: unknown[] };
    };
    expect(mcp.data.page_size).toBe(10);
    expect(mcp.data.items).toHaveLength(10);
  });

  it('get_company, get_company_history and get_company_workplaces', async () => {
    for (const country of ['EE', 'NO', 'PL', 'SE'] as const) {
      const code = await someCode(country);
      const detail = await callOk(admin, 'get_company', { country, registration_code: code });
      expect((detail.structuredContent as { data: unknown }).data).toEqual(
        (await restOk(`/companies/${code}?country=${country}`))['data'],
      );
      const history = await callOk(admin, 'get_company_history', { country, registration_code: code });
      expect((history.structuredContent as { data: unknown }).data).toEqual(
        (await restOk(`/companies/${code}/history?country=${country}`))['data'],
      );
    }
    const se = await oracle.scalar<string>(
      `SELECT registrikood FROM ${oracle.file('SE', 'workplaces')} WHERE is_active ORDER BY registrikood LIMIT 1`,
    );
    const wp = await callOk(admin, 'get_company_workplaces', { country: 'SE', registration_code: se });
    const restWp = (await restOk(`/companies/${se}/workplaces?country=SE`))['data'] as {
      workplaces: unknown[];
    };
    expect(restWp.workplaces.length).toBeGreaterThan(0);
    expect((wp.structuredContent as { data: unknown }).data).toEqual(restWp);
  });

  it('property: for any paging and sorting, search_companies returns the REST page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          country: fc.constantFrom(...COUNTRY_CODES),
          page: fc.integer({ min: 1, max: 6 }),
          page_size: fc.integer({ min: 1, max: 50 }),
          sort_by: fc.constantFrom('registrikood', 'company_name', 'registered_date', 'share_capital'),
          sort_dir: fc.constantFrom('asc', 'desc'),
          vat_active: fc.option(fc.boolean(), { nil: undefined }),
        }),
        async (raw) => {
          const args = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
          const mcp = await callOk(admin, 'search_companies', args);
          const body = await restOk(`/companies?${toQuery(args)}`);
          expect((mcp.structuredContent as { data: unknown }).data).toEqual(body['data']);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('one wallet for REST and MCP', () => {
  it('charges MCP calls as REST calls, from the same balance, and free tools nothing', async () => {
    const created = await t.wallet.createKey({
      email: 'mcp-balance@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 10,
    });
    const balance = async () => (await t.wallet.balance({ accountId: created.accountId })).balance;
    const client = await connectClient(url, created.key);
    try {
      const code = await someCode('EE');
      await callOk(client, 'list_countries', {});
      await callOk(client, 'list_filters', { country: 'EE' });
      await callOk(client, 'list_activities', { country: 'EE', query: 'software' });
      await callOk(client, 'list_locations', { country: 'EE', max_depth: 1 });
      await callOk(client, 'count_companies', { country: 'EE' });
      expect(await balance()).toBe(10);

      const price = t.wallet.prices.EE;
      const search = (await callOk(client, 'search_companies', { country: 'EE', page_size: 5 }))
        .structuredContent as {
        meta: { rows_returned: number; credits_charged: number; credit_balance: number };
      };
      expect(search.meta.rows_returned).toBe(5);
      expect(search.meta.credits_charged).toBeCloseTo(5 * price, 9);
      expect(search.meta.credit_balance).toBeCloseTo(await balance(), 9);
      expect(await balance()).toBeCloseTo(10 - 5 * price, 9);

      const restSearch = await restOk('/companies?country=EE&page_size=3', created.key);
      expect((restSearch['meta'] as { credit_balance: number }).credit_balance).toBeCloseTo(
        10 - 8 * price,
        9,
      );

      const detail = (await callOk(client, 'get_company', { country: 'EE', registration_code: code }))
        .structuredContent as { meta: { credits_charged: number; credit_balance: number } };
      expect(detail.meta.credits_charged).toBeCloseTo(price, 9);
      expect(detail.meta.credit_balance).toBeCloseTo(10 - 9 * price, 9);
      expect(await balance()).toBeCloseTo(10 - 9 * price, 9);

      const usage = await t.wallet.usage({ accountId: created.accountId });
      const channels = usage.records
        .filter((r) => ['search', 'detail', 'history', 'workplaces'].includes(r.operation))
        .map((r) => `${r.channel}:${r.operation}`)
        .sort();
      expect(channels).toEqual(['mcp:detail', 'mcp:search', 'rest:search']);
      expect(usage.totals.credits).toBeCloseTo(9 * price, 9);
    } finally {
      await client.close();
    }
  });
});

describe('protocol revisions: the 2026-07-28 revision and the 2025 handshake', () => {
  it('negotiates the newest revision with a current client, and the 2025 handshake with an older one', async () => {
    expect(admin.getProtocolEra()).toBe('modern');
    const legacy = await connectClient(url, t.adminKey, 'legacy');
    try {
      expect(legacy.getProtocolEra()).toBe('legacy');
      expect((await legacy.listTools()).tools).toEqual((await admin.listTools()).tools);
    } finally {
      await legacy.close();
    }
  });

  it('answers and charges the same on both: the same page, the price of its rows each time', async () => {
    const created = await t.wallet.createKey({
      email: 'mcp-eras@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 10,
    });
    const balance = async () => (await t.wallet.balance({ accountId: created.accountId })).balance;
    const price = t.wallet.prices.EE;
    const args = { country: 'EE', page_size: 4, sort_by: 'registrikood' };
    const pages = [];
    for (const era of ['auto', 'legacy'] as const) {
      const client = await connectClient(url, created.key, era);
      try {
        const before = await balance();
        const page = (await callOk(client, 'search_companies', args)).structuredContent as {
          data: unknown;
          meta: { credits_charged: number };
        };
        expect(page.meta.credits_charged, era).toBeCloseTo(4 * price, 9);
        expect(before - (await balance()), era).toBeCloseTo(4 * price, 9);
        pages.push(page.data);
      } finally {
        await client.close();
      }
    }
    expect(pages[1]).toEqual(pages[0]);
    expect(pages[0]).toEqual((await restOk(`/companies?${toQuery(args)}`))['data']);
  });
});

describe('errors are tool errors with the REST detail', () => {
  it('402 when the balance cannot cover the reserve; nothing is run or charged', async () => {
    const broke = await t.wallet.createKey({ email: 'mcp-broke@test.local', kind: 'standard', plan: 'payg' });
    const client = await connectClient(url, broke.key);
    try {
      const failure = await callFail(client, 'search_companies', { country: 'SE', page_size: 5 });
      const restFailure = await rest('/companies?country=SE&page_size=5', broke.key);
      expect(restFailure.status).toBe(402);
      expect(failure).toEqual({ status: 402, detail: restFailure.body['detail'] });
      expect(failure.detail).toMatch(/^insufficient credits: have 0\.00, need /);
      expect((await t.wallet.usage({ accountId: broke.accountId })).totals.credits).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('404 and 400 for registration codes, as REST', async () => {
    const absent = await absentEeCode(oracle);
    const notFound = await callFail(admin, 'get_company', { country: 'EE', registration_code: absent });
    expect(notFound).toEqual({
      status: 404,
      detail: (await rest(`/companies/${absent}?country=EE`)).body['detail'],
    });
    const malformed = await callFail(admin, 'get_company_history', {
      country: 'EE',
      registration_code: '123',
    });
    expect(malformed).toEqual({
      status: 400,
      detail: (await rest('/companies/123/history?country=EE')).body['detail'],
    });
  });

  it('422 with the REST issue list, located in `arguments`', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ country: 'SE', has_tax_debt: true }, 'country=SE&has_tax_debt=true'],
      [{ country: 'EE', nonsense: 1 }, 'country=EE&nonsense=1'],
      [{ country: 'XX' }, 'country=XX'],
      [{ country: 'EE', registered_from: '2020-13-01' }, 'country=EE&registered_from=2020-13-01'],
    ];
    for (const [args, query] of cases) {
      const failure = await callFail(admin, 'count_companies', args);
      const restFailure = await rest(`/count?${query}`);
      expect(restFailure.status).toBe(422);
      // Located in `arguments`, and pointing to the tool that lists filters where REST points to its path.
      const asArguments = (restFailure.body['detail'] as { loc: unknown[]; msg: string }[]).map((i) => ({
        ...i,
        loc: ['arguments', ...i.loc.slice(1)],
        msg: i.msg.replace(/see \/filters\?country=(\w+)/, 'see list_filters for $1'),
      }));
      expect(failure, query).toEqual({ status: 422, detail: asArguments });
    }
    const tooBig = await callFail(admin, 'search_companies', { country: 'EE', page_size: 51 });
    expect(tooBig.status).toBe(422);
    expect(tooBig.detail).toMatchObject([
      { loc: ['arguments', 'page_size'], param: 'page_size', type: 'too_big' },
    ]);
    const wrongType = await callFail(admin, 'search_companies', { country: 'EE', vat_active: 'yes' });
    expect(wrongType.detail).toMatchObject([{ param: 'vat_active', type: 'invalid_type' }]);
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(admin.callTool({ name: 'drop_tables', arguments: {} })).rejects.toBeInstanceOf(
      ProtocolError,
    );
  });

  it('429 once the key is out of rate-limit tokens', async () => {
    const limited = await buildTestApp(inject('testDataDir'), {
      rateLimit: { burst: 1, requestsPerMinute: 1 },
    });
    const key = (
      await limited.wallet.createKey({ email: 'mcp-rl@test.local', kind: 'standard', plan: 'payg' })
    ).key;
    const client = await connectClient(await listen(limited.app), key);
    try {
      await callOk(client, 'list_countries', {});
      const failure = await callFail(client, 'list_countries', {});
      const restFailure = (await limited.get(`${REST}/countries`, { key })).json() as { detail: string };
      expect(failure).toEqual({ status: 429, detail: restFailure.detail });
    } finally {
      await client.close();
      await limited.close();
    }
  });

  it('502 with the fixed text when no snapshot is loaded', async () => {
    const empty = await buildTestApp(emptyDataDir());
    const client = await connectClient(await listen(empty.app), empty.adminKey);
    try {
      const failure = await callFail(client, 'count_companies', { country: 'EE' });
      const restFailure = await empty.get(`${REST}/count?country=EE`);
      expect(restFailure.statusCode).toBe(502);
      expect(failure).toEqual({ status: 502, detail: restFailure.json().detail });
    } finally {
      await client.close();
      await empty.close();
    }
  });
});

describe('HTTP: authentication, origin, methods, statelessness', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('401 with WWW-Authenticate without a key or with a bad one, as REST', async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="regdata"');
    expect(await missing.json()).toEqual((await rest('/countries', null)).body);

    const bad = await post({ authorization: 'Bearer rd_live_not_a_key' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="regdata", error="invalid_token"');

    await expect(connectClient(url, 'rd_live_not_a_key')).rejects.toMatchObject({ data: { status: 401 } });
  });

  it('answers initialize without a session id: nothing is kept between requests', async () => {
    const res = await post({ authorization: `Bearer ${t.adminKey}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { result: { serverInfo: { name: string }; instructions: string } };
    expect(body.result.serverInfo.name).toBe('regdata');
    expect(body.result.instructions).toMatch(/count_companies \(free\)/);
  });

  it('403 for a browser Origin or a foreign Host name on a loopback server', async () => {
    const origin = await post({ authorization: `Bearer ${t.adminKey}`, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    // A page on rebound.example whose name resolves to this loopback server (DNS rebinding).
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          headers: {
            host: 'rebound.example:8080',
            authorization: `Bearer ${t.adminKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });
    expect(status).toBe(403);
  });

  it('accepts the configured origins and host names only', async () => {
    const { buildApp } = await import('../../src/app.ts');
    const app = await buildApp({
      engine: t.engine,
      wallet: t.wallet,
      logger: false,
      mcp: { allowedOrigins: ['https://app.example'], allowedHosts: ['api.example'] },
    });
    try {
      const send = (headers: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            authorization: `Bearer ${t.adminKey}`,
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          payload: initialize,
        });
      expect((await send({ host: 'api.example', origin: 'https://app.example' })).statusCode).toBe(200);
      expect((await send({ host: 'api.example' })).statusCode).toBe(200);
      expect((await send({ host: 'api.example', origin: 'https://other.example' })).statusCode).toBe(403);
      expect((await send({ host: 'localhost' })).statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('405 for GET and DELETE: a stateless server has no stream or session to serve', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${t.adminKey}`, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

describe('answers fit an agent', () => {
  it('a full page of 50 rows with every field stays under about 25k tokens', async () => {
    const result = (await admin.callTool({
      name: 'search_companies',
      arguments: { country: 'SE', page_size: 50 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: { items: unknown[] } }).data.items).toHaveLength(50);
    // ~4 characters per token.
    expect(JSON.stringify(result).length).toBeLessThan(100_000);
  });
});
