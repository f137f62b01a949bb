import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * The wallet suite runs on both backends. `WALLET_BACKENDS` drives `describe.each`; a "location" is what
 * openWallet takes as `dbPath`/`url`: a SQLite file path, or a PostgreSQL URL whose search_path names a
 * schema of its own, so every wallet a test opens starts empty without a CREATE DATABASE each time.
 * Each test file gets its own database on the test server (test/pg-global-setup.ts).
 */
export type Backend = 'sqlite' | 'postgres';

const PG_URL = inject('walletPgUrl');

export const WALLET_BACKENDS: readonly Backend[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

if (!PG_URL)
  console.warn(
    'no test PostgreSQL (REGDATA_TEST_PG=0, or not installed): the wallet suite runs on SQLite only',
  );

export function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

let fileDb: Promise<string> | null = null;

/** This test file's own database on the test server, created on first use. */
function fileDatabaseUrl(): Promise<string> {
  fileDb ??= (async () => {
    if (!PG_URL) throw new Error('no test PostgreSQL (REGDATA_TEST_PG=0)');
    const name = `t_${crypto.randomBytes(6).toString('hex')}`;
    await withClient(PG_URL, (c) => c.query(`CREATE DATABASE ${name}`));
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.toString();
  })();
  return fileDb;
}

/** A fresh, empty PostgreSQL location (a new schema in this file's database). */
export async function freshPgLocation(): Promise<string> {
  const base = await fileDatabaseUrl();
  const schema = `w_${crypto.randomBytes(6).toString('hex')}`;
  await withClient(base, (c) => c.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** One value from a raw query on the store behind the wallet (for assertions about what is stored). */
export async function rawValue(location: string, sql: string, params: unknown[] = []): Promise<unknown> {
  if (isPostgres(location)) {
    return withClient(location, async (c) => {
      const res = await c.query({ text: toDollar(sql), values: params, rowMode: 'array' });
      const v: unknown = res.rows[0]?.[0];
      return typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
    });
  }
  const db = new Database(location, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(sql)
      .pluck()
      .get(...params);
  } finally {
    db.close();
  }
}

/** Rows from a raw query (read-only on SQLite). */
export async function rawRows<R>(location: string, sql: string, params: unknown[] = []): Promise<R[]> {
  if (isPostgres(location)) {
    return withClient(location, async (c) => (await c.query(toDollar(sql), params)).rows as R[]);
  }
  const db = new Database(location, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as R[];
  } finally {
    db.close();
  }
}

/** A raw write, bypassing the wallet: for tests that break the rules on purpose or fake a dead process. */
export async function rawExec(location: string, sql: string, params: unknown[] = []): Promise<void> {
  if (isPostgres(location)) {
    await withClient(location, (c) => c.query(toDollar(sql), params));
    return;
  }
  const db = new Database(location);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function toDollar(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
