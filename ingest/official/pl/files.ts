import type { OfficialFile } from '../types.ts';

/*
 * Poland's sources are the answers of three services, as `regdata harvest PL` stores them
 * (ingest/harvest/pl): JSON-lines capture files, one line per answer with the body exactly as received
 * (`{key, kind, url, status, content_type, fetched_at, body}`). No register publishes a bulk file:
 *   - KRS Open API: one `OdpisAktualny` JSON per entity (registry-formats.md 6.1); the principal source,
 *     every company comes from an extract;
 *   - REGON BIR 1.1: SOAP answers (MTOM multipart) of the full reports per unit (6.2): legal-form codes,
 *     TERYT location codes, contacts, PKD rows, suspension and deletion dates; sole traders' reports;
 *   - CEIDG: pages of sole traders and each one's details (6.3).
 * Each service writes files `<prefix>_<run>_<part>.jsonl`; every run's files are read and the newest answer
 * per key wins. DuckDB reads the lines; the XML inside BIR answers is taken apart in SQL (ingest/official/pl/bir-sql.ts).
 */

export const PL_CAPTURE_PREFIX = { krs: 'pl_krs', regon: 'pl_regon', ceidg: 'pl_ceidg' } as const;
const capture = (prefix: string): RegExp => new RegExp(`^${prefix}_\\d{8}T\\d{6}Z_\\d{4}\\.jsonl(\\.gz)?$`);

/** The extract keys the adapter reads (registry-formats.md 6.1). */
const NAME = 'STRUCT(nazwisko STRUCT(nazwiskoICzlon VARCHAR), imiona STRUCT(imie VARCHAR))';
const PKD_ROW = 'STRUCT(opis VARCHAR, kodDzial VARCHAR, kodKlasa VARCHAR, kodPodklasa VARCHAR)[]';
export const KRS_ODPIS_TYPE = `STRUCT(
  rodzaj VARCHAR,
  naglowekA STRUCT(rejestr VARCHAR, numerKRS VARCHAR, stanZDnia VARCHAR, dataRejestracjiWKRS VARCHAR),
  dane STRUCT(
    dzial1 STRUCT(
      danePodmiotu STRUCT(nazwa VARCHAR, formaPrawna VARCHAR, identyfikatory STRUCT(regon VARCHAR, nip VARCHAR)),
      siedzibaIAdres STRUCT(
        siedziba STRUCT(wojewodztwo VARCHAR, miejscowosc VARCHAR),
        adres STRUCT(ulica VARCHAR, nrDomu VARCHAR, nrLokalu VARCHAR, miejscowosc VARCHAR, kodPocztowy VARCHAR),
        adresPocztyElektronicznej VARCHAR, adresStronyInternetowej VARCHAR),
      kapital STRUCT(wysokoscKapitaluZakladowego STRUCT(wartosc VARCHAR, waluta VARCHAR))
    ),
    dzial2 STRUCT(
      reprezentacja STRUCT(nazwaOrganu VARCHAR, sklad STRUCT(nazwisko STRUCT(nazwiskoICzlon VARCHAR),
        imiona STRUCT(imie VARCHAR), funkcjaWOrganie VARCHAR, czyZawieszona BOOLEAN)[]),
      prokurenci ${NAME}[]
    ),
    dzial3 STRUCT(
      przedmiotDzialalnosci STRUCT(przedmiotPrzewazajacejDzialalnosci ${PKD_ROW}, przedmiotPozostalejDzialalnosci ${PKD_ROW}),
      wzmiankiOZlozonychDokumentach STRUCT(
        wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego STRUCT(dataZlozenia VARCHAR, zaOkresOdDo VARCHAR)[],
        wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania STRUCT(dataZlozenia VARCHAR, zaOkresOdDo VARCHAR)[]
      )
    ),
    dzial6 JSON
  )
)`;

/**
 * REGON BIR report fields the adapter reads (6.2), without the `praw_`/`fiz_` prefix. A few are spelled two
 * ways by the service (`praw_dataSkresleniaZRegon`, `fiz_dataSkresleniazRegonDzialalnosci`); stage.ts asks
 * for each spelling.
 */
export const REGON_FIELDS = [
  'regon9',
  'nip',
  'nazwa',
  'numerWRejestrzeEwidencji',
  'dataPowstania',
  'dataZawieszeniaDzialalnosci',
  'dataWznowieniaDzialalnosci',
  'dataSkresleniaZRegon',
  'adSiedzWojewodztwo_Symbol',
  'adSiedzPowiat_Symbol',
  'adSiedzGmina_Symbol',
  'adSiedzKodPocztowy',
  'adSiedzMiejscowosc_Nazwa',
  'adSiedzUlica_Nazwa',
  'adSiedzNumerNieruchomosci',
  'adSiedzNumerLokalu',
  'adSiedzWojewodztwo_Nazwa',
  'numerTelefonu',
  'adresEmail',
  'adresStronyinternetowej',
  'szczegolnaFormaPrawna_Symbol',
  'szczegolnaFormaPrawna_Nazwa',
] as const;

/** The reports read, by unit kind: legal persons, and sole traders (general data + CEIDG activity). */
export const BIR_READ = {
  praw: 'BIR11OsPrawna',
  prawPkd: 'BIR11OsPrawnaPkd',
  fizOgolne: 'BIR11OsFizycznaDaneOgolne',
  fizCeidg: 'BIR11OsFizycznaDzialalnoscCeidg',
  fizPkd: 'BIR11OsFizycznaPkd',
} as const;

/** PKD report rows: `praw_pkdKod` … `praw_pkdWersja` (confirmed); sole traders `fiz_pkd_Kod` … (no version seen). */
export const PKD_KEYS = {
  praw: { kod: 'praw_pkdKod', main: 'praw_pkdPrzewazajace', version: 'praw_pkdWersja' },
  fiz: { kod: 'fiz_pkd_Kod', main: 'fiz_pkd_Przewazajace', version: 'fiz_pkd_Wersja' },
} as const;

const ADDRESS =
  'STRUCT(ulica VARCHAR, budynek VARCHAR, lokal VARCHAR, miasto VARCHAR, kod VARCHAR, kodPocztowy VARCHAR, wojewodztwo VARCHAR)';
/** CEIDG `firma` keys (6.3, partly confirmed): `adresDzialanosci` (sic) in older versions, `kod` or `kodPocztowy`. */
export const CEIDG_FIRMA_TYPE = `STRUCT(
  id VARCHAR, nazwa VARCHAR, adresDzialalnosci ${ADDRESS}, adresDzialanosci ${ADDRESS},
  wlasciciel STRUCT(imie VARCHAR, nazwisko VARCHAR, nip VARCHAR, regon VARCHAR),
  dataRozpoczecia VARCHAR, status VARCHAR, email VARCHAR, www VARCHAR, telefon VARCHAR)`;

const harvested = async () => [];

/**
 * A KRS answer saved one per file exactly as the service returns it, as `curl -o OdpisAktualny_<KRS>.json
 * 'https://api-krs.ms.gov.pl/api/krs/OdpisAktualny/<KRS>?rejestr=P&format=json'` writes it (the body only,
 * no envelope): read beside the harvest's capture files (stage.ts, captures.ts).
 */
export const KRS_SAVED_ANSWER = /^OdpisAktualny_(\d{1,10})\.json$/;
const KRS_CAPTURE = capture(PL_CAPTURE_PREFIX.krs);

export const PL_FILES: readonly OfficialFile[] = [
  {
    key: 'krs',
    title:
      'KRS OdpisAktualny answers (regdata harvest PL: pl_krs_*.jsonl; or saved one per file: OdpisAktualny_<KRS>.json)',
    match: new RegExp(`${KRS_CAPTURE.source}|${KRS_SAVED_ANSWER.source}`),
    many: true,
    required: true,
    downloads: harvested,
    minBytes: 1,
  },
  {
    key: 'regon',
    title: 'REGON BIR report answers (regdata harvest PL: pl_regon_*.jsonl)',
    match: capture(PL_CAPTURE_PREFIX.regon),
    many: true,
    required: false,
    adds: 'legal-form codes, TERYT locations, phones, PKD codes, suspensions and deletions (REGON), and the sole traders',
    downloads: harvested,
    minBytes: 1,
  },
  {
    key: 'ceidg',
    title: 'CEIDG company pages and details (regdata harvest PL: pl_ceidg_*.jsonl)',
    match: capture(PL_CAPTURE_PREFIX.ceidg),
    many: true,
    required: false,
    adds: "sole traders' names, addresses, start dates, status and contacts (CEIDG)",
    downloads: harvested,
    minBytes: 1,
  },
];
