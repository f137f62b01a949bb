import { fixed } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Finland's official file (registry-formats.md section 5): PRH's YTJ open data v3 bulk, a ZIP holding one
 * JSON array of all companies (~1.4 GB, on a single line), refreshed daily. Keys are read by name.
 */

export const FI_FILE_NAMES = {
  /** As the download saves it; the member is the JSON array. */
  allCompanies: 'all_companies.zip',
  member: 'all_companies.json',
} as const;

export const FI_FILES: readonly OfficialFile[] = [
  {
    key: 'companies',
    title: 'PRH YTJ open data v3, all companies (JSON array in a ZIP)',
    match: /^all_companies(\.json)?$/i,
    required: true,
    // The API answers with the ZIP for `Accept: application/zip`, its documented media type.
    downloads: fixed(
      'https://avoindata.prh.fi/opendata-ytj-api/v3/all_companies',
      FI_FILE_NAMES.allCompanies,
      // Without it PRH answers with JSON rather than the bulk zip (registry-formats.md, FI).
      { accept: 'application/zip' },
    ),
    minBytes: 10_000_000,
  },
];

/** languageCode of PRH descriptions and post offices: 1 Finnish, 2 Swedish, 3 English. */
export const FI_LANGUAGE = { fi: '1', sv: '2', en: '3' } as const;

/** The trade register's states (registry-formats.md 5.1; "4" ceased, "2" contested) and situations. */
export const FI_STATUS = {
  ceased: { tradeRegisterStatus: '4', staatus: 'K', text: 'Lakannut' },
  registered: { staatus: 'R', text: 'Rekisterissä' },
  situations: [
    { type: 'KONK', staatus: 'N', text: 'Konkurssissa' },
    { type: 'SELTILA', staatus: 'L', text: 'Selvitystilassa' },
    { type: 'SANE', staatus: 'T', text: 'Yrityssaneerauksessa' },
  ],
} as const;

/** registeredEntries[].register of the VAT register (the Wolt record: "Liiketoiminnasta arvonlisäverovelvollinen"). */
export const FI_VAT_REGISTER = '6';
