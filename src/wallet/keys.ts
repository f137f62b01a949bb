import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Clock } from './clock.ts';
import type { WalletDb } from './db.ts';
import { writeTx } from './db.ts';
import { constantTimeEqual, generateApiKey, hashApiKey, isWellFormedApiKey, keyHint } from './key-format.ts';
import type { Authenticator, KeyKind, Principal } from './types.ts';

interface KeyRow {
  id: string;
  account_id: string;
  kind: KeyKind;
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

export class ApiKeys implements Authenticator {
  private readonly insert;
  private readonly byHash;
  private readonly byId;
  private readonly revokeStmt;
  private readonly touch;
  private readonly listByAccount;

  constructor(
    private readonly db: WalletDb,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare<[string, string, KeyKind, string | null, Buffer, string, number]>(
      `INSERT INTO api_keys (id, account_id, kind, name, secret_hash, hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.byHash = db.prepare<[Buffer], KeyRow>('SELECT * FROM api_keys WHERE secret_hash = ?');
    this.byId = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?');
    this.revokeStmt = db.prepare<[number, string]>(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    );
    this.touch = db.prepare<[number, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.listByAccount = db.prepare<[string], KeyListing>(
      `SELECT id, account_id, kind, name, hint, created_at, revoked_at, last_used_at
       FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid`,
    );
  }

  /** Inside the caller's writeTx. The returned secret exists nowhere else: only its hash is stored. */
  create(accountId: string, kind: KeyKind, name: string | null, now: number): { key: string; keyId: string } {
    const key = generateApiKey();
    const keyId = `key_${crypto.randomBytes(8).toString('hex')}`;
    this.insert.run(keyId, accountId, kind, name, hashApiKey(key), keyHint(key), now);
    return { key, keyId };
  }

  /** By id, or by the secret itself (what a customer reporting a leak has). */
  revoke(
    ref: { keyId: string } | { key: string },
    now: number,
  ): { row: KeyListing; alreadyRevoked: boolean } {
    const row = 'keyId' in ref ? this.byId.get(ref.keyId) : this.lookup(ref.key);
    if (!row) throw new AppError('not_found', 'no such API key');
    const changed = this.revokeStmt.run(now, row.id).changes > 0;
    const { secret_hash: _hash, ...listing } = this.byId.get(row.id) ?? row;
    return { row: listing, alreadyRevoked: !changed };
  }

  list(accountId: string): KeyListing[] {
    return this.listByAccount.all(accountId);
  }

  authenticate(authorizationHeader: string | undefined): Principal {
    if (authorizationHeader === undefined || authorizationHeader.trim() === '') {
      throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
    }
    const match = BEARER.exec(authorizationHeader);
    const key = match?.[1];
    // Shape and checksum first: a typo or a random string never reaches the database.
    if (key === undefined || !isWellFormedApiKey(key)) {
      throw new AppError('unauthorized', 'malformed API key');
    }
    const row = this.lookup(key);
    if (!row) throw new AppError('unauthorized', 'invalid API key');
    if (row.revoked_at !== null) throw new AppError('unauthorized', 'API key has been revoked');
    const now = this.clock();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_RESOLUTION_MS) {
      writeTx(this.db, () => this.touch.run(now, row.id));
    }
    return { keyId: row.id, accountId: row.account_id, kind: row.kind };
  }

  private lookup(key: string): KeyRow | undefined {
    const hash = hashApiKey(key);
    const row = this.byHash.get(hash);
    // The index lookup already matched; the constant-time comparison keeps the final decision free of an
    // early-exit byte compare, whatever the lookup path does underneath.
    return row && constantTimeEqual(row.secret_hash, hash) ? row : undefined;
  }
}
