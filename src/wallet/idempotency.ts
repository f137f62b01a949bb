import crypto from 'node:crypto';
import type { WalletDb } from './db.ts';
import type { MeteredCall } from './types.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRow {
  key_id: string;
  idempotency_key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  instance_id: string;
  hold_id: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}

/** Printable ASCII, as the IETF Idempotency-Key draft suggests for a UUID or similar; bounded for storage. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export function isValidIdempotencyKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/**
 * What "the same request" means: operation, country and rows to reserve besides the caller's canonical
 * parameters, so a key reused for a different operation is caught even if the fingerprints collide.
 */
export function requestFingerprint(call: MeteredCall): string {
  return crypto
    .createHash('sha256')
    .update([call.operation, call.country, String(call.reserveRows), call.fingerprint].join('\n'))
    .digest('hex');
}

/** Rows of idempotency_keys; like the ledger, every method runs inside the caller's writeTx. */
export class IdempotencyStore {
  private readonly get;
  private readonly insert;
  private readonly complete;
  private readonly remove;
  private readonly removeOwn;
  private readonly removeExpired;
  private readonly inFlightRows;

  constructor(db: WalletDb) {
    this.get = db.prepare<[string, string], IdempotencyRow>(
      'SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?',
    );
    this.insert = db.prepare<[string, string, string, string, number | null, number, number]>(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, instance_id, hold_id,
         created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?, ?, ?)`,
    );
    this.complete = db.prepare<[string, string, string, string]>(
      // Only the claimant finishes its row: if the sweeper gave the key away meanwhile, the new owner's row stays.
      `UPDATE idempotency_keys SET state = 'done', response = ?
       WHERE key_id = ? AND idempotency_key = ? AND instance_id = ? AND state = 'in_flight'`,
    );
    this.remove = db.prepare<[string, string]>(
      'DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?',
    );
    this.removeOwn = db.prepare<[string, string, string]>(
      `DELETE FROM idempotency_keys
       WHERE key_id = ? AND idempotency_key = ? AND instance_id = ? AND state = 'in_flight'`,
    );
    this.removeExpired = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?');
    this.inFlightRows = db.prepare<[], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE state = 'in_flight'`,
    );
  }

  find(keyId: string, idempotencyKey: string): IdempotencyRow | undefined {
    return this.get.get(keyId, idempotencyKey);
  }

  claim(
    keyId: string,
    idempotencyKey: string,
    fingerprint: string,
    instanceId: string,
    holdId: number | null,
    now: number,
    ttlMs: number,
  ): void {
    this.insert.run(keyId, idempotencyKey, fingerprint, instanceId, holdId, now, now + ttlMs);
  }

  finish(keyId: string, idempotencyKey: string, instanceId: string, response: string): void {
    this.complete.run(response, keyId, idempotencyKey, instanceId);
  }

  /** Gives up this instance's claim (the run failed); a row another instance took over is left alone. */
  releaseOwn(keyId: string, idempotencyKey: string, instanceId: string): void {
    this.removeOwn.run(keyId, idempotencyKey, instanceId);
  }

  release(keyId: string, idempotencyKey: string): void {
    this.remove.run(keyId, idempotencyKey);
  }

  purgeExpired(now: number): number {
    return this.removeExpired.run(now).changes;
  }

  inFlight(): IdempotencyRow[] {
    return this.inFlightRows.all();
  }
}
