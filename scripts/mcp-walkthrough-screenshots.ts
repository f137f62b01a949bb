/**
 * The screenshots of docs/mcp.md's walk-through (issue 29): an MCP client that knows only the URL signs the
 * user in with OAuth and calls every tool on the user's wallet. Run by hand, not in CI:
 *
 *   npx tsx scripts/mcp-walkthrough-screenshots.ts [--bypass-csp] [out dir, default docs/images/mcp-walkthrough]
 *
 * It builds the tests' small synthetic world (scale 0.003, seed 7) in a temp folder, starts the real server
 * on it (development mode, EE at 0.05 credits a row), signs up a dashboard user past the trial, and runs the
 * official SDK client's OAuth flow (discovery, dynamic registration, PKCE, resource indicator). The browser
 * step is real Chromium (playwright-core, /usr/bin/chromium or REGDATA_CHROMIUM): the sign-in page, the
 * consent page, and the client's own callback page, served here by a loopback listener as a desktop agent
 * serves its own. The client then calls every tool it lists, and the dashboard's Connected clients page
 * shows the client with its last use. Each screenshot is 1280x800 at most, optimized losslessly with optipng
 * when it is installed. The calls and their charges are printed as a Markdown table for the docs.
 *
 * `--bypass-csp` makes Chromium ignore the pages' Content-Security-Policy. It is no longer needed: the
 * sign-in and consent pages allow the client's redirect origin in `form-action` (Chromium checks
 * form-action on every redirect after a form post; docs/mcp.md, "Walk-through").
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { chromium, type Page } from 'playwright-core';
import { buildWorldSnapshot } from '../ingest/world/index.ts';
import {
  PASSWORD,
  memoryProvider,
  signedUpUser,
  startOAuthServer,
  toolCalls,
} from '../test/mcp/oauth-helpers.ts';

const args = process.argv.slice(2);
const BYPASS_CSP = args.includes('--bypass-csp');
const OUT = path.resolve(args.find((a) => !a.startsWith('--')) ?? 'docs/images/mcp-walkthrough');
const CHROMIUM = process.env['REGDATA_CHROMIUM'] ?? '/usr/bin/chromium';
const EMAIL = 'ada@example.com';
const CLIENT_NAME = 'Walkthrough agent';
const PRICE = 0.05;

/** The client's callback: a loopback page, as a desktop agent shows after the browser hands it the code. */
async function callbackListener() {
  let resolveParams: (p: URLSearchParams) => void;
  const params = new Promise<URLSearchParams>((resolve) => (resolveParams = resolve));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    resolveParams(url.searchParams);
    const ok = url.searchParams.has('code');
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><title>${CLIENT_NAME}</title>
<body style="font: 16px system-ui, sans-serif; margin: 4rem auto; max-width: 36rem; line-height: 1.5">
<h1 style="font-size: 1.4rem">${ok ? `${CLIENT_NAME} is connected` : 'Sign-in was not completed'}</h1>
<p>${ok ? 'The agent received the authorization code and is exchanging it for a token. You can close this tab.' : (url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? '')}</p>
<p style="color: #555; font-size: 0.9rem">This page is served by the MCP client itself, on ${url.host}.</p>
</body>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { redirect: `http://127.0.0.1:${port}/callback`, params, close: () => server.close() };
}

async function shot(page: Page, name: string) {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  try {
    execFileSync('optipng', ['-quiet', '-o2', '-strip', 'all', file]);
  } catch {
    // optipng is optional: the screenshot stays as Chromium wrote it.
  }
  console.error(`wrote ${path.relative(process.cwd(), file)} (${fs.statSync(file).size} bytes)`);
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const worldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-walkthrough-world-'));
  await buildWorldSnapshot({ dataDir: worldDir, scale: 0.003, seed: 7, label: 'walkthrough' });
  const started = await startOAuthServer(worldDir, PRICE);
  const { server } = started;
  const callback = await callbackListener();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const accountId = await signedUpUser(server, EMAIL);
    const mcpUrl = new URL(`${server.url}/mcp`);

    // 1. The client knows only the URL: its first request is refused with 401, and the SDK discovers the
    // authorization server, registers the client and builds the authorization URL.
    const mem = memoryProvider({ redirect: callback.redirect, clientName: CLIENT_NAME });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: mem.provider });
    await new Client({ name: 'walkthrough', version: '1.0.0' }).connect(first).catch((e: unknown) => {
      if (!(e instanceof UnauthorizedError)) throw e;
    });
    const authorizationUrl = mem.authorizationUrl();
    if (!authorizationUrl) throw new Error('the client was not sent to sign in');

    // 2. The browser: sign in, consent, and back to the client's callback.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      bypassCSP: BYPASS_CSP,
    });
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') refusals.push(m.text());
    });
    await page.goto(authorizationUrl.href);
    await page.locator('input[name="email"]').fill(EMAIL);
    await page.locator('input[name="password"]').fill(PASSWORD);
    await shot(page, '1-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await shot(page, '2-consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.redirect}**`, { timeout: 10_000 }).catch((e: unknown) => {
      throw new Error(`the browser did not reach the client's callback: ${refusals.join('; ') || String(e)}`);
    });
    await page.getByRole('heading').waitFor();
    await shot(page, '3-callback');

    // 3. The client exchanges the code, then connects with its token and calls every tool.
    await first.finishAuth(await callback.params);
    const client = new Client(
      { name: 'walkthrough', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: mem.provider }));
    const era = client.getProtocolEra();
    const listed = (await client.listTools()).tools.map((t) => t.name);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result.structuredContent as { meta?: { credits_charged?: number }; data?: unknown };
    };
    const search = (await call('search_companies', { country: 'EE', page_size: 3 })) as {
      data: { items: { registrikood: string }[] };
    };
    const codes = search.data.items.map((i) => i.registrikood);
    const countries = (await call('list_countries', {})) as { countries: { code: string; as_of: string }[] };
    // The README's rule: `since` taken from /countries' as_of, which the kept history always covers.
    const since = countries.countries.find((c) => c.code === 'EE')!.as_of;
    // Workplaces are Sweden's (spec): one Swedish company for get_company_workplaces.
    const se = (await call('search_companies', { country: 'SE', page_size: 1 })) as {
      data: { items: { registrikood: string }[] };
    };
    const calls = toolCalls(codes[0]!, se.data.items[0]!.registrikood, since, codes.slice(0, 2));
    const missing = listed.filter((n) => !calls.some(([c]) => c === n));
    if (missing.length > 0) throw new Error(`tools without a call here: ${missing.join(', ')}`);
    const rows: string[] = [];
    const before = (await server.wallet.balance({ accountId })).balance;
    for (const [name, args] of calls) {
      const out = await call(name, args);
      rows.push(`| \`${name}\` | \`${JSON.stringify(args)}\` | ${out.meta?.credits_charged ?? 0} |`);
    }
    // The export's result is a signed link; the download (no key needed) is the metered export.
    const exportArgs = calls.find(([n]) => n === 'export_companies')![1];
    const exported = (await call('export_companies', exportArgs)) as { url: string; rows: number };
    const beforeDownload = (await server.wallet.balance({ accountId })).balance;
    const download = await fetch(new URL(exported.url, server.url));
    const csvLines = (await download.text()).trim().split('\n').length;
    const afterDownload = (await server.wallet.balance({ accountId })).balance;
    rows.push(
      `| (download of the export link) | ${exported.rows} rows quoted, HTTP ${download.status}, ` +
        `${csvLines - 1} CSV rows | ${(beforeDownload - afterDownload).toFixed(2)} |`,
    );
    const after = (await server.wallet.balance({ accountId })).balance;
    await client.close();

    // 4. The dashboard (the browser is signed in from step 2): the connected client with its last use.
    await page.goto(`${server.url}/dashboard/clients`);
    await page.locator('#clients', { hasText: CLIENT_NAME }).waitFor();
    await shot(page, '4-dashboard-clients');

    console.log(`Protocol era: ${era}. Tools listed: ${listed.length}; called: ${calls.length}.\n`);
    console.log('| Tool | Arguments | Credits charged |\n|---|---|---|');
    console.log(rows.join('\n'));
    console.log(
      `\nBalance ${before} before the calls, ${after} after (${(before - after).toFixed(2)} charged).`,
    );
  } finally {
    await browser.close();
    callback.close();
    await started.close();
    fs.rmSync(worldDir, { recursive: true, force: true });
  }
}

await main();
