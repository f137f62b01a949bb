import type { ClassItem } from '../activity-tree.ts';
import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { NaceEntry } from './nace.ts';

/**
 * EMTAK 2025 with Estonian labels. Its codes are NACE Rev. 2.1 codes written without dots down to the
 * class, plus a national fifth digit (`62101`), which is what RIK publishes as `emtak_kood`. English comes
 * from NACE Rev. 2.1 wherever the code is a NACE code.
 */
export function readEmtak2025(naceRev21: readonly NaceEntry[]): ClassItem[] {
  const file = DATA_FILES.emtak2025.file;
  const english = new Map(naceRev21.map((e) => [e.code, e.label]));
  return parseCsvRecords(readDataFile('emtak2025'), ',', file).map((r) => {
    const code = field(r, 'code', file);
    const parent = field(r, 'parent', file);
    return {
      code,
      parent: parent === '' ? null : parent,
      en: english.get(code) ?? null,
      native: field(r, 'label_et', file).trim(),
    };
  });
}
