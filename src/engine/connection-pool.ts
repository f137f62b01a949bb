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

  async query(sql: string, params: readonly DuckDBValue[]): Promise<Row[]> {
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

/**
 * A small fixed pool: callers wait in FIFO order for a free connection. With two cores, two or three
 * connections keep both busy while short lookups are not stuck behind one long scan.
 */
export class ConnectionPool {
  private readonly idle: PooledConnection[] = [];
  private readonly waiters: ((c: PooledConnection) => void)[] = [];
  private closed = false;

  private constructor(private readonly all: PooledConnection[]) {
    this.idle.push(...all);
  }

  static async open(instance: DuckDBInstance, size: number, maxStatements = 256): Promise<ConnectionPool> {
    const conns: PooledConnection[] = [];
    for (let i = 0; i < size; i++) conns.push(new PooledConnection(await instance.connect(), maxStatements));
    return new ConnectionPool(conns);
  }

  get size(): number {
    return this.all.length;
  }

  async query(sql: string, params: readonly DuckDBValue[] = []): Promise<Row[]> {
    const conn = await this.acquire();
    try {
      return await conn.query(sql, params);
    } finally {
      this.release(conn);
    }
  }

  private acquire(): Promise<PooledConnection> {
    if (this.closed) return Promise.reject(new Error('connection pool is closed'));
    const conn = this.idle.pop();
    if (conn) return Promise.resolve(conn);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(conn: PooledConnection): void {
    const next = this.waiters.shift();
    if (next) next(conn);
    else this.idle.push(conn);
  }

  /** Call only when no query is running (the snapshot's refcount guarantees it). */
  close(): void {
    this.closed = true;
    for (const c of this.all) c.close();
  }
}
