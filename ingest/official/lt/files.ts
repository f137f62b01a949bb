import { fixed } from '../links.ts';
import type { Download, OfficialFile } from '../types.ts';

/*
 * Lithuania's official files (registry-formats.md section 3).
 */

/** 3.1 `JAR_IREGISTRUOTI.csv`: pipe-delimited, UTF-8, `"` quoting with `""` escapes. */
export const JAR_HEADER = [
  'ja_kodas',
  'ja_pavadinimas',
  'adresas',
  'ja_reg_data',
  'form_kodas',
  'form_pavadinimas',
  'stat_kodas',
  'stat_pavadinimas',
  'stat_data_nuo',
  'formavimo_data',
] as const;

/**
 * 3.2 Sodra monthly insured persons: `;`, `Label (key)` header cells (some without the space), decimal
 * comma. The reader keys columns by the part in parentheses, since the labels and the column set drift
 * between yearly files.
 */
export const SODRA_HEADER = [
  'Draudėjo kodas (code)',
  'Juridinių asmenų registro kodas (jarCode)',
  'Pavadinimas (name)',
  'Savivaldybė, kurioje registruota(municipality)',
  'Ekonominės veiklos rūšies kodas(ecoActCode)',
  'Ekonominės veiklos rūšies pavadinimas(ecoActName)',
  'Mėnuo (month)',
  'Vidutinis darbo užmokestis (avgWage)',
  'Apdraustųjų skaičius (numInsured)',
  'Vidutinis darbo užmokestis II (avgWage2)',
  'Apdraustųjų skaičius II (numInsured2)',
] as const;

/** The key of a Sodra header cell: the text inside the last parentheses. */
export function sodraKey(cell: string): string {
  return /\(([^()]*)\)\s*$/.exec(cell)?.[1]?.trim() ?? cell.trim();
}

/** 3.1 RC financial statements, profit and loss (PLNA), verified header. */
export const PLNA_HEADER = [
  'obj_kodas',
  'obj_pav',
  'form_kodas',
  'form_pav',
  'stat_statusas',
  'stat_pav',
  'template_id',
  'template_name',
  'standard_id',
  'standard_name',
  'laikotarpis_nuo',
  'laikotarpis_iki',
  'reg_date',
  'pelnas_pries_apmokestinima',
  'grynasis_pelnas',
  'pardavimo_pajamos',
  'formavimo_data',
] as const;

/**
 * 3.3 VMI taxpayer register (Spinta `vmi/mm_registras/MokesciuMoketojas`), as its CSV export: field names
 * confirmed, column order and the export's own `_id`/`_type` columns not, so it is read by name.
 */
export const VMI_REGISTER_HEADER = [
  'ja_kodas',
  'pavadinimas',
  'isreg_data',
  'tipo_kodas',
  'pvm_kodas',
  'pvm_iregistruota',
  'pvm_isregistruota',
  'padalinio_nr',
  'padalinio_pvd',
  'padalinio_savivaldybe',
  'ekonomine_veikla.kodas',
  'veiklos_pradzia',
  'veiklos_pabaiga',
  'pagrindine',
  'vv_savivaldybe',
] as const;

/** 3.3 VMI taxes paid by legal entities (Spinta `vmi/ja_mokesciai/Moketojas`): cumulative to `menuo`. */
export const VMI_TAXES_HEADER = [
  'mm_kodas.ja_kodas',
  'tipas',
  'metai',
  'menuo',
  'suma',
  'atnaujinta',
] as const;

export const LT_FILE_NAMES = {
  jar: 'JAR_IREGISTRUOTI.csv',
  sodra: (year: number) => `monthly-${year}.csv.zip`,
  plna: (year: number) => `JAR_FA_RODIKLIAI_PLNA_${year}.csv`,
  vmiRegister: 'MokesciuMoketojas.csv',
  vmiTaxes: 'Moketojas.csv',
} as const;

const RC = 'https://www.registrucentras.lt/aduomenys/?byla=';
const SPINTA = 'https://get.data.gov.lt/datasets/gov/';

/** First year of each yearly series the API covers (spec 2.4): Sodra from 2021, RC and VMI sparse from 2015. */
const SODRA_FROM = 2021;
const RC_FROM = 2015;

function years(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/** A VMI dataset of the open-data portal (Spinta), as CSV under the model's own name. */
function vmiDataset(
  key: 'vmiRegister' | 'vmiTaxes',
  title: string,
  model: string,
  adds: string,
): OfficialFile {
  const name = LT_FILE_NAMES[key];
  return {
    key,
    title,
    match: new RegExp(`^${name.replaceAll('.', '\\.')}$`, 'i'),
    required: false,
    adds,
    downloads: fixed(`${SPINTA}vmi/${model}/:format/csv`, name),
    minBytes: 1_000_000,
  };
}

export const LT_FILES: readonly OfficialFile[] = [
  {
    key: 'jar',
    title: 'RC JAR_IREGISTRUOTI.csv (registered legal entities)',
    // As RC names it, or as saved by tools that lower-case it (COLT's cache: jar_iregistruoti.csv); the
    // source folder also accepts it inside a .zip or .gz.
    match: /^JAR_IREGISTRUOTI\.csv$/i,
    required: true,
    downloads: async () => [{ url: `${RC}${LT_FILE_NAMES.jar}`, saveAs: LT_FILE_NAMES.jar }],
    minBytes: 1_000_000,
  },
  {
    key: 'sodra',
    title: 'Sodra monthly insured persons per employer (monthly-<year>.csv)',
    match: /^monthly-\d{4}\.csv$/i,
    many: true,
    required: false,
    adds: 'monthly insured persons (employees), and the municipality and activity Sodra records',
    // Sodra has no 2024 file (spec 2.4); a missing year is skipped, not fatal.
    downloads: async (ctx): Promise<Download[]> =>
      years(SODRA_FROM, ctx.now.getUTCFullYear()).map((y) => ({
        url: `https://atvira.sodra.lt/imones/downloads/${y}/monthly-${y}.csv.zip`,
        saveAs: LT_FILE_NAMES.sodra(y),
      })),
    minBytes: 100_000,
  },
  {
    key: 'plna',
    title: 'RC financial statements, profit and loss (JAR_FA_RODIKLIAI_PLNA_<year>.csv)',
    match: /^JAR_FA_RODIKLIAI_PLNA_\d{4}\.csv$/i,
    many: true,
    required: false,
    adds: 'annual turnover (sales revenue) from filed profit-and-loss statements',
    downloads: async (ctx): Promise<Download[]> =>
      years(RC_FROM, ctx.now.getUTCFullYear() - 1).map((y) => ({
        url: `${RC}${LT_FILE_NAMES.plna(y)}`,
        saveAs: LT_FILE_NAMES.plna(y),
      })),
    minBytes: 100_000,
  },
  vmiDataset(
    'vmiRegister',
    'VMI taxpayer register (MokesciuMoketojas)',
    'mm_registras/MokesciuMoketojas',
    'EVRK activities and the VAT code (pvm_kodas) as VMI registers them',
  ),
  vmiDataset(
    'vmiTaxes',
    'VMI taxes paid by legal entities (Moketojas)',
    'ja_mokesciai/Moketojas',
    'state taxes paid per year (annual and year to date)',
  ),
];
