import { field, parseCsvRecords } from '../csv.ts';
import { DATA_FILES, readDataFile } from '../data-files.ts';
import type { PlaceItem } from '../location-tree.ts';

/**
 * The nominative city of each of the seven city municipalities (miesto savivaldybė). JAR addresses in
 * these cities start with the city and leave the municipality out ("Vilnius, S. Stanevičiaus g. 95"), so
 * the city name is a variant a row may carry. The file has only genitive forms; these seven names are
 * the cities' own names, kept here by hand and checked by a test against the file's city municipalities.
 */
const CITY_OF_CITY_MUNICIPALITY: Readonly<Record<string, string>> = {
  'LT-02': 'Alytus',
  'LT-15': 'Kaunas',
  'LT-20': 'Klaipėda',
  'LT-31': 'Palanga',
  'LT-32': 'Panevėžys',
  'LT-43': 'Šiauliai',
  'LT-57': 'Vilnius',
};

/** "Vilniaus m. sav." → "Vilniaus miesto savivaldybė": the official name behind the register's abbreviation. */
export function fullMunicipalityName(short: string): string {
  const match = /^(.+?) (?:(m|r)\. )?sav\.$/.exec(short);
  if (!match?.[1]) throw new Error(`LT: municipality name ${short} is not in the "X [m.|r.] sav." form`);
  const kind = match[2] === 'm' ? 'miesto ' : match[2] === 'r' ? 'rajono ' : '';
  return `${match[1]} ${kind}savivaldybė`;
}

/**
 * Lithuania has no public Registrų centras code file (RC codes APS_KODAS/SAV_KODAS were not found), so
 * the tree is apskritis (10) → savivaldybė (60) keyed by ISO 3166-2:LT codes (`LT-VL`, `LT-57`). LT
 * company rows carry municipality names, not codes; each municipality's name variants are the register's
 * short form ("Vilniaus m. sav."), the full name ("Vilniaus miesto savivaldybė") and, for city
 * municipalities, the city ("Vilnius"). The file ends with an "Unknown"/NA row, which is skipped.
 */
export function readLtRegions(): PlaceItem[] {
  const file = DATA_FILES.ltRegions.file;
  const counties = new Map<string, PlaceItem>();
  const municipalities: PlaceItem[] = [];
  for (const r of parseCsvRecords(readDataFile('ltRegions'), ',', file)) {
    const code = field(r, 'level_2_region_code', file);
    if (code === 'NA') continue;
    const countyCode = field(r, 'level_1_region_code', file);
    if (!/^LT-\d\d$/.test(code) || !/^LT-[A-Z]{2}$/.test(countyCode)) {
      throw new Error(`${file}: unexpected ISO 3166-2 codes ${code} / ${countyCode}`);
    }
    const countyName = field(r, 'region_level_1', file);
    counties.set(countyCode, {
      code: countyCode,
      parent: null,
      label: countyName,
      name: countyName,
      population: null,
    });

    const short = field(r, 'region_level_2', file);
    const full = fullMunicipalityName(short);
    const isCity = field(r, 'region_level_2_type', file) === 'city municipality';
    const city = CITY_OF_CITY_MUNICIPALITY[code];
    if (isCity !== (city !== undefined)) throw new Error(`${file}: ${code} city municipality mismatch`);
    municipalities.push({
      code,
      parent: countyCode,
      label: full,
      name: short,
      population: null,
      variants: city === undefined ? [short, full] : [short, full, city],
    });
  }
  return [...counties.values(), ...municipalities];
}
