import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { LocationLeaf } from '../types.ts';

/**
 * Swedish kommuner with their län, SCB codes. Spec 4.2 gives SE no location tree, so only the leaves
 * are built, named by the short form ("Stockholm", not "Stockholms kommun").
 */
export function readSeKommuner(): LocationLeaf[] {
  const file = DATA_FILES.seKommuner.file;
  return parseCsvRecords(readDataFile('seKommuner'), ',', file)
    .map((r) => {
      const kood = field(r, 'municipality_code', file);
      if (!/^\d{4}$/.test(kood)) throw new Error(`${file}: kommun code ${kood} is not 4 digits`);
      const name = field(r, 'municipality_name_short', file);
      return { kood, name, path: [field(r, 'county_name', file), name], population: null };
    })
    .sort((a, b) => (a.kood < b.kood ? -1 : 1));
}
