import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CountQuerySchema, SearchQuerySchema } from '../../src/contract/api-schemas.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { and, andNot, fromRids, keep, unionAll, withScratch, type Bitmap } from '../../src/engine/bitmaps.ts';
import { Engine } from '../../src/engine/engine.ts';
import { KeptSets } from '../../src/engine/postings.ts';
import { answerTask, planKey, type Plan, type PlanTask } from '../../src/engine/planner.ts';

/*
 * The bitmaps a task makes are freed when it ends (bitmaps.ts withScratch), so their native memory does
 * not wait for V8's full collections. Freeing one that is still used would answer wrongly, quietly: a
 * cleared bitmap is an empty set. These tests hold the scope to what it may free, and hold answers
 * given after the plan cache has turned over (its oldest plans freed) to the answers of a fresh cache.
 */

describe('scratch scope', () => {
  it('clears what it made, and leaves what was kept, frozen, or made outside it', () => {
    const a = fromRids([1, 2, 3, 4]);
    const b = fromRids([3, 4, 5]);
    const frozenOutside = fromRids([7, 8]).freeze();
    let made: Bitmap[] = [];
    let kept: Bitmap | undefined;
    let frozen: Bitmap | undefined;
    let owned = false;
    withScratch(() => {
      made = [and(a, b), andNot(a, b), unionAll([a, b]), fromRids([9])];
      kept = and(a, b);
      owned = keep(kept);
      frozen = unionAll([a, frozenOutside]).freeze();
      expect(made.map((m) => m.toArray())).toEqual([[3, 4], [1, 2], [1, 2, 3, 4, 5], [9]]);
    });
    expect(made.map((m) => m.size)).toEqual([0, 0, 0, 0]);
    expect(kept!.toArray()).toEqual([3, 4]);
    expect(owned).toBe(true);
    expect(frozen!.toArray()).toEqual([1, 2, 3, 4, 7, 8]);
    // Made outside any scope: nobody clears them.
    expect(a.toArray()).toEqual([1, 2, 3, 4]);
    expect(and(a, b).toArray()).toEqual([3, 4]);
  });

  it('clears when the task throws, and keep() outside a scope owns nothing', () => {
    let made: Bitmap | undefined;
    expect(() =>
      withScratch(() => {
        made = fromRids([1, 2]);
        throw new Error('plan failed');
      }),
    ).toThrow('plan failed');
    expect(made!.size).toBe(0);
    expect(keep(fromRids([1]))).toBe(false);
    // A kept set that a cache froze in the scope is not the caller's to free.
    let owned = true;
    withScratch(() => {
      const s = fromRids([5, 6]).freeze();
      owned = keep(s);
    });
    expect(owned).toBe(false);
  });
});

describe('kept sets', () => {
  it('free a set they drop when the task ends, not before', () => {
    // Room for one set of three rids.
    const one = fromRids([1, 2, 3]).getSerializationSizeInBytes('portable');
    const kept = new KeptSets(one + Math.floor(one / 2));
    const first = fromRids([1, 2, 3]);
    const second = fromRids([10, 20, 30]);
    let duringTask: number[] = [];
    let droppedLater: Bitmap | undefined;
    withScratch(() => {
      const a = and(first, fromRids([1, 2, 3, 4]));
      kept.set('a', a);
      // Made in the task and kept: not the task's to free.
      expect(keep(a)).toBe(false);
      // Keeping the second drops the first, which the task may still be using.
      droppedLater = and(second, fromRids([10, 20, 30, 40]));
      kept.set('b', droppedLater);
      expect(kept.get('a')).toBeUndefined();
      duringTask = a.toArray();
      expect(kept.get('b')!.toArray()).toEqual([10, 20, 30]);
      first.clear();
      second.clear();
      kept.set('c', a);
    });
    expect(duringTask).toEqual([1, 2, 3]);
    // 'a' was kept again after it was dropped, as 'c': still whole. 'b' was dropped for it: freed.
    expect(kept.get('c')!.toArray()).toEqual([1, 2, 3]);
    expect(kept.get('b')).toBeUndefined();
    expect(droppedLater!.size).toBe(0);
  });
});

describe('plans after the plan cache has turned over', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.open(new SnapshotStore(inject('testDataDir')), {
      connections: 1,
      plannerThreads: 0,
    });
  });
  afterAll(() => engine.close());

  it('answer as a fresh cache answers, for the plans it kept and those it freed', () => {
    const postings = engine.snapshot!.country('EE').postings;
    // 300 plans, more than the cache's 256: the oldest are dropped (and their sets freed) on the way.
    const tasks: PlanTask[] = [];
    for (let i = 0; i < 150; i++) {
      const from = new Date(Date.UTC(1995, 0, 1) + i * 45 * 86_400_000).toISOString().slice(0, 10);
      const count = CountQuerySchema.parse({ country: 'EE', registered_from: from });
      tasks.push({ kind: 'count', params: count, key: `count ${planKey(count)}`, folded: [], rid: null });
      const search = SearchQuerySchema.parse({
        country: 'EE',
        registered_to: from,
        sort_by: 'share_capital',
        page_size: '5',
      });
      tasks.push({ kind: 'search', params: search, key: `search ${planKey(search)}`, folded: [], rid: null });
    }
    const answer = (t: PlanTask, cache: Map<string, Plan>) => {
      const { total, rids } = answerTask(t, postings, cache);
      return { total, rids };
    };
    const expected = tasks.map((t) => answer(t, new Map()));
    expect(new Set(expected.map((e) => e.total)).size).toBeGreaterThan(20);
    const cache = new Map<string, Plan>();
    const first = tasks.map((t) => answer(t, cache));
    expect(first).toEqual(expected);
    // Again: the first 44 were dropped and are planned anew; the other 256 come from the cache, and each
    // answer planned anew drops one more of them.
    const second = tasks.map((t) => answer(t, cache));
    expect(second).toEqual(expected);
    expect(cache.size).toBe(256);
    // What the cache still holds is whole: each kept plan's set has its total.
    const totalOf = new Map(tasks.map((t, i) => [t.key, expected[i]!.total]));
    for (const [key, p] of cache) expect(p.rows.size).toBe(totalOf.get(key));
  });
});
