import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { startRealServerWithAdmin, type RealServer } from '../http/helpers/real-server.ts';
import { callFail, callOk, connectClient, toQuery } from './helpers.ts';

/**
 * Issue 16 findings 7 (MCP part), 8, 9 and 11, over real HTTP against the real server (startServer) with
 * the SDK's own client where a client can say it, and raw JSON-RPC where only a hand-written message can.
 */

let t: RealServer & { adminKey: string };
let mcpUrl: URL;
let admin: Client;

beforeAll(async () => {
  t = await startRealServerWithAdmin(inject('testDataDir'));
  mcpUrl = new URL('/mcp', t.url);
  admin = await connectClient(mcpUrl, t.adminKey);
});
afterAll(async () => {
  await admin?.close();
  await t?.stop();
});

/** One hand-written POST /mcp, as a client that does not use the SDK would send it. */
async function rpc(body: string, key = t.adminKey) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

async function rest(path: string, key = t.adminKey, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/api/v1/data${path}`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('no text content');
  return first.text;
}

describe('finding 7: JSON-RPC error codes the protocol defines', () => {
  it('tools/call with `arguments: null` (or a number) is -32602 Invalid params, without a validation dump', async () => {
    for (const args of ['null', '5', '"x"']) {
      const res = await rpc(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_countries","arguments":${args}}}`,
      );
      expect(res.status).toBe(200);
      const error = res.json['error'] as { code: number; message: string };
      expect(res.json['id']).toBe(7);
      expect(error.code, res.text).toBe(-32602);
      expect(error.message).toContain('params.arguments');
      expect(error.message).not.toMatch(/[[{\n]|"code"/);
    }
  });

  it('a tools/call without a tool name is -32602 too', async () => {
    const res = await rpc('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"arguments":{}}}');
    expect((res.json['error'] as { code: number }).code).toBe(-32602);
  });

  it('a body that is not JSON is -32700 Parse error', async () => {
    const res = await rpc('{"jsonrpc":"2.0",');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });
});

describe('finding 8: JSON-RPC batches are refused', () => {
  it('a batch of tools/list calls is one small -32600 answer, not a list of tool listings', async () => {
    const one = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const single = await rpc(one);
    expect(single.status).toBe(200);
    const batch = `[${Array.from({ length: 60 }, (_, i) => one.replace('"id":1', `"id":${i + 1}`)).join(',')}]`;
    expect(batch.length).toBeGreaterThan(2_000);
    const res = await rpc(batch);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect((res.json['error'] as { message: string }).message).toMatch(/batch/i);
    expect(res.text.length).toBeLessThan(single.text.length / 10);
  });

  it('a batch of metered calls runs and charges nothing', async () => {
    const key = await t.wallet.createKey({
      email: 'batch@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 5,
    });
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'search_companies', arguments: { country: 'EE', page_size: 2 } },
      });
    const res = await rpc(`[${call(1)},${call(2)}]`, key.key);
    expect(res.status).toBe(400);
    expect((await t.wallet.balance({ accountId: key.accountId })).balance).toBe(5);
  });
});

describe('finding 9: an idempotency key in `_meta`, with the REST semantics', () => {
  it('a retry with the same key returns the first answer and is not charged again; REST agrees', async () => {
    const created = await t.wallet.createKey({
      email: 'idem@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 10,
    });
    const balance = async () => (await t.wallet.balance({ accountId: created.accountId })).balance;
    const client = await connectClient(mcpUrl, created.key);
    try {
      const args = { country: 'EE', page_size: 3 };
      const _meta = { idempotency_key: 'agent-retry-0001' };
      const first = (await client.callTool({
        name: 'search_companies',
        arguments: args,
        _meta,
      })) as CallToolResult;
      expect(first.isError, text(first)).toBeFalsy();
      const afterFirst = await balance();
      const price = t.wallet.prices.EE;
      expect(afterFirst).toBeCloseTo(10 - 3 * price, 9);

      const retry = (await client.callTool({
        name: 'search_companies',
        arguments: args,
        _meta,
      })) as CallToolResult;
      expect(retry.structuredContent).toEqual(first.structuredContent);
      expect(await balance()).toBe(afterFirst);

      // The same request over REST with the same key (page_size sent explicitly): the stored answer.
      const restReplay = await rest(`/companies?${toQuery(args)}`, created.key, {
        'idempotency-key': _meta.idempotency_key,
      });
      expect(restReplay.status).toBe(200);
      expect(restReplay.body['meta']).toEqual((first.structuredContent as { meta: unknown }).meta);
      expect(await balance()).toBe(afterFirst);

      // Without a key, the same call is charged again.
      await callOk(client, 'search_companies', args);
      expect(await balance()).toBeCloseTo(afterFirst - 3 * price, 9);

      // The key reused with other arguments is a 422 naming where the key was sent.
      const reused = (await client.callTool({
        name: 'search_companies',
        arguments: { country: 'EE', page_size: 4 },
        _meta,
      })) as CallToolResult;
      expect(reused.isError).toBe(true);
      const failure = JSON.parse(text(reused)) as {
        status: number;
        detail: { loc: unknown[]; type: string }[];
      };
      expect(failure.status).toBe(422);
      expect(failure.detail[0]).toMatchObject({
        loc: ['_meta', 'idempotency_key'],
        type: 'idempotency_key_reused',
      });

      // A key that is not a string is a 422 too, and nothing is charged.
      const before = await balance();
      const bad = (await client.callTool({
        name: 'search_companies',
        arguments: args,
        _meta: { idempotency_key: 42 },
      })) as CallToolResult;
      expect(JSON.parse(text(bad))).toMatchObject({ status: 422 });
      expect(await balance()).toBe(before);

      const charged = (await t.wallet.usage({ accountId: created.accountId })).records.filter(
        (r) => r.operation === 'search',
      );
      expect(charged.length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });
});

/** The values a tree text prints after `-> <argument>: `, per node code. */
function printedValues(out: string, argument: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    const m = new RegExp(`^\\s*(\\S+) .* -> ${argument}: (\\[.*\\])$`).exec(line);
    if (m) map.set(m[1]!, JSON.parse(m[2]!) as string[]);
  }
  return map;
}

describe('finding 11: answers an agent can act on', () => {
  it('list_locations prints the codes to send, as REST lists them', async () => {
    const rest1 = (await rest('/locations?country=EE&max_depth=1')).body as unknown as TreeNode[];
    const result = await callOk(admin, 'list_locations', { country: 'EE' });
    const printed = printedValues(text(result), 'ehak_kood');
    expect(printed.size).toBeGreaterThan(0);
    for (const node of rest1) {
      const values = printed.get(node.kood);
      if (values) expect(values).toEqual(node.codes);
    }
    expect(text(result)).not.toMatch(/code\(s\)\]/);

    const lt = (await rest('/locations?country=LT&max_depth=1')).body as unknown as TreeNode[];
    const ltPrinted = printedValues(
      text(await callOk(admin, 'list_locations', { country: 'LT' })),
      'lt_locations',
    );
    expect(ltPrinted.get(lt[0]!.kood)).toEqual(lt[0]!.locations);
  });

  it('list_activities prints the leaf codes of each match, as the REST tree has them', async () => {
    const tree = (await rest('/activities?country=EE')).body as unknown as TreeNode[];
    const leaves = (n: TreeNode): string[] => (n.children.length ? n.children.flatMap(leaves) : [n.kood]);
    const find = (nodes: TreeNode[], kood: string): TreeNode | undefined => {
      for (const n of nodes) {
        if (n.kood === kood) return n;
        const below = find(n.children, kood);
        if (below) return below;
      }
      return undefined;
    };
    const result = await callOk(admin, 'list_activities', { country: 'EE', query: 'software' });
    const printed = printedValues(text(result), 'industry_codes');
    expect(printed.size).toBeGreaterThan(0);
    for (const [kood, values] of printed) expect(values).toEqual(leaves(find(tree, kood)!));
    expect(text(result)).not.toMatch(/code\(s\)\]/);
  });

  it('takes one value wherever it takes a list', async () => {
    for (const [scalar, list] of [
      [
        { country: 'EE', company_name: 'ehitus' },
        { country: 'EE', company_name: ['ehitus'] },
      ],
      [
        { country: 'SE', status: '__all__' },
        { country: 'SE', status: ['__all__'] },
      ],
      [
        { country: 'SE', employees_band: 2 },
        { country: 'SE', employees_band: [2] },
      ],
    ] as const) {
      const one = await callOk(admin, 'count_companies', scalar);
      expect(one.structuredContent, JSON.stringify(scalar)).toEqual(
        (await callOk(admin, 'count_companies', list)).structuredContent,
      );
      expect(one.structuredContent).toEqual((await rest(`/count?${toQuery(scalar)}`)).body);
    }
    const page = await callOk(admin, 'search_companies', { country: 'EE', page_size: 2, fields: 'arinimi' });
    const items = (page.structuredContent as { data: { items: Record<string, unknown>[] } }).data.items;
    expect(Object.keys(items[0]!).sort()).toEqual(['arinimi', 'registrikood']);
    // A bad item of a list still names the item.
    const bad = await callFail(admin, 'count_companies', { country: 'SE', status: ['__all__', 5] });
    expect(bad.detail).toMatchObject([{ loc: ['arguments', 'status', 1] }]);
  });

  it('takes registration codes only as strings, with a hint when a number is sent', async () => {
    for (const [name, args] of [
      ['get_company', { country: 'EE', registration_code: 10000018 }],
      ['search_companies', { country: 'EE', registration_code: 10000018 }],
    ] as const) {
      const failure = await callFail(admin, name, args);
      expect(failure.status).toBe(422);
      const [issue] = failure.detail as { param: string; msg: string }[];
      expect(issue!.param).toBe('registration_code');
      expect(issue!.msg).toMatch(/as a JSON string/);
    }
  });

  it('error texts name tools, not REST paths', async () => {
    const failure = await callFail(admin, 'count_companies', { country: 'EE', employees_band: [1] });
    const msg = (failure.detail as { msg: string }[])[0]!.msg;
    expect(msg).toContain('list_filters');
    expect(msg).not.toMatch(/\/filters|\?country=/);
  });
});
