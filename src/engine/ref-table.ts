import type { Ref } from './postings-file.ts';
import { fnv1a } from './string-hash.ts';

/**
 * What a RefTable is made of: plain typed arrays over shared memory, so a planner thread receives the
 * same table without a copy, and the garbage collector has nothing inside to visit.
 */
export interface RefTableData {
  /** The keys' UTF-16 code units, one after the other. */
  units: Uint16Array;
  /** Where key i starts in `units`; key i ends where key i + 1 starts (length entries + 1). */
  starts: Uint32Array;
  /** Byte offset and length of key i's blob in the postings file. */
  offsets: Float64Array;
  lengths: Float64Array;
  /** Open addressing, linear probing: the entry of each slot, -1 where empty (a power of two long). */
  slots: Int32Array;
}

function shared<T extends Uint16Array | Uint32Array | Int32Array | Float64Array>(
  Type: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number },
  length: number,
): T {
  return new Type(new SharedArrayBuffer(Math.max(1, length) * Type.BYTES_PER_ELEMENT));
}

/**
 * A string-to-blob map of a postings header (a values index's value to its bitmap, a text index's piece
 * to its bitmap). The header's JSON form is an object of two-element arrays per entry: 1.04 million
 * objects in the server's main heap at scale 1 (the postcode prefixes alone 417,000), 40 MB and two thirds
 * of everything its mark-compacts had to visit, and again in each planner thread. In typed arrays the
 * same table is five objects, and a lookup allocates nothing.
 */
export class RefTable {
  private readonly mask: number;

  constructor(readonly data: RefTableData) {
    this.mask = data.slots.length - 1;
  }

  static from(entries: Iterable<readonly [string, Ref]>): RefTable {
    const list = [...entries];
    let units = 0;
    for (const [k] of list) units += k.length;
    let capacity = 8;
    while (capacity < list.length * 2) capacity *= 2;
    const data: RefTableData = {
      units: shared(Uint16Array, units),
      starts: shared(Uint32Array, list.length + 1),
      offsets: shared(Float64Array, list.length),
      lengths: shared(Float64Array, list.length),
      slots: shared(Int32Array, capacity),
    };
    data.slots.fill(-1);
    const table = new RefTable(data);
    let at = 0;
    list.forEach(([key, [offset, length]], i) => {
      data.starts[i] = at;
      for (let u = 0; u < key.length; u++) data.units[at++] = key.charCodeAt(u);
      data.offsets[i] = offset;
      data.lengths[i] = length;
      let slot = fnv1a(key) & table.mask;
      while (data.slots[slot] !== -1) {
        if (table.equals(data.slots[slot]!, key)) throw new Error(`duplicate key ${JSON.stringify(key)}`);
        slot = (slot + 1) & table.mask;
      }
      data.slots[slot] = i;
    });
    data.starts[list.length] = at;
    return table;
  }

  static fromRecord(record: Record<string, Ref>): RefTable {
    return RefTable.from(Object.entries(record));
  }

  get size(): number {
    return this.data.starts.length - 1;
  }

  /** The entry of `key`, or -1. */
  find(key: string): number {
    const { slots } = this.data;
    for (let slot = fnv1a(key) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = slots[slot]!;
      if (entry === -1 || this.equals(entry, key)) return entry;
    }
  }

  offset(entry: number): number {
    return this.data.offsets[entry]!;
  }

  length(entry: number): number {
    return this.data.lengths[entry]!;
  }

  key(entry: number): string {
    const { units, starts } = this.data;
    let s = '';
    for (let u = starts[entry]!; u < starts[entry + 1]!; u++) s += String.fromCharCode(units[u]!);
    return s;
  }

  /** Every key, in the order the table was built from (tests, tools). */
  keys(): string[] {
    return Array.from({ length: this.size }, (_, i) => this.key(i));
  }

  private equals(entry: number, key: string): boolean {
    const { units, starts } = this.data;
    const start = starts[entry]!;
    if (starts[entry + 1]! - start !== key.length) return false;
    for (let u = 0; u < key.length; u++) if (units[start + u] !== key.charCodeAt(u)) return false;
    return true;
  }
}
