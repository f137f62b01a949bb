import type { OfficialFile } from '../types.ts';

/*
 * Poland's official files (registry-formats.md section 6). None of the three registers publishes a bulk
 * file: KRS serves one extract per entity (OdpisAktualny JSON), REGON one SOAP report per unit and CEIDG
 * pages of sole traders. The download job (an operator's harvester; the API keys are per user) saves them
 * as JSON arrays: KRS extracts as returned, REGON `<dane>` records as objects of their element texts
 * (DuckDB reads no XML) with the unit's PKD report rows nested under `pkd`, CEIDG `firma` objects as
 * returned. Everything is read with DuckDB's streaming JSON reader and explicit types.
 */

export const PL_FILE_NAMES = {
  krs: 'krs_odpisy_aktualne.json',
  regonPraw: 'regon_bir_praw.json',
  regonFiz: 'regon_bir_fiz.json',
  ceidg: 'ceidg_firmy.json',
} as const;

/** The KRS extract keys the adapter reads (registry-formats.md 6.1). */
const NAME = 'STRUCT(nazwisko STRUCT(nazwiskoICzlon VARCHAR), imiona STRUCT(imie VARCHAR))';
export const KRS_ODPIS_TYPE = `STRUCT(
  rodzaj VARCHAR,
  naglowekA STRUCT(rejestr VARCHAR, numerKRS VARCHAR, stanZDnia VARCHAR, dataRejestracjiWKRS VARCHAR),
  dane STRUCT(
    dzial1 STRUCT(
      danePodmiotu STRUCT(nazwa VARCHAR),
      siedzibaIAdres STRUCT(adresPocztyElektronicznej VARCHAR, adresStronyInternetowej VARCHAR),
      kapital STRUCT(wysokoscKapitaluZakladowego STRUCT(wartosc VARCHAR, waluta VARCHAR))
    ),
    dzial2 STRUCT(
      reprezentacja STRUCT(nazwaOrganu VARCHAR, sklad STRUCT(nazwisko STRUCT(nazwiskoICzlon VARCHAR),
        imiona STRUCT(imie VARCHAR), funkcjaWOrganie VARCHAR, czyZawieszona BOOLEAN)[]),
      prokurenci ${NAME}[]
    ),
    dzial3 STRUCT(wzmiankiOZlozonychDokumentach STRUCT(
      wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego STRUCT(dataZlozenia VARCHAR, zaOkresOdDo VARCHAR)[],
      wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania STRUCT(dataZlozenia VARCHAR, zaOkresOdDo VARCHAR)[]
    )),
    dzial6 JSON
  )
)`;

/** REGON BIR1 legal-person report fields the adapter reads (6.2), `p` = `praw` or `fiz`. */
export const regonFields = (p: 'praw' | 'fiz'): string[] => [
  `${p}_regon9`,
  `${p}_nip`,
  `${p}_nazwa`,
  ...(p === 'praw' ? ['praw_numerWRejestrzeEwidencji'] : []),
  `${p}_dataPowstania`,
  `${p}_dataZawieszeniaDzialalnosci`,
  `${p}_dataWznowieniaDzialalnosci`,
  `${p}_dataSkresleniaZRegon`,
  `${p}_adSiedzWojewodztwo_Symbol`,
  `${p}_adSiedzPowiat_Symbol`,
  `${p}_adSiedzGmina_Symbol`,
  `${p}_adSiedzKodPocztowy`,
  `${p}_adSiedzMiejscowosc_Nazwa`,
  `${p}_adSiedzUlica_Nazwa`,
  `${p}_adSiedzNumerNieruchomosci`,
  `${p}_adSiedzNumerLokalu`,
  `${p}_adSiedzWojewodztwo_Nazwa`,
  `${p}_numerTelefonu`,
  `${p}_adresEmail`,
  `${p}_adresStronyinternetowej`,
  `${p}_szczegolnaFormaPrawna_Symbol`,
  `${p}_szczegolnaFormaPrawna_Nazwa`,
];
/** PKD report rows: `praw_pkdKod` … `praw_pkdWersja` (confirmed); sole traders `fiz_pkd_Kod` … (no version seen). */
export const PKD_KEYS = {
  praw: { kod: 'praw_pkdKod', main: 'praw_pkdPrzewazajace', version: 'praw_pkdWersja' },
  fiz: { kod: 'fiz_pkd_Kod', main: 'fiz_pkd_Przewazajace', version: 'fiz_pkd_Wersja' },
} as const;

const ADDRESS =
  'STRUCT(ulica VARCHAR, budynek VARCHAR, lokal VARCHAR, miasto VARCHAR, kod VARCHAR, kodPocztowy VARCHAR, wojewodztwo VARCHAR)';
/** CEIDG `firma` keys (6.3, partly confirmed): `adresDzialanosci` (sic) in older versions, `kod` or `kodPocztowy`. */
export const CEIDG_COLUMNS: readonly (readonly [string, string])[] = [
  ['nazwa', 'VARCHAR'],
  ['adresDzialalnosci', ADDRESS],
  ['adresDzialanosci', ADDRESS],
  ['wlasciciel', 'STRUCT(imie VARCHAR, nazwisko VARCHAR, nip VARCHAR, regon VARCHAR)'],
  ['dataRozpoczecia', 'VARCHAR'],
  ['status', 'VARCHAR'],
  ['email', 'VARCHAR'],
  ['www', 'VARCHAR'],
  ['telefon', 'VARCHAR'],
];

const harvested = async () => [];

export const PL_FILES: readonly OfficialFile[] = [
  {
    key: 'krs',
    title: 'KRS OdpisAktualny extracts (api-krs.ms.gov.pl, harvested)',
    match: /^krs_odpisy_aktualne\.json$/,
    required: true,
    downloads: harvested,
    minBytes: 1_000_000,
  },
  {
    key: 'regonPraw',
    title: 'REGON BIR1 legal-person reports with PKD rows (harvested)',
    match: /^regon_bir_praw\.json$/,
    required: true,
    downloads: harvested,
    minBytes: 1_000_000,
  },
  {
    key: 'regonFiz',
    title: 'REGON BIR1 sole-trader reports with PKD rows (harvested)',
    match: /^regon_bir_fiz\.json$/,
    required: true,
    downloads: harvested,
    minBytes: 1_000_000,
  },
  {
    key: 'ceidg',
    title: 'CEIDG firma records (dane.biznes.gov.pl, harvested)',
    match: /^ceidg_firmy\.json$/,
    required: true,
    downloads: harvested,
    minBytes: 1_000_000,
  },
];
