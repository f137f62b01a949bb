/**
 * What signing in with OAuth costs a client, and what a call with a token costs against the same call with
 * an API key (issue 29): a real server on a copy of a data folder, the SDK client's own OAuth flow and a
 * browser that follows the redirects (oauth-helpers.ts), every HTTP request of both counted.
 *
 *   npx tsx test/mcp/measure-oauth.ts <data folder> [calls]
 *
 * A measurement, not a test: nothing here asserts a time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config.ts';
import { Identity } from '../../src/identity/identity.ts';
import { startServer } from '../../src/server.ts';
import { Browser, PASSWORD, memoryProvider } from './oauth-helpers.ts';

const source = process.argv[2];
const calls = Number(process.argv[3] ?? 500);
if (!source) throw new Error('usage: measure-oauth.ts <data folder> [calls]');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-measure-oauth-'));
fs.cpSync(source, path.join(tmp, 'data'), { recursive: true });
const server = await startServer(
  loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: path.join(tmp, 'data'),
    LOG_LEVEL: 'silent',
    REGDATA_DEV_MODE: 'true',
  }),
  { handleSignals: false },
);
try {
  const email = 'measure@test.local';
  const identity = new Identity({ store: server.wallet.store });
  const { verifyToken } = await identity.signUp(email, PASSWORD, '127.0.0.1');
  const { userId } = await identity.verifyEmail(verifyToken!);
  const { accountId } = await server.wallet.completeRegistration(email);
  await identity.linkAccount(userId, accountId);

  const url = new URL(`${server.url}/mcp`);
  let clientRequests = 0;
  const counted: typeof fetch = (input, init) => {
    clientRequests++;
    return fetch(input, init);
  };
  const mem = memoryProvider();
  const started = performance.now();
  const transport = new StreamableHTTPClientTransport(url, { authProvider: mem.provider, fetch: counted });
  await new Client({ name: 'measure', version: '1' }).connect(transport).catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) throw err;
  });
  const browser = new Browser();
  const { callback } = await browser.authorize(mem.authorizationUrl()!, email);
  await transport.finishAuth(callback.searchParams as never);
  const withToken = new Client({ name: 'measure', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await withToken.connect(
    new StreamableHTTPClientTransport(url, { authProvider: mem.provider, fetch: counted }),
  );
  await withToken.listTools();
  const ms = performance.now() - started;
  console.log(
    `OAuth connection to the first tools/list: ${ms.toFixed(0)} ms, ${clientRequests + browser.requests} HTTP ` +
      `requests (client ${clientRequests}, browser ${browser.requests})`,
  );

  const { key } = await server.wallet.createAccountKey({ accountId, name: 'measure key' });
  const withKey = new Client({ name: 'measure', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await withKey.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  const time = async (client: Client) => {
    const call = () => client.callTool({ name: 'count_companies', arguments: { country: 'EE' } });
    for (let i = 0; i < 50; i++) await call();
    const out: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await call();
      out.push(performance.now() - t);
    }
    out.sort((a, b) => a - b);
    return { p50: out[Math.floor(out.length / 2)]!, p90: out[Math.floor(out.length * 0.9)]! };
  };
  // Interleaved rounds, so a busy moment of the machine falls on both.
  const token: number[] = [];
  const apiKey: number[] = [];
  for (let round = 0; round < 3; round++) {
    token.push((await time(withToken)).p50);
    apiKey.push((await time(withKey)).p50);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[1]!;
  console.log(
    `tools/call count_companies, p50 of ${calls} calls (median of 3 rounds): token ${med(token).toFixed(2)} ms, ` +
      `key ${med(apiKey).toFixed(2)} ms, difference ${(med(token) - med(apiKey)).toFixed(2)} ms`,
  );
  await withToken.close();
  await withKey.close();
} finally {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
