import { fixed } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Sweden's official files (registry-formats.md section 7). The two public bulk files (Bolagsverket's and
 * SCB's JE file) are the principal source: confirmed headers (7.1), read as published (see
 * bolagsverket-file.ts for Bolagsverket's quoting; SCB's file ends every line with a tab and never quotes).
 * The optional enrichments come from SCB's FDB service: its JE answers as `regdata harvest SE` stores them
 * (keys partly confirmed, 7.3) and CFAR workplaces (column list not seen, read by name); the unconfirmed
 * names and codings live in the tables below (docs/ingest.md lists them).
 */

/** 7.1 `bolagsverket_bulkfil.txt`: UTF-8, `;`, every data field quoted (inner quotes bare), `$` sub-fields, `|` repeats. */
export const BOLAGSVERKET_HEADER = [
  'organisationsidentitet',
  'namnskyddslopnummer',
  'registreringsland',
  'organisationsnamn',
  'organisationsform',
  'avregistreringsdatum',
  'avregistreringsorsak',
  'pagandeAvvecklingsEllerOmstruktureringsforfarande',
  'registreringsdatum',
  'verksamhetsbeskrivning',
  'postadress',
] as const;

/** SCB's five activity (SNI) columns of a unit or a workplace, Ng1 the main one. */
export const SCB_ACTIVITY_COLUMNS = ['Ng1', 'Ng2', 'Ng3', 'Ng4', 'Ng5'] as const;

/** 7.1 `scb_bulkfil_JE_<YYYYMMDDTHHMMSS>_<n>.txt`: ISO-8859-1, TAB, 34 columns (and a trailing tab). */
const JE_FIELDS = [
  'COAdress',
  'Foretagsnamn',
  'FtgStat',
  'Gatuadress',
  'JEStat',
  'JurForm',
  'Namn',
  ...SCB_ACTIVITY_COLUMNS,
] as const;
export const SCB_JE_HEADER = [
  'ForAndrTyp',
  ...JE_FIELDS,
  'PeOrgNr',
  'PostNr',
  'PostOrt',
  'RegDatKtid',
  'Reklamsparrtyp',
  ...[...JE_FIELDS, 'PostNr', 'PostOrt', 'RegDatKtid', 'Reklamsparrtyp'].map((f) => `m${f}`),
] as const;

/**
 * The FDB JE answers (`scb_fdb_je_<YYYYMMDD>_<nnnnn>.json`): each file is one `api/Je/HamtaForetag` response
 * body as the harvest received it, a JSON array of flat objects whose keys are SCB's Swedish labels
 * (`<variable>` for the text, `<variable>, kod` for the code). Keys marked confirmed are in
 * registry-formats.md 7.3 or in several independent public clients of the API (test/fixtures/real/SE/
 * SOURCES.md); the others follow the `<category>, kod` pattern for categories whose ids are confirmed but
 * whose response keys were not seen.
 */
export const FDB_KEYS = {
  orgnr: 'PeOrgNr', // confirmed
  sizeCode: 'Stkl, kod', // confirmed; the official 0-16 coding (0 unknown, 1 = 0 employees, ..., 16 = 10,000+)
  sizeLabel: 'Storleksklass', // confirmed
  postAddress: 'PostAdress', // confirmed
  postCode: 'PostNr', // confirmed
  postTown: 'PostOrt', // confirmed
  kommunCode: 'Säteskommun, kod', // confirmed
  kommun: 'Säteskommun', // confirmed
  lan: 'Säteslän', // confirmed
  vatCode: 'Momsstatus, kod', // confirmed key; coding 1 = registered unconfirmed
  turnoverCode: 'Stkl, oms, kod', // confirmed key; band boundaries unconfirmed
  turnoverLabel: 'Storleksklass, oms', // confirmed
  smeCode: 'Anställda SME, kod', // unconfirmed key (category confirmed)
  smeLabel: 'Anställda SME',
  ownerCode: 'Ägarkontroll, kod', // unconfirmed key (category confirmed, 6 values)
  ownerLabel: 'Ägarkontroll',
  exportCode: 'Export/import, kod', // unconfirmed: clients read one key, `Export/Importmarkering`
  exportLabel: 'Export/import',
  listingCode: 'Börsnotering, kod', // unconfirmed: no such category id was seen
  listingLabel: 'Börsnotering',
} as const;

/** The SCB CFAR workplace extract (`scb_arbetsstallen_<date>.txt`): ISO-8859-1, TAB; column list unconfirmed. */
export const CFAR_HEADER = [
  'CFARNr',
  'PeOrgNr',
  'Benamning',
  'Huvudarbetsstalle',
  'ArbstStatus',
  'BesGatuadress',
  'BesPostNr',
  'BesPostOrt',
  'Gatuadress',
  'PostNr',
  'PostOrt',
  'Kommun',
  'KommunNamn',
  ...SCB_ACTIVITY_COLUMNS,
  'Stkl',
  'Telefon',
  'EPost',
  'SWEREF99TM_N',
  'SWEREF99TM_E',
  'Reklamsparrtyp',
] as const;

export const SE_FILE_NAMES = {
  bolagsverket: 'bolagsverket_bulkfil.zip',
  bolagsverketMember: 'bolagsverket_bulkfil.txt',
  scb: 'scb_bulkfil.zip',
  scbMember: (stamp: string) => `scb_bulkfil_JE_${stamp}_1.txt`,
  /** One FDB `HamtaForetag` answer of a harvest: its date and its 1-based number in the harvest. */
  fdb: (date: string, n: number) => `scb_fdb_je_${date}_${String(n).padStart(5, '0')}.json`,
  cfar: (date: string) => `scb_arbetsstallen_${date}.txt`,
} as const;

const HVD = 'https://vardefulla-datamangder.bolagsverket.se/';

export const SE_FILES: readonly OfficialFile[] = [
  {
    key: 'bolagsverket',
    title: 'Bolagsverket bulk file (bolagsverket_bulkfil.zip)',
    match: /^bolagsverket_bulkfil\.(zip|txt)$/,
    required: true,
    downloads: fixed(`${HVD}bolagsverket/bolagsverket_bulkfil.zip`, SE_FILE_NAMES.bolagsverket),
    minBytes: 1_000_000,
  },
  {
    key: 'scb',
    title: 'SCB JE bulk file (scb_bulkfil.zip)',
    match: /^scb_bulkfil(\.zip|_JE_\d{8}T\d{6}_\d+\.txt)$/,
    required: true,
    downloads: fixed(`${HVD}scb/scb_bulkfil.zip`, SE_FILE_NAMES.scb),
    minBytes: 1_000_000,
  },
  {
    // Harvested from the FDB API (`regdata harvest SE`, client certificate, 2,000 rows an answer): one
    // file per answer, so no public URL.
    key: 'fdb',
    title: 'SCB Företagsregistret (FDB) JE answers (scb_fdb_je_<date>_<n>.json)',
    match: /^scb_fdb_je_\d{8}_\d{5}\.json$/,
    many: true,
    required: false,
    adds: 'size and turnover bands, VAT status, seat kommun and län, the se_register categories (SCB FDB)',
    downloads: async () => [],
    minBytes: 2,
  },
  {
    key: 'cfar',
    title: 'SCB CFAR workplaces (scb_arbetsstallen_<date>.txt)',
    match: /^scb_arbetsstallen_\d{8}\.txt$/,
    required: false,
    adds: 'workplaces (SCB CFAR)',
    downloads: async () => [],
    minBytes: 1_000,
  },
];
