import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Identity } from '../../src/identity/identity.ts';
import { hashPassword, verifyPassword } from '../../src/identity/passwords.ts';
import type { WalletStore } from '../../src/wallet/store.ts';
import { PostgresStore } from '../../src/wallet/store-postgres.ts';
import { WALLET_BACKENDS, freshPgLocation, rawValue } from '../wallet/backends.ts';

/**
 * Identity on a real wallet database with an injected clock: expiry and lockout windows to the
 * millisecond. On both wallet backends: sessions and users live wherever the wallet does.
 */
describe.each(WALLET_BACKENDS)('identity on %s', (backend) => {
  const dirs: string[] = [];
  const stores: WalletStore[] = [];
  const locations: string[] = [];
  let now = Date.parse('2026-03-01T10:00:00Z');
  const open = async (lockout = {}) => {
    if (backend === 'postgres') {
      const location = await freshPgLocation();
      locations.push(location);
      const store = await PostgresStore.open(location);
      stores.push(store);
      return new Identity({ store, now: () => new Date(now), lockout });
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-identity-'));
    dirs.push(dir);
    locations.push(path.join(dir, 'wallet.db'));
    return new Identity({ dbPath: path.join(dir, 'wallet.db'), now: () => new Date(now), lockout });
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
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
    const id = await open();
    const { verifyToken } = await id.signUp('r@test.local', 'first password!', '10.0.0.9');
    await id.verifyEmail(verifyToken!);
    const late = (await id.requestPasswordReset('r@test.local', '10.0.0.9'))!;
    now += 60 * 60_000;
    await expect(id.resetPassword(late.token, 'second password')).rejects.toThrow(/expired/);
    const fresh = (await id.requestPasswordReset('r@test.local', '10.0.0.9'))!;
    now += 60 * 60_000 - 1;
    await expect(id.resetPassword(fresh.token, 'second password')).resolves.toEqual({
      email: 'r@test.local',
    });
    await expect(id.resetPassword(fresh.token, 'third password!')).rejects.toThrow(/already used/);
    await expect(id.signIn('r@test.local', 'second password', '127.0.0.1')).resolves.toBeTruthy();
    await id.close();
  });

  it('delays sign-ins progressively after the free failures, and the right password works once the wait is over', async () => {
    const id = await open({
      perEmail: 3,
      baseDelayMs: 1000,
      maxDelayMsPerEmail: 8000,
      windowMs: 10 * 60_000,
    });
    const { verifyToken } = await id.signUp('l@test.local', 'right password', '10.0.0.1');
    await id.verifyEmail(verifyToken!);
    const fail = () => id.signIn('l@test.local', 'wrong password', `10.0.0.${Math.floor(now / 1000) % 200}`);
    for (let i = 0; i < 3; i++) {
      await expect(fail()).rejects.toThrow(/wrong e-mail or password/);
    }
    // The 4th failure (no wait yet) makes the next attempt wait 1 s, the 5th 2 s, the 6th 4 s, then 8 s (cap).
    await expect(fail()).rejects.toThrow(/wrong e-mail or password/);
    for (const expected of [1000, 2000, 4000, 8000, 8000]) {
      const last = now;
      now = last + expected - 1;
      // Refused during the wait even with the right password, from any client, and the refusal is not counted.
      await expect(id.signIn('l@test.local', 'right password', '10.9.9.9')).rejects.toThrow(/too many/);
      now = last + expected;
      await expect(fail()).rejects.toThrow(/wrong e-mail or password/);
    }
    now += 8000;
    await expect(id.signIn('l@test.local', 'right password', '10.9.9.9')).resolves.toBeTruthy();
    await id.close();
  });

  it('applies the delay to guesses sent in parallel: only the free ones reach the password check', async () => {
    const id = await open({ perEmail: 4 });
    const { verifyToken } = await id.signUp('par@test.local', 'right password', '10.0.0.4');
    await id.verifyEmail(verifyToken!);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => id.signIn('par@test.local', `wrong guess ${i}`, `10.3.0.${i}`)),
    );
    const reasons = results.map((r) =>
      r.status === 'rejected' ? String((r.reason as Error).message) : 'ok',
    );
    expect(reasons.filter((m) => m.includes('wrong e-mail or password'))).toHaveLength(5);
    expect(reasons.filter((m) => m.includes('too many'))).toHaveLength(5);
    await id.close();
  });

  it('keeps one live reset link per user and prunes expired links', async () => {
    const id = await open();
    const { verifyToken } = await id.signUp('one@test.local', 'first password!', '10.0.0.2');
    await id.verifyEmail(verifyToken!);
    const first = (await id.requestPasswordReset('one@test.local', '10.0.0.2'))!;
    const second = (await id.requestPasswordReset('one@test.local', '10.0.0.2'))!;
    await expect(id.resetPassword(first.token, 'second password')).rejects.toThrow(/invalid/);
    await expect(id.resetPassword(second.token, 'second password')).resolves.toBeTruthy();

    const rows = async () => Number(await rawValue(locations.at(-1)!, 'SELECT count(*) FROM email_tokens'));
    // The used verify link and the used reset link are still there until their expiry ...
    expect(await rows()).toBe(2);
    now += 3 * 86_400_000;
    // ... and any later issue prunes every expired one, of anybody.
    await id.signUp('other@test.local', 'other password', '10.0.0.3');
    expect(await rows()).toBe(1);
    await id.close();
  });

  it('throttles mail-sending requests per e-mail and per client, whether or not the address has an account', async () => {
    const id = await open();
    // Unknown address: nothing is sent, but the requests count all the same (a 429 tells nobody anything).
    for (let i = 0; i < 3; i++)
      expect(await id.requestPasswordReset('ghost@test.local', `10.1.0.${i}`)).toBeNull();
    await expect(id.requestPasswordReset('ghost@test.local', '10.1.0.9')).rejects.toThrow(/too many e-mails/);
    await expect(id.signUp('ghost@test.local', 'a fine password', '10.1.0.9')).rejects.toThrow(
      /too many e-mails/,
    );
    // Per client: ten addresses from one client, then the eleventh is refused.
    for (let i = 0; i < 10; i++)
      expect(await id.requestPasswordReset(`p${i}@test.local`, '10.2.0.1')).toBeNull();
    await expect(id.requestPasswordReset('p10@test.local', '10.2.0.1')).rejects.toThrow(/too many e-mails/);
    // An hour later both have room again.
    now += 60 * 60_000;
    expect(await id.requestPasswordReset('ghost@test.local', '10.2.0.1')).toBeNull();
    await id.close();
  });

  it('shares the mail allowance between two processes on one database, and waits until the oldest leaves the window', async () => {
    const a = await open();
    // A second Identity on the same database: another replica's.
    let b: Identity;
    if (backend === 'postgres') {
      const store = await PostgresStore.open(locations.at(-1)!);
      stores.push(store);
      b = new Identity({ store, now: () => new Date(now) });
    } else {
      b = new Identity({ dbPath: locations.at(-1)!, now: () => new Date(now) });
    }
    const start = now;
    expect(await a.requestPasswordReset('shared@test.local', '10.3.0.1')).toBeNull();
    now += 10 * 60_000;
    expect(await b.requestPasswordReset('shared@test.local', '10.3.0.2')).toBeNull();
    expect(await a.requestPasswordReset('shared@test.local', '10.3.0.3')).toBeNull();
    // The fourth, on either process, waits until the first of the three is an hour old: 50 minutes.
    const refused = await b.requestPasswordReset('shared@test.local', '10.3.0.4').catch((e: unknown) => e);
    expect(refused).toMatchObject({ retryAfterSeconds: 50 * 60 });
    now = start + 60 * 60_000 - 1;
    await expect(a.requestPasswordReset('shared@test.local', '10.3.0.5')).rejects.toThrow(/too many e-mails/);
    now = start + 60 * 60_000;
    expect(await b.requestPasswordReset('shared@test.local', '10.3.0.6')).toBeNull();
    await a.close();
    await b.close();
  });

  it('ends a session at its expiry and on sign-out', async () => {
    const id = await open();
    const { verifyToken } = await id.signUp('s@test.local', 'right password', 'x');
    await id.verifyEmail(verifyToken!);
    const a = await id.signIn('s@test.local', 'right password', 'x');
    const b = await id.signIn('s@test.local', 'right password', 'x');
    await id.signOut(a.token);
    expect(await id.session(a.token)).toBeNull();
    expect((await id.session(b.token))?.email).toBe('s@test.local');
    now = b.session.expiresAt - 1;
    expect(await id.session(b.token)).not.toBeNull();
    now = b.session.expiresAt;
    expect(await id.session(b.token)).toBeNull();
    await id.close();
  });
});
