import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { PlaceItem } from '../location-tree.ts';

/**
 * Statistics Finland maakunta (`MK01`) → seutukunta (`SK011`) → kunta. Statistics Finland prefixes the
 * kunta code with `KU`; PRH publishes the bare 3-digit code (`091`), so that is what the kunta node keeps.
 */
export function readFiRegions(): PlaceItem[] {
  const file = DATA_FILES.fiRegions.file;
  const items = new Map<string, PlaceItem>();
  const add = (item: PlaceItem): void => {
    const seen = items.get(item.code);
    if (seen && (seen.parent !== item.parent || seen.name !== item.name)) {
      throw new Error(`${file}: ${item.code} appears with two different names or parents`);
    }
    items.set(item.code, item);
  };
  for (const r of parseCsvRecords(readDataFile('fiRegions'), ',', file)) {
    const mk = field(r, 'maakunta_code', file);
    const sk = field(r, 'seutukunta_code', file);
    const ku = field(r, 'kunta_code', file);
    if (!/^KU\d{3}$/.test(ku)) throw new Error(`${file}: kunta code ${ku} is not KU + 3 digits`);
    const mkName = field(r, 'maakunta_name', file);
    const skName = field(r, 'seutukunta_name', file);
    const kuName = field(r, 'kunta_name', file);
    add({ code: mk, parent: null, label: mkName, name: mkName, population: null });
    add({ code: sk, parent: mk, label: skName, name: skName, population: null });
    add({ code: ku.slice(2), parent: sk, label: kuName, name: kuName, population: null });
  }
  return [...items.values()];
}
