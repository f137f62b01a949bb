import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { withScratch } from '../../src/engine/bitmaps.ts';
import { Postings } from '../../src/engine/postings.ts';

/*
 * Unions of several values' lists and ranges are built once per planner thread and kept (postings.ts
 * builtSets). A kept set must be exactly the set built fresh, must be the same whatever order the values
 * were sent in, and must never answer for another key or another snapshot's lists. The expected sets are
 * computed here from the lists of single values and from the order's raw (value, rid) arrays, not through
 * the code that builds them.
 */

let engine: Engine;

beforeAll(async () => {
  engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 1, plannerThreads: 0 });
});
afterAll(() => engine.close());

const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);

function listsOf(p: Postings): { key: string; values: string[] }[] {
  return Object.entries(p.header.values)
    .map(([key, index]) => ({ key, values: index.keys() }))
    .filter((x) => x.values.length >= 3);
}

describe('built filter sets, kept per thread', () => {
  for (const country of COUNTRY_CODES) {
    it(`${country}: a union of values is built once, equals the union of the single lists, and is kept past a task`, () => {
      const p = engine.snapshot!.country(country).postings;
      const lists = listsOf(p);
      expect(lists.length).toBeGreaterThan(0);
      for (const { key, values } of lists.slice(0, 4)) {
        const [a, b, c] = values as [string, string, string];
        const ab = p.values(key, [a, b]);
        // Kept: the same bitmap again, whatever the order the values come in.
        expect(p.values(key, [b, a, b])).toBe(ab);
        // Built inside a task's scratch scope, it is kept, not freed with the task's own sets.
        const cd = withScratch(() => p.values(key, [values[2]!, values[1]!]));
        expect(cd.size).toBeGreaterThan(0);
        expect(p.values(key, [values[1]!, values[2]!])).toBe(cd);
        const expected = new Set([...p.values(key, [a]).toArray(), ...p.values(key, [b]).toArray()]);
        expect(ab.toArray()).toEqual(sorted(expected));
        // Another set of values is another set.
        const ac = p.values(key, [a, c]);
        expect(ac).not.toBe(ab);
        expect(ac.toArray()).toEqual(
          sorted(new Set([...p.values(key, [a]).toArray(), ...p.values(key, [c]).toArray()])),
        );
      }
    });

    it(`${country}: a range is built once and equals the rids whose value is in it`, () => {
      const p = engine.snapshot!.country(country).postings;
      const columns = Object.entries(p.header.ordered).filter(([, h]) => h.values !== null);
      expect(columns.length).toBeGreaterThan(0);
      for (const [column] of columns.slice(0, 4)) {
        const order = p.order(column);
        const values = order.values!;
        if (order.count < 4) continue;
        const min = values[Math.floor(order.count / 5)]!;
        const max = values[Math.floor((order.count * 3) / 5)]!;
        const range = p.order(column).range(min, max);
        expect(order.range(min, max)).toBe(range);
        const expected: number[] = [];
        for (let i = 0; i < order.count; i++) {
          if (values[i]! >= min && values[i]! <= max) expected.push(order.rids[i]!);
        }
        expect(range.toArray()).toEqual(sorted(expected));
        // A neighbouring range is not answered by this one.
        const wider = order.range(min, undefined);
        expect(wider).not.toBe(range);
        expect(wider.size).toBeGreaterThanOrEqual(range.size);
        // Another Postings of the same bytes (a new snapshot's lists) builds its own.
        const other = Postings.fromShared(p.shared);
        const again = other.order(column).range(min, max);
        expect(again).not.toBe(range);
        expect(again.toArray()).toEqual(range.toArray());
      }
    });
  }
});
