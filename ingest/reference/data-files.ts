import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A classifier file under ingest/reference/data/ and where it came from (data/SOURCES.md has the detail). */
export interface DataFile {
  file: string;
  source: string;
  licence: string;
  /** The SNI export is ISO-8859-1; everything else is UTF-8. */
  encoding: 'utf8' | 'latin1';
  /** Of the bytes as copied from the source (unchanged); a test holds the files to it. */
  sha256: string;
}

const COLT = 'GitHub KristerV/colt@40b5b63915268238f3f6712b51877ed76dbd1b83 priv/nace/';

export const DATA_FILES = {
  naceRev21: {
    file: 'nace_rev21_labels_en.csv',
    source: `${COLT}nace_rev21_labels_en.csv (Eurostat NACE Rev. 2.1, English)`,
    licence: 'Eurostat classification, reuse with acknowledgement; repository licence not stated',
    sha256: '13ea96f7a23fecc5dc8c0e5f4a20b3a071366d64a1f0d6520ddf6f5a3f70c25d',
    encoding: 'utf8',
  },
  naceRev2: {
    file: 'nace_rev2_en_eurostat.csv',
    source:
      'GitHub data-cleaning/validate@8fcc31113eac091ffa8c487228c194e02e85e579 pkg/data/nace_rev2.csv ' +
      '(Eurostat RAMON export of NACE Rev. 2, downloaded 2020-10-21)',
    licence: 'Eurostat classification, reuse with acknowledgement; repository GPL-3',
    sha256: 'c3a7b1b4fbeca1fd018e3e24aa066c8d95ad22527711b436aabadf18af73736d',
    encoding: 'utf8',
  },
  emtak2025: {
    file: 'emtak_2025_labels_et.csv',
    source: `${COLT}emtak_2025_labels_et.csv (Statistics Estonia EMTAK 2025, Estonian)`,
    licence: 'Statistics Estonia classification, public; repository licence not stated',
    sha256: '205ad392062777124f09ad3645588386ba8768b5608d47d985556e3b7356fa5b',
    encoding: 'utf8',
  },
  sn2007: {
    file: 'no_sn2007_ssb_klass_version501.json',
    source:
      'GitHub statisticsnorway/klass-web@18a8dac79e422e763ce7fceeb84b4eff0f2ca655 ' +
      'test/mock_klass_api/mock_data/versions/version_501.js (SSB Klass SN2007, Bokmål; JS wrapper removed)',
    licence: 'SSB classification data NLOD / CC BY 4.0; repository Apache-2.0',
    sha256: 'd4f4b9742035407927fa5289dfa97940f39631cb4544a4ff00ddb30bf18779cc',
    encoding: 'utf8',
  },
  pkd2007: {
    file: 'pl_pkd2007_gus.csv',
    source:
      'GitHub wawrzenczyka/WD2@e70d4f7c1dbad11933ed4801528e272f0bb776ad data/pkd.csv (GUS PKD 2007 export)',
    licence: 'Official GUS classification (Dz.U. regulation); repository licence not stated',
    sha256: '22cd61f405fe8337d2c3f417593fdea13c6958e49c471924f27eadd02bdfd817',
    encoding: 'utf8',
  },
  sni2007: {
    file: 'se_sni2007_detaljgrupp_scb.csv',
    source:
      'GitHub silencexxx/azts@985c209e9a112b3c4528ac68784802fd90c820db sni2007.csv (SCB SNI 2007 download)',
    licence: 'SCB classification; repository licence not stated',
    sha256: '2859f8bed411596c9cf1fc77050e21fb6b948f9087625e0d481d01adbb82b80c',
    encoding: 'latin1',
  },
  naceRev2toRev21: {
    file: 'nace_rev2_to_rev21.csv',
    source: `${COLT}nace_rev2_to_rev21.csv (Eurostat NACE Rev. 2 -> Rev. 2.1 correspondence, 4-digit classes)`,
    licence: 'Eurostat classification, reuse with acknowledgement; repository licence not stated',
    sha256: '499099909587a6bcf5fdb76fb724db0c58bc898aee00b95106b5ae400cde59de',
    encoding: 'utf8',
  },
  emtak2008to2025: {
    file: 'emtak_2008_to_2025.csv',
    source: `${COLT}emtak_2008_to_2025.csv (Statistics Estonia EMTAK 2008 -> EMTAK 2025 correspondence)`,
    licence: 'Statistics Estonia classification, public; repository licence not stated',
    sha256: 'd42e2c0cd4aaecba9d6fa8de3a032516d1efbffa3be51cbae55be6b533d149c9',
    encoding: 'utf8',
  },
  sn2025Brreg: {
    file: 'no_sn2025_brreg_texts.csv',
    source:
      "BRREG's own naeringskode texts (kode, beskrivelse) of the real units in test/fixtures/real/NO " +
      '(see its SOURCES.md), one row per code',
    licence: 'BRREG Enhetsregisteret open data, NLOD',
    sha256: '9d6d423197793d5051d0be0766bab8946349eed2c8020bbdf797edee4537e492',
    encoding: 'utf8',
  },
  pkd2025: {
    file: 'pl_pkd2025_struktura_gus.csv',
    source:
      'GitHub Radzi000/Hacknation2025@9884b078e74f995e44970ef2b020260b32124ee1 data/StrukturaPKD2025.xls ' +
      '(GUS "Struktura PKD 2025", sheet PKD 2025, cells as CSV)',
    licence: 'Official GUS classification (Dz.U. 2024 poz. 1936); repository licence not stated',
    sha256: '4728ace9512fe1f2a7788ed4df6820252d5569898dc062c485c548d20fb55578',
    encoding: 'utf8',
  },
  sni2025: {
    file: 'se_sni2025_scb.json',
    source:
      'GitHub klasolsson81/jobbliggaren@55bb85e6091d5aea5a029a549923ba15e36420a9 ' +
      'src/Jobbliggaren.Infrastructure/CompanyRegister/Reference/sni-2025.v1.json ' +
      '(SCB sni-2025-struktur.xlsx: avdelningar, huvudgrupper, detaljgrupper)',
    licence: 'SCB data CC0 (as the file states); repository PolyForm Noncommercial 1.0.0',
    sha256: 'cfab2c0b862621125c30cfe049e4387ff9d239e227d2b3bfc7444439edd33b6b',
    encoding: 'utf8',
  },
  eeMaakond: {
    file: 'ee_ehak_maakond_20180901.csv',
    source:
      'GitHub buildig/EHAK@7cb1eac5464d107ff187729ba381940f0aa03d0b csv/maakond.csv (Maa-amet EHAK 2018-09-01)',
    licence:
      'Estonian Land Board: use not restricted, cite source and validity date; repository licence not stated',
    sha256: '2fe663b147521e5adff4d4b24e0f10d276399371a4207142a80eb5e65a435d25',
    encoding: 'utf8',
  },
  eeOmavalitsus: {
    file: 'ee_ehak_omavalitsus_20180901.csv',
    source:
      'GitHub buildig/EHAK@7cb1eac5464d107ff187729ba381940f0aa03d0b csv/omavalitsus.csv (Maa-amet EHAK 2018-09-01)',
    licence:
      'Estonian Land Board: use not restricted, cite source and validity date; repository licence not stated',
    sha256: '44ae0165d13097cf7d66d61db826b95a46df1e4e6d2271987a3393e08f1d417a',
    encoding: 'utf8',
  },
  eeAsustusyksus: {
    file: 'ee_ehak_asustusyksus_20180901.csv',
    source:
      'GitHub buildig/EHAK@7cb1eac5464d107ff187729ba381940f0aa03d0b csv/asustusyksus.csv (Maa-amet EHAK 2018-09-01)',
    licence:
      'Estonian Land Board: use not restricted, cite source and validity date; repository licence not stated',
    sha256: '1582c1531e4904b46cc4f11afa7ed7be910a3e6f63a250916db472e468009544',
    encoding: 'utf8',
  },
  lvAtvk: {
    file: 'lv_atvk_2021_top_level.csv',
    source:
      'ATVK 2021 top level (7 valstspilsētas, 36 novadi) transcribed from a public UI code table (file id 34276371708)',
    licence: 'Official CSP classification, public; transcription licence not stated',
    sha256: 'e7e94dd79ae6e0a759bb08939a1a75f744381e0f5de92e4580fcc61715b8c73c',
    encoding: 'utf8',
  },
  ltRegions: {
    file: 'lt_savivaldybes_iso3166_2.csv',
    source:
      'GitHub epiforecasts/covidregionaldata@e993cec377070134bcac99020dfa227df4807b41 data-raw/lithuania_codes.csv ' +
      '(ISO 3166-2:LT codes of the 10 apskritys and 60 savivaldybės, short names such as "Vilniaus m. sav.")',
    licence: 'Repository MIT (R package DESCRIPTION: MIT + file LICENSE); codes are ISO 3166-2:LT',
    sha256: '898ee36f82c6494e13e986c4597559116d8dc822b0437a910d90b3ddec6a9f8d',
    encoding: 'utf8',
  },
  fiRegions: {
    file: 'fi_kunta_seutukunta_maakunta_statfi.csv',
    source:
      'GitHub pttry/statficlassifications@1ca8f09050929f8edeef3e99dc4dafb2e1dc6f8b data/regionkey.rda ' +
      '(Statistics Finland classifications, 2024; converted from .rda to CSV)',
    licence: 'Statistics Finland CC BY 4.0; package MIT',
    sha256: '70848ded2e5962cb1cdc757011da4b6bf71976cc71701478f7d95df745af656e',
    encoding: 'utf8',
  },
  plTerc: {
    file: 'pl_teryt_terc_urzedowy_2022-01-01.csv',
    source:
      'GitHub praszuk/osm-emapa-addresses-diff@e9adad7220885e52b1d15ff3b9939fb79198d278 data/terc.csv ' +
      '(GUS TERYT TERC urzędowy, 2022-01-01)',
    licence: 'GUS public official data; repository MIT',
    sha256: '8358182fdeba79a84a8bc13558723f103a344f5569e2ac007f668fa51f966062',
    encoding: 'utf8',
  },
  noKommuner: {
    file: 'no_kommuner_2025.json',
    source: 'GitHub aprestmo/norge-data@ce8c976f70e0fffe345876770d067dfb3e17aa8d data/kommuner-2025.json',
    licence: 'Repository MIT; upstream source not stated (secondary data, not an SSB export)',
    sha256: 'ad035feb588473e0c190ed7950038c98e8f49707bde0c2d6deec88a74e25be49',
    encoding: 'utf8',
  },
  noFylker: {
    file: 'no_fylker_2025.json',
    source: 'GitHub aprestmo/norge-data@ce8c976f70e0fffe345876770d067dfb3e17aa8d data/fylker-2025.json',
    licence: 'Repository MIT; upstream source not stated (secondary data, not an SSB export)',
    sha256: '54f347d3890ca1708677ed01846c2fc7e2705ebbd652516bb7d642693f7893b1',
    encoding: 'utf8',
  },
  seKommuner: {
    file: 'se_kommuner_lan_scb.csv',
    source:
      'GitHub sjbrg/swedish-geodata@03b0a24be1f08f1b7127a1e1fc74fa5e81a6b1ba data/municipality_county.csv (SCB codes)',
    licence: 'CC0 1.0',
    sha256: 'ab8886ad34a144aff11cf69a77b855a59c20b5691cb4073504172df4cd4d7e16',
    encoding: 'utf8',
  },
} as const satisfies Record<string, DataFile>;

export type DataFileKey = keyof typeof DATA_FILES;

const DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));

export function dataPath(file: string): string {
  return DATA_DIR + file;
}

export function readDataFile(key: DataFileKey): string {
  const f: DataFile = DATA_FILES[key];
  return readFileSync(dataPath(f.file), f.encoding);
}

export function sourceOf(key: DataFileKey): { file: string; source: string; licence: string } {
  const { file, source, licence } = DATA_FILES[key];
  return { file, source, licence };
}
