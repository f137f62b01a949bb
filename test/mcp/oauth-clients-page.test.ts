import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartedServer } from '../../src/server.ts';
import type { KeyInfo } from '../../src/wallet/wallet-api.ts';
import { connectClient, rawToolsList, signIn, signedUpUser, startOAuthServer } from './oauth-helpers.ts';

/**
 * Issue 29: the dashboard's Connected clients page over real HTTP. The browser that signed in for the
 * client (its cookies are the dashboard session) opens the page, sees the client with its scopes and last
 * use, and revokes it with the page's own form; the client's next call is a 401 invalid_token.
 */

let server: StartedServer;
let mcpUrl: URL;
let close: () => Promise<void>;
let walletPath: string;

beforeAll(async () => {
  let tmp: string;
  ({ server, close, tmp } = await startOAuthServer(inject('testDataDir'), 0.05));
  mcpUrl = new URL(`${server.url}/mcp`);
  walletPath = path.join(tmp, 'data', 'wallet.db');
}, 180_000);

/** `regdata keys list --json` as an operator runs it, on the server's wallet (the same file, as in production). */
async function keysList(email: string, ...flags: string[]): Promise<(KeyInfo & { grant?: true })[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.resolve('bin/regdata.mjs'), 'keys', 'list', '--email', email, '--json', ...flags],
    { env: { ...process.env, REGDATA_WALLET_DB: walletPath, LOG_LEVEL: 'silent' } },
  );
  return JSON.parse(stdout) as (KeyInfo & { grant?: true })[];
}

afterAll(async () => {
  await close?.();
});

/** The text of a table row as a browser shows it: tags out, white space collapsed. */
const text = (h: string) =>
  h
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** A raw MCP call with the access token, to read the status and challenge the client would get. */
const rawCall = (token: string) => rawToolsList(mcpUrl, token);

describe('Connected clients on the dashboard', () => {
  it('lists the client with its scopes and last use, and revoking it refuses its next call', async () => {
    const accountId = await signedUpUser(server, 'clients-page@test.local');
    const { provider, kept, browser } = await signIn(mcpUrl, 'clients-page@test.local');
    const token = (kept['tokens'] as { access_token: string }).access_token;
    const clientId = (kept['client'] as { client_id: string }).client_id;

    let page = await browser.go(`${server.url}/dashboard/clients`);
    expect(page.res.status).toBe(200);
    let row = /<tr data-grant-id="([^"]+)">([\s\S]*?)<\/tr>/.exec(page.body);
    expect(row).not.toBeNull();
    const grantId = row![1]!;
    expect(text(row![2]!)).toMatch(
      new RegExp(`^Test agent ${clientId} mcp:data mcp:free \\d{4}-\\d\\d-\\d\\d \\S+ UTC never Revoke$`),
    );
    // The grant's key is the client's, not one of the account's own: the keys page leaves it out.
    const keysPage = await browser.go(`${server.url}/dashboard/keys`);
    expect(keysPage.body).not.toContain('MCP client: Test agent');
    // Nor does the overview count it: the account has no key of its own yet, so it is shown how to start.
    const overview = await browser.go(`${server.url}/dashboard`);
    expect(overview.body).toContain('Create your first API key');
    // Nor do the wallet's and the operator's listings of the account's keys; asked for, the grant keys are
    // listed apart, marked as such.
    expect((await server.wallet.accountKeys(accountId)).map((k) => k.name)).not.toContain(
      'MCP client: Test agent',
    );
    const grantKeys = await server.wallet.accountKeys(accountId, 'grants');
    expect(grantKeys.map((k) => k.name)).toEqual(['MCP client: Test agent']);
    expect(await keysList('clients-page@test.local')).toEqual([]);
    expect(await keysList('clients-page@test.local', '--grants')).toEqual([{ ...grantKeys[0], grant: true }]);

    // A call shows as the client's last use.
    const client = await connectClient(mcpUrl, provider);
    try {
      const count = (await client.callTool({
        name: 'count_companies',
        arguments: { country: 'EE' },
      })) as CallToolResult;
      expect(count.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    page = await browser.go(`${server.url}/dashboard/clients`);
    row = /<tr data-grant-id="[^"]+">([\s\S]*?)<\/tr>/.exec(page.body);
    expect(text(row![1]!)).not.toMatch(/ never Revoke$/);
    expect((await rawCall(token)).status).toBe(200);

    // Without the page's CSRF token the form is refused and nothing changes.
    const forged = await browser.go(`${server.url}/dashboard/clients/${grantId}/revoke`, { confirm: 'yes' });
    expect(forged.res.status).toBe(403);
    expect((await rawCall(token)).status).toBe(200);

    // The Revoke button asks first; the confirmation revokes.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const asked = await browser.go(`${server.url}/dashboard/clients/${grantId}/revoke`, { _csrf: csrf });
    expect(asked.res.status).toBe(200);
    expect(asked.body).toContain('Disconnect Test agent?');
    expect((await rawCall(token)).status).toBe(200);
    const done = await browser.go(`${server.url}/dashboard/clients/${grantId}/revoke`, {
      _csrf: csrf,
      confirm: 'yes',
    });
    expect(done.res.status).toBe(303);
    expect(done.next).toBe(`${server.url}/dashboard/clients?revoked=${grantId}`);

    const refused = await rawCall(token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toHaveProperty('detail');
    // Its refresh token died with the grant: the client cannot get a new access token either.
    const refresh = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: (kept['tokens'] as { refresh_token: string }).refresh_token,
        client_id: clientId,
      }).toString(),
    });
    expect(refresh.status).toBe(400);
    // The revoked client leaves the list; the page it is sent back to says which and when, from the
    // key's revocation as the wallet recorded it (the grant row and the key stay, for the usage history).
    const [revokedKey] = await server.wallet.accountKeys(accountId, 'grants');
    expect(revokedKey!.revokedAt).not.toBeNull();
    const when = revokedKey!.revokedAt!.replace('T', ' ').slice(0, 16);
    page = await browser.go(done.next!);
    expect(page.body).not.toContain('data-grant-id');
    expect(text(page.body)).toContain(
      `Connected clients Test agent was disconnected ${when} UTC; its tokens no longer work.`,
    );
    expect(text(page.body)).toContain('No client is connected.');
    page = await browser.go(`${server.url}/dashboard/clients`);
    expect(page.body).not.toContain('data-grant-id');
    expect(page.body).not.toContain('disconnected');
    expect(await keysList('clients-page@test.local', '--grants')).toEqual([{ ...revokedKey, grant: true }]);
  });

  it('a grant key is none of the keys page: revoking it there is not found, and the client stays', async () => {
    const accountId = await signedUpUser(server, 'clients-keys-page@test.local');
    const { kept, browser } = await signIn(mcpUrl, 'clients-keys-page@test.local');
    const token = (kept['tokens'] as { access_token: string }).access_token;
    const [grantKey] = await server.wallet.accountKeys(accountId, 'grants');
    const keysPage = await browser.go(`${server.url}/dashboard/keys`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(keysPage.body)![1]!;
    for (const form of [{ _csrf: csrf }, { _csrf: csrf, confirm: 'yes' }] as Record<string, string>[]) {
      const res = await browser.go(`${server.url}/dashboard/keys/${grantKey!.keyId}/revoke`, form);
      expect(res.res.status).toBe(404);
      expect(res.body).toContain('No such API key.');
    }
    expect((await server.wallet.accountKeys(accountId, 'grants'))[0]!.revokedAt).toBeNull();
    expect((await rawCall(token)).status).toBe(200);
    const page = await browser.go(`${server.url}/dashboard/clients`);
    expect(page.body).toContain(`data-grant-id=`);
  });

  it('connects a client whose name is longer than a key name may be, under a key named by its first 80 characters', async () => {
    const accountId = await signedUpUser(server, 'clients-long-name@test.local');
    const clientName = `Research agent of the procurement team ${'x'.repeat(90)}`;
    const { kept } = await signIn(mcpUrl, 'clients-long-name@test.local', { clientName });
    expect((await rawCall((kept['tokens'] as { access_token: string }).access_token)).status).toBe(200);
    const [grantKey] = await server.wallet.accountKeys(accountId, 'grants');
    expect(grantKey!.name).toBe(`MCP client: ${clientName}`.slice(0, 80));
  });

  it("another account's grant is not found, and stays connected", async () => {
    await signedUpUser(server, 'clients-owner@test.local');
    const owner = await signIn(mcpUrl, 'clients-owner@test.local');
    const ownerPage = await owner.browser.go(`${server.url}/dashboard/clients`);
    const grantId = /<tr data-grant-id="([^"]+)">/.exec(ownerPage.body)![1]!;
    const token = (owner.kept['tokens'] as { access_token: string }).access_token;

    await signedUpUser(server, 'clients-other@test.local');
    const other = await signIn(mcpUrl, 'clients-other@test.local');
    const otherPage = await other.browser.go(`${server.url}/dashboard/clients`);
    expect(otherPage.body).not.toContain(grantId);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(otherPage.body)![1]!;
    const res = await other.browser.go(`${server.url}/dashboard/clients/${grantId}/revoke`, {
      _csrf: csrf,
      confirm: 'yes',
    });
    expect(res.res.status).toBe(404);
    expect((await rawCall(token)).status).toBe(200);
  });
});
