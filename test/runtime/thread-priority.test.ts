import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { ThreadPriority } from '../../src/runtime/thread-priority.ts';

const own = () => Number(path.basename(fs.readlinkSync('/proc/thread-self')));
const others = () =>
  fs
    .readdirSync('/proc/self/task')
    .map(Number)
    .filter((tid) => tid !== own());
const niceOf = (tid: number) => {
  try {
    return os.getPriority(tid);
  } catch {
    return null; // ended meanwhile
  }
};

/** The nice values of the other live threads that are not `nice` (a thread that ended is skipped). */
const notAt = (nice: number) =>
  others()
    .map(niceOf)
    .filter((n) => n !== null && n !== nice);

async function busyDuckDb(): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '3' });
  const conn = await instance.connect();
  await conn.run('SELECT sum(i) FROM range(2000000) t(i)');
  conn.closeSync();
  return instance;
}

describe.runIf(ThreadPriority.supported())('ThreadPriority (Linux)', () => {
  it('lowers every other thread, spares its own, and lowers the threads that appear later', async () => {
    const before = niceOf(own());
    const first = await busyDuckDb();
    const priority = new ThreadPriority(7);
    expect(priority.lowerOtherThreads()).toBeGreaterThan(0);
    expect(notAt(7)).toEqual([]);
    expect(niceOf(own())).toBe(before);
    // Nothing new: nothing to do.
    expect(priority.lowerOtherThreads()).toBe(0);
    // A second DuckDB instance is created from a pool thread, so its threads inherit the lowered value.
    const second = await busyDuckDb();
    expect(notAt(7)).toEqual([]);
    // A thread the event loop's thread starts itself inherits its priority: the next round lowers it.
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((resolve) => worker.once('online', resolve));
    try {
      const fresh = others().filter((tid) => niceOf(tid) !== 7);
      expect(fresh.length).toBeGreaterThan(0);
      // At least those: a new worker may still be starting threads of its own.
      expect(priority.lowerOtherThreads()).toBeGreaterThanOrEqual(fresh.length);
      for (let i = 0; i < 20 && priority.lowerOtherThreads() > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(notAt(7)).toEqual([]);
      expect(niceOf(own())).toBe(before);
    } finally {
      await worker.terminate();
      first.closeSync();
      second.closeSync();
    }
  });

  it('changes nothing at nice 0', () => {
    const priority = new ThreadPriority(0);
    expect(priority.lowerOtherThreads()).toBe(0);
  });
});
