import crypto from 'node:crypto';
import zlib from 'node:zlib';

import type { KeyMode } from './types.ts';

/**
 * API key format, after GitHub's tokens: `rgd_` + 40 random base62 characters (~238 bits) + 6 base62
 * characters of CRC32 over everything before them. The prefix lets secret scanners (GitHub push
 * protection, gitleaks, trufflehog) recognise a leaked key by pattern; the checksum lets them, and us,
 * reject typos and random look-alikes offline, without a database lookup. A test-mode key (issue 30,
 * docs/api-decisions.md "Test mode") starts `rgd_test_`, as Stripe's `sk_test_`: a person, a log line or
 * a CI secret store tells the kinds apart at a glance; the checksum covers the prefix too.
 */
export const KEY_PREFIX = 'rgd_';
export const TEST_KEY_PREFIX = 'rgd_test_';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
export const TEST_KEY_LENGTH = TEST_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
/** For scanner rules and docs: a live key; TEST_KEY_PATTERN a test key. */
export const KEY_PATTERN = /^rgd_[0-9A-Za-z]{46}$/;
export const TEST_KEY_PATTERN = /^rgd_test_[0-9A-Za-z]{46}$/;

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

export function generateApiKey(mode: KeyMode = 'live'): string {
  const body = (mode === 'test' ? TEST_KEY_PREFIX : KEY_PREFIX) + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

/** The mode a key's prefix claims (the stored row decides; authenticate checks the two agree). */
export function keyModeOf(key: string): KeyMode {
  return key.startsWith(TEST_KEY_PREFIX) ? 'test' : 'live';
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  const pattern = keyModeOf(candidate) === 'test' ? TEST_KEY_PATTERN : KEY_PATTERN;
  if (!pattern.test(candidate)) return false;
  const body = candidate.slice(0, candidate.length - CHECKSUM_LENGTH);
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
