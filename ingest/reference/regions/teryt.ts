import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { PlaceItem } from '../location-tree.ts';

interface TercUnit {
  code: string;
  parent: string | null;
  name: string;
  kind: string;
}

/**
 * TERYT TERC (urzędowy): województwo (`14`) → powiat (`1465`) → gmina (`1465011`, WOJ+POW+GMI+RODZ) →
 * the gmina's parts where TERC has them: the town (RODZ 4) and rural area (RODZ 5) of an urban-rural gmina
 * (RODZ 3), and the dzielnice (8) of Warsaw and delegatury (9) of Kraków, Łódź, Poznań and Wrocław. Those
 * parts carry their own GMI numbers in the city's powiat, so they hang under the city's RODZ 1 gmina.
 *
 * A node whose name equals its parent's, a sibling's or a child's (Bolesławiec the town and Bolesławiec
 * the rural gmina; Wrocław the powiat and Wrocław the gmina) gets the TERC kind: "Bolesławiec (gmina
 * miejska)".
 */
export function readTerc(): PlaceItem[] {
  const file = DATA_FILES.plTerc.file;
  const units: TercUnit[] = [];
  const rows = parseCsvRecords(readDataFile('plTerc'), ';', file);
  const cityGminaByPowiat = new Map<string, string[]>();
  for (const r of rows) {
    if (field(r, 'RODZ', file) !== '1') continue;
    const powiat = field(r, 'WOJ', file) + field(r, 'POW', file);
    cityGminaByPowiat.set(powiat, [
      ...(cityGminaByPowiat.get(powiat) ?? []),
      `${powiat}${field(r, 'GMI', file)}1`,
    ]);
  }
  for (const r of rows) {
    const woj = field(r, 'WOJ', file);
    const pow = field(r, 'POW', file);
    const gmi = field(r, 'GMI', file);
    const rodz = field(r, 'RODZ', file);
    const name = field(r, 'NAZWA', file);
    const kind = field(r, 'NAZWA_DOD', file);
    if (pow === '') {
      units.push({ code: woj, parent: null, name, kind });
    } else if (gmi === '') {
      units.push({ code: woj + pow, parent: woj, name, kind });
    } else {
      const code = woj + pow + gmi + rodz;
      if (!/^\d{7}$/.test(code)) throw new Error(`${file}: TERC code ${code} is not 7 digits`);
      let parent = woj + pow;
      if (rodz === '4' || rodz === '5') parent = `${woj}${pow}${gmi}3`;
      if (rodz === '8' || rodz === '9') {
        const city = cityGminaByPowiat.get(woj + pow) ?? [];
        if (city.length !== 1 || city[0] === undefined) {
          throw new Error(`${file}: powiat ${woj}${pow} has no single city gmina for ${code}`);
        }
        parent = city[0];
      }
      units.push({ code, parent, name, kind });
    }
  }

  const byCode = new Map(units.map((u) => [u.code, u]));
  const namesAround = new Map<string, Set<string>>();
  const note = (code: string, name: string): void => {
    const set = namesAround.get(code) ?? new Set<string>();
    set.add(name);
    namesAround.set(code, set);
  };
  const childNames = new Map<string, string[]>();
  for (const u of units) {
    if (u.parent === null) continue;
    childNames.set(u.parent, [...(childNames.get(u.parent) ?? []), u.name]);
    const parent = byCode.get(u.parent);
    if (!parent) throw new Error(`${file}: ${u.code} has unknown parent ${u.parent}`);
    if (parent.name === u.name) {
      note(u.code, u.name);
      note(parent.code, u.name);
    }
  }
  return units.map((u) => {
    const siblings = u.parent === null ? [] : (childNames.get(u.parent) ?? []);
    const clash = namesAround.has(u.code) || siblings.filter((n) => n === u.name).length > 1;
    return {
      code: u.code,
      parent: u.parent,
      label: clash ? `${u.name} (${u.kind})` : u.name,
      name: u.name,
      population: null,
    };
  });
}
