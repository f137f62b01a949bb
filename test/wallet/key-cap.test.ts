import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.ts';
import { DEFAULT_MAX_LIVE_KEYS } from '../../src/wallet/keys.ts';
import { testWallet, useBackend, WALLET_BACKENDS } from './helpers.ts';

const CAP_MESSAGE = /already has 3 live API keys, the most allowed; revoke one/;

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the key to be refused');
}

/** Issue 33 item 5: a documented cap on an account's live API keys, over every way a key is made. */
describe.each(WALLET_BACKENDS)('live API keys per account (%s)', (backend) => {
  useBackend(backend);

  it('defaults to 20', async () => {
    expect(DEFAULT_MAX_LIVE_KEYS).toBe(20);
    const { wallet } = await testWallet();
    for (let i = 0; i < 20; i++) await wallet.createKey({ email: 'twenty@test.local', kind: 'standard' });
    expect((await refusal(wallet.createKey({ email: 'twenty@test.local', kind: 'standard' }))).code).toBe(
      'forbidden',
    );
  });

  it('refuses one more through createKey (the CLI) and createAccountKey (the dashboard); a revoked key frees a place', async () => {
    const { wallet } = await testWallet({ maxLiveKeys: 3 });
    const first = await wallet.createKey({ email: 'cap@test.local', kind: 'standard' });
    await wallet.createKey({ email: 'cap@test.local', kind: 'admin' });
    await wallet.createAccountKey({ accountId: first.accountId, name: 'ci' });

    const viaCli = await refusal(wallet.createKey({ email: 'cap@test.local', kind: 'standard' }));
    expect(viaCli).toMatchObject({ code: 'forbidden', message: expect.stringMatching(CAP_MESSAGE) });
    const viaDashboard = await refusal(wallet.createAccountKey({ accountId: first.accountId, name: 'more' }));
    expect(viaDashboard.message).toMatch(CAP_MESSAGE);
    expect(await wallet.listKeys({ email: 'cap@test.local' })).toHaveLength(3);

    // The cap is per account, and the in-app search's internal key is not one of the account's keys.
    await wallet.createKey({ email: 'other@test.local', kind: 'standard' });
    await wallet.appPrincipal(first.accountId);
    await wallet.revokeKey({ keyId: first.keyId });
    await wallet.createAccountKey({ accountId: first.accountId, name: 'replacement' });
    expect(
      (await wallet.accountKeys(first.accountId)).filter((k) => k.revokedAt === null).map((k) => k.name),
    ).toHaveLength(3);
  });

  it('holds under creations at once: of 12 concurrent requests for an account with room for 3, 3 succeed', async () => {
    const { wallet } = await testWallet({ maxLiveKeys: 3 });
    // Connections opened beforehand, so that the creations below do meet in the database, not in the pool.
    const warm = await wallet.createKey({ email: 'warm@test.local', kind: 'standard' });
    await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        wallet.createAccountKey({ accountId: warm.accountId, name: `w${i}` }),
      ),
    );
    const { accountId } = await wallet.createKey({ email: 'race@test.local', kind: 'standard' });
    await wallet.revokeKey({ keyId: (await wallet.accountKeys(accountId))[0]!.keyId });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => wallet.createAccountKey({ accountId, name: `k${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(CAP_MESSAGE);
    expect((await wallet.accountKeys(accountId)).filter((k) => k.revokedAt === null)).toHaveLength(3);
  });

  it("counts an account's own keys and its MCP clients' grant keys against separate caps", async () => {
    const { wallet } = await testWallet({ maxLiveKeys: 2 });
    const own = await wallet.createKey({ email: 'grants@test.local', kind: 'standard' });
    await wallet.createAccountKey({ accountId: own.accountId, name: 'ci' });
    // What src/oauth does at consent: a key for the grant, then the grant row that names it.
    const connect = async (client: string) => {
      const key = await wallet.createAccountKey({
        accountId: own.accountId,
        name: `MCP client: ${client}`,
        set: 'grants',
      });
      await wallet.store.run(
        `INSERT INTO oauth_grants (grant_id, account_id, key_id, client_id, client_name, scope, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [
          `grant-${client}`,
          own.accountId,
          key.keyId,
          `https://${client}.example/client`,
          client,
          'data',
          '2026-11-28',
        ],
      );
      return key;
    };
    // Both own places taken: a client still connects, twice.
    await connect('one');
    const two = await connect('two');
    expect(
      (await refusal(wallet.createAccountKey({ accountId: own.accountId, name: 'third' }))).message,
    ).toMatch(/already has 2 live API keys/);
    expect((await refusal(connect('three'))).message).toMatch(/already has 2 connected MCP clients/);
    // A disconnected client frees a client's place, not one of the own keys'.
    await wallet.revokeKey({ keyId: two.keyId });
    await connect('four');
    expect((await refusal(wallet.createAccountKey({ accountId: own.accountId, name: 'third' }))).code).toBe(
      'forbidden',
    );
    expect(
      (await wallet.accountKeys(own.accountId, 'grants')).filter((k) => k.revokedAt === null),
    ).toHaveLength(2);
    expect((await wallet.accountKeys(own.accountId)).filter((k) => k.revokedAt === null)).toHaveLength(2);
  });
});
