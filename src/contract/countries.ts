import {
  isValidEeCode,
  isValidFiCode,
  isValidNoCode,
  isValidPlCode,
  isValidSeCode,
} from './registration-codes.ts';

/**
 * The seven countries of spec part 1. Each is one declared profile below; every layer (API, wallet, ingest,
 * world, serving build, web pages) reads what it needs about a country from here and lists countries from
 * COUNTRY_CODES. Which filters a country has is said by each filter (filters.ts), which columns it fills by
 * the data contract. docs/adding-a-country.md lists what a new country needs.
 */
export const COUNTRY_CODES = ['EE', 'LV', 'LT', 'NO', 'FI', 'PL', 'SE'] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];

export type IndustrySystem = 'EMTAK' | 'NACE' | 'EVRK' | 'PKD' | 'SNI';

/**
 * Spec 4.2: how /locations answers. `codes`: a tree whose nodes carry the register's own codes
 * (EHAK, ATVK, TERC); `names`: a tree whose nodes match by name variants (LT, whose register has no
 * codes); `none`: no tree, /locations answers 400.
 */
export type LocationTreeKind = 'codes' | 'names' | 'none';

/** Spec 2.3 `people`: not published, published as the register writes them, or as initials only. */
export type PeoplePolicy = 'none' | 'full' | 'initials';

/** A registration-code format: the 400 rule of spec 4.4, also the ingest audit's and the world's check. */
export interface RegistrationCodeRule {
  describe: string;
  isValid: (code: string) => boolean;
}

export interface CountryInfo {
  code: CountryCode;
  name: string;
  /** ISO 4217 currency of the register's money figures (share capital, annual reports). */
  currency: string;
  /** Spec 8 metering: default row price in credits (configuration may override). */
  defaultRowPrice: number;
  registrationCode: RegistrationCodeRule;
  /** Spec 2.7 `industry_system` of the filters response. */
  industrySystem: IndustrySystem;
  /** The register's own language, offered as `lang` on /activities where the classifier has labels. */
  nativeLanguage: string;
  locationTree: LocationTreeKind;
  /** Spec 4.2: NO and SE have no location tree; the same as `locationTree !== 'none'`. */
  hasLocationTree: boolean;
  /** Spec 2.4 coverage: FI, PL and SE have no series, history is `none` and not charged. */
  hasHistory: boolean;
  people: PeoplePolicy;
  /**
   * Spec 2.2 sole traders: `forSale` false keeps them out of every answer (their data is a private
   * person's; `not_for_sale` in the data contract); `withoutCode` where their only number is a personal ID,
   * so registrikood is ''.
   */
  soleTraders: { forSale: boolean; withoutCode: boolean };
  /** Spec 2.5: the register publishes workplaces (arbetsställen), served as a paid part of the detail. */
  workplaces: boolean;
}

const profile = (p: Omit<CountryInfo, 'hasLocationTree'>): CountryInfo => ({
  ...p,
  hasLocationTree: p.locationTree !== 'none',
});

const SOLE_TRADERS_SOLD = { forSale: true, withoutCode: false };

export const COUNTRIES: Record<CountryCode, CountryInfo> = {
  EE: profile({
    code: 'EE',
    name: 'Estonia',
    currency: 'EUR',
    defaultRowPrice: 0.04,
    registrationCode: { describe: '8 digits with a valid check digit', isValid: isValidEeCode },
    industrySystem: 'EMTAK',
    nativeLanguage: 'et',
    locationTree: 'codes',
    hasHistory: true,
    people: 'full',
    soleTraders: SOLE_TRADERS_SOLD,
    workplaces: false,
  }),
  LV: profile({
    code: 'LV',
    name: 'Latvia',
    currency: 'EUR',
    defaultRowPrice: 0.08,
    registrationCode: { describe: '11 digits', isValid: (c) => /^\d{11}$/.test(c) },
    industrySystem: 'NACE',
    nativeLanguage: 'lv',
    locationTree: 'codes',
    hasHistory: true,
    people: 'full',
    soleTraders: SOLE_TRADERS_SOLD,
    workplaces: false,
  }),
  LT: profile({
    code: 'LT',
    name: 'Lithuania',
    currency: 'EUR',
    defaultRowPrice: 0.08,
    registrationCode: { describe: '9 digits', isValid: (c) => /^\d{9}$/.test(c) },
    industrySystem: 'EVRK',
    nativeLanguage: 'lt',
    locationTree: 'names',
    hasHistory: true,
    people: 'none',
    soleTraders: SOLE_TRADERS_SOLD,
    workplaces: false,
  }),
  NO: profile({
    code: 'NO',
    name: 'Norway',
    currency: 'NOK',
    defaultRowPrice: 0.1,
    registrationCode: {
      describe: '9 digits (organisasjonsnummer) with a valid mod-11 check digit',
      isValid: isValidNoCode,
    },
    industrySystem: 'NACE',
    nativeLanguage: 'nb',
    locationTree: 'none',
    hasHistory: true,
    people: 'full',
    soleTraders: SOLE_TRADERS_SOLD,
    workplaces: false,
  }),
  FI: profile({
    code: 'FI',
    name: 'Finland',
    currency: 'EUR',
    defaultRowPrice: 0.04,
    registrationCode: {
      describe: 'a Y-tunnus: 7 digits, a hyphen and a valid check digit',
      isValid: isValidFiCode,
    },
    industrySystem: 'NACE',
    nativeLanguage: 'fi',
    locationTree: 'codes',
    hasHistory: false,
    people: 'full',
    soleTraders: SOLE_TRADERS_SOLD,
    workplaces: false,
  }),
  PL: profile({
    code: 'PL',
    name: 'Poland',
    currency: 'PLN',
    defaultRowPrice: 0.04,
    registrationCode: {
      describe: 'a 10-digit KRS number or a 9-digit REGON with a valid check digit',
      isValid: isValidPlCode,
    },
    industrySystem: 'PKD',
    nativeLanguage: 'pl',
    locationTree: 'codes',
    hasHistory: false,
    people: 'initials',
    // CEIDG sole traders are known by REGON but are private persons.
    soleTraders: { forSale: false, withoutCode: false },
    workplaces: false,
  }),
  SE: profile({
    code: 'SE',
    name: 'Sweden',
    currency: 'SEK',
    defaultRowPrice: 0.24,
    registrationCode: {
      describe: '10 digits (organisationsnummer) with a valid Luhn check digit',
      isValid: isValidSeCode,
    },
    industrySystem: 'SNI',
    nativeLanguage: 'sv',
    locationTree: 'none',
    hasHistory: false,
    people: 'none',
    soleTraders: { forSale: false, withoutCode: true },
    workplaces: true,
  }),
};

export function isCountryCode(value: string): value is CountryCode {
  return (COUNTRY_CODES as readonly string[]).includes(value);
}

export function isValidRegistrationCode(country: CountryCode, code: string): boolean {
  return COUNTRIES[country].registrationCode.isValid(code);
}

/** The countries whose register publishes workplaces (spec 2.5). */
export const workplaceCountries = (): CountryCode[] => COUNTRY_CODES.filter((c) => COUNTRIES[c].workplaces);

/**
 * Adds a country for the life of the process. For tests only (a throwaway country that proves a profile
 * is all a new country needs, test/pipeline/test-country.test.ts, test/helpers/test-country.ts): production declares every country
 * above. Call it before importing modules that build schemas from COUNTRY_CODES (api-schemas.ts).
 */
export function registerCountry(info: Omit<CountryInfo, 'hasLocationTree'>): void {
  if (isCountryCode(info.code)) throw new Error(`country ${info.code} is declared already`);
  (COUNTRY_CODES as unknown as string[]).push(info.code);
  (COUNTRIES as Record<string, CountryInfo>)[info.code] = profile(info);
}
