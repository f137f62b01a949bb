import { describe, expect, it } from 'vitest';
import { ExportLinks, maskLinkSignature } from '../../src/services/export-link.ts';

/**
 * Issue 33 item 3: a link is valid in exactly the spelling it was issued in. Node's base64url decoder
 * accepts '+/', '=' padding and characters outside the alphabet, and ignores the two unused low bits of
 * the 43rd character, so each variant below decoded to the same MAC and downloaded.
 */
const links = new ExportLinks({ secret: Buffer.from('s'.repeat(32)), ttlSeconds: 900 });
const NOW = Date.UTC(2026, 0, 5);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A link whose signature has a '-' or '_' in it (so '+/' spells it differently), searched by key id. */
function issued(): { entries: [string, string][]; signature: string } {
  for (let i = 0; ; i++) {
    const query = new URLSearchParams(links.sign(`key_${i}`, [['country', 'EE']], NOW).query);
    const signature = query.get('signature')!;
    if (/[-_]/.test(signature)) return { entries: [...query], signature };
  }
}

const withSignature = (entries: [string, string][], signature: string): [string, string][] =>
  entries.map(([k, v]) => [k, k === 'signature' ? signature : v]);

describe('download link signatures', () => {
  const { entries, signature } = issued();

  it('accepts the signature as issued', () => {
    expect(signature).toHaveLength(43);
    expect(links.verify(entries, NOW)).toMatch(/^key_\d+$/);
  });

  const last = ALPHABET.indexOf(signature.at(-1)!);
  const variants: [string, string][] = [
    ['the low bit of the last character flipped', signature.slice(0, -1) + ALPHABET[last ^ 1]!],
    ['the second-lowest bit of the last character flipped', signature.slice(0, -1) + ALPHABET[last ^ 2]!],
    ['an appended =', `${signature}=`],
    ['+/ instead of -_', signature.replaceAll('-', '+').replaceAll('_', '/')],
    ['an inserted character outside the alphabet', `${signature.slice(0, 10)}.${signature.slice(10)}`],
    ['an inserted space', `${signature.slice(0, 10)} ${signature.slice(10)}`],
  ];
  it.each(variants)('refuses %s', (_, variant) => {
    expect(variant).not.toBe(signature);
    expect(() => links.verify(withSignature(entries, variant), NOW)).toThrow(/not valid/);
  });
});

describe('the logged URL', () => {
  it.each([
    ['signature=SeCrEt', 'signature=[redacted]'],
    ['%73ignature=SeCrEt', '%73ignature=[redacted]'],
    ['signatur%65=SeCrEt', 'signatur%65=[redacted]'],
    ['%73%69%67%6E%61%74%75%72%65=SeCrEt', '%73%69%67%6E%61%74%75%72%65=[redacted]'],
  ])('masks %s after URL decoding, as the route reads it', (param, masked) => {
    const url = `/api/v1/data/companies/export?country=EE&key_id=key_0&expires=1&${param}&format=csv`;
    // The route verifies what URLSearchParams decodes: every spelling above is the signature.
    expect(new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('signature')).toBe('SeCrEt');
    expect(maskLinkSignature(url)).toBe(
      `/api/v1/data/companies/export?country=EE&key_id=key_0&expires=1&${masked}&format=csv`,
    );
  });

  it('leaves other parameters, and a URL without a query, as they are', () => {
    expect(maskLinkSignature('/healthz')).toBe('/healthz');
    expect(maskLinkSignature('/x?q=signature%3D1&signatures=2&name=signature')).toBe(
      '/x?q=signature%3D1&signatures=2&name=signature',
    );
    // '+' decodes to a space: these names are "signature " and " signature".
    expect(maskLinkSignature('/x?signature+=a&+signature=b&sig%6Eature+=c')).toBe(
      '/x?signature+=a&+signature=b&sig%6Eature+=c',
    );
  });
});
