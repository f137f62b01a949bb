/** The seven countries of spec part 1, with the facts every layer needs about each. */
export const COUNTRY_CODES = ['EE', 'LV', 'LT', 'NO', 'FI', 'PL', 'SE'] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];

export type IndustrySystem = 'EMTAK' | 'NACE' | 'EVRK' | 'PKD' | 'SNI';

export interface CountryInfo {
  code: CountryCode;
  name: string;
  /** Spec 2.7 `industry_system` of the filters response. */
  industrySystem: IndustrySystem;
  /** The register's own language, offered as `lang` on /activities where the classifier has labels. */
  nativeLanguage: string;
  /** Spec 4.2: NO and SE have no location tree; /locations answers 400 for them. */
  hasLocationTree: boolean;
  /** Spec 8 metering: default row price in credits (configuration may override). */
  defaultRowPrice: number;
  /** Spec 2.4 coverage: FI, PL and SE have no series, history is `none` and not charged. */
  hasHistory: boolean;
}

export const COUNTRIES: Record<CountryCode, CountryInfo> = {
  EE: {
    code: 'EE',
    name: 'Estonia',
    industrySystem: 'EMTAK',
    nativeLanguage: 'et',
    hasLocationTree: true,
    defaultRowPrice: 0.04,
    hasHistory: true,
  },
  LV: {
    code: 'LV',
    name: 'Latvia',
    industrySystem: 'NACE',
    nativeLanguage: 'lv',
    hasLocationTree: true,
    defaultRowPrice: 0.08,
    hasHistory: true,
  },
  LT: {
    code: 'LT',
    name: 'Lithuania',
    industrySystem: 'EVRK',
    nativeLanguage: 'lt',
    hasLocationTree: true,
    defaultRowPrice: 0.08,
    hasHistory: true,
  },
  NO: {
    code: 'NO',
    name: 'Norway',
    industrySystem: 'NACE',
    nativeLanguage: 'nb',
    hasLocationTree: false,
    defaultRowPrice: 0.1,
    hasHistory: true,
  },
  FI: {
    code: 'FI',
    name: 'Finland',
    industrySystem: 'NACE',
    nativeLanguage: 'fi',
    hasLocationTree: true,
    defaultRowPrice: 0.04,
    hasHistory: false,
  },
  PL: {
    code: 'PL',
    name: 'Poland',
    industrySystem: 'PKD',
    nativeLanguage: 'pl',
    hasLocationTree: true,
    defaultRowPrice: 0.04,
    hasHistory: false,
  },
  SE: {
    code: 'SE',
    name: 'Sweden',
    industrySystem: 'SNI',
    nativeLanguage: 'sv',
    hasLocationTree: false,
    defaultRowPrice: 0.24,
    hasHistory: false,
  },
};

export function isCountryCode(value: string): value is CountryCode {
  return (COUNTRY_CODES as readonly string[]).includes(value);
}
