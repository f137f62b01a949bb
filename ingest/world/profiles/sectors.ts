/**
 * Sector mix shared by all seven countries, keyed by NACE division (the first two digits of any national
 * code). Divisions are used rather than section letters because the classifiers in play are on two
 * revisions whose letters differ (NACE Rev. 2.1 has sections A-V and moved K-U), while the division
 * numbers mean nearly the same thing in both. Each division range gets a sector key (the Rev. 2 section
 * letter it corresponds to) that picks business words, weights and productivity.
 *
 * The weights are the rough shape of the EU business demography (Eurostat "business demography by NACE
 * section": trade, construction and professional services are the three largest populations of
 * enterprises everywhere in the region; mining, utilities and public administration are tiny). They are
 * round numbers chosen for realism, not a measurement.
 */
export interface SectorRange {
  from: number;
  to: number;
  key: string;
  /** Relative share of all companies in this division range. */
  weight: number;
  /** Annual turnover per employee in EUR: what turns a head count into plausible money. */
  productivityEur: number;
}

export const SECTOR_RANGES: readonly SectorRange[] = [
  { from: 1, to: 3, key: 'A', weight: 4, productivityEur: 90_000 },
  { from: 5, to: 9, key: 'B', weight: 0.2, productivityEur: 400_000 },
  { from: 10, to: 33, key: 'C', weight: 6, productivityEur: 160_000 },
  { from: 35, to: 35, key: 'D', weight: 0.6, productivityEur: 600_000 },
  { from: 36, to: 39, key: 'E', weight: 0.5, productivityEur: 200_000 },
  { from: 41, to: 43, key: 'F', weight: 12, productivityEur: 120_000 },
  { from: 45, to: 47, key: 'G', weight: 17, productivityEur: 260_000 },
  { from: 49, to: 53, key: 'H', weight: 6, productivityEur: 140_000 },
  { from: 55, to: 56, key: 'I', weight: 5, productivityEur: 55_000 },
  { from: 58, to: 63, key: 'J', weight: 6, productivityEur: 120_000 },
  { from: 64, to: 66, key: 'K', weight: 2.5, productivityEur: 300_000 },
  { from: 68, to: 68, key: 'L', weight: 9, productivityEur: 220_000 },
  { from: 69, to: 75, key: 'M', weight: 14, productivityEur: 90_000 },
  { from: 77, to: 82, key: 'N', weight: 6, productivityEur: 60_000 },
  { from: 84, to: 84, key: 'O', weight: 0.2, productivityEur: 50_000 },
  { from: 85, to: 85, key: 'P', weight: 2, productivityEur: 45_000 },
  { from: 86, to: 88, key: 'Q', weight: 4, productivityEur: 60_000 },
  { from: 90, to: 93, key: 'R', weight: 3, productivityEur: 60_000 },
  { from: 94, to: 96, key: 'S', weight: 5, productivityEur: 50_000 },
  { from: 97, to: 98, key: 'T', weight: 0.1, productivityEur: 40_000 },
  { from: 99, to: 99, key: 'U', weight: 0.05, productivityEur: 40_000 },
];

/** Sector keys in order; SQL addresses per-sector lists by position (A = 1). */
export const SECTOR_KEYS = SECTOR_RANGES.map((r) => r.key);

/** The sector of a national activity code, from its NACE division; null for codes outside every range. */
export function sectorOf(kood: string): SectorRange | null {
  const division = Number(kood.replace(/\D/g, '').slice(0, 2));
  return SECTOR_RANGES.find((r) => division >= r.from && division <= r.to) ?? null;
}

/**
 * NACE classes (four digits, dots removed) that are far more common than their siblings in every register
 * of the region: management consultancy, software, real-estate letting, building, mail-order and
 * non-specialised retail, restaurants, road freight, accounting, hairdressing. Both Rev. 2 and Rev. 2.1
 * spellings are listed because the national classifiers are on different revisions. A leaf whose digits
 * start with one of these gets its weight multiplied by POPULAR_BOOST.
 */
export const POPULAR_CLASSES: readonly string[] = [
  '7022',
  '7020',
  '6201',
  '6210',
  '6820',
  '4120',
  '4399',
  '4791',
  '4711',
  '5610',
  '5611',
  '4941',
  '6920',
  '9602',
  '9621',
  '4321',
  '4520',
  '8690',
  '7490',
  '4334',
  '0111',
  '0210',
];
export const POPULAR_BOOST = 8;
