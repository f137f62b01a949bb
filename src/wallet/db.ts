import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runMigrations } from './migrations.ts';

export type WalletDb = Database.Database;

export interface OpenDbOptions {
  /** How long a writer waits for another process's BEGIN IMMEDIATE before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/**
 * Opens wallet.db with the pragmas the ledger depends on. `synchronous` and `busy_timeout` are
 * per-connection settings, so they are set on every open rather than trusted from the file.
 */
export function openWalletDb(dbPath: string, opts: OpenDbOptions = {}): WalletDb {
  if (dbPath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  try {
    db.pragma(`busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
    // WAL lets the CLI and readers work while the server writes; FULL makes every commit durable across
    // power loss, which a money ledger needs even though WAL would stay consistent with NORMAL.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    runMigrations(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Every write goes through here: BEGIN IMMEDIATE takes the write lock up front, so a read-then-write
 * (check the balance, then hold it) can never interleave with another connection's write.
 *
 * `durable: false` commits without the fsync (synchronous=NORMAL for this one commit; in WAL mode that
 * still never corrupts, it can only lose the last commits on power loss). Only the reserve uses it: a hold
 * lost to power loss is exactly what the sweeper would have voided, and the settle that follows commits
 * with FULL, whose fsync of the WAL makes the reserve durable too. That saves one fsync per metered call.
 */
export function writeTx<T>(db: WalletDb, fn: () => T, opts: { durable?: boolean } = {}): T {
  if (opts.durable !== false) return db.transaction(fn).immediate();
  db.pragma('synchronous = NORMAL');
  try {
    return db.transaction(fn).immediate();
  } finally {
    db.pragma('synchronous = FULL');
  }
}
