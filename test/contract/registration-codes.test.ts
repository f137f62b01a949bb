import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eeCheckDigit,
  fiCheckDigit,
  isValidEeCode,
  isValidFiCode,
  isValidNip,
  isValidNoCode,
  isValidPlCode,
  isValidRegon,
  isValidSeCode,
  luhnCheckDigit,
  nipCheckDigit,
  noCheckDigit,
  regonCheckDigit,
} from '../../src/contract/registration-codes.ts';
import { isValidRegistrationCode } from '../../src/contract/countries.ts';

const digitString = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));

/** Changes one digit of a code to a different digit. */
const mutateOneDigit = (code: string, pos: number, delta: number): string => {
  const d = Number(code[pos]);
  return code.slice(0, pos) + String((d + delta) % 10) + code.slice(pos + 1);
};

describe('registration codes', () => {
  it('accepts real codes published by the registers', () => {
    expect(isValidEeCode('10000024')).toBe(true); // EESTI RAAMAT OÜ (EMTA sample)
    expect(isValidEeCode('17319131')).toBe(true); // MERI & MAITSED OÜ (EMTA sample)
    expect(isValidNoCode('810034882')).toBe(true); // SANDNES ELEKTRISKE AS
    expect(isValidFiCode('2646674-9')).toBe(true); // Wolt Oy
    expect(isValidSeCode('5560125790')).toBe(true); // AB Volvo
    expect(isValidSeCode('5560427220')).toBe(true); // H & M Hennes & Mauritz AB
    expect(isValidRegon('302046830')).toBe(true); // SWLEX sp. z o.o. (REGON-9)
    expect(isValidNip('9721237317')).toBe(true); // SWLEX sp. z o.o.
    expect(isValidPlCode('0000413516')).toBe(true); // SWLEX KRS number
  });

  it('rejects codes of the wrong shape', () => {
    expect(isValidRegistrationCode('EE', '1000002')).toBe(false);
    expect(isValidRegistrationCode('LV', '4000823459')).toBe(false);
    expect(isValidRegistrationCode('LV', '40008234596')).toBe(true);
    expect(isValidRegistrationCode('LT', '11000397')).toBe(false);
    expect(isValidRegistrationCode('LT', '110003978')).toBe(true);
    expect(isValidRegistrationCode('FI', '26466749')).toBe(false);
    expect(isValidRegistrationCode('SE', '556012-5790')).toBe(false);
    expect(isValidRegistrationCode('SE', '8001011234')).toBe(false); // personal-number shape (third digit < 2)
    expect(isValidRegistrationCode('NO', "81003488' OR 1=1")).toBe(false);
  });

  it('a computed check digit always validates, and any single-digit change in the body is caught (EE, NO, FI, SE, REGON, NIP)', () => {
    fc.assert(
      fc.property(
        digitString(7),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const ee = `1${body.slice(1)}`;
          const code = ee + eeCheckDigit(ee);
          expect(isValidEeCode(code)).toBe(true);
          // EE's two-round mod 11 can map a changed digit to the same remainder; only assert when the digit moved.
          const changed = mutateOneDigit(code, pos + 1 > 6 ? 6 : pos + 1, delta);
          if (eeCheckDigit(changed.slice(0, 7)) !== Number(code[7]))
            expect(isValidEeCode(changed)).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        digitString(7),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const first8 = `9${body}`;
          const c = noCheckDigit(first8);
          fc.pre(c !== null);
          const code = first8 + String(c);
          expect(isValidNoCode(code)).toBe(true);
          // Mod 11 with weights coprime to 11 detects every single-digit error.
          expect(isValidNoCode(mutateOneDigit(code, Math.max(1, pos), delta))).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        digitString(7),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const c = fiCheckDigit(body);
          fc.pre(c !== null);
          const code = `${body}-${c}`;
          expect(isValidFiCode(code)).toBe(true);
          expect(isValidFiCode(mutateOneDigit(code, pos, delta))).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        digitString(7),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const first9 = `556${body.slice(1)}`;
          const code = first9 + luhnCheckDigit(first9);
          expect(isValidSeCode(code)).toBe(true);
          // Luhn catches every single-digit substitution.
          const changed = mutateOneDigit(code, pos, delta);
          if (/^\d{2}[2-9]/.test(changed)) expect(isValidSeCode(changed)).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        digitString(8),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const code = body + regonCheckDigit(body);
          expect(isValidRegon(code)).toBe(true);
          const changed = mutateOneDigit(code, pos, delta);
          if (regonCheckDigit(changed.slice(0, 8)) !== Number(code[8]))
            expect(isValidRegon(changed)).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        digitString(9),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        (body, pos, delta) => {
          const c = nipCheckDigit(body);
          fc.pre(c !== null);
          const code = body + String(c);
          expect(isValidNip(code)).toBe(true);
          expect(isValidNip(mutateOneDigit(code, pos, delta))).toBe(false);
        },
      ),
    );
  });
});
