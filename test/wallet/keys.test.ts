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
import { TestClock, rawCount, testWallet } from './helpers.ts';

function authError(fn: () => unknown): { code: string; status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('API key format', () => {
  it('has the rgd_ prefix, 46 base62 characters and a valid checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(KEY_PATTERN);
      expect(key.startsWith('rgd_')).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects any single-character change through the checksum', () => {
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

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 5000 }, generateApiKey));
    expect(keys.size).toBe(5000);
  });

  it('compares digests with a length-safe constant-time equality', () => {
    const a = hashApiKey('x');
    expect(constantTimeEqual(a, Buffer.from(a))).toBe(true);
    expect(constantTimeEqual(a, hashApiKey('y'))).toBe(false);
    expect(constantTimeEqual(a, a.subarray(0, 31))).toBe(false);
  });
});

describe('keys in the wallet', () => {
  it('stores only the SHA-256 of a key: neither the secret nor any 12-character piece of it is in the file', () => {
    const { wallet, dbPath } = testWallet();
    const { key } = wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    wallet.authenticator.authenticate(`Bearer ${key}`);
    wallet.close();
    const bytes = Buffer.concat(
      [dbPath, `${dbPath}-wal`].filter((p) => fs.existsSync(p)).map((p) => fs.readFileSync(p)),
    );
    for (let i = 0; i + 12 <= key.length; i++) {
      const piece = key.slice(i, i + 12);
      expect(bytes.includes(Buffer.from(piece, 'latin1'))).toBe(false);
    }
    expect(bytes.includes(hashApiKey(key))).toBe(true);
    expect(rawCount(dbPath, 'SELECT count(*) FROM api_keys WHERE length(secret_hash) = 32')).toBe(1);
  });

  it('authenticates a valid key to its account and kind', () => {
    const { wallet } = testWallet();
    const std = wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const adm = wallet.createKey({ email: 'a@example.com', kind: 'admin' });
    expect(std.accountId).toBe(adm.accountId);
    expect(wallet.authenticator.authenticate(`Bearer ${std.key}`)).toEqual({
      keyId: std.keyId,
      accountId: std.accountId,
      kind: 'standard',
    });
    expect(wallet.authenticator.authenticate(`bearer   ${adm.key} `).kind).toBe('admin');
  });

  it('answers 401 for a missing, malformed, unknown or revoked key', () => {
    const { wallet } = testWallet();
    const { key, keyId } = wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const auth = (h: string | undefined) => authError(() => wallet.authenticator.authenticate(h));
    expect(auth(undefined)).toMatchObject({
      code: 'unauthorized',
      status: 401,
      message: expect.stringMatching(/missing/),
    });
    expect(auth('')).toMatchObject({ status: 401, message: expect.stringMatching(/missing/) });
    expect(auth(key)).toMatchObject({ status: 401, message: 'malformed API key' });
    expect(auth(`Basic ${key}`)).toMatchObject({ status: 401, message: 'malformed API key' });
    expect(auth(`Bearer ${key}x`)).toMatchObject({ status: 401, message: 'malformed API key' });
    // Another last character (a key that already ends in A stays itself with A: 1 run in 62 failed).
    const other = key.endsWith('A') ? 'B' : 'A';
    expect(auth(`Bearer ${key.slice(0, -1)}${other}`)).toMatchObject({ status: 401 });
    expect(auth(`Bearer ${generateApiKey()}`)).toMatchObject({ status: 401, message: 'invalid API key' });

    const revoked = wallet.revokeKey({ keyId });
    expect(revoked.alreadyRevoked).toBe(false);
    expect(auth(`Bearer ${key}`)).toMatchObject({ status: 401, message: 'API key has been revoked' });
    expect(wallet.revokeKey({ key }).alreadyRevoked).toBe(true);
  });

  it('revokes one key of an account and leaves the others working', () => {
    const { wallet } = testWallet();
    const k1 = wallet.createKey({ email: 'a@example.com', kind: 'standard', name: 'laptop' });
    const k2 = wallet.createKey({ email: 'A@Example.com ', kind: 'standard', name: 'server' });
    wallet.revokeKey({ key: k1.key });
    expect(wallet.authenticator.authenticate(`Bearer ${k2.key}`).keyId).toBe(k2.keyId);
    const listed = wallet.listKeys({ email: 'a@example.com' });
    expect(listed.map((k) => [k.name, k.revokedAt !== null, k.hint])).toEqual([
      ['laptop', true, k1.key.slice(-4)],
      ['server', false, k2.key.slice(-4)],
    ]);
    expect(JSON.stringify(listed)).not.toContain(k1.key);
  });

  it('refreshes last_used_at at most once a minute', () => {
    const clock = new TestClock();
    const { wallet } = testWallet({ now: clock.now });
    const { key } = wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const lastUsed = () => wallet.listKeys({ email: 'a@example.com' })[0]!.lastUsedAt;
    expect(lastUsed()).toBeNull();
    wallet.authenticator.authenticate(`Bearer ${key}`);
    const first = lastUsed();
    expect(first).toBe(clock.now().toISOString());
    clock.advance(59_000);
    wallet.authenticator.authenticate(`Bearer ${key}`);
    expect(lastUsed()).toBe(first);
    clock.advance(1_000);
    wallet.authenticator.authenticate(`Bearer ${key}`);
    expect(lastUsed()).toBe(clock.now().toISOString());
  });

  it('refuses to change the plan of an existing account from createKey', () => {
    const { wallet } = testWallet();
    wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg' });
    expect(() => wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'unlimited' })).toThrow(
      /exists with plan payg/,
    );
    expect(wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg' }).accountCreated).toBe(
      false,
    );
  });

  it('creates the demo account once, only in an empty wallet', () => {
    const { wallet } = testWallet();
    const demo = wallet.createDemoKeyIfEmpty();
    expect(demo).toMatchObject({
      email: 'demo@localhost',
      kind: 'standard',
      plan: 'trial',
      accountCreated: true,
    });
    expect(demo?.key).toMatch(KEY_PATTERN);
    expect(wallet.createDemoKeyIfEmpty()).toBeNull();
  });
});
