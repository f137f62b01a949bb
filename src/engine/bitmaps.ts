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

/** The intersection of several bitmaps, smallest first (each step is bounded by the smaller side). */
export function intersectAll(sets: readonly Bitmap[]): Bitmap {
  if (sets.length === 0) throw new Error('intersectAll needs at least one set');
  const bySize = [...sets].sort((a, b) => a.size - b.size);
  let out = bySize[0]!;
  for (const s of bySize.slice(1)) {
    if (out.size === 0) break;
    out = RoaringBitmap32.and(out, s);
  }
  return out;
}

export const unionAll = (sets: readonly Bitmap[]): Bitmap =>
  sets.length === 0 ? EMPTY : sets.length === 1 ? sets[0]! : RoaringBitmap32.orMany(sets);
