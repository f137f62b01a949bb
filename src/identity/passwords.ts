import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt with OWASP's minimum (N=2^17, r=8, p=1 is the 2023 figure; 2^15 keeps a sign-in near 60 ms on
 * this class of machine while still costing 32 MiB per guess). The parameters are stored with each hash,
 * so raising them later needs no migration: old hashes keep verifying with their own parameters.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

function maxmem(N: number, r: number): number {
  // scrypt needs 128 * N * r bytes; node refuses anything above maxmem (32 MiB by default, exactly the need).
  return 256 * N * r;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const { N, r, p } = PARAMS;
  const hash = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem: maxmem(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
    ...params,
    maxmem: maxmem(params.N, params.r),
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash of a random password: verifying against it costs the same as a real one (no user-exists oracle). */
export const DUMMY_HASH_PROMISE: Promise<string> = hashPassword(crypto.randomBytes(16).toString('hex'));
