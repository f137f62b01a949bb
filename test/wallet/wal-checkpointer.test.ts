import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openWalletDb } from '../../src/wallet/db.ts';
import { openSqliteStore, type SqliteStore } from '../../src/wallet/store-sqlite.ts';
import { WalCheckpointer } from '../../src/wallet/wal-checkpointer.ts';

/**
 * The wallet's checkpoints run on a thread of their own (wal-checkpointer.ts). These tests use the real
 * store on a real file and read the outcome with a connection of their own: SQLite's checkpoint counters,
 * the WAL's size on disk, and the rows.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-ckpt-'));
  dirs.push(dir);
  return path.join(dir, 'wallet.db');
}

const turn = () => new Promise((r) => setImmediate(r));

/** `n` commits of one row each (a ~200-byte blob, so that the WAL grows by whole pages), yielding now and then. */
async function commitRows(store: SqliteStore, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    await store.tx(
      async (q) => {
        await q.run('INSERT INTO ckpt_rows (n, pad) VALUES (?, ?)', [i, 'x'.repeat(200)]);
      },
      { durable: false },
    );
    if (i % 25 === 0) await turn();
  }
}

async function waitFor(what: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
}

describe('WalCheckpointer: the WAL is copied back off the event loop, and stays bounded', () => {
  it('turns the connection’s own checkpoints off once it starts, and keeps the WAL from growing without end', async () => {
    const file = tempDb();
    const store = openSqliteStore(file, {
      checkpoints: { startAfterCommits: 20, everyCommits: 50, restartFrames: 200 },
    });
    await store.run('CREATE TABLE ckpt_rows (n INTEGER PRIMARY KEY, pad TEXT)');
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await commitRows(store, 0, 30);
    await waitFor(() => store.db.pragma('wal_autocheckpoint', { simple: true }) === 0);

    // 6,000 commits write far more than 200 frames: without any checkpoint the WAL would hold them all.
    await commitRows(store, 30, 6000);
    const reader = new Database(file, { readonly: true });
    try {
      // Every row is there, and the WAL file stays far below what 6,000 commits never copied back would
      // take (at least 6,000 pages): it was copied and restarted from its beginning along the way.
      expect(reader.prepare('SELECT count(*) AS n FROM ckpt_rows').get()).toEqual({ n: 6030 });
      const pageSize = store.db.pragma('page_size', { simple: true }) as number;
      expect(fs.statSync(`${file}-wal`).size).toBeLessThan(3000 * pageSize);
    } finally {
      reader.close();
    }
    await store.close();

    // The close checkpointed the rest: the database file alone holds every row, intact.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const after = new Database(file, { readonly: true });
    try {
      expect(after.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(after.prepare('SELECT count(*) AS n, sum(n) AS s FROM ckpt_rows').get()).toEqual({
        n: 6030,
        s: (6029 * 6030) / 2,
      });
    } finally {
      after.close();
    }
  });

  it('a burst of commits that never yields to the event loop waits for a late round instead of growing the WAL', async () => {
    // The thread's answers arrive as events, which a burst of commits that only awaits promises never lets
    // run: without the wait, its round stays "in flight" and no other starts. A thread starved of CPU on a
    // loaded machine looks the same to the writers (this test's neighbour once saw a 28 MB WAL so).
    const file = tempDb();
    const store = openSqliteStore(file, {
      checkpoints: { startAfterCommits: 20, everyCommits: 50, restartFrames: 200 },
    });
    await store.run('CREATE TABLE ckpt_rows (n INTEGER PRIMARY KEY, pad TEXT)');
    await commitRows(store, 0, 30);
    await waitFor(() => store.db.pragma('wal_autocheckpoint', { simple: true }) === 0);
    for (let i = 30; i < 6030; i++) {
      await store.tx(
        async (q) => {
          await q.run('INSERT INTO ckpt_rows (n, pad) VALUES (?, ?)', [i, 'x'.repeat(200)]);
        },
        { durable: false },
      );
    }
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(3000 * pageSize);
    expect(store.db.prepare('SELECT count(*) AS n FROM ckpt_rows').get()).toEqual({ n: 6030 });
    await store.close();
  });

  it('a process that commits less than the threshold starts no thread and keeps SQLite’s own checkpoints', async () => {
    const file = tempDb();
    const store = openSqliteStore(file, { checkpoints: { startAfterCommits: 1000 } });
    await store.run('CREATE TABLE ckpt_rows (n INTEGER PRIMARY KEY, pad TEXT)');
    await commitRows(store, 0, 100);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await store.close();
  });

  it('a thread that cannot work hands the checkpoints back to the connection, and says why', async () => {
    const file = tempDb();
    const db = openWalletDb(file);
    const errors: string[] = [];
    // The thread opens its own connection by path: a path with no database behind it fails there.
    const checkpointer = new WalCheckpointer(
      db,
      path.join(path.dirname(file), 'missing-dir', 'wallet.db'),
      (fn) => fn(),
      { startAfterCommits: 1 },
      (message) => errors.push(message),
    );
    checkpointer.committed();
    await waitFor(() => errors.length > 0);
    expect(errors[0]).toMatch(/wallet checkpoint thread (failed|exited)/);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await checkpointer.close();
    db.close();
  });
});
