import crypto from 'node:crypto';
import zlib from 'node:zlib';

/**
 * API key format, after GitHub's tokens: `rgd_` + 40 random base62 characters (~238 bits) + 6 base62
 * characters of CRC32 over everything before them. The prefix lets secret scanners (GitHub push
 * protection, gitleaks, trufflehog) recognise a leaked key by pattern; the checksum lets them, and us,
 * reject typos and random look-alikes offline, without a database lookup.
 */
export const KEY_PREFIX = 'rgd_';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
/** For scanner rules and docs. */
export const KEY_PATTERN = /^rgd_[0-9A-Za-z]{46}$/;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // Rejection sampling: 248 = 4 * 62, so bytes 248..255 are dropped to keep every character uniform.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = zlib.crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (candidate.length !== KEY_LENGTH || !KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(0, KEY_LENGTH - CHECKSUM_LENGTH);
  return constantTimeEqual(Buffer.from(checksum(body)), Buffer.from(candidate.slice(-CHECKSUM_LENGTH)));
}

export function hashApiKey(key: string): Buffer {
  return crypto.createHash('sha256').update(key, 'utf8').digest();
}

/** timingSafeEqual throws on unequal lengths; a length mismatch is simply "not equal". */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function keyHint(key: string): string {
  return key.slice(-4);
}
