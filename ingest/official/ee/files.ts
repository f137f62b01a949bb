import { dateKey, fixed, scraped } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Estonia's official files (registry-formats.md section 1). Headers are spelled exactly as the reference
 * quotes them; the readers refuse a file whose header differs, naming the column.
 */

const RIK_DUMPS = 'https://avaandmed.ariregister.rik.ee/sites/default/files/avaandmed/';
const RIK_LANDING = 'https://avaandmed.ariregister.rik.ee/et/avaandmete-allalaadimine';

/** 1.1a `ettevotja_rekvisiidid__lihtandmed.csv`: `;`, UTF-8 with BOM, dates dd.mm.yyyy. */
export const LIHTANDMED_HEADER = [
  'nimi',
  'ariregistri_kood',
  'ettevotja_oiguslik_vorm',
  'ettevotja_oigusliku_vormi_alaliik',
  'kmkr_nr',
  'ettevotja_staatus',
  'ettevotja_staatus_tekstina',
  'ettevotja_esmakande_kpv',
  'ettevotja_aadress',
  'asukoht_ettevotja_aadressis',
  'asukoha_ehak_kood',
  'asukoha_ehak_tekstina',
  'indeks_ettevotja_aadressis',
  'ads_adr_id',
  'ads_ads_oid',
  'ads_normaliseeritud_taisaadress',
  'teabesysteemi_link',
] as const;

/** 1.2 EMTA taxes, turnover and employees: the English-header twin (the Estonian labels are unconfirmed). */
export const QUARTERS = ['I', 'II', 'III', 'IV'] as const;
export const EMTA_TAXES_HEADER = [
  'Data date',
  'Registry code',
  'Name',
  'Type',
  'County',
  'Activity',
  'Year',
  ...QUARTERS.map((q) => `State taxes ${q} qtr`),
  ...QUARTERS.map((q) => `Labour taxes and payments ${q} qtr`),
  ...QUARTERS.map((q) => `Turnover ${q} qtr`),
  ...QUARTERS.map((q) => `Number of employees ${q} qtr`),
] as const;

/** 1.3 EMTA tax debtors: `;`, UTF-8 with BOM, Estonian number formatting. */
export const DEBTORS_HEADER = [
  'Andmed on seisuga',
  'Registrikood',
  'Nimi',
  'Maksuvõlg',
  'sh vaidlustatud',
  'sh tasumisgraafikus',
  'Tasumisgraafiku lõppkuupäev',
  'Vanima tasumata nõude tasumise tähtpäev',
] as const;

/** 1.1d annual-report general data: `;`, every field quoted. */
export const REPORTS_HEADER = [
  'report_id',
  'taidetud_aruanne_report_id',
  'registrikood',
  'õiguslik vorm',
  'staatus',
  'aruandeaasta',
  'kas konsolideeritud?',
  'period_start',
  'period_end',
  'esitatud_kpv',
  'kas auditeeritud?',
  'valitud aruanne kategooria',
  'minimaalne kategooria andmete alusel',
  'auditi töövõtu liik',
  'audiitori otsuse tüüp',
  'modifikatsioon asjaolu rõhutamine',
  'modifikatsioon muu asjaolu',
  'modifikatsioon tegevuse jatkuvus',
] as const;

/** 1.1d annual-report elements, long format. */
export const ELEMENTS_HEADER = [
  'report_id',
  'tabel',
  'elemendi_label',
  'elemendi_nimetus',
  'vaartus',
] as const;

/** `elemendi_nimetus` values the API's annual_* fields come from (1.1d). */
export const ELEMENTS = {
  revenue: 'Revenue',
  netProfit: 'TotalAnnualPeriodProfitLoss',
  equity: 'Equity',
  totalAssets: 'Assets',
  employees: 'AverageNumberOfEmployeesInFullTimeEquivalentUnits',
} as const;

export const EE_FILE_NAMES = {
  lihtandmed: 'ettevotja_rekvisiidid__lihtandmed.csv',
  yldandmed: 'ettevotja_rekvisiidid__yldandmed.json',
  persons: 'ettevotja_rekvisiidid__kaardile_kantud_isikud.json',
  taxes: 'tasutud_maksud_kaesolev_aasta_eng.csv',
  debtors: 'maksuvolglaste_nimekiri.csv',
} as const;

/** A RIK open-data dump: zipped at RIK_DUMPS, accepted zipped or not. */
function rikDump(
  key: 'lihtandmed' | 'yldandmed' | 'persons',
  need: Pick<OfficialFile, 'title' | 'minBytes'> & ({ required: true } | { required: false; adds: string }),
): OfficialFile {
  const name = EE_FILE_NAMES[key];
  const { title, minBytes } = need;
  const required = need.required
    ? { required: true as const }
    : { required: false as const, adds: need.adds };
  return {
    key,
    title,
    match: new RegExp(`^${name.replaceAll('.', '\\.')}(\\.zip)?$`),
    ...required,
    downloads: fixed(`${RIK_DUMPS}${name}.zip`, `${name}.zip`),
    minBytes,
  };
}

export const EE_FILES: readonly OfficialFile[] = [
  rikDump('lihtandmed', { title: 'RIK basic data (lihtandmed)', required: true, minBytes: 1_000_000 }),
  rikDump('yldandmed', {
    title: 'RIK general data (yldandmed)',
    required: false,
    adds: "legal-form codes (else mapped from lihtandmed's text form), contacts, EMTAK activities and share capital (RIK yldandmed)",
    minBytes: 10_000_000,
  }),
  rikDump('persons', {
    title: 'RIK persons on the registry card (kaardile_kantud_isikud)',
    required: false,
    adds: 'board members and procurators (RIK kaardile_kantud_isikud)',
    minBytes: 1_000_000,
  }),
  {
    key: 'taxes',
    title: 'EMTA taxes, turnover and employees by quarter (current and previous year)',
    match: /^tasutud_maksud_kaesolev_aasta(_eng)?\.csv$/,
    required: false,
    adds: 'quarterly turnover, employees, state and labour taxes, and the latest-metrics figures (EMTA)',
    // The Nextcloud share tokens change when EMTA republishes; they are configuration, kept here in one place.
    downloads: fixed(
      'https://ncfailid.emta.ee/s/DFHQjB2Rsq3CK7p/download/tasutud_maksud_kaesolev_aasta.csv',
      'tasutud_maksud_kaesolev_aasta.csv',
    ),
    minBytes: 1_000_000,
  },
  {
    key: 'debtors',
    title: 'EMTA tax debtors list',
    match: /^maksuvolglaste_nimekiri\.csv$/,
    required: false,
    adds: 'has_tax_debt (EMTA tax debtors list)',
    downloads: fixed(
      'https://ncfailid.emta.ee/s/XKJLjtynFeYdGyC/download/maksuvolglaste_nimekiri.csv',
      EE_FILE_NAMES.debtors,
    ),
    minBytes: 10_000,
  },
  {
    key: 'reports',
    title: 'RIK annual reports, general data (1.aruannete_yldandmed)',
    match: /^1\.aruannete_yldandmed_kuni_\d{8}(_\d+)?(\.csv)?(\.zip)?$/,
    required: false,
    adds: 'the latest annual report year (RIK annual reports, general data)',
    sortKey: dateKey,
    downloads: scraped(RIK_LANDING, /^1\.aruannete_yldandmed_kuni_\d{8}(_\d+)?\.zip$/, (n) =>
      [...n].sort((a, b) => (dateKey(a) < dateKey(b) ? -1 : 1)).slice(-1),
    ),
    minBytes: 1_000_000,
  },
  {
    key: 'elements',
    title: 'RIK annual reports, elements per fiscal year (4.<year>_aruannete_elemendid)',
    match: /^4\.\d{4}_aruannete_elemendid_kuni_\d{8}(_\d+)?(\.csv)?(\.zip)?$/,
    many: true,
    required: false,
    adds: 'annual revenue, net profit, equity and total assets (RIK annual-report elements)',
    sortKey: (name) => name.slice(2, 6) + dateKey(name),
    groupKey: (name) => name.slice(2, 6),
    // One zip per fiscal year; the newest three years are enough for the latest filed report of anyone.
    downloads: scraped(RIK_LANDING, /^4\.\d{4}_aruannete_elemendid_kuni_\d{8}(_\d+)?\.zip$/, (names) => {
      const newest = new Map<string, string>();
      for (const n of [...names].sort((a, b) => (dateKey(a) < dateKey(b) ? -1 : 1)))
        newest.set(n.slice(2, 6), n);
      return [...newest.entries()]
        .sort()
        .slice(-3)
        .map(([, n]) => n);
    }),
    minBytes: 100_000,
  },
];
