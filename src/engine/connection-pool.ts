import type {
  DuckDBConnection,
  DuckDBInstance,
  DuckDBPreparedStatement,
  DuckDBValue,
} from '@duckdb/node-api';

/** A JSON-safe row: DuckDB's Json conversion turns DATE into YYYY-MM-DD and keeps nested lists/structs. */
export type Row = Record<string, unknown>;

/**
 * One DuckDB connection with its prepared statements. A DuckDB connection runs one query at a time, and
 * re-preparing the same SQL costs about as much as running it at our sizes, so statements are kept per
 * connection (bounded: the number of distinct filter combinations is large, the useful working set is not).
 */
class PooledConnection {
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  constructor(
    readonly connection: DuckDBConnection,
    private readonly maxStatements: number,
  ) {}

  async query(sql: string, params: readonly DuckDBValue[], keep = true): Promise<Row[]> {
    if (!keep) {
      // A statement that is never run again (an export names its own file): not worth a cache slot.
      const once = await this.connection.prepare(sql);
      try {
        if (params.length > 0) once.bind([...params]);
        return (await once.runAndReadAll()).getRowObjectsJson() as Row[];
      } finally {
        once.destroySync();
      }
    }
    let stmt = this.statements.get(sql);
    if (stmt) {
      // Re-insert to keep the map in least-recently-used order.
      this.statements.delete(sql);
    } else {
      stmt = await this.connection.prepare(sql);
      if (this.statements.size >= this.maxStatements) {
        const [oldestSql, oldest] = this.statements.entries().next().value as [
          string,
          DuckDBPreparedStatement,
        ];
        this.statements.delete(oldestSql);
        oldest.destroySync();
      }
    }
    this.statements.set(sql, stmt);
    stmt.clearBindings();
    if (params.length > 0) stmt.bind([...params]);
    const reader = await stmt.runAndReadAll();
    return reader.getRowObjectsJson() as Row[];
  }

  close(): void {
    for (const stmt of this.statements.values()) stmt.destroySync();
    this.statements.clear();
    this.connection.closeSync();
  }
}

/** A caller waiting for a connection: the cheaper work (lower priority) first, then arrival order. */
interface Waiter {
  priority: number;
  seq: number;
  resolve: (c: PooledConnection) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

export interface QueueOptions {
  /** Lower runs first when connections are busy (QUERY_PRIORITY). */
  priority?: number;
  /** Give up waiting after this long; `onTimeout` makes the error. */
  maxWaitMs?: number;
  /** False for a statement run once: prepared, run and dropped, not kept in the connection's cache. */
  keep?: boolean;
}

/**
 * A small fixed pool: at most `size` queries run at once, which bounds the scans that share the cores.
 * Callers wait for a free connection cheapest first (a query narrowed by an index before a full scan),
 * in arrival order within a priority; a caller that waits longer than its `maxWaitMs` is turned away with
 * the pool's `onTimeout` error (503 with Retry-After), never left to a client's timeout.
 */
export class ConnectionPool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiters: Waiter[] = [];
  private seq = 0;
  private closed = false;

  private constructor(
    private readonly all: PooledConnection[],
    private readonly onTimeout: () => Error,
  ) {
    this.idle.push(...all);
  }

  static async open(
    instance: DuckDBInstance,
    size: number,
    onTimeout: () => Error = () => new Error('timed out waiting for a connection'),
    maxStatements = 256,
  ): Promise<ConnectionPool> {
    const conns: PooledConnection[] = [];
    for (let i = 0; i < size; i++) conns.push(new PooledConnection(await instance.connect(), maxStatements));
    return new ConnectionPool(conns, onTimeout);
  }

  get size(): number {
    return this.all.length;
  }

  /** Callers waiting for a connection. */
  get queued(): number {
    return this.waiters.length;
  }

  async query(sql: string, params: readonly DuckDBValue[] = [], queue: QueueOptions = {}): Promise<Row[]> {
    const conn = await this.acquire(queue);
    try {
      return await conn.query(sql, params, queue.keep ?? true);
    } finally {
      this.release(conn);
    }
  }

  private acquire(queue: QueueOptions): Promise<PooledConnection> {
    if (this.closed) return Promise.reject(new Error('connection pool is closed'));
    const conn = this.idle.pop();
    if (conn) return Promise.resolve(conn);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { priority: queue.priority ?? 0, seq: this.seq++, resolve, reject, timer: null };
      if (queue.maxWaitMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(this.onTimeout());
        }, queue.maxWaitMs);
      }
      // Sorted insert: after every waiter of the same or a lower priority.
      let at = this.waiters.findIndex((w) => w.priority > waiter.priority);
      if (at < 0) at = this.waiters.length;
      this.waiters.splice(at, 0, waiter);
    });
  }

  private release(conn: PooledConnection): void {
    const next = this.waiters.shift();
    if (next) {
      if (next.timer) clearTimeout(next.timer);
      next.resolve(conn);
    } else {
      this.idle.push(conn);
    }
  }

  /** Call only when no query is running (the snapshot's refcount guarantees it). */
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) {
      if (w.timer) clearTimeout(w.timer);
      w.reject(new Error('connection pool is closed'));
    }
    for (const c of this.all) c.close();
  }
}
