import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { rawToolsList, signIn, signedUpUser, startOAuthServer } from './oauth-helpers.ts';

/**
 * Issue 29, RFC 8707: an access token is for one resource. Two servers share one data folder and wallet,
 * so each finds the other's token records, but each is its own resource (`<its origin>/mcp`). A token the
 * first issued for its /mcp is refused by the second's, and still works on its own.
 */

let a: StartedServer;
let b: StartedServer;
let closeA: () => Promise<void>;

beforeAll(async () => {
  let tmp: string;
  ({ server: a, tmp, close: closeA } = await startOAuthServer(inject('testDataDir'), 0.05));
  b = await startServer(
    loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: path.join(tmp, 'data'),
      LOG_LEVEL: 'silent',
      REGDATA_DEV_MODE: 'true',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    }),
    { handleSignals: false, engine: { connections: 1 } },
  );
}, 180_000);

afterAll(async () => {
  await b?.close();
  await closeA?.();
});

/** A raw `tools/list` with `token`: the status, the challenge and the body. */
async function listTools(server: StartedServer, token: string) {
  const res = await rawToolsList(`${server.url}/mcp`, token);
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() };
}

describe('a token is for the resource it was issued for', () => {
  it('is refused by another server’s /mcp, and still works on its own', async () => {
    expect(a.url).not.toBe(b.url);
    await signedUpUser(a, 'resource-user@test.local');
    const { kept } = await signIn(new URL(`${a.url}/mcp`), 'resource-user@test.local');
    const token = (kept['tokens'] as { access_token: string }).access_token;

    const elsewhere = await listTools(b, token);
    expect(elsewhere.status).toBe(401);
    expect(JSON.parse(elsewhere.body)).toHaveProperty('detail');
    expect(elsewhere.challenge).toMatch(/error="invalid_token"/);
    expect(elsewhere.challenge).toContain(
      `resource_metadata="${b.url}/.well-known/oauth-protected-resource/mcp"`,
    );

    const home = await listTools(a, token);
    expect(home.status).toBe(200);
    expect(home.body).toContain('search_companies');
  });
});
