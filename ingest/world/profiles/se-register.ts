/**
 * Labelled code tables of the Swedish `se_register` block (spec 2.3).
 *
 * - Turnover class: SCB "Omsättningsklass grov", 13 classes in thousands of SEK (tkr), the coarse of the
 *   two turnover categories the FDB API lists (registry-formats.md 7.3 counts 13 coarse and 21 fine
 *   classes). Bands as published in a public SCB-based app ([id:56649012274], TURNOVER_GROSS_RANGES).
 * - Export/import, owner category (SCB category "Ägarkontroll", which has 6 values) and SME class
 *   ("Anställda SME"): the category names are confirmed (registry-formats.md 7.3) but their code tables
 *   were not found, so the world carries no code for them (`code: null`), only a descriptive label of
 *   ours (the SME bands follow the EU SME definition, Commission Recommendation 2003/361/EC). Inventing
 *   SCB-looking codes would let them leak into files and answers as if they were SCB's. The SE ingest
 *   passes through whatever codes SCB's files carry. See docs/world.md.
 * - Listing: ISO 10383 market identifier codes of the Swedish marketplaces, as remembered (no file seen).
 */
export interface LabelledCode {
  /** null where the register's code table is unknown (never an invented code). */
  code: string | null;
  label: string;
  weight: number;
}

export const SE_TURNOVER_CLASSES: readonly LabelledCode[] = [
  { code: '0', label: '< 1 tkr', weight: 0 },
  { code: '1', label: '1 - 499 tkr', weight: 0 },
  { code: '2', label: '500 - 999 tkr', weight: 0 },
  { code: '3', label: '1 000 - 4 999 tkr', weight: 0 },
  { code: '4', label: '5 000 - 9 999 tkr', weight: 0 },
  { code: '5', label: '10 000 - 19 999 tkr', weight: 0 },
  { code: '6', label: '20 000 - 49 999 tkr', weight: 0 },
  { code: '7', label: '50 000 - 99 999 tkr', weight: 0 },
  { code: '8', label: '100 000 - 499 999 tkr', weight: 0 },
  { code: '9', label: '500 000 - 999 999 tkr', weight: 0 },
  { code: '10', label: '1 000 000 - 4 999 999 tkr', weight: 0 },
  { code: '11', label: '5 000 000 - 9 999 999 tkr', weight: 0 },
  { code: '12', label: '> 9 999 999 tkr', weight: 0 },
];

export const SE_EXPORT_IMPORT: readonly LabelledCode[] = [
  { code: null, label: 'Varken export eller import', weight: 0.8 },
  { code: null, label: 'Endast import', weight: 0.08 },
  { code: null, label: 'Endast export', weight: 0.05 },
  { code: null, label: 'Export och import', weight: 0.07 },
];

/** The first entry is the one public bodies get. */
export const SE_OWNER_CATEGORIES: readonly LabelledCode[] = [
  { code: null, label: 'Statligt kontrollerad', weight: 0.001 },
  { code: null, label: 'Kommunalt eller regionalt kontrollerad', weight: 0.002 },
  { code: null, label: 'Svenskkontrollerad koncern', weight: 0.1 },
  { code: null, label: 'Utlandskontrollerad koncern', weight: 0.02 },
  { code: null, label: 'Svenskt privat, ej i koncern', weight: 0.85 },
  { code: null, label: 'Uppgift saknas', weight: 0.027 },
];

export const SE_SME_CLASSES: readonly LabelledCode[] = [
  { code: null, label: 'Mikroföretag (0-9 anställda)', weight: 0 },
  { code: null, label: 'Små företag (10-49 anställda)', weight: 0 },
  { code: null, label: 'Medelstora företag (50-249 anställda)', weight: 0 },
  { code: null, label: 'Stora företag (250 anställda och fler)', weight: 0 },
];

export const SE_LISTINGS: readonly LabelledCode[] = [
  { code: 'XSTO', label: 'Nasdaq Stockholm', weight: 0.6 },
  { code: 'FNSE', label: 'Nasdaq First North Growth Market Sweden', weight: 0.25 },
  { code: 'XNGM', label: 'Nordic Growth Market', weight: 0.08 },
  { code: 'XSAT', label: 'Spotlight Stock Market', weight: 0.07 },
];
