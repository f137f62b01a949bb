import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationError } from '../../src/wallet/migrations.ts';
import { PG_MIGRATIONS, runPostgresMigrations } from '../../src/wallet/migrations-postgres.ts';
import { freshPgLocation, rawValue, withClient } from './backends.ts';
import { WALLET_BACKENDS, testWallet, untrackedWallet, useBackend } from './helpers.ts';

/** The PostgreSQL schema: versioned migrations under an advisory lock, and the ledger rules in the database. */
const pools: pg.Pool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.end();
});

const onPostgres = WALLET_BACKENDS.includes('postgres') ? describe : describe.skip;

onPostgres('PostgreSQL schema migrations', () => {
  it('applies every migration exactly once when several replicas start at the same moment', async () => {
    const location = await freshPgLocation();
    const starts = Array.from({ length: 4 }, () => {
      const pool = new pg.Pool({ connectionString: location, max: 2 });
      pools.push(pool);
      return runPostgresMigrations(pool);
    });
    const applied = await Promise.all(starts);
    // The advisory lock queues them: one replica applies all versions, the others find nothing to do.
    expect(applied.flat().sort((a, b) => a - b)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
    expect(await rawValue(location, 'SELECT count(*) FROM schema_migrations')).toBe(PG_MIGRATIONS.length);
  });

  it('migration 7 drops the seven-country CHECKs and keeps every subscription and order', async () => {
    const location = await freshPgLocation();
    const pool = new pg.Pool({ connectionString: location, max: 1 });
    pools.push(pool);
    await runPostgresMigrations(
      pool,
      PG_MIGRATIONS.filter((m) => m.version < 7),
    );
    await pool.query(
      `INSERT INTO accounts (id, email, plan, created_at) VALUES ('a', 'a@example.com', 'payg', 1)`,
    );
    const subscribe = (cc: string) =>
      pool.query(`INSERT INTO subscriptions (account_id, country, started_at) VALUES ('a', $1, 2)`, [cc]);
    const order = (id: string, cc: string) =>
      pool.query(
        `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
         VALUES ($1, 'a', 'country', $2, 1000000, 'bank', 'ref', 3)`,
        [id, cc],
      );
    await subscribe('EE');
    await order('o1', 'PL');
    // A country not among the seven (here a code of no real country) was refused by the CHECK.
    await expect(subscribe('ZZ')).rejects.toThrow(/check constraint/);
    await expect(order('o2', 'ZZ')).rejects.toThrow(/check constraint/);

    expect(
      await runPostgresMigrations(
        pool,
        PG_MIGRATIONS.filter((m) => m.version <= 7),
      ),
    ).toEqual([7]);
    await subscribe('ZZ');
    await order('o2', 'ZZ');
    expect((await pool.query('SELECT country FROM subscriptions ORDER BY country')).rows).toEqual([
      { country: 'EE' },
      { country: 'ZZ' },
    ]);
    expect((await pool.query('SELECT id, country FROM orders ORDER BY id')).rows).toEqual([
      { id: 'o1', country: 'PL' },
      { id: 'o2', country: 'ZZ' },
    ]);
    // The orders' other CHECK (a country exactly for a country order) stays.
    await expect(
      pool.query(
        `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
         VALUES ('o3', 'a', 'topup', 'EE', 1, 'bank', 'ref', 3)`,
      ),
    ).rejects.toThrow(/check constraint/);
  });

  it('keeps the data on reopen and refuses a database from a newer release', async () => {
    const location = await freshPgLocation();
    const first = await untrackedWallet({ url: location });
    const created = await first.createKey({ email: 'a@example.com', kind: 'standard' });
    await first.close();
    const again = await untrackedWallet({ url: location });
    expect((await again.authenticator.authenticate(`Bearer ${created.key}`)).accountId).toBe(
      created.accountId,
    );
    expect((await again.balance({ email: 'a@example.com' })).balance).toBe(30);
    await again.close();
    await withClient(location, (c) =>
      c.query(`INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')`),
    );
    await expect(untrackedWallet({ url: location })).rejects.toThrow(MigrationError);
  });
});

describe.each(WALLET_BACKENDS.filter((b) => b === 'postgres'))(
  'ledger rules enforced by %s itself',
  (backend) => {
    useBackend(backend);

    async function ledgerDb() {
      const { wallet, dbPath } = await testWallet();
      const { accountId } = await wallet.createKey({
        email: 'a@example.com',
        kind: 'standard',
        plan: 'payg',
        credits: 1,
      });
      const client = new pg.Client({ connectionString: dbPath });
      await client.connect();
      const lotId = Number((await client.query('SELECT id FROM credit_lots')).rows[0].id);
      const transfer = async (
        kind: string,
        amount: number,
        holdId: number | null = null,
        pendingId: number | null = null,
      ): Promise<number> => {
        const res = await client.query(
          `INSERT INTO transfers (account_id, lot_id, kind, amount, hold_id, pending_id, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 0) RETURNING id`,
          [accountId, lotId, kind, amount, holdId, pendingId],
        );
        return Number(res.rows[0].id);
      };
      return { client, accountId, lotId, transfer };
    }

    it('keeps transfers append-only, lots undeletable, and lot balances moved only by transfers', async () => {
      const { client } = await ledgerDb();
      try {
        await expect(client.query('UPDATE transfers SET amount = 0')).rejects.toThrow(/append-only/);
        await expect(client.query('DELETE FROM transfers')).rejects.toThrow(/append-only/);
        await expect(client.query('TRUNCATE transfers CASCADE')).rejects.toThrow(/append-only/);
        await expect(client.query('DELETE FROM credit_lots')).rejects.toThrow(/never deleted/);
        await expect(client.query('UPDATE credit_lots SET expires_at = 1')).rejects.toThrow(/immutable/);
        await expect(
          client.query('UPDATE credit_lots SET credits_posted = credits_posted + 1'),
        ).rejects.toThrow(/only through transfers/);
        await expect(
          client.query(
            `INSERT INTO credit_lots (account_id, source, created_at, credits_posted)
             SELECT account_id, 'grant', 0, 5 FROM credit_lots`,
          ),
        ).rejects.toThrow(/starts empty/);
      } finally {
        await client.end();
      }
    });

    it('rejects a hold, a charge or an expiry that would take a lot below zero', async () => {
      const { client, transfer, accountId } = await ledgerDb();
      try {
        const hold = Number(
          (
            await client.query(
              `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price,
                 reserved_rows, amount, created_at, timeout_at)
               VALUES ($1, (SELECT id FROM api_keys), 'i', 'rest', 'search', 'EE', 1, 1, 1, 0, 0) RETURNING id`,
              [accountId],
            )
          ).rows[0].id,
        );
        await expect(transfer('pending', 1_000_001, hold)).rejects.toThrow(/lot_never_overdrawn/);
        await expect(transfer('expire', 1_000_001)).rejects.toThrow(/lot_never_overdrawn/);
        const pendingId = await transfer('pending', 600_000, hold);
        await expect(transfer('pending', 400_001, hold)).rejects.toThrow(/lot_never_overdrawn/);
        await expect(transfer('post', 600_001, hold, pendingId)).rejects.toThrow(
          /exceeds its pending amount/,
        );
        await expect(transfer('void', 1, hold, pendingId)).rejects.toThrow(/whole pending amount/);
        await transfer('post', 500_000, hold, pendingId);
        await expect(transfer('post', 1, hold, pendingId)).rejects.toThrow(/unique/i);
        const lot = (await client.query('SELECT * FROM credit_lots')).rows[0] as Record<string, string>;
        expect([lot['credits_posted'], lot['debits_pending'], lot['debits_posted']].map(Number)).toEqual([
          1_000_000, 0, 500_000,
        ]);
      } finally {
        await client.end();
      }
    });
  },
);
