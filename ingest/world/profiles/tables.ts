import { STATUS_CODES, type StatusCode } from '../../../src/contract/data-contract.ts';
import type { CapitalProfile, CountryProfile, DigitPattern, LegalForm, Role, StatusOption } from './types.ts';

/*
 * Compact table notations for the country profiles. Every profile has the same kinds of weighted lists;
 * written as one object per row they made seven files of the same long literal blocks. These builders
 * return exactly the objects the generator reads, in the order written.
 */

/** A weighted list written as `{ value: weight }`; object key order is insertion order for these keys. */
type Weights = Readonly<Record<string, number>>;

/** Name templates, `{ '{stem} {biz}': 0.35, ... }`. */
export function templates(table: Weights): { template: string; weight: number }[] {
  return Object.entries(table).map(([template, weight]) => ({ template, weight }));
}

/** Top-level domains of company web and mail addresses, `{ ee: 0.82, com: 0.15 }`. */
export function tlds(table: Weights): { tld: string; weight: number }[] {
  return Object.entries(table).map(([tld, weight]) => ({ tld, weight }));
}

/**
 * A digit pattern written as a mask: each run of `#` is one group of hashed digits, so
 * `'+358 40 ### ####'` is the format `'+358 40 %s %s'` with groups [3, 4].
 */
export function digits(mask: string, weight = 1): DigitPattern {
  return {
    format: mask.replace(/#+/g, '%s'),
    groups: (mask.match(/#+/g) ?? []).map((run) => run.length),
    weight,
  };
}

/**
 * Address texts where the full one is the short one (street, town, postcode as the country writes them)
 * followed by `rest`: the county, or the postcode the short one leaves out.
 */
export function addressTexts(
  short: string,
  rest: string,
  postcode: DigitPattern,
): { full: string; short: string; postcode: DigitPattern } {
  return { full: `${short}, ${rest}`, short, postcode };
}

/**
 * The Nordic address style (FI, NO, SE), "Storgata 1, 0150 Oslo, Oslo": street, postcode and town, then the
 * county; the town is the last element of a location's path and the county the first.
 */
export function nordicPlaces(
  postcode: DigitPattern,
): Pick<CountryProfile, 'address' | 'townLevel' | 'townStrip' | 'countyLevel'> {
  return {
    address: addressTexts('{street}, {pc} {town}', '{county}', postcode),
    townLevel: -1,
    townStrip: [],
    countyLevel: 0,
  };
}

/** Share-capital amounts as `[amount, weight]` rows (numbers, so not object keys, which would reorder). */
export function capital(
  common: readonly (readonly [amount: number, weight: number])[],
  tail: Omit<CapitalProfile, 'common'>,
): CapitalProfile {
  return { common: common.map(([amount, weight]) => ({ amount, weight })), ...tail };
}

/** Register roles as `[code, label, weight]` rows. */
export function roles(...rows: (readonly [code: string, label: string, weight: number])[]): Role[] {
  return rows.map(([code, label, weight]) => ({ code, label, weight }));
}

/** Status options as `[staatus, source, text, weight]` rows. */
export function statusOptions(
  ...rows: (readonly [StatusOption['staatus'], source: string | null, text: string, weight: number])[]
): StatusOption[] {
  return rows.map(([staatus, source, text, weight]) => ({ staatus, source, text, weight }));
}

/**
 * The states of a register that tells only registered, in liquidation, insolvent and deleted (EE, LV), as
 * `[source, text]` each; a family gives the first three shares and the deleted ones are the rest.
 */
export function fourStates(
  rows: Readonly<Record<'R' | 'L' | 'N' | 'K', readonly [source: string | null, text: string]>>,
): (active: number, liquidation: number, insolvent: number) => StatusOption[] {
  return (active, liquidation, insolvent) =>
    statusOptions(
      ['R', ...rows.R, active],
      ['L', ...rows.L, liquidation],
      ['N', ...rows.N, insolvent],
      ['K', ...rows.K, 1 - active - liquidation - insolvent],
    );
}

/**
 * Status options from the register's own code table as the official reader knows it (code → staatus and
 * text), as `[code, weight]` rows in draw order, so the world and the reader share one list of codes.
 */
export function codedStatuses(
  table: Readonly<Record<string, { readonly staatus: string; readonly text: string }>>,
  ...rows: (readonly [code: string, weight: number])[]
): StatusOption[] {
  return rows.map(([code, weight]) => {
    const state = table[code];
    if (!state || !(state.staatus in STATUS_CODES))
      throw new Error(`no status code ${code} in the register's table`);
    return { staatus: state.staatus as StatusCode, source: code, text: state.text, weight };
  });
}

/** Roles from the register's own code → label table, as `[code, weight]` rows. */
export function codedRoles(
  labels: Readonly<Record<string, string>>,
  ...rows: (readonly [code: string, weight: number])[]
): Role[] {
  return rows.map(([code, weight]) => {
    const label = labels[code];
    if (label === undefined) throw new Error(`no role code ${code} in the register's table`);
    return { code, label, weight };
  });
}

type FormDefaults = Pick<LegalForm, 'vatShare' | 'people' | 'filesAccounts'> &
  Partial<Pick<LegalForm, 'affixPosition'>> & {
    /** 'code': a form's name affix is its register code (EE "OÜ", NO "AS") unless the form says otherwise. */
    affix: 'code' | null;
  };

/**
 * The legal-form builder of one country: the country's defaults, then what a form says. `Required` names
 * fields every form of the country must give (LT gives each form its own affix).
 */
export function legalForms<Required extends keyof LegalForm = never>(defaults: FormDefaults) {
  return (f: Partial<LegalForm> & Pick<LegalForm, 'code' | 'label' | 'weight' | Required>): LegalForm => ({
    affix: defaults.affix === 'code' ? f.code : null,
    affixPosition: defaults.affixPosition ?? 'suffix',
    nameStyle: 'org',
    soleTrader: false,
    sizeShift: 0,
    vatShare: defaults.vatShare,
    capital: null,
    people: defaults.people,
    filesAccounts: defaults.filesAccounts,
    ...f,
  });
}
