import { describe, expect, it } from 'vitest';
import { STALE_HOLDS_SQL } from '../../src/wallet/audit.ts';
import { openWalletDb } from '../../src/wallet/db.ts';
import { INSTANCE_OPEN_HOLDS_SQL } from '../../src/wallet/parts/lifecycle.ts';
import { OPEN_HOLDS_SQL } from '../../src/wallet/sweeper.ts';
import { testWallet } from './helpers.ts';

/*
 * Every metered call leaves a hold row behind, so the holds table grows by one row per call for good, while
 * the open holds are the calls in flight. The sweep (every 30 s, on the server's event loop), a clean
 * shutdown and the audit read only the open ones; written `ORDER BY id`, SQLite walked the whole table in
 * rowid order to spare a sort, which a CPU profile of the server showed as a 186 ms stall per sweep on a
 * wallet of a few hundred thousand calls. Each must read the partial index holds_open instead, with and
 * without the planner's statistics.
 */
const STATEMENTS: Record<string, { sql: string; params: unknown[] }> = {
  sweep: { sql: OPEN_HOLDS_SQL, params: [] },
  shutdown: { sql: INSTANCE_OPEN_HOLDS_SQL, params: ['ins_0000000000000000'] },
  audit: { sql: STALE_HOLDS_SQL, params: [Date.now()] },
};

describe('the open holds are read through holds_open, not by a scan of every hold', () => {
  it('for the sweep, the shutdown and the audit, before and after ANALYZE', async () => {
    const { wallet, dbPath } = await testWallet();
    const { accountId, keyId } = await wallet.createKey({ email: 'a@example.com', kind: 'standard' });
    const db = openWalletDb(dbPath);
    try {
      const now = Date.now();
      const hold = db.prepare(
        `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price,
           reserved_rows, amount, created_at, timeout_at, state)
         VALUES (?, ?, 'ins_0000000000000000', 'rest', 'detail', 'EE', 1000, 1, 1000, ?, ?, ?)`,
      );
      db.transaction(() => {
        for (let i = 0; i < 5_000; i++)
          hold.run(accountId, keyId, now, now + 60_000, i % 1000 === 0 ? 'pending' : 'posted');
      })();
      const plan = (sql: string, params: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((r) => r.detail)
          .join('; ');
      for (const stats of ['without statistics', 'after ANALYZE']) {
        if (stats === 'after ANALYZE') db.exec('ANALYZE');
        for (const [name, { sql, params }] of Object.entries(STATEMENTS)) {
          const p = plan(sql, params);
          expect(p, `${name}, ${stats}`).toMatch(/USING (COVERING )?INDEX holds_open\b/);
          expect(p, `${name}, ${stats}`).not.toMatch(/SCAN holds(?! USING)/);
        }
      }
      // And they still answer in id order.
      const ids = (db.prepare(OPEN_HOLDS_SQL).all() as { id: number }[]).map((r) => r.id);
      expect(ids).toEqual([1, 1001, 2001, 3001, 4001]);
    } finally {
      db.close();
    }
  });
});
