import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The SQL macros every country's generator uses. All randomness is `hash(seed, country, row, tag)`: a pure
 * function of its inputs, so the same seed gives the same rows on any thread count and the row order of
 * intermediate results never matters. `seed` and `country` are integers validated before they get here
 * (the only values spliced into SQL text; everything national is bound, see world-lists.ts).
 */

/** A positive prime larger than any code range, so `x * STRIDE mod span` is a bijection on [0, span). */
export const STRIDE = 1_000_000_007;
/** Largest code range a family may have, so the bijection never overflows BIGINT. */
export const MAX_SPAN = 9_000_000_000;

/** SQL for a weighted digit sum of an integer body, weights left to right over `weights.length` digits. */
export function weightedDigits(expr: string, weights: readonly number[]): string {
  const n = weights.length;
  return `(${weights.map((w, j) => `((${expr}) // ${10 ** (n - 1 - j)} % 10) * ${w}`).join(' + ')})`;
}

/**
 * SQL for the k-th (0..8) last digit of a body whose mod-11 check would be "never issued" for exactly one
 * digit value: numbers the nine other digits so every (prefix, k) pair gives a different valid body. The
 * bad digit d solves (S + w*d) mod 11 = bad, i.e. d = (bad - S) * w^-1 mod 11; when that is 10 no digit is
 * bad and k maps to itself.
 */
export function skipDigit(
  prefix: string,
  k: string,
  prefixWeights: readonly number[],
  lastWeight: number,
  bad: number,
): string {
  const inverse = [...Array(11).keys()].find((x) => (x * lastWeight) % 11 === 1);
  if (inverse === undefined) throw new Error(`weight ${lastWeight} has no inverse mod 11`);
  const s = weightedDigits(prefix, prefixWeights);
  const dBad = `((((${bad} - ${s}) % 11 + 11) % 11) * ${inverse} % 11)`;
  return `(${k} + CASE WHEN ${k} >= ${dBad} THEN 1 ELSE 0 END)`;
}

const digit = (expr: string, pos: number): string => `((${expr}) // ${10 ** pos} % 10)`;
const luhnTerm = (expr: string, pos: number, weight: number): string =>
  weight === 2
    ? `(${digit(expr, pos)} * 2 - CASE WHEN ${digit(expr, pos)} >= 5 THEN 9 ELSE 0 END)`
    : digit(expr, pos);

export async function createWorldMacros(
  conn: DuckDBConnection,
  seed: number,
  country: number,
): Promise<void> {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`invalid seed ${seed}`);
  // The country's index in COUNTRY_CODES, hashed as a UTINYINT.
  if (!Number.isInteger(country) || country < 0 || country > 255)
    throw new Error(`invalid country index ${country}`);
  const luhnSum = [...Array(9).keys()].map((j) => luhnTerm('b', 8 - j, j % 2 === 0 ? 2 : 1)).join(' + ');
  const macros = [
    // hash() of several values is not well mixed across values (two tags of one row correlate at 0.6),
    // so the combined hash goes through hash() of a UBIGINT once more, a full 64-bit finaliser.
    `w_h(i, tag) AS hash(hash(${seed}::UBIGINT, ${country}::UTINYINT, i, tag))`,
    `w_h2(i, j, tag) AS hash(hash(${seed}::UBIGINT, ${country}::UTINYINT, i, j, tag))`,
    // 53 random bits into [0, 1): a double holds them exactly.
    `w_u(i, tag) AS (w_h(i, tag) >> 11)::DOUBLE / 9007199254740992.0`,
    `w_u2(i, j, tag) AS (w_h2(i, j, tag) >> 11)::DOUBLE / 9007199254740992.0`,
    // Box-Muller: a standard normal from two uniforms (1 - u keeps ln away from zero).
    `w_n(i, tag) AS sqrt(-2.0 * ln(1.0 - w_u(i, tag || '/a'))) * cos(2.0 * pi() * w_u(i, tag || '/b'))`,
    `w_n2(i, j, tag) AS sqrt(-2.0 * ln(1.0 - w_u2(i, j, tag || '/a'))) * cos(2.0 * pi() * w_u2(i, j, tag || '/b'))`,
    `w_pick(lst, u) AS lst[1 + floor(u * len(lst))::BIGINT]`,
    // Pick from one inner list of a flattened list of lists (world-lists.ts nested()).
    `w_pickn(flat, off, n, u) AS flat[off + 1 + floor(u * n)::BIGINT]`,
    `w_digits(i, tag) AS lpad((w_h(i, tag) % 1000000000000000)::VARCHAR, 15, '0')`,
    `w_digits2(i, j, tag) AS lpad((w_h2(i, j, tag) % 1000000000000000)::VARCHAR, 15, '0')`,
    // BIGINT is enough: x < span <= MAX_SPAN keeps x * STRIDE + off below 2^63. The casts matter: an
    // offset from hash() is UBIGINT, which would make the sum HUGEINT and every check-digit step on it
    // some 25 times slower.
    `w_bij(x, lo, span, off) AS (lo + (x::BIGINT * ${STRIDE} + off::BIGINT) % span)::BIGINT`,
    // Check digits; src/contract/registration-codes.ts holds the same rules in TypeScript.
    `w_ee_check(b) AS CASE WHEN ${weightedDigits('b', [1, 2, 3, 4, 5, 6, 7])} % 11 < 10
       THEN ${weightedDigits('b', [1, 2, 3, 4, 5, 6, 7])} % 11
       WHEN ${weightedDigits('b', [3, 4, 5, 6, 7, 8, 9])} % 11 < 10
       THEN ${weightedDigits('b', [3, 4, 5, 6, 7, 8, 9])} % 11 ELSE 0 END`,
    `w_no_check(b) AS (11 - ${weightedDigits('b', [3, 2, 7, 6, 5, 4, 3, 2])} % 11) % 11`,
    `w_fi_check(b) AS CASE WHEN ${weightedDigits('b', [7, 9, 10, 5, 8, 4, 2])} % 11 = 0 THEN 0
       ELSE 11 - ${weightedDigits('b', [7, 9, 10, 5, 8, 4, 2])} % 11 END`,
    `w_luhn(b) AS (10 - (${luhnSum}) % 10) % 10`,
    `w_regon_check(b) AS (${weightedDigits('b', [8, 9, 2, 3, 4, 5, 6, 7])} % 11) % 10`,
    `w_nip_check(b) AS ${weightedDigits('b', [6, 5, 7, 2, 3, 4, 5, 6, 7])} % 11`,
    // EE VAT (KMKR): weights 3,7,1 repeated, the nine digits sum to a multiple of 10.
    `w_kmkr_check(b) AS (10 - ${weightedDigits('b', [3, 7, 1, 3, 7, 1, 3, 7])} % 10) % 10`,
    // LT VAT of a legal person: the personal-code mod-11 rule over eight digits, two weight rounds.
    `w_lt_check(b) AS CASE WHEN ${weightedDigits('b', [1, 2, 3, 4, 5, 6, 7, 8])} % 11 < 10
       THEN ${weightedDigits('b', [1, 2, 3, 4, 5, 6, 7, 8])} % 11
       WHEN ${weightedDigits('b', [3, 4, 5, 6, 7, 8, 9, 1])} % 11 < 10
       THEN ${weightedDigits('b', [3, 4, 5, 6, 7, 8, 9, 1])} % 11 ELSE 0 END`,
  ];
  for (const m of macros) await conn.run(`CREATE OR REPLACE TEMP MACRO ${m}`);
}
