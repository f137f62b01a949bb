import crypto from 'node:crypto';
import type { Queryable } from './store.ts';
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

/** Rows of idempotency_keys; like the ledger, every method runs inside the caller's transaction. */
export class IdempotencyStore {
  /**
   * PostgreSQL: a transaction-scoped advisory lock on (API key, Idempotency-Key), so two replicas given the
   * same key at once decide one after the other (the second sees the first's claim). SQLite: the write lock.
   */
  async lock(q: Queryable, keyId: string, idempotencyKey: string): Promise<void> {
    if (q.dialect !== 'postgres') return;
    await q.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `idem\n${keyId}\n${idempotencyKey}`,
    ]);
  }

  async find(q: Queryable, keyId: string, idempotencyKey: string): Promise<IdempotencyRow | undefined> {
    return q.get<IdempotencyRow>('SELECT * FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?', [
      keyId,
      idempotencyKey,
    ]);
  }

  async claim(
    q: Queryable,
    keyId: string,
    idempotencyKey: string,
    fingerprint: string,
    instanceId: string,
    holdId: number | null,
    now: number,
    ttlMs: number,
  ): Promise<void> {
    await q.run(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, state, instance_id, hold_id,
         created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?, ?, ?)`,
      [keyId, idempotencyKey, fingerprint, instanceId, holdId, now, now + ttlMs],
    );
  }

  async finish(
    q: Queryable,
    keyId: string,
    idempotencyKey: string,
    instanceId: string,
    response: string,
  ): Promise<void> {
    // Only the claimant finishes its row: if the sweeper gave the key away meanwhile, the new owner's row stays.
    await q.run(
      `UPDATE idempotency_keys SET state = 'done', response = ?
       WHERE key_id = ? AND idempotency_key = ? AND instance_id = ? AND state = 'in_flight'`,
      [response, keyId, idempotencyKey, instanceId],
    );
  }

  /** Gives up this instance's claim (the run failed); a row another instance took over is left alone. */
  async releaseOwn(q: Queryable, keyId: string, idempotencyKey: string, instanceId: string): Promise<void> {
    await q.run(
      `DELETE FROM idempotency_keys
       WHERE key_id = ? AND idempotency_key = ? AND instance_id = ? AND state = 'in_flight'`,
      [keyId, idempotencyKey, instanceId],
    );
  }

  /**
   * Gives up the claim `row` was read as, if it is still exactly that claim and still in flight. The row may
   * be stale: between reading it and deciding it was abandoned, its call can settle (the row is then done,
   * its answer the only record of a charged call) or another replica can take the key over; either way the
   * current row is left alone and false returned. PostgreSQL re-checks the condition on the newest version
   * of the row, waiting for a settle that is writing it.
   */
  async releaseClaim(q: Queryable, row: IdempotencyRow): Promise<boolean> {
    const { changes } = await q.run(
      `DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'in_flight'
         AND instance_id = ? AND created_at = ?`,
      [row.key_id, row.idempotency_key, row.instance_id, row.created_at],
    );
    return changes > 0;
  }

  async release(q: Queryable, keyId: string, idempotencyKey: string): Promise<void> {
    await q.run('DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?', [
      keyId,
      idempotencyKey,
    ]);
  }

  async purgeExpired(q: Queryable, now: number): Promise<number> {
    return (await q.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [now])).changes;
  }

  async inFlight(q: Queryable): Promise<IdempotencyRow[]> {
    return q.all<IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE state = 'in_flight' ORDER BY created_at`,
    );
  }
}
