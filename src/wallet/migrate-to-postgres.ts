import fs from 'node:fs';
import pg from 'pg';
import { AppError } from '../errors/app-error.ts';
import { MIGRATION_LOCK, PG_MIGRATIONS } from './migrations-postgres.ts';
import { Instances } from './sweeper.ts';
import { redactUrl } from './store.ts';
import { openSqliteStore } from './store-sqlite.ts';
import { openWallet } from './wallet.ts';

/**
 * `regdata wallet migrate`: copies a SQLite wallet, every table and every row with its ids, into an empty
 * PostgreSQL database in one transaction, and commits only when the ledger audit of the copy equals the
 * source's.
 *
 * The PostgreSQL triggers stay on. They allow exactly one way for money to arrive in a lot: a lot is born
 * empty and its balance fields move only through appended transfers. So the lots are copied empty and the
 * transfers appended in id order (the order they were first applied in, so every post or void finds its
 * pending transfer and no lot goes below zero on the way); the triggers recompute every lot's balance from
 * the log, and the audit then proves the recomputed balances equal the stored ones of the source.
 */

/**
 * Every SQLite table, in an order the foreign keys accept. A table of the source missing here stops the
 * migration (it would otherwise be left behind): a new migration adds its table here.
 */
export const COPY_ORDER = [
  'accounts',
  'subscriptions',
  'api_keys',
  'users',
  'wallet_instances',
  'credit_lots',
  'holds',
  'transfers',
  'usage_records',
  'idempotency_keys',
  'sessions',
  'email_tokens',
  'sign_in_failures',
  'orders',
  'form_tokens',
  'mail_sends',
  'mail_queue',
  'oauth_records',
  'oauth_grants',
  'watchlists',
  'watchlist_companies',
  'event_charges',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
] as const;

/**
 * PostgreSQL-only tables, left empty: the shared rate-limit state (SQLite keeps it in process memory, so
 * there is nothing to copy; every key starts with a full burst, as after a restart).
 */
export const PG_ONLY_TABLES = ['rate_limits'] as const;

/** A lot's balance fields: recomputed by the transfer triggers, never copied. */
const LOT_BALANCE_COLUMNS = new Set(['credits_posted', 'debits_pending', 'debits_posted', 'debits_expired']);

/** PostgreSQL's limit is 65,535 bound parameters per statement. */
const MAX_PARAMS = 60_000;
const MAX_BATCH_ROWS = 1_000;

/** Money in micro-credits; everything plain numbers and strings, so two audits compare with deep equality. */
export interface WalletAudit {
  /** Per account: the sum of its lots' balance fields (credits_posted - pending - posted - expired). */
  accounts: { account: string; balance: number; pending: number }[];
  lots: {
    count: number;
    creditsPosted: number;
    debitsPending: number;
    debitsPosted: number;
    debitsExpired: number;
  };
  transfers: { count: number; amount: number; byKind: Record<string, { count: number; amount: number }> };
  /** Row count of every copied table. */
  rows: Record<string, number>;
}

export interface MigrateResult {
  from: string;
  to: string;
  before: WalletAudit;
  after: WalletAudit;
  equal: boolean;
  /** Rows copied per table. */
  copied: Record<string, number>;
  /** True when the transaction committed (the audits were equal). */
  committed: boolean;
}

type ReadAll = (sql: string) => Promise<Record<string, unknown>[]>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** The same plain SQL on both backends; ordering is done here (SQLite and PostgreSQL collate text differently). */
export async function auditWallet(all: ReadAll, tables: readonly string[]): Promise<WalletAudit> {
  const accounts = (
    await all(
      `SELECT a.id AS account,
         coalesce(sum(l.credits_posted - l.debits_pending - l.debits_posted - l.debits_expired), 0) AS balance,
         coalesce(sum(l.debits_pending), 0) AS pending
       FROM accounts a LEFT JOIN credit_lots l ON l.account_id = a.id GROUP BY a.id`,
    )
  )
    .map((r) => ({ account: String(r['account']), balance: num(r['balance']), pending: num(r['pending']) }))
    .sort((x, y) => (x.account < y.account ? -1 : x.account > y.account ? 1 : 0));
  const [lot] = await all(
    `SELECT count(*) AS n, coalesce(sum(credits_posted), 0) AS cp, coalesce(sum(debits_pending), 0) AS dpe,
       coalesce(sum(debits_posted), 0) AS dpo, coalesce(sum(debits_expired), 0) AS de FROM credit_lots`,
  );
  const byKind: Record<string, { count: number; amount: number }> = {};
  let count = 0;
  let amount = 0;
  const kinds = await all(
    'SELECT kind, count(*) AS n, coalesce(sum(amount), 0) AS amount FROM transfers GROUP BY kind',
  );
  for (const r of kinds.sort((x, y) => String(x['kind']).localeCompare(String(y['kind'])))) {
    byKind[String(r['kind'])] = { count: num(r['n']), amount: num(r['amount']) };
    count += num(r['n']);
    amount += num(r['amount']);
  }
  const rows: Record<string, number> = {};
  for (const t of tables) rows[t] = num((await all(`SELECT count(*) AS n FROM "${t}"`))[0]?.['n']);
  return {
    accounts,
    lots: {
      count: num(lot?.['n']),
      creditsPosted: num(lot?.['cp']),
      debitsPending: num(lot?.['dpe']),
      debitsPosted: num(lot?.['dpo']),
      debitsExpired: num(lot?.['de']),
    },
    transfers: { count, amount, byKind },
    rows,
  };
}

function refuse(message: string): AppError {
  return new AppError('bad_request', message);
}

/** The tables our PostgreSQL migrations create, read from their SQL. */
function migratedTables(): Set<string> {
  const names = new Set<string>(['schema_migrations']);
  for (const m of PG_MIGRATIONS) {
    for (const match of m.sql.matchAll(/CREATE TABLE (\w+)/g)) names.add(match[1]!);
  }
  return names;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A server going away mid-copy surfaces as the failing query's error; this only keeps the process alive.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new AppError(
      'backend_unavailable',
      `cannot connect to the target PostgreSQL ${redactUrl(url)}: ${(err as Error).message}`,
      [],
      { cause: err },
    );
  }
  return client;
}

/**
 * Brings an empty target to the current schema inside the caller's transaction, or proves it already is
 * exactly that schema with no rows; anything else is refused, since merging two ledgers is never right.
 */
async function prepareTarget(client: pg.Client, where: string): Promise<void> {
  // The lock replicas take to migrate at start-up: none can set the schema up under us.
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  const ours = migratedTables();
  const existing = (
    await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    )
  ).rows.map((r) => r.table_name);
  const foreign = existing.filter((t) => !ours.has(t));
  if (foreign.length > 0) {
    throw refuse(
      `the target ${where} is not empty: it has tables that are not the wallet's (${foreign.sort().join(', ')}); ` +
        'migrate into an empty database or schema',
    );
  }
  let applied = new Set<number>();
  if (existing.includes('schema_migrations')) {
    const versions = (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows;
    applied = new Set(versions.map((v) => Number(v.version)));
    const unknown = [...applied].filter((v) => !PG_MIGRATIONS.some((m) => m.version === v));
    if (unknown.length > 0) {
      throw refuse(
        `the target ${where} has wallet migrations this release does not know: ${unknown.join(', ')}`,
      );
    }
  } else if (existing.length > 0) {
    throw refuse(
      `the target ${where} is not empty (tables without schema_migrations); migrate into an empty database`,
    );
  } else {
    await client.query(`CREATE TABLE schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  }
  for (const m of PG_MIGRATIONS) {
    if (applied.has(m.version)) continue;
    await client.query(m.sql);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      new Date().toISOString(),
    ]);
  }
  const tables = [...ours].filter((t) => t !== 'schema_migrations').sort();
  // No replica already running on the target can write while we check and fill it (reads still pass).
  await client.query(`LOCK TABLE ${tables.map((t) => `"${t}"`).join(', ')} IN EXCLUSIVE MODE`);
  const nonEmpty: string[] = [];
  for (const t of tables) {
    const n = Number((await client.query(`SELECT count(*) AS n FROM "${t}"`)).rows[0].n);
    if (n > 0) nonEmpty.push(`${t} (${n})`);
  }
  if (nonEmpty.length > 0) {
    throw refuse(
      `the target ${where} is not empty: it has rows in ${nonEmpty.join(', ')}; nothing was written. ` +
        'Migrate into an empty database (a replica started on it before the migration writes rows: stop it ' +
        'and recreate the database)',
    );
  }
}

async function columnsOf(client: pg.Client, table: string): Promise<string[]> {
  const res = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return res.rows.map((r) => r.column_name);
}

/**
 * Moves a SQLite wallet into an empty PostgreSQL database. Refuses while a process still uses the source
 * (a live instance) or a hold is pending; the source is only read (after the same start-up sweep every
 * wallet command runs on it), and on any failure nothing is left in the target.
 */
export async function migrateToPostgres(input: {
  sqlitePath: string;
  pgUrl: string;
  now?: () => number;
}): Promise<MigrateResult> {
  const { sqlitePath, pgUrl } = input;
  const now = input.now ?? Date.now;
  const from = `sqlite:${sqlitePath}`;
  const to = redactUrl(pgUrl);
  if (!fs.existsSync(sqlitePath)) throw refuse(`no wallet at ${sqlitePath}`);

  // What every wallet command does on open: void the holds of dead processes and those past their timeout,
  // release abandoned idempotency keys, drop dead instances, book due expiry. What remains pending then
  // belongs to a live process.
  const sweeping = await openWallet({ dbPath: sqlitePath, sweepIntervalMs: 0 });
  await sweeping.close();

  const client = await connect(pgUrl);
  const source = openSqliteStore(sqlitePath);
  try {
    const probe = new Instances('wallet-migrate');
    const live: string[] = [];
    for (const row of await source.all<{ id: string; pid: number; hostname: string }>(
      'SELECT id, pid, hostname FROM wallet_instances ORDER BY id',
    )) {
      if (await probe.isAlive(source, row.id, now()))
        live.push(`${row.id} (pid ${row.pid} on ${row.hostname})`);
    }
    if (live.length > 0) {
      throw refuse(
        `the wallet is still in use by ${live.join(', ')}: stop every server and command using ${from}, then migrate`,
      );
    }

    const db = source.db;
    // The write lock for the whole copy: the source cannot change between its audit and the commit.
    db.exec('BEGIN IMMEDIATE');
    try {
      const pending = db
        .prepare(`SELECT count(*) FROM holds WHERE state = 'pending'`)
        .pluck()
        .get() as number;
      if (pending > 0) {
        throw refuse(
          `${pending} hold(s) are pending (metered calls in flight): stop the servers and wait for them to ` +
            'settle or time out, then migrate',
        );
      }
      const sourceTables = (
        db
          .prepare(
            `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             AND name <> 'schema_migrations'`,
          )
          .pluck()
          .all() as string[]
      ).sort();
      const known = new Set<string>(COPY_ORDER);
      const unknown = sourceTables.filter((t) => !known.has(t));
      if (unknown.length > 0) {
        throw new AppError('internal', `the migration does not know the wallet tables ${unknown.join(', ')}`);
      }
      const readSqlite: ReadAll = (sql) =>
        Promise.resolve(db.prepare(sql).all() as Record<string, unknown>[]);
      const before = await auditWallet(readSqlite, COPY_ORDER);

      await client.query('BEGIN');
      try {
        await prepareTarget(client, to);
        const copied: Record<string, number> = {};
        for (const table of COPY_ORDER) copied[table] = await copyTable(db, client, table);
        await resetSequences(client, [...COPY_ORDER, ...PG_ONLY_TABLES]);
        const readPg: ReadAll = async (sql) => (await client.query(sql)).rows as Record<string, unknown>[];
        const after = await auditWallet(readPg, COPY_ORDER);
        const equal = JSON.stringify(before) === JSON.stringify(after);
        await client.query(equal ? 'COMMIT' : 'ROLLBACK');
        return { from, to, before, after, equal, copied, committed: equal };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      // Only read: nothing of the source changes.
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  } finally {
    await source.close();
    await client.end().catch(() => undefined);
  }
}

/** Copies one table in rowid order (transfers: id order, the order the ledger applied them) in batches. */
async function copyTable(
  db: ReturnType<typeof openSqliteStore>['db'],
  client: pg.Client,
  table: string,
): Promise<number> {
  const sqliteColumns = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map(
    (c) => c.name,
  );
  const pgColumns = await columnsOf(client, table);
  // PostgreSQL spells out the `rowid` SQLite keeps implicitly where the code orders rows by it.
  const wanted = new Set([...sqliteColumns, ...(pgColumns.includes('rowid') ? ['rowid'] : [])]);
  const missing = pgColumns.filter((c) => !wanted.has(c));
  const extra = [...wanted].filter((c) => !pgColumns.includes(c));
  if (missing.length > 0 || extra.length > 0) {
    throw new AppError(
      'internal',
      `table ${table} differs between the backends (only in PostgreSQL: ${missing.join(', ') || '-'}; ` +
        `only in SQLite: ${extra.join(', ') || '-'})`,
    );
  }
  const columns = pgColumns.filter((c) => !(table === 'credit_lots' && LOT_BALANCE_COLUMNS.has(c)));
  const select = columns.map((c) => `"${c}"`).join(', ');
  const rows = db.prepare(`SELECT ${select} FROM "${table}" ORDER BY rowid`).raw().all() as unknown[][];
  const batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMS / columns.length)));
  for (let i = 0; i < rows.length; i += batch) {
    const chunk = rows.slice(i, i + batch);
    const values = chunk
      .map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await client.query(`INSERT INTO "${table}" (${select}) VALUES ${values}`, chunk.flat());
  }
  return rows.length;
}

/** Identity columns continue after the copied ids, so new rows never collide with migrated ones. */
async function resetSequences(client: pg.Client, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const ids = await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'YES'`,
      [table],
    );
    for (const { column_name: col } of ids.rows) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max("${col}"), 1), max("${col}") IS NOT NULL)
         FROM "${table}"`,
        [`"${table}"`, col],
      );
    }
  }
}
