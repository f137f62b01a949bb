import type { StatusCode } from '../../../src/contract/data-contract.ts';
import type { LocationLeaf } from '../../reference/types.ts';

/**
 * A country profile is data only: the world generator runs one SQL skeleton for every country and takes
 * everything national (code lists, weights, word lists, formats) from here. Every code list carries a
 * source comment in its own file; docs/world.md collects them.
 */

/** How a name affix sits in the register's name column. */
export type AffixPosition = 'prefix' | 'suffix' | 'quoted' | 'none';

/** Which name template set a form draws from. */
export type NameStyle = 'org' | 'person' | 'assoc' | 'housing';

/** Where a form's publicly registered people come from (spec 2.3 `people`). */
export type PeopleStyle = 'board' | 'owner' | 'none';

export interface Role {
  /** The register's own role code where one is known (see the country file), else its label. */
  code: string;
  label: string;
  weight: number;
}

export interface CapitalProfile {
  /** Typical amounts (legal minimums, old-currency conversions) and how often each occurs. */
  common: readonly { amount: number; weight: number }[];
  /** Share of rows drawn from a log-normal tail instead of the common amounts. */
  tailShare: number;
  /** Median of the tail, in the country's currency. */
  tailMedian: number;
  /** Decimal places written in the `kapital` text ("2500.00 EUR" vs "30000 NOK"). */
  decimals: number;
}

export interface LegalForm {
  /** `oiguslik_vorm`: the register's own legal-form code. */
  code: string;
  /** `oiguslik_vorm_tekstina`: its label in the register's language. */
  label: string;
  weight: number;
  /** The abbreviation as it appears in company names, where registers put one there. */
  affix: string | null;
  affixPosition: AffixPosition;
  nameStyle: NameStyle;
  soleTrader: boolean;
  /** Added to the log of the size draw: public companies are larger than private ones. */
  sizeShift: number;
  /** Probability of being VAT-registered while operating. */
  vatShare: number;
  capital: CapitalProfile | null;
  people: PeopleStyle;
  /** Roles for `people`; falls back to the country's default roles. */
  roles?: readonly Role[];
  /** Files annual reports where the country publishes annual figures (EE/LV/NO/PL). */
  filesAccounts: boolean;
}

export interface StatusOption {
  staatus: StatusCode;
  /** `source_status`: the register's own status code, null where the register has none for this state. */
  source: string | null;
  /** `staatus_tekstina`, in the register's language. */
  text: string;
  weight: number;
}

/**
 * A code family is a block of rows that share one registration-code range: registers hand out codes by
 * entity kind (EE 1xxxxxxx companies, 8xxxxxxx associations; SE first digit per legal form), so the
 * generator gives each family its own contiguous index range and its own bijection onto its code range.
 */
export interface CodeFamily {
  key: string;
  /** Share of the country's rows. */
  share: number;
  forms: readonly LegalForm[];
  statuses: readonly StatusOption[];
  /** Digits written before the code body (LV '4' / '5'); empty elsewhere. */
  codePrefix?: string;
  /** Lowest code body and how many bodies the family may use (see ingest/world/sql/codes.ts). */
  codeLo: number;
  codeSpan: number;
  /** Where the register's number space allows it (PL KRS), the range may grow to this at larger scales. */
  maxCodeSpan?: number;
  /** Registration dates fall between this date and the world date (or lastRegistration). */
  firstRegistration: string;
  lastRegistration?: string;
  /** Mean company age in years (exponential), before clipping to the date range. */
  meanAgeYears: number;
  /** SE sole traders: the only code is a personal ID, so registrikood is '' (spec 2.2). */
  noCode?: boolean;
  /** Spec 2.3 contact `source` per contact kind where it is not the business register (null). */
  contactSources?: Partial<Record<ContactKind, string>>;
}

/** A place cluster: leaves whose path contains one of the names get `share` of all rows between them. */
export interface PlaceCluster {
  names: readonly string[];
  share: number;
}

/** A digit pattern: printf format with up to four %s groups, filled from a hashed digit string. */
export interface DigitPattern {
  format: string;
  groups: readonly number[];
  weight: number;
}

export interface NameWords {
  firstMale: readonly string[];
  firstFemale: readonly string[];
  lastMale: readonly string[];
  /** Same as lastMale where surnames do not inflect by gender. */
  lastFemale: readonly string[];
  /** Two halves of brand-like compound names ("Põhja" + "täht"); the second half is appended as written. */
  stemHeads: readonly string[];
  stemTails: readonly string[];
  /** '' for languages that write compounds as one word, ' ' for the Baltic two-word style. */
  stemJoiner: string;
  /** Business words per NACE section letter; `_` is the fallback. */
  business: Readonly<Record<string, readonly string[]>>;
  /** Words for associations and foundations. */
  association: readonly string[];
  streets: readonly string[];
  /** Name templates per style, with weights. Tokens: {stem} {head} {biz} {first} {last} {town} {street} {nr} {assoc}. */
  templates: Readonly<Record<NameStyle, readonly { template: string; weight: number }[]>>;
}

/** The kinds of contact a register publishes (spec 2.3 `liik`, lower case). */
export type ContactKind = 'email' | 'www' | 'tel' | 'mob';

export interface ContactHabits {
  /** Share of companies that publish each kind. */
  published: Readonly<Record<ContactKind, number>>;
  /** Role mailbox names used on the company's own domain. */
  mailboxes: readonly string[];
  tlds: readonly { tld: string; weight: number }[];
  mobile: readonly DigitPattern[];
  landline: readonly DigitPattern[];
}

export interface CountryProfile {
  /** Row count at scale 1 (spec sizes, see docs/world.md). */
  total: number;
  families: readonly CodeFamily[];
  currency: string;
  /** Money per local-currency unit relative to EUR, for productivity figures given in EUR. */
  eurRate: number;
  /** Share of active (R) companies that actually trade; the rest are dormant and have no figures. */
  operatingShare: number;
  /** Largest employee count a single company reaches. */
  maxEmployees: number;
  defaultRoles: readonly Role[];
  names: NameWords;
  contacts: ContactHabits;
  /** Address text templates. Tokens: {path} {town} {street} {pc} {county}. */
  address: { full: string; short: string; postcode: DigitPattern };
  /** Capital region and big cities; the other leaves share the remainder by their base weight. */
  clusters: readonly PlaceCluster[];
  /**
   * Relative weight of a leaf where the reference has no population: towns and city districts hold more
   * companies than villages, which only the leaf's name or code tells (EE "... linn", PL TERC kind).
   */
  placeFactor?: (leaf: LocationLeaf) => number;
  /** Index into a leaf's path that names its town for addresses and names (negative counts from the end). */
  townLevel: number;
  /** Words stripped from a path element to make it a town name ("Tartu" from "Tartu linn"). */
  townStrip: readonly string[];
  /** Town names that stripping cannot produce (LT "Vilniaus m. sav." is the city of Vilnius). */
  townNames?: Readonly<Record<string, string>>;
  /** Index into a leaf's path that names its county (for address texts). */
  countyLevel: number;
  /** PL TERC spells voivodeships in capitals; addresses write them in lower case. */
  countyLowerCase?: boolean;
}
