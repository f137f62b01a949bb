import type { CountryCode } from '../../../src/contract/countries.ts';
import type { CountryProfile } from '../profiles/types.ts';
import type { WorldPlan } from '../world-lists.ts';
import { MAX_SPAN, skipDigit } from './macros.ts';

/**
 * Registration codes in each register's real format, unique by construction: a family's local row index
 * goes through a bijection onto the family's code range (`w_bij`: index * prime + seeded offset, mod the
 * range size), and the check digit is computed from the result. Where a check rule has a remainder that is
 * never issued (NO, FI, PL NIP), the index picks a prefix (index div 9) and the k-th valid last digit
 * (index mod 9) instead, which skips the bad value without a window or a retry.
 *
 * Bodies are computed as columns in up to two stages before the codes themselves: a check-digit macro
 * repeats its argument once per digit, and an argument that is a column costs nothing to repeat.
 * Expressions read `i` (row), `fam` (1-based family), `li` (row within the family) and the list table L.
 */

const famBij = (x: string): string =>
  `w_bij(${x}, L.fam_code_lo[fam], L.fam_code_span[fam], w_h(fam, 'code') % L.fam_code_span[fam])`;

export interface CodeSql {
  /** `expr AS name` items computed first, then the second stage (may read the first). */
  stage1: string[];
  stage2: string[];
  registrikood: string;
  /** PL only. */
  plRegon: string | null;
  plNip: string | null;
  /** The country's VAT number where it is not built from registrikood (EE KMKR, LT PVM). */
  vatBody: string | null;
}

/** Bodies each family needs, to check a family's code range is large enough at this scale. */
function checkCapacity(country: CountryCode, profile: CountryProfile, plan: WorldPlan): void {
  const perPrefix = country === 'NO' || country === 'FI' ? 9 : 1;
  profile.families.forEach((f, k) => {
    const count = plan.families[k]?.count ?? 0;
    const span = plan.spans[k] ?? 0;
    if (f.noCode || f.codeSpan === 0) return;
    if (span > MAX_SPAN)
      throw new Error(`${country}: family ${f.key} code range ${span} exceeds ${MAX_SPAN}`);
    if (Math.ceil(count / perPrefix) > span) {
      throw new Error(
        `${country}: family ${f.key} needs ${count} codes but its range holds ${span * perPrefix}; lower the scale`,
      );
    }
  });
}

export function codeSql(country: CountryCode, profile: CountryProfile, plan: WorldPlan): CodeSql {
  checkCapacity(country, profile, plan);
  const none = { plRegon: null, plNip: null, vatBody: null };
  switch (country) {
    case 'EE':
      return {
        ...none,
        // KMKR numbers are "10" + six digits + check; unique per row through their own bijection.
        stage1: [
          `${famBij('li')} AS code_body`,
          `10000000 + w_bij(i, 0, 1000000, w_h(0, 'kmkr') % 1000000) AS kmkr_body`,
        ],
        stage2: [],
        registrikood: `code_body::VARCHAR || w_ee_check(code_body)::VARCHAR`,
        vatBody: `'EE' || kmkr_body::VARCHAR || w_kmkr_check(kmkr_body)::VARCHAR`,
      };
    case 'LV':
      return {
        ...none,
        stage1: [`${famBij('li')} AS code_body`],
        stage2: [],
        registrikood: `L.fam_prefix[fam] || lpad(code_body::VARCHAR, 10, '0')`,
      };
    case 'LT':
      return {
        ...none,
        // Legal persons' PVM codes: seven digits, the digit 1, and the personal-code style check digit.
        stage1: [
          `${famBij('li')} AS code_body`,
          `w_bij(i, 1000000, 8999999, w_h(0, 'ltvat') % 8999999) * 10 + 1 AS ltvat_body`,
        ],
        stage2: [],
        registrikood: `code_body::VARCHAR`,
        vatBody: `'LT' || ltvat_body::VARCHAR || w_lt_check(ltvat_body)::VARCHAR`,
      };
    case 'NO':
      return {
        ...none,
        stage1: [`${famBij('li // 9')} AS code_prefix`],
        stage2: [
          `code_prefix * 10 + ${skipDigit('code_prefix', 'li % 9', [3, 2, 7, 6, 5, 4, 3], 2, 1)} AS code_body`,
        ],
        registrikood: `code_body::VARCHAR || w_no_check(code_body)::VARCHAR`,
      };
    case 'FI':
      return {
        ...none,
        stage1: [`${famBij('li // 9')} AS code_prefix`],
        stage2: [
          `code_prefix * 10 + ${skipDigit('code_prefix', 'li % 9', [7, 9, 10, 5, 8, 4], 2, 1)} AS code_body`,
        ],
        registrikood: `lpad(code_body::VARCHAR, 7, '0') || '-' || w_fi_check(code_body)::VARCHAR`,
      };
    case 'PL': {
      // KRS entities are known by their KRS number; everything else by its REGON (registration-codes.ts).
      const krsFamily = profile.families.findIndex((f) => f.key === 'krs') + 1;
      const regon = `regon_body::VARCHAR || w_regon_check(regon_body)::VARCHAR`;
      return {
        stage1: [
          `${famBij('li')} AS code_body`,
          `w_bij(i, 10000000, 89999999, w_h(0, 'regon') % 89999999) AS regon_body`,
          `w_bij(i // 9, 10000000, 89999999, w_h(0, 'nip') % 89999999) AS nip_prefix`,
        ],
        stage2: [
          `nip_prefix * 10 + ${skipDigit('nip_prefix', 'i % 9', [6, 5, 7, 2, 3, 4, 5, 6], 7, 10)} AS nip_body`,
        ],
        registrikood: `CASE WHEN fam = ${krsFamily} THEN lpad(code_body::VARCHAR, 10, '0') ELSE ${regon} END`,
        plRegon: regon,
        plNip: `nip_body::VARCHAR || w_nip_check(nip_body)::VARCHAR`,
        vatBody: null,
      };
    }
    case 'SE':
      return {
        ...none,
        stage1: [`${famBij('li')} AS code_body`],
        stage2: [],
        registrikood: `CASE WHEN L.fam_no_code[fam] THEN '' ELSE code_body::VARCHAR || w_luhn(code_body)::VARCHAR END`,
      };
    default:
      // A country without a check-digit rule here (a test country): the code is the family's number.
      return {
        ...none,
        stage1: [`${famBij('li')} AS code_body`],
        stage2: [],
        registrikood: `code_body::VARCHAR`,
      };
  }
}
