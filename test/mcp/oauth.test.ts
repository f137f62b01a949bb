import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { Identity } from '../../src/identity/identity.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { Browser, PASSWORD, REDIRECT, memoryProvider } from './oauth-helpers.ts';

/**
 * Issue 29: an MCP client that knows only the URL signs the user in and calls the tools on the user's
 * wallet. The SDK's own client runs its OAuth flow (discovery, dynamic registration, PKCE, resource
 * indicator, code exchange) against the real server; the browser's part is a real HTTP client that follows
 * the redirects, keeps the cookies and posts the sign-in and consent forms as a person would.
 */

const PRICE = 0.05;

let tmp: string;
let server: StartedServer;
let identity: Identity;
let mcpUrl: URL;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-oauth-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
  server = await startServer(
    loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      REGDATA_DEV_MODE: 'true',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      REGDATA_PRICES: `EE=${PRICE}`,
    }),
    { handleSignals: false, engine: { connections: 2 } },
  );
  identity = new Identity({ store: server.wallet.store });
  mcpUrl = new URL(`${server.url}/mcp`);
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A verified dashboard user on pay-as-you-go; the account has its registration credits (30). */
async function user(email: string): Promise<string> {
  const { verifyToken } = await identity.signUp(email, PASSWORD, '127.0.0.1');
  const verified = await identity.verifyEmail(verifyToken!);
  const { accountId } = await server.wallet.completeRegistration(email);
  await identity.linkAccount(verified.userId, accountId);
  // Past the 7-day trial (whose API and MCP calls are free), as a week later: calls are charged from the
  // 30 registration credits. The one write here that no API makes: time passing.
  await server.wallet.store.run('UPDATE accounts SET trial_ends_at = ? WHERE id = ?', [
    Date.now() - 1,
    accountId,
  ]);
  return accountId;
}

async function connect(provider: OAuthClientProvider) {
  const client = new Client(
    { name: 'oauth-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return client;
}

/** The whole sign-in: the client finds out it must sign in, the browser does, the client finishes. */
async function signIn(email: string, consent?: Record<string, string>) {
  const mem = memoryProvider();
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: mem.provider });
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  await first.connect(transport).catch((e) => {
    if (!(e instanceof UnauthorizedError)) {
      console.log('CONNECT', e.message);
      throw e;
    }
  });
  const browser = new Browser();
  const { callback, pages } = await browser.authorize(mem.authorizationUrl()!, email, consent);
  await transport.finishAuth(callback.searchParams as never);
  return { ...mem, browser, pages };
}

describe('MCP sign-in with OAuth', () => {
  it('a client that knows only the URL signs the user in, and its calls are charged to that account', async () => {
    const accountId = await user('oauth-user@test.local');
    const { provider, kept, pages } = await signIn('oauth-user@test.local');
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
      // The grant acts through a key of the account, listed (and revocable) on the dashboard.
      const keys = await server.wallet.accountKeys(accountId);
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
    const { kept } = await signIn('oauth-refresh@test.local');
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
    const { provider } = await signIn('oauth-free@test.local', {});
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
