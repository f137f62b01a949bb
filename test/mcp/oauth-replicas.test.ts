import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshPgLocation } from '../wallet/backends.ts';
import { connectClient, rawToolsList, signIn, signedUpUser, startOAuthServer } from './oauth-helpers.ts';

/**
 * Issue 29: a grant revoked on one replica is refused on the next call on another. Two servers on one
 * PostgreSQL wallet sit behind a loopback proxy whose origin is their shared public URL (the issuer and
 * the token's resource, as behind a real load balancer); the test chooses which replica each request
 * reaches. The client signs in through A, calls a tool on B, the user revokes it on A's dashboard, and B
 * refuses its next call.
 */

const PG_URL = inject('walletPgUrl');

type Replica = Awaited<ReturnType<typeof startOAuthServer>>;
let a: Replica;
let b: Replica;
let proxy: http.Server;
let origin: string;
/** Where the proxy sends the next request. */
let target: Replica;

beforeAll(async () => {
  if (!PG_URL) return;
  proxy = http.createServer((req, res) => {
    const port = new URL(target.server.url).port;
    const out = http.request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const env = {
    REGDATA_WALLET_URL: await freshPgLocation(),
    REGDATA_WALLET_POOL_SIZE: '3',
    REGDATA_PUBLIC_URL: origin,
    // Replicas share their secrets, as a deployment's configuration gives them.
    REGDATA_EXPORT_LINK_SECRET: randomBytes(32).toString('hex'),
  };
  a = await startOAuthServer(inject('testDataDir'), 0.05, env);
  b = await startOAuthServer(inject('testDataDir'), 0.05, env);
}, 240_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  proxy?.close();
});

describe.skipIf(!PG_URL)('OAuth grants across replicas on PostgreSQL', () => {
  it('a grant revoked on replica A is refused on replica B at the next call', async () => {
    const mcpUrl = new URL(`${origin}/mcp`);
    target = a;
    await signedUpUser(a.server, 'replicas@test.local');
    const { provider, browser, kept } = await signIn(mcpUrl, 'replicas@test.local');
    const token = (kept['tokens'] as { access_token: string }).access_token;
    const rawCall = () => rawToolsList(mcpUrl, token);

    target = b;
    const client = await connectClient(mcpUrl, provider);
    try {
      const count = (await client.callTool({
        name: 'count_companies',
        arguments: { country: 'EE' },
      })) as CallToolResult;
      expect(count.isError, JSON.stringify(count.content)).toBeFalsy();
      expect((await rawCall()).status).toBe(200);

      // On A's dashboard: the page lists the client, its form revokes it.
      target = a;
      const page = await browser.go(`${origin}/dashboard/clients`);
      const grantId = /<tr data-grant-id="([^"]+)">/.exec(page.body)![1]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
      const done = await browser.go(`${origin}/dashboard/clients/${grantId}/revoke`, {
        _csrf: csrf,
        confirm: 'yes',
      });
      expect(done.res.status).toBe(303);

      target = b;
      const refused = await rawCall();
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      // The SDK client answers the 401 by refreshing, and the refresh token died with the grant.
      await expect(
        client.callTool({ name: 'count_companies', arguments: { country: 'EE' } }),
      ).rejects.toThrow(/grant request is invalid/);
    } finally {
      await client.close();
    }
  });
});
