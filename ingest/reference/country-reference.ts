import { COUNTRIES, type CountryCode } from '../../src/contract/countries.ts';
import { buildActivityTables, type ActivityTables, type ClassItem } from './activity-tree.ts';
import { readEmtak2025 } from './classifiers/emtak.ts';
import {
  dotNaceCode,
  readNaceRev2,
  readNaceRev21,
  undotNaceCode,
  type NaceEntry,
} from './classifiers/nace.ts';
import { readPkd2007 } from './classifiers/pkd.ts';
import { readPkd2025 } from './classifiers/pkd2025.ts';
import { readSn2007 } from './classifiers/sn2007.ts';
import { readSn2025 } from './classifiers/sn2025.ts';
import { readSni2007 } from './classifiers/sni.ts';
import { readSni2025 } from './classifiers/sni2025.ts';
import { forwardByTable, forwardCodes, readCodeTable, readNaceRev2ToRev21 } from './activity-forward.ts';
import { sourceOf, type DataFileKey } from './data-files.ts';
import { buildLocationTables } from './location-tree.ts';
import { readAtvkTopLevel } from './regions/atvk.ts';
import { readEhak } from './regions/ehak.ts';
import { readFiRegions } from './regions/fi-regions.ts';
import { readLtRegions } from './regions/lt-regions.ts';
import { readNoKommuner } from './regions/no-kommuner.ts';
import { readSeKommuner } from './regions/se-kommuner.ts';
import { readTerc } from './regions/teryt.ts';
import type { CountryReference } from './types.ts';

/** NACE files several countries build on, parsed at most once per process. */
class SharedClassifiers {
  #rev21: NaceEntry[] | undefined;
  #rev2: Map<string, NaceEntry> | undefined;

  get naceRev21(): NaceEntry[] {
    this.#rev21 ??= readNaceRev21();
    return this.#rev21;
  }

  get naceRev2(): Map<string, NaceEntry> {
    this.#rev2 ??= readNaceRev2();
    return this.#rev2;
  }
}

const shared = new SharedClassifiers();

function naceRev21Items(dotted: boolean): ClassItem[] {
  const code = (c: string): string => (dotted ? dotNaceCode(c) : c);
  return shared.naceRev21.map((e) => ({
    code: code(e.code),
    parent: e.parent === null ? null : code(e.parent),
    en: e.label,
    native: null,
  }));
}

interface Activities {
  tables: ActivityTables;
  edition: string;
  files: DataFileKey[];
  /** The retired edition's leaf codes, mapped forward onto the served leaves through the NACE table. */
  retired?: () => string[];
  /** Or the retired edition's own correspondence of whole codes (EE). */
  table?: () => Map<string, string[]>;
}

const leafCodes = (items: readonly ClassItem[]): string[] => {
  const parents = new Set(items.map((i) => i.parent));
  return items.filter((i) => !parents.has(i.code)).map((i) => i.code);
};

/** NACE Rev. 2 classes (LV, LT and FI codes before Rev. 2.1), dotted as LT writes them or undotted. */
const naceRev2Classes = (dotted: boolean): string[] =>
  [...shared.naceRev2.keys()]
    .filter((c) => /^\d\d\.\d\d$/.test(c))
    .map((c) => (dotted ? c : undotNaceCode(c)));

/** NACE Rev. 2.1 served as it is (LV, FI) or dotted (LT EVRK 2.1), NACE Rev. 2 classes retired. */
const naceEdition = (edition: string, dotted: boolean): Activities => ({
  tables: buildActivityTables(naceRev21Items(dotted), null, edition),
  edition,
  files: ['naceRev21', 'naceRev2', 'naceRev2toRev21'],
  retired: () => naceRev2Classes(dotted),
});

/** A national 2025 edition over NACE Rev. 2.1 (NO, PL, SE); its 2007 edition, over NACE Rev. 2, is retired. */
const nationalEdition = (
  edition: string,
  lang: string | null,
  /** The national files and NACE Rev. 2.1 in source order; NACE Rev. 2 and its table follow. */
  files: readonly [DataFileKey, DataFileKey, DataFileKey],
  readCurrent: (naceRev21: typeof shared.naceRev21) => ClassItem[],
  readRetired: (naceRev2: typeof shared.naceRev2) => ClassItem[],
): Activities => ({
  tables: buildActivityTables(readCurrent(shared.naceRev21), lang, edition),
  edition,
  files: [...files, 'naceRev2', 'naceRev2toRev21'],
  retired: () => leafCodes(readRetired(shared.naceRev2)),
});

function activities(country: CountryCode): Activities {
  switch (country) {
    case 'EE':
      return {
        tables: buildActivityTables(readEmtak2025(shared.naceRev21), 'et', 'EMTAK 2025'),
        edition: 'EMTAK 2025',
        files: ['emtak2025', 'naceRev21', 'emtak2008to2025'],
        table: () => readCodeTable('emtak2008to2025', 'emtak2008', 'emtak2025'),
      };
    case 'LV':
    case 'FI':
      return naceEdition('NACE Rev. 2.1', false);
    case 'LT':
      return naceEdition('EVRK 2.1', true);
    case 'NO':
      return nationalEdition('SN2025', null, ['naceRev21', 'sn2025Brreg', 'sn2007'], readSn2025, readSn2007);
    case 'PL':
      return nationalEdition('PKD 2025', 'pl', ['pkd2025', 'naceRev21', 'pkd2007'], readPkd2025, readPkd2007);
    case 'SE':
      return nationalEdition('SNI 2025', 'sv', ['sni2025', 'naceRev21', 'sni2007'], readSni2025, readSni2007);
  }
}

type Locations = Pick<CountryReference, 'locationTree' | 'locationLeaves'>;

function locations(country: CountryCode): { tables: Locations; files: DataFileKey[] } {
  switch (country) {
    case 'EE':
      return {
        tables: buildLocationTables(readEhak(), 'codes', 'EHAK'),
        files: ['eeMaakond', 'eeOmavalitsus', 'eeAsustusyksus'],
      };
    case 'LV':
      return { tables: buildLocationTables(readAtvkTopLevel(), 'codes', 'ATVK'), files: ['lvAtvk'] };
    case 'LT':
      return {
        tables: buildLocationTables(readLtRegions(), 'locations', 'LT regions'),
        files: ['ltRegions'],
      };
    case 'FI':
      return { tables: buildLocationTables(readFiRegions(), 'codes', 'FI regions'), files: ['fiRegions'] };
    case 'PL':
      return { tables: buildLocationTables(readTerc(), 'codes', 'TERC'), files: ['plTerc'] };
    case 'NO':
      return {
        tables: { locationTree: null, locationLeaves: readNoKommuner() },
        files: ['noKommuner', 'noFylker'],
      };
    case 'SE':
      return { tables: { locationTree: null, locationLeaves: readSeKommuner() }, files: ['seKommuner'] };
  }
}

export function buildCountryReference(country: CountryCode): CountryReference {
  const a = activities(country);
  const l = locations(country);
  const forward = a.table
    ? forwardByTable(a.table(), a.tables.activityLeaves)
    : a.retired
      ? forwardCodes(a.retired(), a.tables.activityLeaves, readNaceRev2ToRev21())
      : new Map<string, string>();
  return {
    country,
    industrySystem: COUNTRIES[country].industrySystem,
    activityTrees: a.tables.activityTrees,
    activityLeaves: a.tables.activityLeaves,
    activityEdition: a.edition,
    activityForward: forward,
    locationTree: l.tables.locationTree,
    locationLeaves: l.tables.locationLeaves,
    sources: [...a.files, ...l.files].map(sourceOf),
  };
}
