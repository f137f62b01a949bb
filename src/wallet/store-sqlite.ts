import path from 'node:path';
import type Database from 'better-sqlite3';
import { openWalletDb, type WalletDb } from './db.ts';
import type { Queryable, SqlParam, TxOptions, WalletStore } from './store.ts';
import { WalCheckpointer, type WalCheckpointerOptions, type WithWritersHeld } from './wal-checkpointer.ts';
import { WalSync } from './wal-sync.ts';

/**
 * One better-sqlite3 connection per file per process, shared by the wallet and identity objects opened on
 * it. Statements stay synchronous; a transaction is an async function, so a FIFO lock keeps every other
 * statement of this process out of it until it commits (it never waits on I/O, so the lock is held for
 * microseconds). Sharing the connection matters: two connections of one process would deadlock, the
 * second busy-waiting synchronously on BEGIN IMMEDIATE while the first's transaction cannot resume.
 */
interface Shared {
  db: WalletDb;
  refs: number;
  lock: FifoLock;
  statements: Map<string, Database.Statement>;
  /** Durability off the event loop (wal-sync.ts); null for an in-memory database. */
  wal: WalSync | null;
  /** Checkpoints off the event loop (wal-checkpointer.ts); null for an in-memory database. */
  checkpointer: WalCheckpointer | null;
}

const OPEN = new Map<string, Shared>();

/** A commit that did not wait for its flush is flushed within this long (docs/wallet.md "Durability"). */
const UNFLUSHED_MAX_MS = 1_000;
/**
 * A WAL restarted after a checkpoint (wal-checkpointer.ts) is cut back to this size, so a burst that grew
 * it does not keep the disk space. It is well above the ~33 MB at which a restart is asked for (8,000
 * frames) plus the commits before the restart comes, so the usual cycle writes over the file's own blocks,
 * which are in the page cache. At 32 MiB every cycle was cut back and regrew into new blocks, which ext4
 * allocates and zeroes: about a fifth of a paid read's commit (docs/wallet.md "Checkpoints").
 */
const WAL_SIZE_LIMIT_BYTES = 128 * 1024 * 1024;

class FifoLock {
  busy = false;
  private readonly waiters: (() => void)[] = [];

  acquire(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Hands the lock to the next waiter (it stays busy) or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy = false;
  }
}

export interface SqliteStoreOptions {
  busyTimeoutMs?: number;
  /** When the checkpoint thread starts and how often it checkpoints (wal-checkpointer.ts). */
  checkpoints?: WalCheckpointerOptions;
  onCheckpointError?: (message: string) => void;
}

export function openSqliteStore(dbPath: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const key = path.resolve(dbPath);
  let shared = OPEN.get(key);
  if (!shared) {
    const db = openWalletDb(dbPath, opts);
    // Commits write the WAL without flushing it; a durable write then awaits WalSync.flush().
    db.pragma('synchronous = NORMAL');
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const file = dbPath !== ':memory:';
    const wal = file ? new WalSync(`${key}-wal`) : null;
    const lock = new FifoLock();
    const held: WithWritersHeld = async (fn) => {
      await lock.acquire();
      try {
        return await fn();
      } finally {
        lock.release();
      }
    };
    const checkpointer = file
      ? new WalCheckpointer(db, key, held, opts.checkpoints, opts.onCheckpointError)
      : null;
    shared = { db, refs: 0, lock, statements: new Map(), wal, checkpointer };
    OPEN.set(key, shared);
  }
  shared.refs++;
  return new SqliteStore(key, shared);
}

function prepare(shared: Shared, sql: string): Database.Statement {
  let stmt = shared.statements.get(sql);
  if (!stmt) {
    stmt = shared.db.prepare(sql);
    shared.statements.set(sql, stmt);
  }
  return stmt;
}

function syncAll<R>(shared: Shared, sql: string, params: readonly SqlParam[]): R[] {
  return prepare(shared, sql).all(...params) as R[];
}
function syncGet<R>(shared: Shared, sql: string, params: readonly SqlParam[]): R | undefined {
  return prepare(shared, sql).get(...params) as R | undefined;
}
function syncRun(shared: Shared, sql: string, params: readonly SqlParam[]): { changes: number } {
  return { changes: prepare(shared, sql).run(...params).changes };
}
/** The rowid is the `id` of a table whose key is `id INTEGER PRIMARY KEY`, as every wallet table's is. */
function syncInsert(shared: Shared, sql: string, params: readonly SqlParam[]): number {
  const info = prepare(shared, sql).run(...params);
  if (info.changes !== 1) throw new Error(`an insert of one row changed ${info.changes}`);
  return Number(info.lastInsertRowid);
}

/** Inside a transaction: straight to the connection (the lock is already held). */
class SqliteTx implements Queryable {
  readonly dialect = 'sqlite' as const;
  constructor(private readonly shared: Shared) {}
  all<R>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
    return settle(() => syncAll<R>(this.shared, sql, params));
  }
  get<R>(sql: string, params: readonly SqlParam[] = []): Promise<R | undefined> {
    return settle(() => syncGet<R>(this.shared, sql, params));
  }
  run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
    return settle(() => syncRun(this.shared, sql, params));
  }
  insert(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return settle(() => syncInsert(this.shared, sql, params));
  }
}

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

export class SqliteStore implements WalletStore {
  readonly dialect = 'sqlite' as const;
  private closed = false;
  private readonly inner: SqliteTx;

  constructor(
    readonly location: string,
    private readonly shared: Shared,
  ) {
    this.inner = new SqliteTx(shared);
  }

  /** The raw connection, for the SQLite-only checks (pragmas, integrity_check) and tools. */
  get db(): WalletDb {
    return this.shared.db;
  }

  all<R>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
    return this.outside(() => syncAll<R>(this.shared, sql, params));
  }
  get<R>(sql: string, params: readonly SqlParam[] = []): Promise<R | undefined> {
    return this.outside(() => syncGet<R>(this.shared, sql, params));
  }
  async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
    const result = await this.outside(() => syncRun(this.shared, sql, params));
    if (result.changes > 0) await this.committedOutside();
    return result;
  }
  async insert(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    const id = await this.outside(() => syncInsert(this.shared, sql, params));
    await this.committedOutside();
    return id;
  }

  /** After a write outside a transaction: it is durable before it is acknowledged, like a durable tx. */
  private async committedOutside(): Promise<void> {
    this.shared.checkpointer?.committed();
    await this.shared.wal?.flush();
  }

  /** A statement outside any transaction: at once when no transaction is open, else after it. */
  private outside<T>(fn: () => T): Promise<T> {
    const lock = this.shared.lock;
    if (!lock.busy) return settle(fn);
    return lock.acquire().then(() => {
      try {
        return fn();
      } finally {
        lock.release();
      }
    });
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    const { db, lock, wal } = this.shared;
    const behind = this.shared.checkpointer?.behind;
    if (behind) await behind;
    await lock.acquire();
    let result: T;
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        result = await fn(this.inner);
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
      db.exec('COMMIT');
      this.shared.checkpointer?.committed();
    } finally {
      lock.release();
    }
    // The lock is free while the flush runs, so the next transactions commit into the same flush.
    if (opts.durable !== false) await wal?.flush();
    else wal?.flushSoon(UNFLUSHED_MAX_MS);
    return result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Anything queued runs first: a close never cuts a transaction short.
    await this.shared.lock.acquire();
    try {
      if (--this.shared.refs === 0) {
        OPEN.delete(this.location);
        await this.shared.checkpointer?.close();
        await this.shared.wal?.close();
        this.shared.db.close();
      }
    } finally {
      this.shared.lock.release();
    }
  }
}
