import type { ClassItem } from '../activity-tree.ts';
import { parseCsv } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { NaceEntry } from './nace.ts';

const TITLE_LINES = 2;

/**
 * PKD 2025 from GUS's "Struktura PKD 2025" (columns Dział, Grupa, Klasa, Podklasa, Nazwa grupowania):
 * `SEKCJA X` rows carry the section name in the Klasa column; a row may open several levels at once (`31`,
 * `31.0`, `31.00`, `31.00.Z` share one name). Codes keep GUS's dots (`62.10.B`), the spelling KRS and
 * REGON publish. English comes from NACE Rev. 2.1 for levels 1-4, whose codes PKD 2025 keeps unchanged.
 */
export function readPkd2025(naceRev21: readonly NaceEntry[]): ClassItem[] {
  const file = DATA_FILES.pkd2025.file;
  const english = new Map(naceRev21.map((e) => [e.code, e.label]));
  const items: ClassItem[] = [];
  let section: string | null = null;
  let division: string | null = null;
  let group: string | null = null;
  let klasa: string | null = null;
  const add = (code: string, parent: string | null, name: string, nace: string): void => {
    items.push({ code, parent, en: english.get(nace) ?? null, native: name.trim() });
  };
  for (const row of parseCsv(readDataFile('pkd2025'), ',').slice(TITLE_LINES)) {
    const [col0 = '', col1 = '', col2 = '', col3 = '', name = ''] = row.map((c) => c.trim());
    const sekcja = /^SEKCJA ([A-V])$/.exec(col0);
    if (sekcja) {
      section = sekcja[1] ?? null;
      if (section !== null) add(section, null, col2, section);
      continue;
    }
    if (col0 !== '') {
      if (!/^\d\d$/.test(col0) || section === null) throw new Error(`${file}: unexpected dział ${col0}`);
      division = col0;
      add(division, section, name, division);
    }
    if (col1 !== '') {
      if (!/^\d\d\.\d$/.test(col1) || division === null) throw new Error(`${file}: unexpected grupa ${col1}`);
      group = col1;
      add(group, division, name, col1.replace('.', ''));
    }
    if (col2 !== '') {
      if (!/^\d\d\.\d\d$/.test(col2) || group === null) throw new Error(`${file}: unexpected klasa ${col2}`);
      klasa = col2;
      add(klasa, group, name, col2.replace('.', ''));
    }
    if (col3 !== '') {
      if (!/^\d\d\.\d\d\.[A-Z]$/.test(col3) || klasa === null || !col3.startsWith(klasa)) {
        throw new Error(`${file}: unexpected podklasa ${col3}`);
      }
      items.push({ code: col3, parent: klasa, en: null, native: name });
    }
  }
  return items;
}
