import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/wallet/store-sqlite.ts';
import { WalSync } from '../../src/wallet/wal-sync.ts';

/** A datasync whose every call is held until the test lets it finish (or fail). */
function controlledDatasync() {
  const calls: { file: string; done: (err?: Error) => void }[] = [];
  const datasync = (file: string) =>
    new Promise<void>((resolve, reject) =>
      calls.push({ file, done: (err) => (err ? reject(err) : resolve()) }),
    );
  return { calls, datasync };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('WalSync: durable commits share flushes off the event loop', () => {
  it('a flush asked while one runs waits for the next flush, and all such callers share it', async () => {
    const { calls, datasync } = controlledDatasync();
    const wal = new WalSync('/x/wallet.db-wal', datasync);
    const settled: string[] = [];
    const first = wal.flush().then(() => settled.push('first'));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.file).toBe('/x/wallet.db-wal');
    // Five commits land while the first flush runs: it may have started before they were written.
    const later = Array.from({ length: 5 }, (_, i) => wal.flush().then(() => settled.push(`later${i}`)));
    await tick();
    expect(calls).toHaveLength(1);
    calls[0]?.done();
    await first;
    await tick();
    expect(settled).toEqual(['first']);
    expect(calls).toHaveLength(2);
    calls[1]?.done();
    await Promise.all(later);
    expect(settled).toHaveLength(6);
    expect(calls).toHaveLength(2);
    // Idle again: the next flush starts at once.
    const again = wal.flush();
    expect(calls).toHaveLength(3);
    calls[2]?.done();
    await again;
  });

  it('a failed flush fails its own callers only, and the next callers get a flush of their own', async () => {
    const { calls, datasync } = controlledDatasync();
    const wal = new WalSync('/x/wallet.db-wal', datasync);
    const failing = wal.flush();
    const waiting = wal.flush();
    calls[0]?.done(new Error('EIO'));
    await expect(failing).rejects.toThrow('EIO');
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]?.done();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('flushSoon: any number of calls make one flush within the delay, and close() does it at once', async () => {
    const { calls, datasync } = controlledDatasync();
    const wal = new WalSync('/x/wallet.db-wal', datasync);
    for (let i = 0; i < 5; i++) wal.flushSoon(30);
    expect(calls).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(calls).toHaveLength(1);
    calls[0]?.done();
    wal.flushSoon(60_000);
    const closing = wal.close();
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]?.done();
    await closing;
  });

  it('flushes a real WAL file, and treats a missing one as nothing to flush', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-sync-'));
    try {
      const file = path.join(dir, 'f');
      fs.writeFileSync(file, 'x');
      const real = new WalSync(file);
      await expect(Promise.all([real.flush(), real.flush(), real.flush()])).resolves.toHaveLength(3);
      await real.close();
      const missing = new WalSync(path.join(dir, 'none'));
      await expect(missing.flush()).resolves.toBeUndefined();
      // Created later (SQLite makes the WAL at the first write): the next flush finds it.
      fs.writeFileSync(path.join(dir, 'none'), 'x');
      await expect(missing.flush()).resolves.toBeUndefined();
      await missing.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the server's store commits without a flush inside COMMIT and keeps what it acknowledged", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-sync-'));
    try {
      const file = path.join(dir, 'wallet.db');
      const store = openSqliteStore(file);
      try {
        expect(store.db.pragma('synchronous', { simple: true })).toBe(1);
        await store.run('CREATE TABLE t (n INTEGER)');
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.tx((q) => q.run('INSERT INTO t VALUES (?)', [i]), { durable: i % 2 === 0 }),
          ),
        );
      } finally {
        await store.close();
      }
      const again = openSqliteStore(file);
      try {
        expect(await again.get('SELECT count(*) AS n, sum(n) AS s FROM t')).toEqual({ n: 20, s: 190 });
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
