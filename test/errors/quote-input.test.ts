import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.ts';
import { printableExcerpt, QUOTE_MAX_CHARS, quoteInput } from '../../src/errors/quote-input.ts';
import { normaliseEmail } from '../../src/wallet/accounts.ts';

/** No character that prints as something else, or as nothing: C0/C1 controls, format characters, separators. */
const printable = (s: string): boolean =>
  !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u.test(s);

describe('quoteInput: input in a message is short, printable and says when it was cut', () => {
  it('quotes short printable text as it is, with " and \\ escaped', () => {
    expect(quoteInput('Õismäe tee 78-9')).toBe('"Õismäe tee 78-9"');
    expect(quoteInput('UAB "Foo" \\ bar')).toBe('"UAB \\"Foo\\" \\\\ bar"');
    expect(quoteInput('')).toBe('""');
    // Letters beyond the BMP are printable and stay whole.
    expect(quoteInput('𝔘𝔄𝔅 😀')).toBe('"𝔘𝔄𝔅 😀"');
  });

  it('escapes what does not print as itself: controls, bidi overrides, zero-width, odd spaces, lone surrogates', () => {
    expect(quoteInput('a\nb\r\tc\u0000\u001b[31m\u007f\u0085')).toBe(
      '"a\\nb\\r\\tc\\u0000\\u001b[31m\\u007f\\u0085"',
    );
    expect(quoteInput('admin\u202egnp.exe\u200b\u00a0\u2028\ud800x')).toBe(
      '"admin\\u202egnp.exe\\u200b\\u00a0\\u2028\\ud800x"',
    );
    expect(printableExcerpt('tab\there')).toBe('tab\\there');
  });

  it('cuts long input between characters and names its full length after the quote', () => {
    const long = 'x'.repeat(16_384);
    const quoted = quoteInput(long);
    expect(quoted).toBe(`"${'x'.repeat(QUOTE_MAX_CHARS)}"… (16384 characters)`);
    // Escapes count as they print: a run of NULs is cut at whole escapes.
    const nuls = quoteInput('\u0000'.repeat(1000), 20);
    expect(nuls).toBe(`"${'\\u0000'.repeat(3)}"… (1000 characters)`);
    // A surrogate pair is never split.
    expect(quoteInput('a😀😀', 3)).toBe('"a😀"… (5 characters)');
    expect(printableExcerpt('y'.repeat(500), 10)).toBe('yyyyyyyyyy… (500 characters)');
  });

  it('random input: always at most the cap plus the cut note, and printable', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let n = 0; n < 300; n++) {
      const length = next() % 600;
      const text = String.fromCharCode(...Array.from({ length }, () => next() % 0x3000));
      const quoted = quoteInput(text, 100);
      expect(printable(quoted)).toBe(true);
      expect(quoted.length).toBeLessThanOrEqual(102 + ` (${length} characters)`.length + 1);
    }
  });
});

describe('an e-mail address is echoed cut', () => {
  it('a 16 KB "address" is refused with at most a few hundred printable characters of it', () => {
    const bad = `${'a'.repeat(16 * 1024)}\u001b[2J@example.com`;
    let err: unknown;
    try {
      normaliseEmail(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    const message = (err as AppError).message;
    expect(message).toBe(
      `not an e-mail address: "${'a'.repeat(QUOTE_MAX_CHARS)}"… (${bad.length} characters)`,
    );
    expect(message.length).toBeLessThan(300);
    // A short bad one is shown whole, escaped.
    expect(() => normaliseEmail('no at\u0007sign')).toThrow('not an e-mail address: "no at\\u0007sign"');
  });
});
