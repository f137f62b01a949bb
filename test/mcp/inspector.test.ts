import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { mcpInspector } from '../tools.ts';
import { TOOL_NAMES, WATCHLIST_TOOL_NAMES, listen } from './helpers.ts';

/**
 * The MCP Inspector CLI 2 (`@modelcontextprotocol/inspector --cli`, a separate process with its own client,
 * on Node 22.19 or newer: scripts/test-setup.sh installs both) lists the tools of a running server, calls
 * one, and checks every tool schema for what some model providers reject (`--strict`: type arrays, schemas
 * that constrain nothing). Before issue 29 that check found 131 warnings over 10 tools.
 */

const run = promisify(execFile);
const HAS_INSPECTOR = !inject('missingTools').includes('mcp-inspector');

let t: TestApp;
let url: URL;

async function inspector(key: string | null, ...args: string[]): Promise<{ out: unknown; stderr: string }> {
  const { node, cli } = mcpInspector();
  const { stdout, stderr } = await run(
    node,
    [cli, '--cli', url.href, ...(key ? ['--header', `Authorization: Bearer ${key}`] : []), ...args],
    { timeout: 60_000 },
  );
  return { out: JSON.parse(stdout), stderr };
}

beforeAll(async () => {
  t = await buildTestApp(inject('testDataDir'));
  url = await listen(t.app);
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(!HAS_INSPECTOR)('MCP Inspector CLI 2 against a running server', () => {
  it('lists the tools, and its schema check finds nothing to warn about', async () => {
    const { out, stderr } = await inspector(t.adminKey, '--method', 'tools/list', '--strict');
    expect((out as { tools: { name: string }[] }).tools.map((x) => x.name)).toEqual([
      ...TOOL_NAMES,
      ...WATCHLIST_TOOL_NAMES,
    ]);
    expect(stderr).not.toMatch(/warning|error/i);
  });

  it('calls search_companies with typed arguments and gets the REST page', async () => {
    const { out } = await inspector(
      t.adminKey,
      '--method',
      'tools/call',
      '--tool-name',
      'search_companies',
      '--tool-arg',
      'country=EE',
      'page_size=3',
      'vat_active=true',
      'fields=["arinimi"]',
    );
    const result = out as { isError?: boolean; structuredContent: { data: { items: unknown[] } } };
    expect(result.isError).toBeFalsy();
    const rest = await t.get('/api/v1/data/companies?country=EE&page_size=3&vat_active=true');
    const expected = (rest.json() as { data: { items: { registrikood: string; arinimi: string }[] } }).data;
    expect(result.structuredContent.data.items).toEqual(
      expected.items.map((r) => ({ registrikood: r.registrikood, arinimi: r.arinimi })),
    );
  });

  it('fails without the key (401), and says the server wants sign-in', async () => {
    // The Inspector answers a 401 by starting its OAuth flow; without a terminal it stops there.
    await expect(inspector(null, '--method', 'tools/list', '--stored-auth-only')).rejects.toMatchObject({
      stderr: expect.stringMatching(/auth_required/),
    });
  });
});
