import type { ClassItem } from '../activity-tree.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { NaceEntry } from './nace.ts';

interface Named {
  code: string;
  name: string;
}

function list(value: unknown, key: string, file: string): Record<string, unknown>[] {
  const items = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : null;
  if (!Array.isArray(items)) throw new Error(`${file}: ${key} missing`);
  return items as Record<string, unknown>[];
}

function named(raw: Record<string, unknown>, file: string): Named {
  if (typeof raw.code !== 'string' || typeof raw.name !== 'string') {
    throw new Error(`${file}: malformed item ${JSON.stringify(raw)}`);
  }
  return { code: raw.code, name: raw.name.trim() };
}

/**
 * SNI 2025 (SCB's structure file, as a JSON of avdelningar, huvudgrupper and detaljgrupper with Swedish
 * names). Groups and classes are not in the file: they come from NACE Rev. 2.1 (SNI 2025 is NACE Rev. 2.1
 * plus a fifth digit), in English, kept only where a detaljgrupp lies below them. Codes are undotted
 * (`62`, `621`, `6210`, `62100`), as SCB's and Bolagsverket's files write them.
 */
export function readSni2025(naceRev21: readonly NaceEntry[]): ClassItem[] {
  const file = DATA_FILES.sni2025.file;
  const parsed: unknown = JSON.parse(readDataFile('sni2025'));
  const sections = new Map(list(parsed, 'sections', file).map((r) => [named(r, file).code, named(r, file)]));
  const divisions = new Map(
    list(parsed, 'divisions', file).map((r) => [named(r, file).code, named(r, file)]),
  );
  const leaves = list(parsed, 'leaves', file).map((r) => named(r, file));
  const nace = new Map(naceRev21.map((e) => [e.code, e]));

  const used = new Set<string>();
  for (const leaf of leaves) {
    if (!/^\d{5}$/.test(leaf.code)) throw new Error(`${file}: unexpected detaljgrupp ${leaf.code}`);
    let code: string | null = leaf.code.slice(0, 4);
    while (code !== null && !used.has(code)) {
      const entry = nace.get(code);
      if (!entry) throw new Error(`${file}: ${leaf.code} lies below ${code}, which NACE Rev. 2.1 lacks`);
      used.add(code);
      code = entry.parent;
    }
  }
  const leavesByClass = new Map<string, ClassItem[]>();
  for (const leaf of leaves) {
    const parent = leaf.code.slice(0, 4);
    leavesByClass.set(parent, [
      ...(leavesByClass.get(parent) ?? []),
      { code: leaf.code, parent, en: null, native: leaf.name },
    ]);
  }
  // Parents first, in classification order (the NACE file's).
  return naceRev21
    .filter((e) => used.has(e.code))
    .flatMap((e) => {
      const swedish = (e.parent === null ? sections : divisions).get(e.code)?.name ?? null;
      const item: ClassItem = { code: e.code, parent: e.parent, en: e.label, native: swedish };
      return [item, ...(leavesByClass.get(e.code) ?? [])];
    });
}
