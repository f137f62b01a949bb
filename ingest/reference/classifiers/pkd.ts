import type { ClassItem } from '../activity-tree.ts';
import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { NaceEntry } from './nace.ts';

/**
 * PKD 2007 from the GUS classification portal: sections to subclasses (`62.01.Z`, the KRS/REGON
 * subclass with its dots kept). The export links parents by `elementNadrzednyUuid`; `elementNadrzednyId`
 * is always 0. English comes from NACE Rev. 2 for levels 1-4, whose codes PKD 2007 keeps unchanged.
 */
export function readPkd2007(naceRev2: ReadonlyMap<string, NaceEntry>): ClassItem[] {
  const file = DATA_FILES.pkd2007.file;
  const records = parseCsvRecords(readDataFile('pkd2007'), ';', file);
  const codeByUuid = new Map(records.map((r) => [field(r, 'uuid', file), field(r, 'symbol', file)]));
  return records.map((r) => {
    const code = field(r, 'symbol', file);
    const parentUuid = field(r, 'elementNadrzednyUuid', file);
    const parent = parentUuid === '' ? null : codeByUuid.get(parentUuid);
    if (parent === undefined) throw new Error(`${file}: ${code} has unknown parent ${parentUuid}`);
    return {
      code,
      parent,
      en: field(r, 'numerPoziomu', file) === '5' ? null : (naceRev2.get(code)?.label ?? null),
      // GUS labels carry stray trailing spaces.
      native: field(r, 'nazwa', file).trim(),
    };
  });
}
