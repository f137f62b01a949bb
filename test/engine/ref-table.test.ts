import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ref } from '../../src/engine/postings-file.ts';
import { RefTable } from '../../src/engine/ref-table.ts';

const ref = fc.tuple(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 31 })) as fc.Arbitrary<Ref>;
// Any UTF-16 string: lone surrogates, the empty string and keys that differ only in length included.
const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ maxLength: 3 }));

describe('RefTable', () => {
  it('finds exactly the keys it was built from, with their refs, as a Map would', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(key, ref), { selector: ([k]) => k, maxLength: 300 }),
        fc.array(key),
        (entries, probes) => {
          const table = RefTable.from(entries);
          const map = new Map(entries);
          expect(table.size).toBe(entries.length);
          expect(table.keys()).toEqual(entries.map(([k]) => k));
          for (const k of [...map.keys(), ...probes]) {
            const i = table.find(k);
            const want = map.get(k);
            if (want === undefined) expect(i).toBe(-1);
            else expect([table.key(i), table.offset(i), table.length(i)]).toEqual([k, want[0], want[1]]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a key given twice', () => {
    expect(() =>
      RefTable.from([
        ['10', [0, 8]],
        ['10', [32, 8]],
      ]),
    ).toThrow(/duplicate key "10"/);
  });

  it('reaches another thread as the same memory, and answers there as here', () => {
    const table = RefTable.fromRecord({ a: [0, 4], Žalgiris: [64, 12], '': [96, 4] });
    const copy = new RefTable(structuredClone(table.data));
    expect(copy.data.units.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (const k of ['a', 'Žalgiris', '', 'b']) expect(copy.find(k)).toBe(table.find(k));
    // Shared, not copied: a write on one side is seen on the other.
    table.data.offsets[0] = 128;
    expect(copy.offset(0)).toBe(128);
  });
});
