import { field, parseCsvRecords } from './csv.ts';
import { DATA_FILES, readDataFile } from './data-files.ts';
import type { ActivityLeaf } from './types.ts';

/** NACE Rev. 2 class (4 digits) → its Rev. 2.1 successors, in the correspondence table's order. */
export function readNaceRev2ToRev21(): Map<string, string[]> {
  const file = DATA_FILES.naceRev2toRev21.file;
  const out = new Map<string, string[]>();
  for (const r of parseCsvRecords(readDataFile('naceRev2toRev21'), ',', file)) {
    const old = field(r, 'rev2', file);
    out.set(old, [...(out.get(old) ?? []), field(r, 'rev21', file)]);
  }
  return out;
}

/** `62.01.Z` → `6201` and `Z`; `62.010` → `6201` and `0`; `62100` → `6210` and `0`; `62.10` → `6210`, ''. */
function split(code: string): { klass: string; national: string } {
  const plain = code.replace(/[^0-9A-Za-z]/g, '');
  return { klass: plain.slice(0, 4), national: plain.slice(4) };
}

/**
 * Codes of a retired national edition (SN2007, PKD 2007, SNI 2007) → leaves of the edition served today,
 * through the NACE Rev. 2 → Rev. 2.1 table. The table gives every successor of a split class without saying
 * which took the main content, so the nearest is taken: the successor with the same code, else one in the
 * same group (`63.11` → `63.10`, not the table's first, `60.20` television), else in the same division,
 * else any; among those with served leaves, and among successors as near the table's last, since a split
 * puts the carved-out activities first and the remainder last (`74.10` → `74.14` other specialised design,
 * not `74.11` fashion design). Within that class, the leaf with the old code's national part (`Z`, the fifth
 * digit) if there is one, else the class's last leaf, for the same reason (PKD 2025: `62.10.A` computer
 * games, `62.10.B` other programming, for PKD 2007's `62.01.Z` software). A code that is itself a served
 * leaf is never mapped.
 */
export function forwardCodes(
  oldCodes: readonly string[],
  served: readonly ActivityLeaf[],
  table: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  const leavesByClass = new Map<string, string[]>();
  for (const leaf of served) {
    const { klass } = split(leaf.kood);
    leavesByClass.set(klass, [...(leavesByClass.get(klass) ?? []), leaf.kood]);
  }
  const servedCodes = new Set(served.map((l) => l.kood));
  const out = new Map<string, string>();
  for (const old of oldCodes) {
    if (servedCodes.has(old)) continue;
    const { klass, national } = split(old);
    const successors = table.get(klass) ?? [];
    const distance = (s: string) =>
      s === klass ? 0 : s.slice(0, 3) === klass.slice(0, 3) ? 1 : s.slice(0, 2) === klass.slice(0, 2) ? 2 : 3;
    // Among successors as near, the table's last: a split class's remainder ("other ...") comes last.
    const ordered = successors
      .map((s, i) => ({ s, i }))
      .sort((a, b) => distance(a.s) - distance(b.s) || b.i - a.i)
      .map((x) => x.s);
    const target = ordered.find((s) => leavesByClass.has(s));
    const leaves = target === undefined ? undefined : leavesByClass.get(target);
    if (!leaves) continue;
    const same = leaves.find((l) => split(l).national === national);
    out.set(old, same ?? leaves.at(-1) ?? '');
  }
  return out;
}

/** A correspondence of whole codes (old → new codes, in the table's order), as EMTAK 2008 → 2025. */
export function readCodeTable(
  key: 'emtak2008to2025',
  oldColumn: string,
  newColumn: string,
): Map<string, string[]> {
  const file = DATA_FILES[key].file;
  const out = new Map<string, string[]>();
  for (const r of parseCsvRecords(readDataFile(key), ',', file)) {
    const old = field(r, oldColumn, file);
    out.set(old, [...(out.get(old) ?? []), field(r, newColumn, file)]);
  }
  return out;
}

/**
 * Old codes → served leaves through a table of whole codes: the first successor in the table that is a
 * served leaf (the EE ingest's rule for EMTAK 2008 rows, activity-codes.ts, whose same-code preference
 * cannot apply here: a code that is itself a served leaf is never mapped).
 */
export function forwardByTable(
  table: ReadonlyMap<string, readonly string[]>,
  served: readonly ActivityLeaf[],
): Map<string, string> {
  const servedCodes = new Set(served.map((l) => l.kood));
  const out = new Map<string, string>();
  for (const [old, successors] of table) {
    if (servedCodes.has(old)) continue;
    const target =
      successors.includes(old) && servedCodes.has(old) ? old : successors.find((s) => servedCodes.has(s));
    if (target !== undefined) out.set(old, target);
  }
  return out;
}
