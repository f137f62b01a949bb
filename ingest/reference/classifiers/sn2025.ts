import type { ClassItem } from '../activity-tree.ts';
import { dotNaceCode, type NaceEntry } from './nace.ts';
import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';

/**
 * SN2025, BRREG's edition since 1 September 2025: no SSB file of it was found, so its four NACE levels are
 * NACE Rev. 2.1 in SSB's spelling (`62`, `62.1`, `62.10`), English only, and national five-digit leaves
 * (`84.110`) are added only where BRREG's own texts give code and Bokmål label (data/SOURCES.md).
 */
export function readSn2025(naceRev21: readonly NaceEntry[]): ClassItem[] {
  const file = DATA_FILES.sn2025Brreg.file;
  const classes: ClassItem[] = naceRev21.map((e) => ({
    code: dotNaceCode(e.code),
    parent: e.parent === null ? null : dotNaceCode(e.parent),
    en: e.label,
    native: null,
  }));
  const known = new Set(classes.map((c) => c.code));
  const national = parseCsvRecords(readDataFile('sn2025Brreg'), ',', file).map((r): ClassItem => {
    const code = field(r, 'code', file);
    const parent = code.slice(0, 5);
    if (!/^\d\d\.\d{3}$/.test(code) || !known.has(parent))
      throw new Error(`${file}: unexpected code ${code}`);
    return { code, parent, en: null, native: field(r, 'label_nb', file) };
  });
  return [...classes, ...national];
}
