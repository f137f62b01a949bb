import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Identity } from '../../src/identity/identity.ts';
import type { Queryable, SqlParam, TxOptions, WalletStore } from '../../src/wallet/store.ts';
import { PostgresStore } from '../../src/wallet/store-postgres.ts';
import { openSqliteStore } from '../../src/wallet/store-sqlite.ts';
import { freshPgLocation, WALLET_BACKENDS, type Backend } from '../wallet/backends.ts';

/**
 * What tells a known address from an unknown one is the work done for it: a reset request for an address
 * with an account must not write a row, commit a transaction or run a statement that one without an
 * account does not. A recording wrapper around the real store (every statement still runs on the real
 * database) writes down the transactions and statements of each request; the lists must be equal, and
 * the rows written must differ only by the link and its mail.
 */

type Step = string;

/** The real store, with every transaction and statement noted as it runs. */
class RecordingStore implements WalletStore {
  readonly dialect;
  readonly location;
  steps: Step[] = [];
  constructor(private readonly inner: WalletStore) {
    this.dialect = inner.dialect;
    this.location = inner.location;
  }
  private note(kind: string, sql: string): void {
    this.steps.push(`${kind} ${sql.replace(/\s+/g, ' ').trim()}`);
  }
  private wrap(q: Queryable): Queryable {
    return {
      dialect: q.dialect,
      all: <R>(sql: string, params?: readonly SqlParam[]) => (this.note('all', sql), q.all<R>(sql, params)),
      get: <R>(sql: string, params?: readonly SqlParam[]) => (this.note('get', sql), q.get<R>(sql, params)),
      run: (sql: string, params?: readonly SqlParam[]) => (this.note('run', sql), q.run(sql, params)),
      insert: (sql: string, params?: readonly SqlParam[]) => (
        this.note('insert', sql),
        q.insert(sql, params)
      ),
    };
  }
  all<R>(sql: string, params?: readonly SqlParam[]): Promise<R[]> {
    return this.wrap(this.inner).all<R>(sql, params);
  }
  get<R>(sql: string, params?: readonly SqlParam[]): Promise<R | undefined> {
    return this.wrap(this.inner).get<R>(sql, params);
  }
  run(sql: string, params?: readonly SqlParam[]): Promise<{ changes: number }> {
    return this.wrap(this.inner).run(sql, params);
  }
  insert(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.wrap(this.inner).insert(sql, params);
  }
  async tx<T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T> {
    this.steps.push(`begin durable=${opts?.durable !== false}`);
    const result = await this.inner.tx((q) => fn(this.wrap(q)), opts);
    this.steps.push('commit');
    return result;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe.each(WALLET_BACKENDS)('the same work for any address, on %s', (backend: Backend) => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  async function setUp(): Promise<{
    identity: Identity;
    store: RecordingStore;
    count: () => Promise<number>;
  }> {
    let inner: WalletStore;
    if (backend === 'postgres') {
      inner = await PostgresStore.open(await freshPgLocation());
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-same-work-'));
      inner = openSqliteStore(path.join(dir, 'wallet.db'));
      closers.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    }
    closers.unshift(() => inner.close());
    const store = new RecordingStore(inner);
    const identity = new Identity({ store, mailLimits: { perAddress: 1000 } });
    const count = async () =>
      Number((await inner.get<{ n: number }>('SELECT count(*) AS n FROM mail_queue'))?.n ?? 0);
    return { identity, store, count };
  }

  it('runs the same transactions and statements for a reset of a known and of an unknown address', async () => {
    const { identity, store, count } = await setUp();
    const { verifyToken } = await identity.signUp('known@test.local', 'a fine password', '10.0.0.1');
    await identity.verifyEmail(verifyToken!);
    const queuedBefore = await count();

    store.steps = [];
    const known = await identity.requestPasswordReset('known@test.local', '10.0.0.2', 'https://x');
    const knownSteps = store.steps;
    store.steps = [];
    const unknown = await identity.requestPasswordReset('nobody@test.local', '10.0.0.3', 'https://x');
    const unknownSteps = store.steps;

    // The outcomes differ (that is the point of the request) ...
    expect(known?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(unknown).toBeNull();
    expect(await count()).toBe(queuedBefore + 1);
    // ... the work does not: one durable transaction, the same statements in the same order.
    expect(knownSteps).toEqual(unknownSteps);
    expect(knownSteps.filter((s) => s.startsWith('begin'))).toEqual(['begin durable=true']);
    expect(knownSteps.some((s) => s.includes('INSERT INTO mail_queue'))).toBe(true);
  });

  it('runs the same transactions and statements for a sign-up with a new, an unverified and a verified address', async () => {
    const { identity, store, count } = await setUp();
    const { verifyToken } = await identity.signUp('verified@test.local', 'a fine password', '10.0.0.1');
    await identity.verifyEmail(verifyToken!);
    await identity.signUp('pending@test.local', 'a fine password', '10.0.0.1');
    const queuedBefore = await count();

    const stepsOf = async (email: string) => {
      store.steps = [];
      const result = await identity.signUp(email, 'another password', '10.0.0.9', 'https://x');
      return { result, steps: store.steps };
    };
    const fresh = await stepsOf('new@test.local');
    const pending = await stepsOf('pending@test.local');
    const verified = await stepsOf('verified@test.local');

    expect([fresh.result.existing, pending.result.existing, verified.result.existing]).toEqual([
      false,
      true,
      true,
    ]);
    expect(verified.result.verifyToken).toBeNull();
    expect(pending.steps).toEqual(fresh.steps);
    expect(verified.steps).toEqual(fresh.steps);
    // Each writes one message: a link, a fresh link, or "you already have an account".
    expect(await count()).toBe(queuedBefore + 3);
  });
});
