import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';

export interface NaceEntry {
  code: string;
  parent: string | null;
  label: string;
}

/**
 * NACE Rev. 2.1 in COLT's layout: undotted codes (`A`, `62`, `621`, `6210`) and a parent column, sections
 * A-V (Rev. 2.1 added section V and moved telecoms and IT to K), classes as the finest level.
 */
export function readNaceRev21(): NaceEntry[] {
  const file = DATA_FILES.naceRev21.file;
  return parseCsvRecords(readDataFile('naceRev21'), ',', file).map((r) => {
    const parent = field(r, 'parent', file);
    return {
      code: field(r, 'code', file),
      parent: parent === '' ? null : parent,
      label: field(r, 'label_en', file),
    };
  });
}

/** NACE Rev. 2 from the Eurostat RAMON export: dotted codes (`62`, `62.0`, `62.01`), levels 1-4. */
export function readNaceRev2(): Map<string, NaceEntry> {
  const file = DATA_FILES.naceRev2.file;
  const entries = new Map<string, NaceEntry>();
  for (const r of parseCsvRecords(readDataFile('naceRev2'), ';', file)) {
    const parent = field(r, 'Parent', file);
    const code = field(r, 'Code', file);
    // A few Eurostat descriptions end in a stray space.
    entries.set(code, {
      code,
      parent: parent === '' ? null : parent,
      label: field(r, 'Description', file).trim(),
    });
  }
  return entries;
}

/** `0111` → `01.11`, `011` → `01.1`; sections and divisions are unchanged. */
export function dotNaceCode(code: string): string {
  return /^\d{3,4}$/.test(code) ? `${code.slice(0, 2)}.${code.slice(2)}` : code;
}

/** `01.11` → `0111`. */
export function undotNaceCode(code: string): string {
  return code.replace('.', '');
}
