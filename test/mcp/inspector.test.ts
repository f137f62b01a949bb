import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { TOOL_NAMES, listen } from './helpers.ts';

/**
 * Issue 5: the MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, a separate process with its
 * own client) lists the tools of a running server and calls them. Inspector 0.15, the last release for
 * Node 20, has no option for request headers, so it reaches the server through a small forwarding proxy
 * that adds the bearer key, as an MCP client configured with a header does.
 */

const run = promisify(execFile);
const INSPECTOR = path.resolve('node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');

let t: TestApp;
let direct: URL;
let proxied: URL;
let proxy: http.Server;

function startAuthProxy(target: URL, key: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host, authorization: `Bearer ${key}` } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function inspector(url: URL, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', url.href, '--transport', 'http', ...args],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout);
}

beforeAll(async () => {
  t = await buildTestApp(inject('testDataDir'));
  direct = await listen(t.app);
  proxy = await startAuthProxy(direct, t.adminKey);
  proxied = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await t?.close();
});

describe('MCP Inspector CLI against a running server', () => {
  it('lists the nine tools', async () => {
    const listed = (await inspector(proxied, '--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((x) => x.name)).toEqual(TOOL_NAMES);
  });

  it('calls search_companies with typed arguments and gets the REST page', async () => {
    const result = (await inspector(
      proxied,
      '--method',
      'tools/call',
      '--tool-name',
      'search_companies',
      '--tool-arg',
      'country=EE',
      'page_size=3',
      'vat_active=true',
      'fields=["arinimi"]',
    )) as { isError?: boolean; structuredContent: { data: { items: unknown[] } } };
    expect(result.isError).toBeFalsy();
    const rest = await t.get('/api/v1/data/companies?country=EE&page_size=3&vat_active=true');
    const expected = (rest.json() as { data: { items: { registrikood: string; arinimi: string }[] } }).data;
    expect(result.structuredContent.data.items).toEqual(
      expected.items.map((r) => ({ registrikood: r.registrikood, arinimi: r.arinimi })),
    );
  });

  it('fails without the key (401)', async () => {
    await expect(inspector(direct, '--method', 'tools/list')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/API key/),
    });
  });
});
