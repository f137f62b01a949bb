import { fixed } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Norway's official files (registry-formats.md section 4): Brønnøysundregistrene's nightly bulk downloads of
 * Enhetsregisteret (units, sub-units, roles; JSON arrays, gzipped) and Regnskapsregisteret's per-company
 * annual accounts. JSON keys are read by name; a key the file does not have is NULL.
 */

export const NO_FILE_NAMES = {
  enheter: 'enheter_alle.json.gz',
  enheterCsv: 'enheter_alle.csv.gz',
  underenheter: 'underenheter_alle.json.gz',
  roller: 'roller_totalbestand.json.gz',
  regnskap: 'regnskap.json',
} as const;

const BRREG = 'https://data.brreg.no/enhetsregisteret/api';

/**
 * The header of BRREG's CSV download of enheter (`/enheter/lastned/csv`), in the order and spelling of
 * opensanctions' `datasets/no/brreg/no_brreg.yml` header lookups, which were written against the real file
 * (registry-formats.md 4.1). The CSV spells some keys differently from the JSON
 * (`registrertIMvaRegisteret`, `registreringsdatoenhetsregisteret`), so columns are matched by name without
 * regard to case. Every value is double-quoted; free-text cells carry embedded newlines.
 */
export const NO_ENHETER_CSV_HEADER = [
  'organisasjonsnummer',
  'navn',
  'organisasjonsform.kode',
  'organisasjonsform.beskrivelse',
  'naeringskode1.kode',
  'naeringskode1.beskrivelse',
  'naeringskode2.kode',
  'naeringskode2.beskrivelse',
  'naeringskode3.kode',
  'naeringskode3.beskrivelse',
  'hjelpeenhetskode.kode',
  'hjelpeenhetskode.beskrivelse',
  'harRegistrertAntallAnsatte',
  'antallAnsatte',
  'registreringsdatoAntallAnsatteEnhetsregisteret',
  'registreringsdatoantallansatteNAVAaregisteret',
  'hjemmeside',
  'epostadresse',
  'telefon',
  'mobil',
  'postadresse.adresse',
  'postadresse.poststed',
  'postadresse.postnummer',
  'postadresse.kommune',
  'postadresse.kommunenummer',
  'postadresse.land',
  'postadresse.landkode',
  'forretningsadresse.adresse',
  'forretningsadresse.poststed',
  'forretningsadresse.postnummer',
  'forretningsadresse.kommune',
  'forretningsadresse.kommunenummer',
  'forretningsadresse.land',
  'forretningsadresse.landkode',
  'institusjonellSektorkode.kode',
  'institusjonellSektorkode.beskrivelse',
  'sisteInnsendteAarsregnskap',
  'registreringsdatoenhetsregisteret',
  'stiftelsesdato',
  'registrertIMvaRegisteret',
  'registreringsdatoMerverdiavgiftsregisteret',
  'registreringsdatoMerverdiavgiftsregisteretEnhetsregisteret',
  'frivilligMvaRegistrertBeskrivelser',
  'registreringsdatoFrivilligMerverdiavgiftsregisteret',
  'registrertIFrivillighetsregisteret',
  'registreringsdatoFrivillighetsregisteret',
  'registrertIForetaksregisteret',
  'registreringsdatoForetaksregisteret',
  'registrertIStiftelsesregisteret',
  'registrertIPartiregisteret',
  'registreringsdatoPartiregisteret',
  'konkurs',
  'konkursdato',
  'underAvvikling',
  'underAvviklingDato',
  'underTvangsavviklingEllerTvangsopplosning',
  'tvangsopplostPgaManglendeDagligLederDato',
  'tvangsopplostPgaManglendeRevisorDato',
  'tvangsopplostPgaManglendeRegnskapDato',
  'tvangsopplostPgaMangelfulltStyreDato',
  'tvangsavvikletPgaManglendeSlettingDato',
  'overordnetEnhet',
  'maalform',
  'vedtektsdato',
  'vedtektsfestetFormaal',
  'aktivitet',
  'paategninger',
  'underUtenlandskInsolvensbehandlingDato',
  'underRekonstruksjonsforhandlingDato',
  'fravalgRevisjonDato',
  'fravalgRevisjonBeslutningsDato',
  'erIKonsern',
  'kapital.belop',
  'kapital.antallAksjer',
  'kapital.type',
  'kapital.bundet',
  'kapital.valuta',
  'kapital.innbetalt',
  'kapital.fulltInnbetalt',
  'kapital.innfortDato',
  'registreringsnummerIHjemlandet',
  'utenlandskRegisterNavn',
  'utenlandskRegisterAdresse.land',
  'utenlandskRegisterAdresse.poststed',
  'utenlandskRegisterAdresse.adresse',
  'underlagtLovgivningLand',
  'underlagtLovgivningLandKode',
  'foretaksformIHjemlandet.kode',
  'foretaksformIHjemlandet.beskrivelse',
  'foretaksformIHjemlandet.beskrivelseBokmaal',
] as const;

/** True for the CSV form of the units file (by its name, before or after decompression). */
export const isEnheterCsv = (name: string): boolean => /\.csv(\.gz|\.zip)?$/i.test(name);

/**
 * Role codes kept as the company's people: managing director, board chair and members (registry-formats.md
 * 4.2), deputy members and the owner of an ENK (VARA, INNH: the roles API's codes as remembered, see
 * docs/world.md). Auditors, accountants and contact persons (REVI, REGN, KONT ...) are left out.
 */
export const NO_PERSON_ROLES = ['DAGL', 'LEDE', 'MEDL', 'VARA', 'INNH'] as const;

export const NO_FILES: readonly OfficialFile[] = [
  {
    key: 'enheter',
    title: 'Enhetsregisteret units (enheter_alle, the JSON or the CSV download)',
    // Either download is the whole register; where both are in the folder the JSON is read (its addresses
    // keep their lines apart), so it sorts last. The JSON .gz is read as it is, the CSV's is unpacked.
    match: /^enheter_alle\.(json(\.gz)?|csv)$/i,
    sortKey: (name) => `${isEnheterCsv(name) ? 0 : 1}|${name}`,
    required: true,
    downloads: fixed(`${BRREG}/enheter/lastned`, NO_FILE_NAMES.enheter),
    minBytes: 10_000_000,
  },
  {
    key: 'underenheter',
    title: 'Enhetsregisteret sub-units (underenheter, JSON)',
    match: /^underenheter_alle\.json(\.gz)?$/i,
    required: false,
    adds: 'contacts of open sub-units (phone, e-mail, web of branches)',
    downloads: fixed(`${BRREG}/underenheter/lastned`, NO_FILE_NAMES.underenheter, {
      accept: 'application/vnd.brreg.enhetsregisteret.underenhet.v1+gzip;charset=UTF-8',
    }),
    minBytes: 5_000_000,
  },
  {
    key: 'roller',
    title: 'Enhetsregisteret roles (roller totalbestand, JSON)',
    match: /^roller_totalbestand\.json(\.gz)?$/i,
    required: false,
    adds: 'board members, managing director and owner (people)',
    downloads: fixed(`${BRREG}/roller/totalbestand`, NO_FILE_NAMES.roller),
    minBytes: 5_000_000,
  },
  {
    key: 'regnskap',
    title: 'Regnskapsregisteret annual accounts (the per-company /regnskap/{orgnr} answers, one JSON array)',
    match: /^regnskap([_-][\w-]+)?\.json(\.gz)?$/,
    many: true,
    required: false,
    adds: 'annual accounts: revenue, result and their history',
    // No bulk file exists: the accounts are one request per company (about 390,000 AS), which a separate
    // harvester collects into regnskap*.json; the nightly download does not fetch them (docs/ingest.md).
    downloads: async () => [],
    minBytes: 1_000,
  },
];
