import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openWalletDb } from '../../src/wallet/db.ts';
import { MIGRATIONS, MigrationError, inListsAsOrChains, runMigrations } from '../../src/wallet/migrations.ts';
import { tempDir, testWallet, untrackedWallet } from './helpers.ts';

describe('wallet.db schema and pragmas', () => {
  it('sets WAL, synchronous=FULL, busy_timeout and foreign keys on every open', async () => {
    const dbPath = path.join(tempDir(), 'nested', 'wallet.db');
    for (let i = 0; i < 2; i++) {
      const db = openWalletDb(dbPath);
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.pragma('synchronous', { simple: true })).toBe(2);
        expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
        expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      } finally {
        db.close();
      }
    }
  });

  it('applies migrations once; reopening changes nothing and keeps the data', async () => {
    const dbPath = path.join(tempDir(), 'wallet.db');
    const first = await untrackedWallet({ dbPath });
    const created = await first.createKey({ email: 'a@example.com', kind: 'standard' });
    await first.close();
    const db = new Database(dbPath);
    try {
      expect(runMigrations(db)).toEqual([]);
      expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual(
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      db.close();
    }
    const again = await untrackedWallet({ dbPath });
    try {
      expect((await again.authenticator.authenticate(`Bearer ${created.key}`)).accountId).toBe(
        created.accountId,
      );
      expect((await again.balance({ email: 'a@example.com' })).balance).toBe(30);
    } finally {
      await again.close();
    }
  });

  it('refuses a wallet.db from a newer release', async () => {
    const dbPath = path.join(tempDir(), 'wallet.db');
    openWalletDb(dbPath).close();
    const db = new Database(dbPath);
    db.prepare(`INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')`).run();
    db.close();
    expect(() => openWalletDb(dbPath)).toThrow(MigrationError);
  });
});

describe('countries in wallet.db', () => {
  it('migration 6 drops the seven-country CHECKs and keeps every subscription and order', () => {
    const db = new Database(path.join(tempDir(), 'wallet.db'));
    try {
      runMigrations(
        db,
        MIGRATIONS.filter((m) => m.version < 6),
      );
      db.prepare(
        `INSERT INTO accounts (id, email, plan, created_at) VALUES ('a', 'a@example.com', 'payg', 1)`,
      ).run();
      const subscribe = db.prepare(
        `INSERT INTO subscriptions (account_id, country, started_at) VALUES ('a', ?, 2)`,
      );
      const order = db.prepare(
        `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
         VALUES (?, 'a', 'country', ?, 1000000, 'bank', 'ref', 3)`,
      );
      subscribe.run('EE');
      order.run('o1', 'PL');
      // A country not among the seven (here a code of no real country) was refused by the CHECK.
      expect(() => subscribe.run('ZZ')).toThrow(/CHECK/);
      expect(() => order.run('o2', 'ZZ')).toThrow(/CHECK/);

      expect(
        runMigrations(
          db,
          MIGRATIONS.filter((m) => m.version <= 6),
        ),
      ).toEqual([6]);
      expect(db.prepare('SELECT account_id, country, started_at, ends_at FROM subscriptions').all()).toEqual([
        { account_id: 'a', country: 'EE', started_at: 2, ends_at: null },
      ]);
      expect(db.prepare('SELECT id, country, kind, state, amount FROM orders').all()).toEqual([
        { id: 'o1', country: 'PL', kind: 'country', state: 'pending', amount: 1000000 },
      ]);
      subscribe.run('ZZ');
      order.run('o2', 'ZZ');
      // The other rules of the tables stay, and so do the orders' indexes.
      expect(() => subscribe.run('ZZ')).toThrow(/UNIQUE|PRIMARY/);
      expect(() =>
        db
          .prepare(
            `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
           VALUES ('o3', 'a', 'topup', 'EE', 1, 'bank', 'ref', 3)`,
          )
          .run(),
      ).toThrow(/CHECK/);
      expect(
        db
          .prepare(
            `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL ORDER BY name`,
          )
          .pluck()
          .all(),
      ).toEqual(['orders_account', 'orders_pending']);
    } finally {
      db.close();
    }
  });
});

describe('ledger rules enforced by SQLite itself', () => {
  async function ledgerDb() {
    const { wallet, dbPath } = await testWallet();
    const { accountId } = await wallet.createKey({
      email: 'a@example.com',
      kind: 'standard',
      plan: 'payg',
      credits: 1,
    });
    const db = new Database(dbPath);
    const lotId = db.prepare('SELECT id FROM credit_lots').pluck().get() as number;
    const transfer = (
      kind: string,
      amount: number,
      holdId: number | null = null,
      pendingId: number | null = null,
    ) =>
      db
        .prepare(
          'INSERT INTO transfers (account_id, lot_id, kind, amount, hold_id, pending_id, created_at) VALUES (?, ?, ?, ?, ?, ?, 0)',
        )
        .run(accountId, lotId, kind, amount, holdId, pendingId);
    return { db, accountId, lotId, transfer };
  }

  it('keeps transfers append-only and lots undeletable', async () => {
    const { db } = await ledgerDb();
    try {
      expect(() => db.prepare('UPDATE transfers SET amount = 0').run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM transfers').run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM credit_lots').run()).toThrow(/never deleted/);
      expect(() => db.prepare('UPDATE credit_lots SET expires_at = 1').run()).toThrow(/immutable/);
    } finally {
      db.close();
    }
  });

  it('rejects a hold, a charge or an expiry that would take a lot below zero', async () => {
    const { db, transfer, accountId } = await ledgerDb();
    try {
      const hold = db
        .prepare(
          `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price, reserved_rows,
             amount, created_at, timeout_at) VALUES (?, (SELECT id FROM api_keys), 'i', 'rest', 'search', 'EE', 1, 1, 1, 0, 0)`,
        )
        .run(accountId).lastInsertRowid as number;
      expect(() => transfer('pending', 1_000_001, hold)).toThrow(/CHECK constraint failed/);
      expect(() => transfer('expire', 1_000_001)).toThrow(/CHECK constraint failed/);
      const pendingId = transfer('pending', 600_000, hold).lastInsertRowid as number;
      expect(() => transfer('pending', 400_001, hold)).toThrow(/CHECK constraint failed/);
      expect(() => transfer('post', 600_001, hold, pendingId)).toThrow(/exceeds its pending amount/);
      expect(() => transfer('void', 1, hold, pendingId)).toThrow(/whole pending amount/);
      transfer('post', 500_000, hold, pendingId);
      expect(() => transfer('post', 1, hold, pendingId)).toThrow(/UNIQUE/);
      const lot = db.prepare('SELECT * FROM credit_lots').get();
      expect(lot).toMatchObject({ credits_posted: 1_000_000, debits_pending: 0, debits_posted: 500_000 });
    } finally {
      db.close();
    }
  });
});

describe('migration 10: CHECK lists of the metered tables as OR chains', () => {
  const HOT = ['holds', 'transfers', 'transfers_resolve_check', 'usage_records', 'idempotency_keys'];
  const definitions = (db: Database.Database) =>
    db
      .prepare(`SELECT name, sql FROM sqlite_schema WHERE name IN (${HOT.map(() => '?').join(', ')})`)
      .all(...HOT) as { name: string; sql: string }[];

  it('an OR chain gives what its IN list gave, for every value, NULL included', () => {
    const db = new Database(':memory:');
    try {
      runMigrations(
        db,
        MIGRATIONS.filter((m) => m.version <= 9),
      );
      const lists = definitions(db).flatMap((d) => d.sql.match(/(?:NEW\.)?[a-z_]+ IN \([^()]*\)/g) ?? []);
      // holds.state, transfers.kind (three lists), the trigger's NEW.kind, usage_records.outcome, idempotency state.
      expect(lists.length).toBe(7);
      for (const list of lists) {
        const expr = list.replace(/^(?:NEW\.)?[a-z_]+/, 'x');
        const literals = (expr.match(/'[^']*'/g) ?? []).map((v) => v.slice(1, -1));
        const same = db.prepare(
          `SELECT (${expr}) IS (${inListsAsOrChains(expr)}) AS same FROM (SELECT ? AS x)`,
        );
        fc.assert(
          fc.property(fc.oneof(fc.constantFrom(...literals, null, ''), fc.string(), fc.integer()), (x) => {
            expect(same.get(x)).toEqual({ same: 1 });
          }),
          { numRuns: 200 },
        );
      }
    } finally {
      db.close();
    }
  });

  it('rewrites a wallet of version 9 in place: rows, rules and integrity kept, no temporary b-tree per insert', async () => {
    const dbPath = path.join(tempDir(), 'wallet.db');
    const setup = new Database(dbPath);
    runMigrations(
      setup,
      MIGRATIONS.filter((m) => m.version <= 9),
    );
    setup.close();
    // Money moves on the version 9 schema first (openWalletDb would migrate, so the wallet opens after).
    const v9 = new Database(dbPath);
    v9.prepare(
      `INSERT INTO accounts (id, email, plan, created_at) VALUES ('a', 'a@example.com', 'payg', 1)`,
    ).run();
    v9.prepare(
      `INSERT INTO api_keys (id, account_id, kind, secret_hash, hint, created_at) VALUES ('k', 'a', 'standard', zeroblob(32), 'abcd', 1)`,
    ).run();
    v9.prepare(
      `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price, reserved_rows,
         amount, created_at, timeout_at) VALUES ('a', 'k', 'i', 'rest', 'search', 'EE', 1, 1, 1, 0, 0)`,
    ).run();
    const before = v9.prepare('SELECT * FROM holds').all();
    v9.close();

    const db = openWalletDb(dbPath);
    try {
      expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(
        MIGRATIONS.at(-1)!.version,
      );
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT * FROM holds').all()).toEqual(before);
      for (const d of definitions(db)) expect(d.sql).not.toMatch(/ IN \(/);
      // The hold's state is still checked, and the statement builds no temporary b-tree for it.
      const insertHold = `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country,
        unit_price, reserved_rows, amount, created_at, timeout_at, state) VALUES ('a', 'k', 'i', 'rest', 'search', 'EE', 1, 1, 1, 0, 0, ?)`;
      expect(() => db.prepare(insertHold).run('bogus')).toThrow(/CHECK constraint failed/);
      expect(() => db.prepare(insertHold).run('posted')).not.toThrow();
      const opcodes = (sql: string, n: number) =>
        (db.prepare(`EXPLAIN ${sql}`).all(...Array<null>(n).fill(null)) as { opcode: string }[]).map(
          (r) => r.opcode,
        );
      expect(opcodes(insertHold, 1)).not.toContain('OpenEphemeral');
      expect(
        opcodes(
          `INSERT INTO transfers (account_id, lot_id, kind, amount, hold_id, pending_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          7,
        ),
      ).not.toContain('OpenEphemeral');
      expect(
        opcodes(
          `INSERT INTO usage_records (account_id, key_id, channel, operation, country, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          7,
        ),
      ).not.toContain('OpenEphemeral');
      expect(() =>
        db
          .prepare(
            `INSERT INTO usage_records (account_id, key_id, channel, operation, country, outcome, created_at) VALUES ('a', 'k', 'rest', 'search', 'EE', 'spent', 0)`,
          )
          .run(),
      ).toThrow(/CHECK constraint failed/);
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
    // A second open finds nothing left to do.
    const again = new Database(dbPath);
    try {
      expect(runMigrations(again)).toEqual([]);
    } finally {
      again.close();
    }
  });
});
