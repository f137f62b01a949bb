import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Identity } from '../../src/identity/identity.ts';
import { hashPassword, verifyPassword } from '../../src/identity/passwords.ts';

/** Identity on a real wallet.db with an injected clock: expiry and lockout windows to the millisecond. */
describe('identity', () => {
  const dirs: string[] = [];
  let now = Date.parse('2026-03-01T10:00:00Z');
  const open = (lockout = {}) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-identity-'));
    dirs.push(dir);
    return new Identity({ dbPath: path.join(dir, 'wallet.db'), now: () => new Date(now), lockout });
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('hashes with a fresh salt each time and verifies only the same password', async () => {
    const a = await hashPassword('the same password');
    const b = await hashPassword('the same password');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    await expect(verifyPassword('the same password', a)).resolves.toBe(true);
    await expect(verifyPassword('the same passwore', a)).resolves.toBe(false);
    await expect(verifyPassword('the same password', 'garbage')).resolves.toBe(false);
  });

  it('a reset link works until one hour after it was sent, and only once', async () => {
    const id = open();
    const { verifyToken } = await id.signUp('r@test.local', 'first password!');
    id.verifyEmail(verifyToken!);
    const late = id.requestPasswordReset('r@test.local')!;
    now += 60 * 60_000;
    await expect(id.resetPassword(late.token, 'second password')).rejects.toThrow(/expired/);
    const fresh = id.requestPasswordReset('r@test.local')!;
    now += 60 * 60_000 - 1;
    await expect(id.resetPassword(fresh.token, 'second password')).resolves.toEqual({
      email: 'r@test.local',
    });
    await expect(id.resetPassword(fresh.token, 'third password!')).rejects.toThrow(/already used/);
    await expect(id.signIn('r@test.local', 'second password', '127.0.0.1')).resolves.toBeTruthy();
    id.close();
  });

  it('lifts the lockout when the window has passed since the first counted failure', async () => {
    const id = open({ perEmail: 3, windowMs: 10 * 60_000 });
    const { verifyToken } = await id.signUp('l@test.local', 'right password');
    id.verifyEmail(verifyToken!);
    const start = now;
    for (let i = 0; i < 3; i++) {
      await expect(id.signIn('l@test.local', 'wrong password', '10.0.0.1')).rejects.toThrow(
        /wrong e-mail or password/,
      );
      now += 1000;
    }
    await expect(id.signIn('l@test.local', 'right password', '10.0.0.1')).rejects.toThrow(/too many/);
    now = start + 10 * 60_000 - 1;
    await expect(id.signIn('l@test.local', 'right password', '10.0.0.1')).rejects.toThrow(/too many/);
    now = start + 10 * 60_000;
    await expect(id.signIn('l@test.local', 'right password', '10.0.0.1')).resolves.toBeTruthy();
    id.close();
  });

  it('ends a session at its expiry and on sign-out', async () => {
    const id = open();
    const { verifyToken } = await id.signUp('s@test.local', 'right password');
    id.verifyEmail(verifyToken!);
    const a = await id.signIn('s@test.local', 'right password', 'x');
    const b = await id.signIn('s@test.local', 'right password', 'x');
    id.signOut(a.token);
    expect(id.session(a.token)).toBeNull();
    expect(id.session(b.token)?.email).toBe('s@test.local');
    now = b.session.expiresAt - 1;
    expect(id.session(b.token)).not.toBeNull();
    now = b.session.expiresAt;
    expect(id.session(b.token)).toBeNull();
    id.close();
  });
});
