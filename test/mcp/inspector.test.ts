import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { mcpInspector } from '../tools.ts';
import { TOOL_NAMES, WATCHLIST_TOOL_NAMES, listen } from './helpers.ts';
import { Browser, signedUpUser, startOAuthServer } from './oauth-helpers.ts';

/**
 * The MCP Inspector CLI 2 (`@modelcontextprotocol/inspector --cli`, a separate process with its own client,
 * on Node 22.19 or newer: scripts/test-setup.sh installs both) lists the tools of a running server, calls
 * one, and checks every tool schema for what some model providers reject (`--strict`: type arrays, schemas
 * that constrain nothing). Before issue 29 that check found 131 warnings over 10 tools.
 *
 * It also signs in with OAuth by itself, as a person at a terminal would: without a terminal it refuses
 * (`auth_required`) unless MCP_AUTO_OPEN_ENABLED=true, which makes it start its loopback callback listener,
 * print "Please navigate to: <authorization URL>" on stderr and wait. The browser's part (sign-in and
 * consent forms) is then done by a real HTTP client, whose last redirect lands on the Inspector's listener;
 * the Inspector exchanges the code (PKCE, resource indicator), stores the tokens, and lists the tools. A
 * second run uses the stored token alone (`--stored-auth-only`) and its call is charged to the account.
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

/** A loopback port free now (the Inspector's callback listener binds it; it must be known in advance). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

describe.skipIf(!HAS_INSPECTOR)('MCP Inspector CLI 2 signs in with OAuth', () => {
  const PRICE = 0.05;
  const EMAIL = 'inspector-user@test.local';
  let started: Awaited<ReturnType<typeof startOAuthServer>>;
  let server: StartedServer;
  let tmp: string;
  let accountId: string;

  beforeAll(async () => {
    started = await startOAuthServer(inject('testDataDir'), PRICE);
    ({ server, tmp } = started);
    accountId = await signedUpUser(server, EMAIL);
  });
  afterAll(async () => {
    await started?.close();
  });

  /** The Inspector in its own home (its OAuth store, catalog and secrets), with no browser to open. */
  function inspectorProcess(args: string[]) {
    const { node, cli } = mcpInspector();
    const child = spawn(node, [cli, '--cli', `${server.url}/mcp`, ...args], {
      env: {
        PATH: process.env['PATH'],
        HOME: path.join(tmp, 'home'),
        MCP_AUTO_OPEN_ENABLED: 'true',
        // No keychain here: the tokens go to a file in that home, for the second run.
        MCP_INSPECTOR_SECRET_STORE: 'file',
        // The `open` package runs xdg-open, which runs $BROWSER: `true` opens nothing.
        BROWSER: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const navigate = new Promise<URL>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /Please navigate to: (\S+)/.exec(stderr);
        if (m) resolve(new URL(m[1]!));
      });
      child.on('exit', () => reject(new Error(`no authorization URL; stderr: ${stderr}`)));
    });
    void navigate.catch(() => {});
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code, stdout, stderr })),
    );
    return { navigate, exited };
  }

  it('signs the user in through the browser step, lists the tools, and a call is charged to that account', async () => {
    fs.mkdirSync(path.join(tmp, 'home'), { recursive: true });
    const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    const first = inspectorProcess(['--callback-url', callbackUrl, '--method', 'tools/list']);
    const authorizationUrl = await first.navigate;
    expect(authorizationUrl.href.startsWith(`${server.url}/oauth/`)).toBe(true);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${server.url}/mcp`);

    const browser = new Browser();
    const { callback, pages } = await browser.authorize(
      authorizationUrl,
      EMAIL,
      { metered: 'yes' },
      callbackUrl,
    );
    expect(pages.some((p) => p.includes('charged to this account'))).toBe(true);
    // The browser's last request: the redirect to the Inspector's own listener, which takes the code.
    const landed = await browser.go(callback.href);
    expect(landed.res.status).toBe(200);

    const listed = await first.exited;
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((x) => x.name)).toEqual([
      ...TOOL_NAMES,
      ...WATCHLIST_TOOL_NAMES,
    ]);
    expect(listed.stderr).toMatch(/Authorization complete/);
    // The grant acts through a key of the account, named after the client the Inspector registered.
    const grantKey = (await server.wallet.accountKeys(accountId, 'grants')).find(
      (k) => k.name === 'MCP client: MCP Inspector',
    );
    expect(grantKey?.lastUsedAt).toBeTruthy();

    // Again with the stored token alone: no browser, and the call is charged to the signed-in account.
    const before = (await server.wallet.balance({ accountId })).balance;
    const called = await inspectorProcess([
      '--stored-auth-only',
      '--method',
      'tools/call',
      '--tool-name',
      'search_companies',
      '--tool-arg',
      'country=EE',
      'page_size=3',
    ]).exited;
    expect(called.code, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as {
      isError?: boolean;
      structuredContent: { meta: { rows_returned: number; credits_charged: number } };
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.meta.rows_returned).toBe(3);
    expect(before - (await server.wallet.balance({ accountId })).balance).toBeCloseTo(3 * PRICE, 9);
    const usage = await server.wallet.usage({ accountId });
    expect(usage.records.find((r) => r.operation === 'search')).toMatchObject({ channel: 'mcp' });
  });
});
