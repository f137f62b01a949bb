/**
 * Registration-code formats per register, with the check digits the registers define. Each country's
 * profile (countries.ts `registrationCode`) names its rule: the API answers 400 for a code that fails it
 * (spec 4.4), the world generator and the ingest audit use the same rules, and tests use them as the
 * independent check of the SQL that generates codes.
 */

const digits = (s: string): number[] => [...s].map(Number);
const weighted = (ds: number[], weights: number[]): number =>
  ds.reduce((sum, d, i) => sum + d * weights[i]!, 0);

/** EE registrikood: 8 digits, last one a mod-11 check with two weight rounds (as the isikukood). */
export function eeCheckDigit(first7: string): number {
  const ds = digits(first7);
  let r = weighted(ds, [1, 2, 3, 4, 5, 6, 7]) % 11;
  if (r === 10) r = weighted(ds, [3, 4, 5, 6, 7, 8, 9]) % 11;
  return r === 10 ? 0 : r;
}

/** NO organisasjonsnummer: 9 digits, mod 11 with weights 3,2,7,6,5,4,3,2; remainder 1 means no valid number. */
export function noCheckDigit(first8: string): number | null {
  const r = 11 - (weighted(digits(first8), [3, 2, 7, 6, 5, 4, 3, 2]) % 11);
  if (r === 11) return 0;
  return r === 10 ? null : r;
}

/** FI Y-tunnus: 7 digits, '-', check digit; mod 11 with weights 7,9,10,5,8,4,2; remainder 1 is never issued. */
export function fiCheckDigit(first7: string): number | null {
  const r = weighted(digits(first7), [7, 9, 10, 5, 8, 4, 2]) % 11;
  if (r === 0) return 0;
  return r === 1 ? null : 11 - r;
}

/** SE organisationsnummer: 10 digits, Luhn over the first nine. */
export function luhnCheckDigit(first: string): number {
  let sum = 0;
  const ds = digits(first);
  for (let i = 0; i < ds.length; i++) {
    // Weights alternate 2,1,2,... from the left for a 9-digit body (i.e. from the right of the full number).
    let v = ds[i]! * ((ds.length - i) % 2 === 1 ? 2 : 1);
    if (v > 9) v -= 9;
    sum += v;
  }
  return (10 - (sum % 10)) % 10;
}

/** PL REGON (9 digits): weights 8,9,2,3,4,5,6,7 mod 11, 10 becomes 0. */
export function regonCheckDigit(first8: string): number {
  const r = weighted(digits(first8), [8, 9, 2, 3, 4, 5, 6, 7]) % 11;
  return r === 10 ? 0 : r;
}

/** PL NIP (10 digits): weights 6,5,7,2,3,4,5,6,7 mod 11; remainder 10 is never issued. */
export function nipCheckDigit(first9: string): number | null {
  const r = weighted(digits(first9), [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11;
  return r === 10 ? null : r;
}

export function isValidEeCode(code: string): boolean {
  return /^[1-9]\d{7}$/.test(code) && eeCheckDigit(code.slice(0, 7)) === Number(code[7]);
}
export function isValidNoCode(code: string): boolean {
  return /^[89]\d{8}$/.test(code) && noCheckDigit(code.slice(0, 8)) === Number(code[8]);
}
export function isValidFiCode(code: string): boolean {
  return /^\d{7}-\d$/.test(code) && fiCheckDigit(code.slice(0, 7)) === Number(code[8]);
}
/** Organisations have a third digit of 2 or more, which keeps them apart from personal numbers. */
export function isValidSeCode(code: string): boolean {
  return /^\d{2}[2-9]\d{7}$/.test(code) && luhnCheckDigit(code.slice(0, 9)) === Number(code[9]);
}
export function isValidRegon(code: string): boolean {
  return /^\d{9}$/.test(code) && regonCheckDigit(code.slice(0, 8)) === Number(code[8]);
}
export function isValidNip(code: string): boolean {
  return /^\d{10}$/.test(code) && nipCheckDigit(code.slice(0, 9)) === Number(code[9]);
}

/**
 * PL registrikood is the KRS number (10 digits, zero-padded, no check digit) for entities in KRS and the
 * 9-digit REGON for those outside it (sole traders and civil partnerships). See docs/data-contract.md.
 */
export function isValidPlCode(code: string): boolean {
  return /^\d{10}$/.test(code) || isValidRegon(code);
}
