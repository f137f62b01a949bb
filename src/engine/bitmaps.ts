import roaring from 'roaring';

/**
 * The compressed bitmaps of the posting lists: CRoaring through its official Node binding. Chosen over
 * the WebAssembly build (roaring-wasm) after measuring both on this machine (2.3M rows, docs/data-contract.md
 * "Performance"): the native one intersects-and-counts faster, frees its bitmaps with the garbage collector
 * instead of an explicit dispose, and maps a serialized bitmap in place (a frozen view), so a snapshot's
 * posting lists are usable right after the file is read, without deserializing each one.
 */
export const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;

/** The bitmaps' alignment in a postings file and in memory (a frozen view needs 32 bytes). */
export const BITMAP_ALIGNMENT = 32;

/** A serialized bitmap in the portable format, the one a frozen view reads. */
export const serialize = (b: Bitmap): Uint8Array => {
  b.runOptimize();
  b.shrinkToFit();
  return b.serialize('portable');
};

/** A read-only bitmap over `bytes` (aligned), which must stay alive as long as the view. */
export const frozenView = (bytes: Uint8Array): Bitmap =>
  RoaringBitmap32.unsafeFrozenView(bytes, 'unsafe_frozen_portable');

export const EMPTY: Bitmap = new RoaringBitmap32().freeze();

/**
 * The bitmaps made inside the running scratch scope (withScratch), or null outside one.
 *
 * A bitmap's memory is CRoaring's, outside V8's heap; the binding reports it to V8 as external memory,
 * and it is freed only when the garbage collector finalizes the bitmap's object. A plan makes several
 * such bitmaps that are dead as soon as its answer exists (intersections, unions, the candidates of a
 * page), so on a planner thread they piled up until V8 saw "external memory pressure" and ran a full
 * mark-compact: about one every 0.5-0.7 s per planner thread under searches at c=1, each with 4-16 ms of
 * pause on that thread, and the concurrent marking took CPU from the two cores (docs/data-contract.md
 * "Seventh round"). Freeing them when the task ends keeps the external memory flat.
 */
let scratch: { made: Set<Bitmap>; retired: Set<Bitmap> } | null = null;

function made(b: Bitmap): Bitmap {
  scratch?.made.add(b);
  return b;
}

/**
 * Runs `fn` in a scratch scope: every bitmap the functions below make during it is cleared (its memory
 * freed) when it ends, except frozen ones and those passed to `keep`; so is every bitmap passed to
 * `retire` during it. Nothing made in the scope may be used after it unless kept.
 */
export function withScratch<T>(fn: () => T): T {
  const outer = scratch;
  const mine = { made: new Set<Bitmap>(), retired: new Set<Bitmap>() };
  scratch = mine;
  try {
    return fn();
  } finally {
    scratch = outer;
    for (const b of mine.made) if (!b.isFrozen) b.clear();
    for (const b of mine.retired) b.clear();
  }
}

/**
 * `b` outlives the scratch scope (a cache holds it). True when the scope made it and nothing froze it or
 * kept it before: then no other cache holds it, and the caller that keeps it may clear it when it lets it
 * go.
 */
export function keep(b: Bitmap): boolean {
  if (scratch === null) return false;
  // Dropped by one cache and kept again: no longer to be freed.
  scratch.retired.delete(b);
  return scratch.made.delete(b) && !b.isFrozen;
}

/**
 * A cache let go of `b`, which it alone held: cleared when the scope ends, since the running task may still
 * be using it. Outside a scope (or frozen) it is left to the garbage collector.
 */
export function retire(b: Bitmap): void {
  if (scratch !== null && !b.isFrozen) scratch.retired.add(b);
}

/** Reused rid buffers, by slot: see `scratchRids`. */
const ridBuffers: Uint32Array[] = [];

/**
 * A Uint32Array of length `n` for a task's own use, over a buffer this thread reuses (slot 0 and 1 are
 * two distinct buffers). Its contents are garbage, and the next call with the same slot overwrites them.
 * A text check lists 30,000-170,000 candidate rids: a fresh array of that size is V8 external memory,
 * which like the bitmaps above drove full collections on the planner threads.
 */
export function scratchRids(n: number, slot: number): Uint32Array {
  let buf = ridBuffers[slot];
  if (buf === undefined || buf.length < n) {
    buf = new Uint32Array(Math.max(1024, 2 ** Math.ceil(Math.log2(Math.max(1, n)))));
    ridBuffers[slot] = buf;
  }
  return buf.subarray(0, n);
}

export const and = (a: Bitmap, b: Bitmap): Bitmap => made(RoaringBitmap32.and(a, b));
export const andNot = (a: Bitmap, b: Bitmap): Bitmap => made(RoaringBitmap32.andNot(a, b));
/** The bitmap of `rids` (any order). */
export const fromRids = (rids: Uint32Array | readonly number[]): Bitmap => made(new RoaringBitmap32(rids));

/** The intersection of several bitmaps, smallest first (each step is bounded by the smaller side). */
export function intersectAll(sets: readonly Bitmap[]): Bitmap {
  if (sets.length === 0) throw new Error('intersectAll needs at least one set');
  const bySize = [...sets].sort((a, b) => a.size - b.size);
  let out = bySize[0]!;
  for (const s of bySize.slice(1)) {
    if (out.size === 0) break;
    out = and(out, s);
  }
  return out;
}

export const unionAll = (sets: readonly Bitmap[]): Bitmap =>
  sets.length === 0 ? EMPTY : sets.length === 1 ? sets[0]! : made(RoaringBitmap32.orMany(sets));
