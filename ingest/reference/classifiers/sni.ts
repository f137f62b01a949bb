import type { ClassItem } from '../activity-tree.ts';
import { parseCsv } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import { undotNaceCode, type NaceEntry } from './nace.ts';

const TITLE_LINES = 3;

/**
 * SNI 2007 detaljgrupper with Swedish labels. The SCB download has only the leaf level, three title lines
 * and trailing `;;;` lines, so sections, divisions, groups and classes come from NACE Rev. 2 (SNI 2007 is
 * NACE Rev. 2 plus a fifth digit), kept only where a detaljgrupp lies below them. Codes are undotted
 * throughout (`62`, `620`, `6201`, `62010`) because Bolagsverket's bulk file carries `62010`.
 */
export function readSni2007(naceRev2: ReadonlyMap<string, NaceEntry>): ClassItem[] {
  const file = DATA_FILES.sni2007.file;
  const rows = parseCsv(readDataFile('sni2007'), ';').slice(TITLE_LINES);
  const leaves: ClassItem[] = [];
  for (const row of rows) {
    const [dotted = '', code = '', label = ''] = row;
    if (dotted === '' && code === '') continue;
    if (!/^\d\d\.\d{3}$/.test(dotted) || dotted.replace('.', '') !== code) {
      throw new Error(`${file}: unexpected detaljgrupp ${dotted};${code}`);
    }
    leaves.push({ code, parent: undotNaceCode(dotted.slice(0, 5)), en: null, native: label.trim() });
  }

  const used = new Set<string>();
  for (const leaf of leaves) {
    let code: string | null = `${leaf.code.slice(0, 2)}.${leaf.code.slice(2, 4)}`;
    while (code !== null && !used.has(code)) {
      const entry = naceRev2.get(code);
      if (!entry) throw new Error(`${file}: ${leaf.code} lies below ${code}, which NACE Rev. 2 lacks`);
      used.add(code);
      code = entry.parent;
    }
  }
  const upper: ClassItem[] = [...naceRev2.values()]
    .filter((e) => used.has(e.code))
    .map((e) => ({
      code: undotNaceCode(e.code),
      parent: e.parent === null ? null : undotNaceCode(e.parent),
      en: e.label,
      native: null,
    }));

  // Parents first, in classification order: a NACE node sorts before everything below it.
  const classOrder = new Map(upper.map((u, i) => [u.code, i]));
  const leavesByClass = new Map<string, ClassItem[]>();
  for (const leaf of leaves) {
    const parent = leaf.parent ?? '';
    if (!classOrder.has(parent)) throw new Error(`${file}: ${leaf.code} has no class`);
    leavesByClass.set(parent, [...(leavesByClass.get(parent) ?? []), leaf]);
  }
  return upper.flatMap((u) => [u, ...(leavesByClass.get(u.code) ?? [])]);
}
