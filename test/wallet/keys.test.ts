import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.ts';
import {
  KEY_PATTERN,
  constantTimeEqual,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../../src/wallet/key-format.ts';
import { rawRows } from './backends.ts';
import { TestClock, rawCount, testWallet, WALLET_BACKENDS, useBackend } from './helpers.ts';

async function authError(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return { code: err.code, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('API key format', () => {
  it('has the rgd_ prefix, 46 base62 characters and a valid checksum', async () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(KEY_PATTERN);
      expect(key.startsWith('rgd_')).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects any single-character change through the checksum', async () => {
    const key = generateApiKey();
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let rejected = 0;
    let tried = 0;
    for (let pos = 4; pos < key.length; pos++) {
      const c = alphabet[(alphabet.indexOf(key[pos]!) + 7) % 62]!;
      const typo = key.slice(0, pos) + c + key.slice(pos + 1);
      tried++;
      if (!isWellFormedApiKey(typo)) rejected++;
    }
    expect(rejected).toBe(tried);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`sk_${key.slice(3)}`)).toBe(false);
  });

  it('never repeats a key', async () => {
    const keys = new Set(Array.from({ length: 5000 }, generateApiKey));
    expect(keys.size).toBe(5000);
  });

  it('compares digests with a length-safe constant-time equality', async () => {
    const a = hashApiKey('x');
    expect(constantTimeEqual(a, Buffer.from(a))).toBe(true);
    expect(constantTimeEqual(a, hashApiKey('y'))).toBe(false);
    expect(constantTimeEqual(a, a.subarray(0, 31))).toBe(false);
  });
});

describe.each(WALLET_BACKENDS)('%s: keys in the wallet', (backend) => {
  useBackend(backend);
  it('stores only the SHA-256 of a key: neither the secret nor any 12-character piece of it is in the file', async () => {
    const { wallet, dbPath } = await testWallet();
    const { key } = await wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    await wallet.authenticator.authenticate(`Bearer ${key}`);
    await wallet.close();
    let bytes: Buffer;
    if (backend === 'sqlite') {
      bytes = Buffer.concat(
        [dbPath, `${dbPath}-wal`].filter((p) => fs.existsSync(p)).map((p) => fs.readFileSync(p)),
      );
    } else {
      // PostgreSQL: every row of every table of the wallet's schema, as text (bytea shows as \x + hex).
      const tables = await rawRows<{ table_name: string }>(
        dbPath,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
      );
      const text: string[] = [];
      for (const { table_name } of tables) {
        const rowsOf = await rawRows<{ t: string }>(dbPath, `SELECT x::text AS t FROM "${table_name}" x`);
        text.push(...rowsOf.map((r) => r.t));
      }
      bytes = Buffer.from(text.join('\n'), 'latin1');
    }
    for (let i = 0; i + 12 <= key.length; i++) {
      const piece = key.slice(i, i + 12);
      expect(bytes.includes(Buffer.from(piece, 'latin1'))).toBe(false);
    }
    const hash = hashApiKey(key);
    expect(
      bytes.includes(backend === 'sqlite' ? hash : Buffer.from(`\\x${hash.toString('hex')}`, 'latin1')),
    ).toBe(true);
    expect(await rawCount(dbPath, 'SELECT count(*) FROM api_keys WHERE length(secret_hash) = 32')).toBe(1);
  });

  it('authenticates a valid key to its account and kind', async () => {
    const { wallet } = await testWallet();
    const std = await wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const adm = await wallet.createKey({ email: 'a@example.com', kind: 'admin' });
    expect(std.accountId).toBe(adm.accountId);
    expect(await wallet.authenticator.authenticate(`Bearer ${std.key}`)).toEqual({
      keyId: std.keyId,
      accountId: std.accountId,
      kind: 'standard',
      mode: 'live',
    });
    expect((await wallet.authenticator.authenticate(`bearer   ${adm.key} `)).kind).toBe('admin');
  });

  it('answers 401 for a missing, malformed, unknown or revoked key', async () => {
    const { wallet } = await testWallet();
    const { key, keyId } = await wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const auth = (h: string | undefined) => authError(wallet.authenticator.authenticate(h));
    expect(await auth(undefined)).toMatchObject({
      code: 'unauthorized',
      status: 401,
      message: expect.stringMatching(/missing/),
    });
    expect(await auth('')).toMatchObject({ status: 401, message: expect.stringMatching(/missing/) });
    expect(await auth(key)).toMatchObject({ status: 401, message: 'malformed API key' });
    expect(await auth(`Basic ${key}`)).toMatchObject({ status: 401, message: 'malformed API key' });
    expect(await auth(`Bearer ${key}x`)).toMatchObject({ status: 401, message: 'malformed API key' });
    // Another last character (a key that already ends in A stays itself with A: 1 run in 62 failed).
    const other = key.endsWith('A') ? 'B' : 'A';
    expect(await auth(`Bearer ${key.slice(0, -1)}${other}`)).toMatchObject({ status: 401 });
    expect(await auth(`Bearer ${generateApiKey()}`)).toMatchObject({
      status: 401,
      message: 'invalid API key',
    });

    const revoked = await wallet.revokeKey({ keyId });
    expect(revoked.alreadyRevoked).toBe(false);
    expect(await auth(`Bearer ${key}`)).toMatchObject({ status: 401, message: 'API key has been revoked' });
    expect((await wallet.revokeKey({ key })).alreadyRevoked).toBe(true);
  });

  it('revokes one key of an account and leaves the others working', async () => {
    const { wallet } = await testWallet();
    const k1 = await wallet.createKey({ email: 'a@example.com', kind: 'standard', name: 'laptop' });
    const k2 = await wallet.createKey({ email: 'A@Example.com ', kind: 'standard', name: 'server' });
    await wallet.revokeKey({ key: k1.key });
    expect((await wallet.authenticator.authenticate(`Bearer ${k2.key}`)).keyId).toBe(k2.keyId);
    const listed = await wallet.listKeys({ email: 'a@example.com' });
    expect(listed.map((k) => [k.name, k.revokedAt !== null, k.hint])).toEqual([
      ['laptop', true, k1.key.slice(-4)],
      ['server', false, k2.key.slice(-4)],
    ]);
    expect(JSON.stringify(listed)).not.toContain(k1.key);
  });

  it('refreshes last_used_at at most once a minute', async () => {
    const clock = new TestClock();
    const { wallet } = await testWallet({ now: clock.now });
    const { key } = await wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const lastUsed = async () => (await wallet.listKeys({ email: 'a@example.com' }))[0]!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await wallet.authenticator.authenticate(`Bearer ${key}`);
    const first = await lastUsed();
    expect(first).toBe(clock.now().toISOString());
    clock.advance(59_000);
    await wallet.authenticator.authenticate(`Bearer ${key}`);
    expect(await lastUsed()).toBe(first);
    clock.advance(1_000);
    await wallet.authenticator.authenticate(`Bearer ${key}`);
    expect(await lastUsed()).toBe(clock.now().toISOString());
  });

  it('refuses to change the plan of an existing account from createKey', async () => {
    const { wallet } = await testWallet();
    await wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg' });
    await expect(
      wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'unlimited' }),
    ).rejects.toThrow(/exists with plan payg/);
    expect(
      (await wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg' })).accountCreated,
    ).toBe(false);
  });

  it('creates the demo account once, only in an empty wallet', async () => {
    const { wallet } = await testWallet();
    const demo = await wallet.createDemoKeyIfEmpty();
    expect(demo).toMatchObject({
      email: 'demo@localhost',
      kind: 'standard',
      plan: 'trial',
      accountCreated: true,
    });
    expect(demo?.key).toMatch(KEY_PATTERN);
    expect(await wallet.createDemoKeyIfEmpty()).toBeNull();
  });
});
