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
    // power loss, which a money ledger needs even though WAL would stay consistent with NORMAL. The store
    // (store-sqlite.ts) lowers it to NORMAL because it flushes the WAL itself before acknowledging a
    // durable commit (wal-sync.ts); a bare connection keeps the safe setting.
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
