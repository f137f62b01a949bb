import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Runs after `sql`, in the same transaction: a change that SQL statements alone cannot make. */
  apply?: (db: Database.Database) => void;
}

/**
 * Versioned, append-only: a released migration is never edited, a change is a new version. Each one runs
 * in its own BEGIN IMMEDIATE together with its schema_migrations row, so a crash mid-migration leaves the
 * previous version intact and two processes starting at once cannot both apply it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, ledger, usage, idempotency',
    sql: `
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL CHECK (plan IN ('payg', 'unlimited')),
  -- Spec 5.6: the trial waives metering of API and MCP use until this instant (ms since epoch).
  trial_ends_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE subscriptions (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  country TEXT NOT NULL CHECK (country IN ('EE', 'LV', 'LT', 'NO', 'FI', 'PL', 'SE')),
  started_at INTEGER NOT NULL,
  ends_at INTEGER,
  PRIMARY KEY (account_id, country)
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('standard', 'admin')),
  name TEXT,
  -- SHA-256 of the whole key; the secret itself is never stored.
  secret_hash BLOB NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
  -- Last four characters, so an operator can tell keys apart in listings.
  hint TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER
) STRICT;
CREATE INDEX api_keys_account ON api_keys(account_id);

-- A lot is a ledger account in TigerBeetle's sense: its balance fields are derived only from transfers,
-- by the triggers below, and the CHECK is TigerBeetle's debits_must_not_exceed_credits flag.
CREATE TABLE credit_lots (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  source TEXT NOT NULL CHECK (source IN ('registration', 'topup', 'grant')),
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  credits_posted INTEGER NOT NULL DEFAULT 0 CHECK (credits_posted >= 0),
  debits_pending INTEGER NOT NULL DEFAULT 0 CHECK (debits_pending >= 0),
  debits_posted INTEGER NOT NULL DEFAULT 0 CHECK (debits_posted >= 0),
  debits_expired INTEGER NOT NULL DEFAULT 0 CHECK (debits_expired >= 0),
  CHECK (credits_posted - debits_pending - debits_posted - debits_expired >= 0)
) STRICT;
CREATE INDEX credit_lots_account ON credit_lots(account_id, expires_at);

-- Per-process registry, so the sweeper can tell a hold whose process died from one still being served.
CREATE TABLE wallet_instances (
  id TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  hostname TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  heartbeat_interval_ms INTEGER NOT NULL
) STRICT;

-- A hold groups the pending transfers of one metered call (one per lot it drew from). Its state mirrors
-- whether those transfers have been posted or voided, so the sweeper can find open holds by index.
CREATE TABLE holds (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  instance_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  operation TEXT NOT NULL,
  country TEXT NOT NULL,
  unit_price INTEGER NOT NULL CHECK (unit_price >= 0),
  reserved_rows INTEGER NOT NULL CHECK (reserved_rows > 0),
  amount INTEGER NOT NULL CHECK (amount > 0),
  created_at INTEGER NOT NULL,
  timeout_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'posted', 'voided')),
  resolved_at INTEGER,
  void_reason TEXT
) STRICT;
CREATE INDEX holds_open ON holds(timeout_at) WHERE state = 'pending';
CREATE INDEX holds_open_instance ON holds(instance_id) WHERE state = 'pending';

-- The ledger proper: append-only. grant credits a lot; pending reserves; post (amount <= pending) charges
-- and releases the rest; void releases all; expire debits what is left on a lot past its expiry.
CREATE TABLE transfers (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  lot_id INTEGER NOT NULL REFERENCES credit_lots(id),
  kind TEXT NOT NULL CHECK (kind IN ('grant', 'pending', 'post', 'void', 'expire')),
  amount INTEGER NOT NULL CHECK (amount >= 0),
  hold_id INTEGER REFERENCES holds(id),
  pending_id INTEGER UNIQUE REFERENCES transfers(id),
  created_at INTEGER NOT NULL,
  CHECK ((kind IN ('post', 'void')) = (pending_id IS NOT NULL)),
  CHECK ((kind IN ('pending', 'post', 'void')) = (hold_id IS NOT NULL))
) STRICT;
CREATE INDEX transfers_hold ON transfers(hold_id) WHERE hold_id IS NOT NULL;
CREATE INDEX transfers_lot ON transfers(lot_id);
CREATE INDEX transfers_account ON transfers(account_id);

CREATE TRIGGER transfers_no_update BEFORE UPDATE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are append-only'); END;
CREATE TRIGGER transfers_no_delete BEFORE DELETE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are append-only'); END;

-- A post or void must resolve a pending transfer of the same lot, and a post cannot exceed it.
CREATE TRIGGER transfers_resolve_check BEFORE INSERT ON transfers WHEN NEW.kind IN ('post', 'void')
BEGIN
  SELECT RAISE(ABORT, 'post/void must reference a pending transfer of the same lot and hold')
  WHERE NOT EXISTS (
    SELECT 1 FROM transfers p
    WHERE p.id = NEW.pending_id AND p.kind = 'pending' AND p.lot_id = NEW.lot_id AND p.hold_id = NEW.hold_id
  );
  SELECT RAISE(ABORT, 'post exceeds its pending amount')
  WHERE NEW.kind = 'post' AND NEW.amount > (SELECT amount FROM transfers WHERE id = NEW.pending_id);
  SELECT RAISE(ABORT, 'void must release the whole pending amount')
  WHERE NEW.kind = 'void' AND NEW.amount <> (SELECT amount FROM transfers WHERE id = NEW.pending_id);
END;

-- The balance fields of a lot move only here, in the transaction that appends the transfer; the lot's
-- CHECK then rejects any transfer that would take it below zero.
CREATE TRIGGER transfers_apply_grant AFTER INSERT ON transfers WHEN NEW.kind = 'grant'
BEGIN UPDATE credit_lots SET credits_posted = credits_posted + NEW.amount WHERE id = NEW.lot_id; END;
CREATE TRIGGER transfers_apply_pending AFTER INSERT ON transfers WHEN NEW.kind = 'pending'
BEGIN UPDATE credit_lots SET debits_pending = debits_pending + NEW.amount WHERE id = NEW.lot_id; END;
CREATE TRIGGER transfers_apply_post AFTER INSERT ON transfers WHEN NEW.kind = 'post'
BEGIN
  UPDATE credit_lots
  SET debits_pending = debits_pending - (SELECT amount FROM transfers WHERE id = NEW.pending_id),
      debits_posted = debits_posted + NEW.amount
  WHERE id = NEW.lot_id;
END;
CREATE TRIGGER transfers_apply_void AFTER INSERT ON transfers WHEN NEW.kind = 'void'
BEGIN UPDATE credit_lots SET debits_pending = debits_pending - NEW.amount WHERE id = NEW.lot_id; END;
CREATE TRIGGER transfers_apply_expire AFTER INSERT ON transfers WHEN NEW.kind = 'expire'
BEGIN UPDATE credit_lots SET debits_expired = debits_expired + NEW.amount WHERE id = NEW.lot_id; END;

-- Only the balance fields of a lot may change after it is created, and a lot is never deleted.
CREATE TRIGGER credit_lots_immutable BEFORE UPDATE OF id, account_id, source, expires_at, created_at ON credit_lots
BEGIN SELECT RAISE(ABORT, 'credit lots are immutable'); END;
CREATE TRIGGER credit_lots_no_delete BEFORE DELETE ON credit_lots
BEGIN SELECT RAISE(ABORT, 'credit lots are never deleted'); END;

-- One row per metered call, charged or not: the operator's view (regdata usage). Not part of the ledger.
CREATE TABLE usage_records (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  operation TEXT NOT NULL,
  country TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('charged', 'free', 'voided', 'rejected', 'replayed')),
  free_reason TEXT,
  rows_returned INTEGER,
  chargeable_rows INTEGER,
  reserved INTEGER NOT NULL DEFAULT 0,
  charged INTEGER NOT NULL DEFAULT 0,
  hold_id INTEGER,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX usage_records_account_time ON usage_records(account_id, created_at);

CREATE TABLE idempotency_keys (
  key_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  instance_id TEXT NOT NULL,
  hold_id INTEGER,
  response TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (key_id, idempotency_key)
) STRICT;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
`,
  },
  {
    version: 2,
    name: 'self-service accounts: users, sessions, e-mail tokens, sign-in failures, orders, in-app keys',
    sql: `
-- The in-app search's key (one per account): a real key row, so holds and usage records reference it,
-- but its secret_hash is random bytes rather than the hash of any key, so no bearer string can match it.
ALTER TABLE api_keys ADD COLUMN internal INTEGER NOT NULL DEFAULT 0 CHECK (internal IN (0, 1));
CREATE UNIQUE INDEX api_keys_internal ON api_keys(account_id) WHERE internal = 1;

-- A person who signs in to the dashboard. account_id is set when the e-mail is verified (registration).
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  -- scrypt$N$r$p$salt$hash (src/identity/passwords.ts); never the password.
  password_hash TEXT NOT NULL,
  account_id TEXT UNIQUE REFERENCES accounts(id),
  verified_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

-- Only the SHA-256 of a session token is stored: a copy of this table signs nobody in.
CREATE TABLE sessions (
  token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id TEXT NOT NULL REFERENCES users(id),
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);

-- Single-use links sent by e-mail (verification, password reset); hashed like sessions.
CREATE TABLE email_tokens (
  token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id TEXT NOT NULL REFERENCES users(id),
  purpose TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
CREATE INDEX email_tokens_user ON email_tokens(user_id, purpose);

-- Failed sign-ins per subject ('email:...' or 'ip:...'), for the brute-force lockout window.
CREATE TABLE sign_in_failures (
  subject TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX sign_in_failures_subject ON sign_in_failures(subject, at);

-- Top-ups and plan purchases placed in the dashboard; an operator confirms the payment (regdata orders).
CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('topup', 'unlimited', 'country')),
  country TEXT CHECK (country IS NULL OR country IN ('EE', 'LV', 'LT', 'NO', 'FI', 'PL', 'SE')),
  -- micro-euro; for a top-up also the micro-credits granted (1 credit = 1 euro)
  amount INTEGER NOT NULL CHECK (amount > 0),
  provider TEXT NOT NULL,
  reference TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'paid', 'cancelled')),
  created_at INTEGER NOT NULL,
  resolved_at INTEGER,
  lot_id INTEGER REFERENCES credit_lots(id),
  CHECK ((kind = 'country') = (country IS NOT NULL))
) STRICT;
CREATE INDEX orders_account ON orders(account_id, created_at);
CREATE INDEX orders_pending ON orders(created_at) WHERE state = 'pending';
`,
  },
  {
    version: 3,
    name: 'order-form tokens and mail throttles shared by every process',
    sql: `
-- The dashboard's order confirmations (src/web/form-once.ts): in the database, so a form rendered by one
-- replica can be posted to another, and spent by one atomic UPDATE whichever replica gets the POST.
-- Only the SHA-256 of a token is stored, like sessions.
CREATE TABLE form_tokens (
  token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  -- What the spending POST did, shown again to a repeated POST.
  outcome TEXT
) STRICT;
CREATE INDEX form_tokens_expiry ON form_tokens(expires_at);

-- Mail-sending requests per subject ('email:...' or 'ip:...') for the sliding-window mail throttles
-- (src/identity/identity.ts): counted here, so N replicas allow the limit once, not N times.
CREATE TABLE mail_sends (
  subject TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX mail_sends_subject ON mail_sends(subject, at);
CREATE INDEX mail_sends_at ON mail_sends(at);
`,
  },
  {
    version: 4,
    name: 'outgoing mail queue',
    sql: `
-- Account e-mails waiting to be sent (src/identity/mail-queue.ts): written in the transaction that issues
-- the link, sent by a worker of any process. A row is 'queued' until its next_at, 'sending' while a worker
-- holds it (next_at is then the end of its lease: a worker that dies mid-send leaves it to be taken again),
-- and 'failed' once its attempts are spent (body emptied: the link in it is dead weight). A sent message
-- is deleted, so the live links in bodies stay only as long as their delivery takes.
CREATE TABLE mail_queue (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  recipient TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  -- The Message-ID of every attempt, so a receiver can drop the duplicate of a retried delivery.
  message_id TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sending', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_at INTEGER NOT NULL,
  -- The claiming worker's token while 'sending': only that worker may settle the row.
  claim TEXT,
  last_error TEXT,
  failed_at INTEGER,
  CHECK ((state = 'sending') = (claim IS NOT NULL)),
  CHECK ((state = 'failed') = (failed_at IS NOT NULL))
) STRICT;
CREATE INDEX mail_queue_due ON mail_queue(next_at) WHERE state <> 'failed';
CREATE INDEX mail_queue_failed ON mail_queue(failed_at) WHERE state = 'failed';
`,
  },
  {
    version: 5,
    name: 'OAuth authorization server records and grants',
    sql: `
-- OAuth for MCP clients (src/oauth/): what the authorization server keeps (oidc-provider's models: clients,
-- grants, codes, tokens, interactions, sessions), one row per item. The item's id is stored as its SHA-256
-- only, and left out of the stored payload, so a copy of the database holds no usable token or code.
-- A consented grant speaks for its account through a key of that account (oauth_grants.key_id): metering,
-- rate limits and revocation are the key's, on every replica.
CREATE TABLE oauth_records (
  model TEXT NOT NULL,
  id_hash TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
  PRIMARY KEY (model, id_hash)
) STRICT;
CREATE INDEX oauth_records_grant ON oauth_records(grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_records_uid ON oauth_records(model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_records_expiry ON oauth_records(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE oauth_grants (
  grant_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL UNIQUE REFERENCES api_keys(id),
  client_id TEXT NOT NULL,
  client_name TEXT,
  scope TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
`,
  },
  {
    version: 6,
    name: 'countries are the profiles in src/contract/countries.ts: no country CHECK lists',
    sql: `
-- The seven-country CHECK lists of subscriptions and orders would refuse a country added later, and SQLite
-- cannot alter a CHECK: both tables are rebuilt without it (nothing references them). The wallet checks
-- a country against the profiles before it writes one (parts/context.ts parseCountry).
CREATE TABLE subscriptions_v6 (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  country TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ends_at INTEGER,
  PRIMARY KEY (account_id, country)
) STRICT;
INSERT INTO subscriptions_v6 (account_id, country, started_at, ends_at)
  SELECT account_id, country, started_at, ends_at FROM subscriptions;
DROP TABLE subscriptions;
ALTER TABLE subscriptions_v6 RENAME TO subscriptions;

CREATE TABLE orders_v6 (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('topup', 'unlimited', 'country')),
  country TEXT,
  -- micro-euro; for a top-up also the micro-credits granted (1 credit = 1 euro)
  amount INTEGER NOT NULL CHECK (amount > 0),
  provider TEXT NOT NULL,
  reference TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'paid', 'cancelled')),
  created_at INTEGER NOT NULL,
  resolved_at INTEGER,
  lot_id INTEGER REFERENCES credit_lots(id),
  CHECK ((kind = 'country') = (country IS NOT NULL))
) STRICT;
INSERT INTO orders_v6 (id, account_id, kind, country, amount, provider, reference, state, created_at,
    resolved_at, lot_id)
  SELECT id, account_id, kind, country, amount, provider, reference, state, created_at, resolved_at, lot_id
  FROM orders;
DROP TABLE orders;
ALTER TABLE orders_v6 RENAME TO orders;
CREATE INDEX orders_account ON orders(account_id, created_at);
CREATE INDEX orders_pending ON orders(created_at) WHERE state = 'pending';
`,
  },
  {
    version: 7,
    name: 'watchlists, the events charged and webhooks',
    sql: `
-- Watchlists (issue 31, src/watchlists/): a list of companies or a saved search of one country, per
-- account. Events are computed at publish and kept in the snapshot; the wallet keeps only which events an
-- account has been charged for, so an event costs once however often it is pulled or delivered.
CREATE TABLE watchlists (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  name TEXT NOT NULL,
  country TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('companies', 'search')),
  search TEXT,
  created_at INTEGER NOT NULL,
  CHECK ((kind = 'search') = (search IS NOT NULL))
) STRICT;
CREATE INDEX watchlists_account ON watchlists(account_id);
CREATE INDEX watchlists_country ON watchlists(country);
CREATE TABLE watchlist_companies (
  watchlist_id TEXT NOT NULL REFERENCES watchlists(id) ON DELETE CASCADE,
  registrikood TEXT NOT NULL,
  PRIMARY KEY (watchlist_id, registrikood)
) STRICT;
CREATE TABLE event_charges (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  event_id TEXT NOT NULL,
  charged_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, event_id)
) STRICT;
CREATE INDEX event_charges_at ON event_charges(charged_at);
-- Webhook endpoints of an account (Standard Webhooks: one secret each, rotatable; the previous secret
-- also signs until previous_until) and the queue of deliveries, one row per event and endpoint: replicas
-- claim rows as the mail queue does, so an event goes out from one replica at a time.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_until INTEGER,
  created_at INTEGER NOT NULL,
  disabled_at INTEGER,
  disabled_reason TEXT
) STRICT;
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id);
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  event_id TEXT NOT NULL,
  country TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'sending', 'waiting', 'delivered', 'failed', 'expired')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_at INTEGER NOT NULL,
  claim TEXT,
  last_status INTEGER,
  last_error TEXT,
  charged_micro INTEGER NOT NULL DEFAULT 0,
  done_at INTEGER,
  UNIQUE (endpoint_id, event_id),
  CHECK ((state = 'sending') = (claim IS NOT NULL))
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at) WHERE state IN ('pending', 'sending', 'waiting');
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
CREATE TABLE webhook_attempts (
  delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  charged_micro INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id);
`,
  },
  {
    version: 8,
    name: 'API key mode: live or test',
    sql: `
-- Issue 30 item 6, test mode: a test key (rgd_test_) reads the synthetic test world, never the live
-- snapshot, and is never charged. Every key issued before is live.
ALTER TABLE api_keys ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
`,
  },
  {
    version: 9,
    name: 'fewer index pages written per metered call',
    sql: `
-- Issue 27 item 4: a metered call appends a hold and two or more transfers, and every index on them is one
-- more page the commit writes (21 WAL frames a call before this). Transfers by lot and by account are read
-- only by the audits, which now group one scan of the table; the open holds of one instance are found
-- through holds_open (open holds are the calls in flight, a handful).
DROP INDEX transfers_lot;
DROP INDEX transfers_account;
DROP INDEX holds_open_instance;
`,
  },
  {
    version: 10,
    name: 'CHECK lists of the tables every metered call writes, as OR chains',
    // SQLite checks `state IN ('pending', 'posted', 'voided')` in a CHECK by building a temporary b-tree of
    // the list, with a page cache of its own, for every row inserted: three per paid call, about 6 µs of
    // its ~60 µs of CPU, and fresh memory the kernel must fault in. An OR of equalities means the same for
    // every value, NULL included. SQLite cannot alter a CHECK and a rebuild would copy the largest tables,
    // so the stored definitions are rewritten in place (rewriteInLists).
    sql: '',
    apply: (db) =>
      rewriteInLists(db, [
        'holds',
        'transfers',
        'transfers_resolve_check',
        'usage_records',
        'idempotency_keys',
      ]),
  },
];

/** `kind IN ('post', 'void')` -> `(kind = 'post' OR kind = 'void')`: a column, or NEW.column, and string literals. */
const IN_LIST = /\b((?:NEW\.)?[a-z_]+) IN \(('[^']*'(?:, '[^']*')*)\)/g;

export function inListsAsOrChains(sql: string): string {
  return sql.replace(IN_LIST, (_all, column: string, list: string) => {
    const values = list.match(/'[^']*'/g) ?? [];
    return `(${values.map((v) => `${column} = ${v}`).join(' OR ')})`;
  });
}

/**
 * Rewrites the CHECK and WHEN lists of the named tables and triggers as OR chains, by SQLite's own
 * procedure for a change that leaves the stored rows and indexes as they are (sqlite.org/lang_altertable.html,
 * "Making Other Kinds Of Table Schema Changes"): the definitions in sqlite_schema, then schema_version + 1.
 * Every row already satisfies the new definitions, which accept exactly the values the old ones did.
 * The rewritten statements are first run on an empty in-memory database, and the caller's transaction reads
 * the new schema before it commits, so a definition SQLite could not parse is rolled back, never stored.
 */
function rewriteInLists(db: Database.Database, names: readonly string[]): void {
  const rows = db
    .prepare(`SELECT type, name, sql FROM sqlite_schema WHERE name IN (${names.map(() => '?').join(', ')})`)
    .all(...names) as { type: string; name: string; sql: string }[];
  const changed = rows.map((r) => ({ ...r, next: inListsAsOrChains(r.sql) })).filter((r) => r.next !== r.sql);
  if (changed.length === 0) return;
  const scratch = new (db.constructor as typeof Database)(':memory:');
  try {
    // Tables before the triggers on them.
    for (const r of [...rows].sort((a, b) => Number(a.type === 'trigger') - Number(b.type === 'trigger'))) {
      scratch.exec(inListsAsOrChains(r.sql));
    }
  } finally {
    scratch.close();
  }
  const version = db.pragma('schema_version', { simple: true }) as number;
  // better-sqlite3 opens connections in SQLite's defensive mode, which refuses writes to sqlite_schema.
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    const update = db.prepare('UPDATE sqlite_schema SET sql = ? WHERE type = ? AND name = ?');
    for (const r of changed) update.run(r.next, r.type, r.name);
    db.pragma(`schema_version = ${version + 1}`);
    db.pragma('writable_schema = OFF');
  } finally {
    db.unsafeMode(false);
  }
  db.prepare('SELECT count(*) FROM sqlite_schema').get();
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export function runMigrations(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  const applied: number[] = [];
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  }).immediate();
  const known = new Set(migrations.map((m) => m.version));
  for (const migration of migrations) {
    db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
      if (done) return;
      db.exec(migration.sql);
      migration.apply?.(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
      applied.push(migration.version);
    }).immediate();
  }
  // A wallet.db written by a newer release must not be used by an older one: it would miss its rules.
  const versions = db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];
  const unknown = versions.filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new MigrationError(`wallet.db has migrations this release does not know: ${unknown.join(', ')}`);
  }
  return applied;
}
