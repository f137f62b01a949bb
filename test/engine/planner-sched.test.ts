import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import threadPolicy from '@regdata/thread-policy';
import { describe, expect, inject, it } from 'vitest';
import { SearchQuerySchema } from '../../src/contract/api-schemas.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { searchCompanies } from '../../src/services/companies.ts';
import { SCHED_IDLE, threadStats } from '../helpers/thread-stat.ts';

/*
 * The planner threads run under SCHED_IDLE when asked (REGDATA_PLANNER_SCHED=idle, the server's default),
 * so the event loop never waits for a core behind a plan (src/engine/planner-thread.ts). What the kernel
 * holds is read back from /proc (helpers/thread-stat.ts), so these tests do not take the addon's word for it.
 */

const idleThreads = () => threadStats('self').filter((t) => t.policy === SCHED_IDLE).length;

/** Two searches at once, so that both threads of the pool start and answer. */
async function searchTwice(engine: Engine): Promise<number[]> {
  const pages = await Promise.all(
    ['EE', 'LV'].map((country) =>
      searchCompanies(engine, SearchQuerySchema.parse({ country, page_size: '5' })),
    ),
  );
  return pages.map((p) => p.total);
}

describe('planner threads under SCHED_IDLE', () => {
  it('the addon moves only the thread that calls it', async () => {
    expect(threadPolicy.available).toBe(true);
    const before = idleThreads();
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const fs = require('node:fs');
       const ok = require(${JSON.stringify(createRequire(import.meta.url).resolve('@regdata/thread-policy'))}).setIdle();
       const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
       parentPort.postMessage({ ok, tid });
       setTimeout(() => {}, 60_000);`,
      { eval: true },
    );
    try {
      const { ok, tid } = await new Promise<{ ok: boolean; tid: number }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(ok).toBe(true);
      const now = new Map(threadStats('self').map((t) => [t.tid, t.policy]));
      expect(now.get(tid)).toBe(SCHED_IDLE);
      expect(idleThreads()).toBe(before + 1);
      expect(now.get(process.pid)).toBe(0);
    } finally {
      await worker.terminate();
    }
  });

  it('holds the planner threads, and only them, when the engine is opened with plannerSched idle', async () => {
    const before = idleThreads();
    const engine = await Engine.open(new SnapshotStore(inject('testDataDir')), {
      connections: 1,
      plannerThreads: 2,
      plannerSched: 'idle',
    });
    let totals: number[];
    try {
      totals = await searchTwice(engine);
      expect(idleThreads()).toBe(before + 2);
    } finally {
      engine.close();
    }
    // The same answers from threads of the ordinary policy, the default; none of them idle.
    const normal = await Engine.open(new SnapshotStore(inject('testDataDir')), {
      connections: 1,
      plannerThreads: 2,
    });
    try {
      expect(await searchTwice(normal)).toEqual(totals);
      expect(totals.every((t) => t > 0)).toBe(true);
      await expect.poll(idleThreads).toBe(before);
    } finally {
      normal.close();
    }
  });
});
