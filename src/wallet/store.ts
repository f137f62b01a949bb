/**
 * The one seam between the wallet's logic and its database. Every wallet, identity and metering statement
 * goes through `Queryable` (SQL with `?` placeholders, the subset both SQLite and PostgreSQL understand);
 * `WalletStore.tx` runs a function in one transaction. The SQLite store (store-sqlite.ts) stays synchronous
 * underneath, so its promises resolve at once; the PostgreSQL store (store-postgres.ts) uses a pg pool.
 */

export type Dialect = 'sqlite' | 'postgres';

export type SqlParam = string | number | null | Buffer;

export interface Queryable {
  readonly dialect: Dialect;
  all<R>(sql: string, params?: readonly SqlParam[]): Promise<R[]>;
  get<R>(sql: string, params?: readonly SqlParam[]): Promise<R | undefined>;
  /** Rows changed by an INSERT, UPDATE or DELETE. */
  run(sql: string, params?: readonly SqlParam[]): Promise<{ changes: number }>;
  /**
   * An INSERT of one row into a table keyed by an integer `id`; the new row's id. Written without a
   * RETURNING clause: SQLite collects RETURNING rows in an ephemeral b-tree with a page cache of its own,
   * made and freed by every such statement (store-sqlite.ts reads the rowid instead).
   */
  insert(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

export interface TxOptions {
  /**
   * false: this commit need not be durable at once (SQLite: the commit does not wait for the WAL flush,
   * wal-sync.ts; PostgreSQL: synchronous_commit=off for the one transaction). Only for commits whose loss
   * on power failure can never charge anyone: what a data call writes (reserve, settle, void, free usage
   * lines; docs/wallet.md "Durability").
   */
  durable?: boolean;
}

export interface WalletStore extends Queryable {
  /** Where it lives, for messages (a path, or a URL without its password). */
  readonly location: string;
  /**
   * Runs `fn` in one write transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: READ COMMITTED with row
   * locks taken by the ledger, retried on a deadlock or serialisation failure, so `fn` must have no
   * effects outside the database).
   */
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T>;
  close(): Promise<void>;
}

/** A wallet URL: `sqlite:<path>` (or a bare path) or `postgres://…` / `postgresql://…`. */
export type WalletLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export function parseWalletUrl(url: string): WalletLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', path: url.slice('sqlite:'.length) };
  return { kind: 'sqlite', path: url };
}

/** A URL with any password replaced, for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
