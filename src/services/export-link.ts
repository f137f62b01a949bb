import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';

/**
 * Signed export links (issue 19, docs/api-decisions.md "Export over MCP"). A tool result cannot carry a
 * file of a gigabyte, so the MCP tool `export_companies` answers with a link to the REST export that is
 * accepted instead of the Authorization header. The link names the key by its id (never the key itself),
 * expires, and its signature covers every query parameter, so no filter, format, max_rows, key or expiry
 * can be changed, added or removed without the link failing. A download through it is an ordinary export
 * metered to that key: reserve before the first byte, charge the rows sent.
 *
 * The signature is base64url(HMAC-SHA256(secret, "regdata-export-link-v1\n" + canonical)), where
 * canonical is every query parameter but `signature`, sorted by name (stable: repeated values keep their
 * order), form-encoded as URLSearchParams writes it. Signing the query as sent, not the parsed filters,
 * is the stricter choice: a link is valid exactly as it was issued (parameter order aside).
 */

export const LINK_KEY_ID = 'key_id';
export const LINK_EXPIRES = 'expires';
export const LINK_SIGNATURE = 'signature';
export const LINK_PARAMS = [LINK_KEY_ID, LINK_EXPIRES, LINK_SIGNATURE] as const;

const DOMAIN = 'regdata-export-link-v1\n';
/** Bytes of a secret made for a data folder; a configured one must be at least this many characters. */
export const LINK_SECRET_BYTES = 32;
/** How long a link stays valid unless configured (REGDATA_EXPORT_LINK_TTL_SECONDS). */
export const DEFAULT_LINK_TTL_SECONDS = 900;
/** The file holding a data folder's secret when REGDATA_EXPORT_LINK_SECRET is not set. */
export const LINK_SECRET_FILE = 'export-link.key';

export interface SignedLink {
  /** The query string to append to the export path: the parameters, then key_id, expires, signature. */
  query: string;
  expiresAt: Date;
}

export interface LinkOptions {
  secret: Buffer;
  /** How long a link stays valid. */
  ttlSeconds: number;
}

function canonical(entries: readonly (readonly [string, string])[]): string {
  const sorted = entries
    .filter(([name]) => name !== LINK_SIGNATURE)
    .map((e, i) => [e, i] as const)
    .sort(([a, ia], [b, ib]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : ia - ib))
    .map(([e]): [string, string] => [e[0], e[1]]);
  return new URLSearchParams(sorted).toString();
}

export class ExportLinks {
  constructor(private readonly options: LinkOptions) {}

  private mac(entries: readonly (readonly [string, string])[]): Buffer {
    return crypto
      .createHmac('sha256', this.options.secret)
      .update(DOMAIN + canonical(entries))
      .digest();
  }

  /** A link for `keyId` over the export's query parameters (as REST names them), valid from `nowMs`. */
  sign(keyId: string, params: readonly (readonly [string, string])[], nowMs: number): SignedLink {
    const expires = Math.floor(nowMs / 1000) + this.options.ttlSeconds;
    const entries = [...params, [LINK_KEY_ID, keyId] as const, [LINK_EXPIRES, String(expires)] as const];
    const signature = this.mac(entries).toString('base64url');
    const query = new URLSearchParams(
      [...entries, [LINK_SIGNATURE, signature] as const].map(([k, v]): [string, string] => [k, v]),
    );
    return { query: query.toString(), expiresAt: new Date(expires * 1000) };
  }

  /**
   * The key id a link was issued to, or 403 with the reason. `entries` are the request's query parameters
   * as received. The signature is checked before the expiry, so a changed `expires` is "not valid" rather
   * than a claim about time; both say nothing about which part was wrong beyond that.
   */
  verify(entries: readonly (readonly [string, string])[], nowMs: number): string {
    const one = (name: string): string | undefined => {
      const values = entries.filter(([k]) => k === name);
      return values.length === 1 ? values[0]![1] : undefined;
    };
    const keyId = one(LINK_KEY_ID);
    const expires = one(LINK_EXPIRES);
    const signature = one(LINK_SIGNATURE);
    if (keyId === undefined || expires === undefined || signature === undefined) {
      throw new AppError(
        'forbidden',
        'a download link needs exactly one key_id, expires and signature; or send Authorization: Bearer <key>',
      );
    }
    // The exact text sign() writes, compared as text: decoding first accepted many spellings of one MAC
    // (Node's base64 decoder takes '+/' and '=' too, skips characters outside the alphabet, and ignores the
    // unused low bits of the last character), so a changed link still downloaded.
    const given = Buffer.from(signature, 'utf8');
    const expected = Buffer.from(this.mac(entries).toString('base64url'), 'utf8');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
      throw new AppError(
        'forbidden',
        'this download link is not valid: it was changed, or not issued by this service; ask export_companies for a new one',
      );
    }
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= nowMs) {
      throw new AppError('forbidden', 'this download link has expired; ask export_companies for a new one');
    }
    return keyId;
  }
}

/**
 * `url` for a log line: the value of every query parameter whose name is `signature` once URL-decoded is
 * masked. The name is decoded as the export route decodes it (URLSearchParams): `%73ignature=…` is the
 * signature the request is verified with, and a pattern on the raw text let it into the logs.
 */
export function maskLinkSignature(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  // Without an escape anywhere, only the name as it is can be the signature.
  if (!url.includes(LINK_SIGNATURE) && !/[%+]/.test(url)) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq === -1) return part;
      const key = part.slice(0, eq);
      // Only a name with an escape ('%' or '+') decodes to other text: the others are compared as they are,
      // as a search's 40-odd parameters each cost a URLSearchParams in every request's log line.
      const name = /[%+]/.test(key) ? new URLSearchParams(part).keys().next().value : key;
      return name === LINK_SIGNATURE ? `${key}=[redacted]` : part;
    });
  return `${url.slice(0, q + 1)}${parts.join('&')}`;
}

/**
 * The signing secret: the configured one (every replica of a deployment must share it), else the data
 * folder's own, made on first use (0600). It is written to a file of its own and then hard-linked into
 * place, which fails if the name exists: two replicas starting together never read a half-written file.
 */
export function linkSecret(configured: string | null, dataDir: string): Buffer {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  const file = path.join(dataDir, LINK_SECRET_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, crypto.randomBytes(LINK_SECRET_BYTES).toString('base64url'), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < LINK_SECRET_BYTES) {
    throw new AppError(
      'internal',
      `${file} holds no usable secret; delete it (a new one is made) or set REGDATA_EXPORT_LINK_SECRET`,
    );
  }
  return Buffer.from(secret, 'utf8');
}
