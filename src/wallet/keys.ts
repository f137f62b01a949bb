import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Clock } from './clock.ts';
import type { Queryable, WalletStore } from './store.ts';
import {
  constantTimeEqual,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyHint,
  keyModeOf,
} from './key-format.ts';
import type { Authenticator, KeyKind, KeyMode, Principal } from './types.ts';

interface KeyRow {
  id: string;
  account_id: string;
  kind: KeyKind;
  mode: KeyMode;
  name: string | null;
  secret_hash: Buffer;
  hint: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export type KeyListing = Omit<KeyRow, 'secret_hash'>;

/**
 * last_used_at is for operators ("is this key still in use?"), not for billing. Writing it on every request
 * would add a durable commit to each call, so it is refreshed at most once a minute per key.
 */
const LAST_USED_RESOLUTION_MS = 60_000;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const SELECT_KEY = 'SELECT * FROM api_keys';

/**
 * Live keys an account may hold. Far above what one customer's services and environments need, yet it
 * bounds what a stolen session or a runaway script can mint, and keeps the keys page and `keys list`
 * readable. The in-app search's internal key does not count. docs/api-decisions.md ("API keys").
 */
export const DEFAULT_MAX_LIVE_KEYS = 20;

/**
 * Which of an account's keys a listing shows. `own`: the keys the account holds itself (the dashboard's
 * keys page, `regdata keys list`); `grants`: the keys that MCP clients' OAuth grants act through
 * (oauth_grants.key_id, src/oauth), which the Connected clients page lists and revokes instead. The one
 * definition of the difference, shared by every listing.
 */
export type KeySet = 'own' | 'grants';

/** The SQL condition on `api_keys` rows of a key set: a grant key is one an oauth_grants row names. */
export function keySetCondition(set: KeySet): string {
  const grant = 'EXISTS (SELECT 1 FROM oauth_grants g WHERE g.key_id = api_keys.id)';
  return set === 'grants' ? grant : `NOT ${grant}`;
}

export class ApiKeys implements Authenticator {
  constructor(
    private readonly store: WalletStore,
    private readonly clock: Clock,
    private readonly maxLiveKeys: number = DEFAULT_MAX_LIVE_KEYS,
  ) {}

  /**
   * Inside the caller's transaction. The returned secret exists nowhere else: only its hash is stored.
   * Refused when the account already holds its cap of live keys of the same set (test keys count too:
   * each is a secret that works): its own keys, or the keys its MCP clients' grants act through (`set`
   * 'grants'; the grant row naming the key is written after it). Separate caps, so that an account with
   * all its own keys can still connect a client, and connected clients never use up its own keys' places.
   * An admin key is never a test key: operators act on real data.
   */
  async create(
    q: Queryable,
    accountId: string,
    kind: KeyKind,
    mode: KeyMode,
    name: string | null,
    now: number,
    set: KeySet = 'own',
  ): Promise<{ key: string; keyId: string }> {
    if (mode !== 'live' && mode !== 'test') {
      throw new AppError('validation_failed', `key mode must be live or test, not ${String(mode)}`);
    }
    if (kind === 'admin' && mode === 'test') {
      throw new AppError('validation_failed', 'an admin key cannot be a test key');
    }
    // SQLite's write transaction already serialises this count and insert; on PostgreSQL two creations
    // at once, on any replica, would both see room for one more without a lock per account.
    if (q.dialect === 'postgres') {
      await q.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`api_keys\n${accountId}`]);
    }
    const live = await q.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM api_keys
       WHERE account_id = ? AND revoked_at IS NULL AND internal = 0 AND ${keySetCondition(set)}`,
      [accountId],
    );
    if (Number(live?.n ?? 0) >= this.maxLiveKeys) {
      throw new AppError(
        'forbidden',
        set === 'grants'
          ? `this account already has ${this.maxLiveKeys} connected MCP clients, the most allowed; ` +
              'disconnect one it no longer uses (dashboard, Connected clients), then sign in again'
          : `this account already has ${this.maxLiveKeys} live API keys, the most allowed; revoke one it no ` +
              'longer needs, then create the new one',
      );
    }
    const key = generateApiKey(mode);
    const keyId = `key_${crypto.randomBytes(8).toString('hex')}`;
    await q.run(
      `INSERT INTO api_keys (id, account_id, kind, mode, name, secret_hash, hint, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [keyId, accountId, kind, mode, name, hashApiKey(key), keyHint(key), now],
    );
    return { key, keyId };
  }

  /** By id, or by the secret itself (what a customer reporting a leak has). */
  async revoke(
    q: Queryable,
    ref: { keyId: string } | { key: string },
    now: number,
  ): Promise<{ row: KeyListing; alreadyRevoked: boolean }> {
    const row = 'keyId' in ref ? await byId(q, ref.keyId) : await lookup(q, ref.key);
    if (!row) throw new AppError('not_found', 'no such API key');
    const changed =
      (await q.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, row.id]))
        .changes > 0;
    const { secret_hash: _hash, ...listing } = (await byId(q, row.id)) ?? row;
    return { row: listing, alreadyRevoked: !changed };
  }

  async list(q: Queryable, accountId: string, set: KeySet = 'own'): Promise<KeyListing[]> {
    return q.all<KeyListing>(
      `SELECT id, account_id, kind, mode, name, hint, created_at, revoked_at, last_used_at
       FROM api_keys WHERE account_id = ? AND ${keySetCondition(set)} ORDER BY created_at, rowid`,
      [accountId],
    );
  }

  async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
    if (authorizationHeader === undefined || authorizationHeader.trim() === '') {
      throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
    }
    const match = BEARER.exec(authorizationHeader);
    const key = match?.[1];
    // Shape and checksum first: a typo or a random string never reaches the database.
    if (key === undefined || !isWellFormedApiKey(key)) {
      throw new AppError('unauthorized', 'malformed API key');
    }
    const row = await lookup(this.store, key);
    // The prefix and the stored mode agree for every key ever issued; a row that says otherwise is
    // refused rather than let a `rgd_test_` key read live data, or the reverse.
    if (!row || row.mode !== keyModeOf(key)) throw new AppError('unauthorized', 'invalid API key');
    if (row.revoked_at !== null) throw new AppError('unauthorized', 'API key has been revoked');
    return this.used(row);
  }

  /** A key acting without its secret: a signed download link, or an OAuth grant's tokens (src/oauth). */
  async principalOf(keyId: string): Promise<Principal> {
    const row = await byId(this.store, keyId);
    if (!row) throw new AppError('forbidden', 'this download link names no API key');
    if (row.revoked_at !== null) {
      throw new AppError('forbidden', 'the API key this download link was issued to has been revoked');
    }
    return this.used(row);
  }

  /** The principal of a live key, its last use refreshed (at most once a minute). */
  private async used(row: KeyRow): Promise<Principal> {
    const now = this.clock();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_RESOLUTION_MS) {
      await this.store.tx((q) => q.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [now, row.id]));
    }
    return { keyId: row.id, accountId: row.account_id, kind: row.kind, mode: row.mode };
  }
}

function byId(q: Queryable, keyId: string): Promise<KeyRow | undefined> {
  return q.get<KeyRow>(`${SELECT_KEY} WHERE id = ?`, [keyId]);
}

async function lookup(q: Queryable, key: string): Promise<KeyRow | undefined> {
  const hash = hashApiKey(key);
  const row = await q.get<KeyRow>(`${SELECT_KEY} WHERE secret_hash = ?`, [hash]);
  // The index lookup already matched; the constant-time comparison keeps the final decision free of an
  // early-exit byte compare, whatever the lookup path does underneath.
  return row && constantTimeEqual(row.secret_hash, hash) ? row : undefined;
}
