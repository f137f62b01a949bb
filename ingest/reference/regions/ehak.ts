import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { PlaceItem } from '../location-tree.ts';

/**
 * EHAK maakond → omavalitsus → asustusüksus, all 4-digit codes with leading zeros (RIK's
 * `asukoha_ehak_kood` is the settlement or Tallinn/Kohtla-Järve district code).
 *
 * Eight towns (Keila, Loksa, Maardu, Narva, Rakvere, Sillamäe, Viljandi, Võru) are a municipality and
 * its single settlement under one code. Kood must be unique in a tree, so such a town is one node, a leaf
 * at the municipality level.
 */
export function readEhak(): PlaceItem[] {
  const mFile = DATA_FILES.eeMaakond.file;
  const oFile = DATA_FILES.eeOmavalitsus.file;
  const aFile = DATA_FILES.eeAsustusyksus.file;
  const items: PlaceItem[] = [];
  for (const r of parseCsvRecords(readDataFile('eeMaakond'), ',', mFile)) {
    const name = field(r, 'MNIMI', mFile);
    items.push({ code: field(r, 'MKOOD', mFile), parent: null, label: name, name, population: null });
  }
  const municipalities = new Set<string>();
  for (const r of parseCsvRecords(readDataFile('eeOmavalitsus'), ',', oFile)) {
    const name = field(r, 'ONIMI', oFile);
    const code = field(r, 'OKOOD', oFile);
    municipalities.add(code);
    items.push({ code, parent: field(r, 'MKOOD', oFile), label: name, name, population: null });
  }
  const settlements = parseCsvRecords(readDataFile('eeAsustusyksus'), ',', aFile);
  const settlementCount = new Map<string, number>();
  for (const r of settlements) {
    const parent = field(r, 'OKOOD', aFile);
    settlementCount.set(parent, (settlementCount.get(parent) ?? 0) + 1);
  }
  for (const r of settlements) {
    const code = field(r, 'AKOOD', aFile);
    const parent = field(r, 'OKOOD', aFile);
    if (code === parent) {
      if (settlementCount.get(parent) !== 1) {
        throw new Error(`${aFile}: settlement ${code} shares its municipality's code but has siblings`);
      }
      continue;
    }
    if (municipalities.has(code)) throw new Error(`${aFile}: settlement ${code} reuses a municipality code`);
    const name = field(r, 'ANIMI', aFile);
    items.push({ code, parent, label: name, name, population: null });
  }
  for (const item of items) {
    if (!/^\d{4}$/.test(item.code)) throw new Error(`EHAK: code ${item.code} is not 4 digits`);
  }
  return items;
}
