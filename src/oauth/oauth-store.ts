import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { WalletStore } from '../wallet/store.ts';

/**
 * oidc-provider's storage (its `Adapter`) on the wallet database, so every replica on one PostgreSQL wallet
 * shares clients, grants, codes and tokens, and a grant revoked on one is gone on all. One table for every
 * model (oauth_records, migration 5/6; the wallet's sweeper deletes what expired). An item's id is a bearer secret for most models (an access token's
 * id is the token): it is stored as its SHA-256 only and taken out of the payload, and put back from the
 * id the caller presents.
 */

const hash = (id: string) => createHash('sha256').update(id).digest('base64url');

interface RecordRow {
  payload: string;
  expires_at: number | null;
  consumed_at: number | null;
}

export function oauthAdapter(store: WalletStore, clock: () => number = Date.now) {
  return class WalletAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const { jti: _jti, ...rest } = payload;
      const expiresAt = expiresIn ? clock() + expiresIn * 1000 : null;
      await store.run(
        `INSERT INTO oauth_records (model, id_hash, payload, grant_id, uid, user_code, expires_at, consumed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
         ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at,
           consumed_at = NULL`,
        [
          this.model,
          hash(id),
          JSON.stringify(rest),
          payload.grantId ?? null,
          payload.uid ?? null,
          payload.userCode ?? null,
          expiresAt,
        ],
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return this.read(
        await store.get<RecordRow>(
          'SELECT payload, expires_at, consumed_at FROM oauth_records WHERE model = ? AND id_hash = ?',
          [this.model, hash(id)],
        ),
        id,
      );
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await store.get<RecordRow>(
        'SELECT payload, expires_at, consumed_at FROM oauth_records WHERE model = ? AND uid = ?',
        [this.model, uid],
      );
      // Only sessions are found by uid, and only read (the account and grants an interaction or a token
      // is checked against): their id, a cookie value, is not stored, so they come back without one.
      return this.read(row, undefined);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.read(
        await store.get<RecordRow>(
          'SELECT payload, expires_at, consumed_at FROM oauth_records WHERE model = ? AND user_code = ?',
          [this.model, userCode],
        ),
        undefined,
      );
    }

    async consume(id: string): Promise<void> {
      await store.run('UPDATE oauth_records SET consumed_at = ? WHERE model = ? AND id_hash = ?', [
        Math.floor(clock() / 1000),
        this.model,
        hash(id),
      ]);
    }

    async destroy(id: string): Promise<void> {
      await store.run('DELETE FROM oauth_records WHERE model = ? AND id_hash = ?', [this.model, hash(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.run('DELETE FROM oauth_records WHERE grant_id = ?', [grantId]);
    }

    private read(row: RecordRow | undefined, id: string | undefined): AdapterPayload | undefined {
      if (!row) return undefined;
      if (row.expires_at !== null && Number(row.expires_at) <= clock()) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      if (id !== undefined) payload.jti = id;
      if (row.consumed_at !== null) payload.consumed = Number(row.consumed_at);
      return payload;
    }
  };
}
