import type { PlaceItem } from '../location-tree.ts';

/** Placeholder until the public ISO 3166-2:LT source is in data/: LT locations are not built yet. */
export const LT_SOURCE = { file: '', source: '', licence: '' };

export function readLtRegions(): PlaceItem[] {
  throw new Error('LT location reference is not built yet');
}
