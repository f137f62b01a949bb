/*
 * Swedish code tables the adapter and the writer share. Where registry-formats.md marks a coding as
 * unconfirmed, the mapping lives here and nowhere else, and docs/ingest.md says so.
 */

/**
 * Name types in Bolagsverket's `organisationsnamn` (`name$TYPE-ORGNAM$date`). `FORETAGSNAMN` is confirmed
 * (7.1); the type of a secondary trade name (särskilt företagsnamn) is UNCONFIRMED: Bolagsverket's code
 * list is only on its HTML page.
 */
export const SE_NAME_TYPES = { main: 'FORETAGSNAMN', trade: 'SARSKILTFORETAGSNAMN', plain: 'NAMN' } as const;
// `plain` (`NAMN-ORGNAM`, "Namn") is the name type of an organisation without a företagsnamn, from a public
// parser's label table (a NestJS `BolagsverketBulkParser`, [id:53620439367] in the code index): the name
// taken where an organisation has no FORETAGSNAMN row.

/**
 * Identity types in `organisationsidentitet` (`number$TYPE`): an organisation number, or a person's number
 * (a sole trader, held and never sold; the number only joins the files). Several independent public
 * parsers of the real file read these two (registry-formats.md 7.1; [id:53620439367], [id:62594470631]:
 * `196406253432$PERSON-IDORG`); any other type is counted and left out.
 */
export const SE_IDENTITY_TYPES = { org: 'ORGNR-IDORG', person: 'PERSON-IDORG' } as const;

/**
 * Bolagsverket's legal-form codes (`organisationsform`) with their labels, as a public client lists them
 * ([id:68957711941] in the code index, `ORGANIZATION_FORM_ICON_BY_CODE`; `AB-ORGFO` is in registry-formats.md
 * 7.1; `HB-ORGFO`, `E-ORGFO` are also in [id:53620439367] and [id:63356492737]). Served as `oiguslik_vorm` only
 * for an organisation SCB's JE file does not hold (SCB's JurForm otherwise); a code not listed keeps its
 * code, its label NULL, counted per code.
 */
export const SE_BV_FORMS: Readonly<Record<string, string>> = {
  'AB-ORGFO': 'Aktiebolag',
  'BAB-ORGFO': 'Bankaktiebolag',
  'BF-ORGFO': 'Bostadsförening',
  'BFL-ORGFO': 'Utländsk banks filial',
  'BRF-ORGFO': 'Bostadsrättsförening',
  'E-ORGFO': 'Enskild näringsverksamhet',
  'EB-ORGFO': 'Enkla bolag',
  'EEIG-ORGFO': 'Europeisk ekonomisk intressegruppering',
  'EGTS-ORGFO': 'Europeisk gruppering för territoriellt samarbete',
  'EK-ORGFO': 'Ekonomisk förening',
  'FAB-ORGFO': 'Försäkringsaktiebolag',
  'FF-ORGFO': 'Försäkringsförmedlare',
  'FL-ORGFO': 'Filial',
  'FOF-ORGFO': 'Försäkringsförening',
  'HB-ORGFO': 'Handelsbolag',
  'I-ORGFO': 'Ideell förening som bedriver näringsverksamhet',
  'KB-ORGFO': 'Kommanditbolag',
  'KHF-ORGFO': 'Kooperativ hyresrättsförening',
  'MB-ORGFO': 'Medlemsbank',
  'OFB-ORGFO': 'Ömsesidigt försäkringsbolag',
  'OTPB-ORGFO': 'Ömsesidigt tjänstepensionsbolag',
  'S-ORGFO': 'Stiftelse som bedriver näringsverksamhet',
  'SB-ORGFO': 'Sparbank',
  'SCE-ORGFO': 'Europakooperativ',
  'SE-ORGFO': 'Europabolag',
  'SF-ORGFO': 'Sambruksförening',
  'TPAB-ORGFO': 'Tjänstepensionsaktiebolag',
  'TPF-ORGFO': 'Tjänstepensionsförening',
  'TSF-ORGFO': 'Trossamfund som bedriver näringsverksamhet',
};

/**
 * The state of an organisation Bolagsverket lists, neither deregistered nor in a proceeding, that SCB's JE
 * file does not hold (so no FtgStat says whether it is active): registered. `source_status` stays NULL.
 */
export const SE_BV_REGISTERED = { staatus: 'R', text: 'Registrerad' } as const;

/**
 * Ongoing proceedings in `pagandeAvvecklingsEllerOmstruktureringsforfarande` (`|CODE$date` repeats):
 * LI liquidation, KK bankruptcy (7.1). A code ending `-AVSLAVOMFO` is a finished proceeding and is ignored.
 */
export const SE_PROCEEDINGS: Readonly<Record<string, { staatus: string; text: string }>> = {
  'LI-AVOMFO': { staatus: 'L', text: 'Likvidation pågår' },
  'KK-AVOMFO': { staatus: 'N', text: 'Konkurs pågår' },
};

/** Deregistration causes (`avregistreringsorsak`, staatus K) with their wording. */
export const SE_DEREGISTRATION_TEXT: Readonly<Record<string, string>> = {
  'LIAV-AVORG': 'Avregistrerad efter likvidation',
  'KKAV-AVORG': 'Avregistrerad efter konkurs',
  'FUAV-AVORG': 'Avregistrerad efter fusion',
};

/** SCB FtgStat (7.1, confirmed): 1 active, 9 not active, 0 never active. */
export const SE_FTGSTAT: Readonly<Record<string, { staatus: string; text: string }>> = {
  '1': { staatus: 'R', text: 'Verksam' },
  '9': { staatus: 'S', text: 'Ej verksam' },
  '0': { staatus: 'S', text: 'Aldrig verksam' },
};

/**
 * SCB JurForm labels (SCB JURFORM as published in danka74/verksamhet-och-organisation
 * scb-legal-form.fsh, registry-formats.md 7.1). JurForm 10 is a natural person: a sole trader.
 */
export const SE_JURFORM: Readonly<Record<string, string>> = {
  '10': 'Fysiska personer',
  '31': 'Handelsbolag, kommanditbolag',
  '41': 'Bankaktiebolag',
  '42': 'Försäkringsaktiebolag',
  '43': 'Europabolag',
  '49': 'Aktiebolag utom bank- och försäkringsaktiebolag',
  '51': 'Ekonomiska föreningar utom bostadsrättsföreningar',
  '53': 'Bostadsrättsföreningar',
  '54': 'Kooperativa hyresrättsföreningar',
  '61': 'Ideella föreningar',
  '62': 'Samfällighetsföreningar, vägföreningar, vägsamfälligheter',
  '63': 'Registrerade trossamfund',
  '71': 'Familjestiftelser',
  '72': 'Övriga stiftelser och fonder, inkl pensionsstiftelser och personalstiftelser',
  '81': 'Statliga enheter',
  '83': 'Kommunalförbund',
  '87': 'Offentliga korporationer och anstalter',
  '96': 'Utländska juridiska personer',
};
export const SE_SOLE_TRADER_JURFORM = '10';

/**
 * `Reklamsparrtyp` (the marketing block), UNCONFIRMED coding: SCB documents two-digit codes 11-23 ("1x"
 * accepts advertising, "2x" has opted out) while real samples show a bare `1` (registry-formats.md 7.1).
 * Read here as: first digit 2 = postal direct-marketing block; second digit 2 = telephone-marketing block;
 * a bare `1` = no block, a bare `2` = postal block only. Anything else is left empty and counted.
 */
export const SE_REKLAM_PATTERN = '^[12][123]?$';
export const reklamMarketingSql = (code: string): string =>
  `CASE WHEN regexp_full_match(trim(${code}), '${SE_REKLAM_PATTERN}') THEN left(trim(${code}), 1) = '2' END`;
export const reklamPhoneSql = (code: string): string =>
  `CASE WHEN regexp_full_match(trim(${code}), '${SE_REKLAM_PATTERN}') THEN substr(trim(${code}), 2, 1) = '2' END`;

/** The writer's side of the table above: the two blocks as a code, a bare `1` where `bare` is 0. */
export const seReklamCode = (marketing: string, phone: string, bare: string): string =>
  `CASE WHEN NOT ${marketing} AND NOT ${phone} AND ${bare} = 0 THEN '1'
     ELSE CASE WHEN ${marketing} THEN '2' ELSE '1' END || CASE WHEN ${phone} THEN '2' ELSE '1' END END`;

/** FDB `Momsstatus, kod`, UNCONFIRMED coding: 1 registered for VAT, 0 not. */
export const SE_VAT_REGISTERED = '1';
