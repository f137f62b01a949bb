import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { PlaceItem } from '../location-tree.ts';

/**
 * ATVK after the 2021 reform, top level only: 7 valstspilsētas and 36 novadi with 7-digit codes. The
 * pagasti and towns inside novadi are missing from the only file found, so the tree has one level.
 */
export function readAtvkTopLevel(): PlaceItem[] {
  const file = DATA_FILES.lvAtvk.file;
  return parseCsvRecords(readDataFile('lvAtvk'), ';', file).map((r) => {
    const code = field(r, 'code', file);
    if (!/^\d{7}$/.test(code)) throw new Error(`${file}: code ${code} is not 7 digits`);
    const name = field(r, 'name', file);
    return { code, parent: null, label: name, name, population: null };
  });
}
