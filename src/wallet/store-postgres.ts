import pg from 'pg';
import { runPostgresMigrations } from './migrations-postgres.ts';
import { redactUrl, type Queryable, type SqlParam, type TxOptions, type WalletStore } from './store.ts';

/**
 * int8 (count, the BIGINT columns: micro-credits and ms timestamps) and numeric (sum of int8) arrive as
 * strings; the wallet works in JS numbers, as with SQLite. Every such value is an integer far below 2^53
 * (amounts in µc of at most billions of credits, timestamps in ms), and anything else is refused loudly.
 */
const INT8 = 20;
const NUMERIC = 1700;
const toNumber = (v: string): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`wallet value ${v} is not a safe integer`);
  return n;
};
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 || oid === NUMERIC
      ? toNumber
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Transaction failures PostgreSQL asks the client to retry: serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(['40001', '40P01']);
const TX_ATTEMPTS = 5;

const converted = new Map<string, string>();

/** `?` placeholders (the dialect the wallet's SQL is written in) to `$1, $2, …`, skipping quoted text. */
export function toPgPlaceholders(sql: string): string {
  let out = converted.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let quoted = false;
  out = '';
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  converted.set(sql, out);
  return out;
}

class PgQueryable implements Queryable {
  readonly dialect = 'postgres' as const;
  constructor(private readonly client: pg.Pool | pg.PoolClient) {}
  async all<R>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
    const res = await this.client.query(toPgPlaceholders(sql), params as unknown[]);
    return res.rows as R[];
  }
  async get<R>(sql: string, params: readonly SqlParam[] = []): Promise<R | undefined> {
    return (await this.all<R>(sql, params))[0];
  }
  async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
    const res = await this.client.query(toPgPlaceholders(sql), params as unknown[]);
    return { changes: res.rowCount ?? 0 };
  }
  async insert(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    const row = await this.get<{ id: number }>(`${sql} RETURNING id`, params);
    if (!row) throw new Error('an insert returned no id');
    return row.id;
  }
}

export interface PostgresStoreOptions {
  /** Pool size per process; several replicas share the server's max_connections. */
  poolSize?: number;
  /**
   * The sessions' application_name (an `application_name` in the URL wins). A wallet names its sessions
   * after its instance, so that a sweeper can end the sessions of an instance it has found dead (sweeper.ts).
   */
  applicationName?: string;
}

export class PostgresStore implements WalletStore {
  readonly dialect = 'postgres' as const;
  readonly location: string;
  private readonly direct: PgQueryable;
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    url: string,
  ) {
    this.location = redactUrl(url);
    this.direct = new PgQueryable(pool);
  }

  /** Connects and brings the schema up to date (under an advisory lock, so replicas starting together queue). */
  static async open(url: string, opts: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 10,
      types: TYPES,
      ...(opts.applicationName !== undefined && { application_name: opts.applicationName }),
    });
    // An idle client losing its server (restart, network) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const store = new PostgresStore(pool, url);
    try {
      await runPostgresMigrations(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  all<R>(sql: string, params?: readonly SqlParam[]): Promise<R[]> {
    return this.direct.all<R>(sql, params);
  }
  get<R>(sql: string, params?: readonly SqlParam[]): Promise<R | undefined> {
    return this.direct.get<R>(sql, params);
  }
  run(sql: string, params?: readonly SqlParam[]): Promise<{ changes: number }> {
    return this.direct.run(sql, params);
  }
  insert(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.direct.insert(sql, params);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        if (opts.durable === false) await client.query('SET LOCAL synchronous_commit = off');
        const result = await fn(new PgQueryable(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        const code = (err as { code?: string }).code;
        if (code !== undefined && RETRYABLE.has(code) && attempt < TX_ATTEMPTS) continue;
        throw err;
      } finally {
        client.release(broken);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
