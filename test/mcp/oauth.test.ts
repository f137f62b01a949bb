import type { CallToolResult, OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import {
  Browser,
  REDIRECT,
  connectClient,
  signIn,
  signedUpUser,
  startOAuthServer,
  toolCalls,
} from './oauth-helpers.ts';

/**
 * Issue 29: an MCP client that knows only the URL signs the user in and calls the tools on the user's
 * wallet. The SDK's own client runs its OAuth flow (discovery, dynamic registration, PKCE, resource
 * indicator, code exchange) against the real server; the browser's part is a real HTTP client that follows
 * the redirects, keeps the cookies and posts the sign-in and consent forms as a person would.
 */

const PRICE = 0.05;

let server: StartedServer;
let mcpUrl: URL;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, close } = await startOAuthServer(inject('testDataDir'), PRICE));
  mcpUrl = new URL(`${server.url}/mcp`);
}, 180_000);

afterAll(async () => {
  await close?.();
});

const user = (email: string) => signedUpUser(server, email);
const connect = (provider: OAuthClientProvider) => connectClient(mcpUrl, provider);

describe('MCP sign-in with OAuth', () => {
  it('a client that knows only the URL signs the user in, and its calls are charged to that account', async () => {
    const accountId = await user('oauth-user@test.local');
    const { provider, kept, pages } = await signIn(mcpUrl, 'oauth-user@test.local');
    expect(pages.some((p) => p.includes('Connect Test agent?'))).toBe(true);
    expect(pages.some((p) => p.includes('charged to this account'))).toBe(true);
    expect((kept['tokens'] as { refresh_token?: string }).refresh_token).toBeTruthy();

    const client = await connect(provider);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const before = (await server.wallet.balance({ accountId })).balance;
      const result = (await client.callTool({
        name: 'search_companies',
        arguments: { country: 'EE', page_size: 3 },
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const meta = (result.structuredContent as { meta: { rows_returned: number; credits_charged: number } })
        .meta;
      expect(meta.rows_returned).toBe(3);
      expect(meta.credits_charged).toBeCloseTo(3 * PRICE, 9);
      expect(before - (await server.wallet.balance({ accountId })).balance).toBeCloseTo(3 * PRICE, 9);
      // The grant acts through a key of the account, listed (and revocable) on the Connected clients page.
      const keys = await server.wallet.accountKeys(accountId, 'grants');
      const grantKey = keys.find((k) => k.name === 'MCP client: Test agent');
      expect(grantKey?.lastUsedAt).toBeTruthy();
      const usage = await server.wallet.usage({ accountId });
      expect(usage.records.find((r) => r.operation === 'search')?.channel).toBe('mcp');

      // Revoked on the dashboard: the next call is refused.
      await server.wallet.revokeAccountKey({ accountId, keyId: grantKey!.keyId });
      await expect(client.listTools()).rejects.toThrow(/401|nauthori/);
    } finally {
      await client.close();
    }
  });

  it('with the token, every tool the server lists answers, and the wallet is charged what the answers say', async () => {
    const accountId = await user('oauth-every-tool@test.local');
    const { provider } = await signIn(mcpUrl, 'oauth-every-tool@test.local');
    const client = await connect(provider);
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return result.structuredContent as { meta?: { credits_charged?: number } } & Record<string, unknown>;
      };
      const items = async (country: string) =>
        (
          (await call('search_companies', { country, page_size: 2 })) as unknown as {
            data: { items: { registrikood: string }[] };
          }
        ).data.items.map((i) => i.registrikood);
      const ee = await items('EE');
      const se = await items('SE');
      const countries = (await call('list_countries', {})) as unknown as {
        countries: { code: string; as_of: string }[];
      };
      const since = countries.countries.find((c) => c.code === 'EE')!.as_of;
      const calls = toolCalls(ee[0]!, se[0]!, since, ee);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed.filter((n) => !calls.some(([c]) => c === n))).toEqual([]);
      const before = (await server.wallet.balance({ accountId })).balance;
      let charged = 0;
      for (const [name, args] of calls) charged += (await call(name, args)).meta?.credits_charged ?? 0;
      expect(charged).toBeGreaterThan(0);
      expect(before - (await server.wallet.balance({ accountId })).balance).toBeCloseTo(charged, 9);
    } finally {
      await client.close();
    }
  });

  it('answers 401 with the resource metadata, which names this server as the authorization server', async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty('detail');
    const challenge = res.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${server.url}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
    expect(metadata['resource']).toBe(mcpUrl.href);
    expect(metadata['authorization_servers']).toEqual([server.url]);
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as['issuer']).toBe(server.url);
    expect(as['code_challenge_methods_supported']).toEqual(['S256']);
    expect(as['registration_endpoint']).toBe(`${server.url}/oauth/register`);
  });

  it('refuses an authorization request without PKCE', async () => {
    const reg = (await (
      await fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      })
    ).json()) as { client_id: string };
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: reg.client_id,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'mcp:data',
    }).toString();
    // Back to the client with the error, and no code.
    const { next } = await new Browser().go(url.href);
    const callback = new URL(next!);
    expect(callback.href.startsWith(REDIRECT)).toBe(true);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('a refresh token used twice is refused, and its whole chain with it', async () => {
    await user('oauth-refresh@test.local');
    const { kept } = await signIn(mcpUrl, 'oauth-refresh@test.local');
    const client = kept['client'] as { client_id: string };
    const first = (kept['tokens'] as { refresh_token: string }).refresh_token;
    const refresh = (token: string) =>
      fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: client.client_id,
        }).toString(),
      });
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    const second = ((await rotated.json()) as { refresh_token: string }).refresh_token;
    expect(second).not.toBe(first);
    const reused = await refresh(first);
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await refresh(second)).status).toBe(400);
  });

  it('a client the user allowed the free tools only cannot spend', async () => {
    const accountId = await user('oauth-free@test.local');
    // The user unticks "Allow metered calls" on the consent page.
    const { provider } = await signIn(mcpUrl, 'oauth-free@test.local', { consent: {} });
    const client = await connect(provider);
    const before = (await server.wallet.balance({ accountId })).balance;
    try {
      const count = (await client.callTool({
        name: 'count_companies',
        arguments: { country: 'EE' },
      })) as CallToolResult;
      expect(count.isError).toBeFalsy();
      const search = (await client.callTool({
        name: 'search_companies',
        arguments: { country: 'EE', page_size: 3 },
      })) as CallToolResult;
      expect(search.isError).toBe(true);
      const text = (search.content[0] as { text: string }).text;
      expect(JSON.parse(text)).toMatchObject({ status: 403 });
      expect((await server.wallet.balance({ accountId })).balance).toBe(before);
    } finally {
      await client.close();
    }
  });
});
