/*
 * Swedish code tables the adapter and the writer share. Where registry-formats.md marks a coding as
 * unconfirmed, the mapping lives here and nowhere else, and docs/ingest.md says so.
 */

/**
 * Name types in Bolagsverket's `organisationsnamn` (`name$TYPE-ORGNAM$date`). `FORETAGSNAMN` is confirmed
 * (7.1); the type of a secondary trade name (särskilt företagsnamn) is UNCONFIRMED: Bolagsverket's code
 * list is only on its HTML page.
 */
export const SE_NAME_TYPES = { main: 'FORETAGSNAMN', trade: 'SARSKILTFORETAGSNAMN' } as const;

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
