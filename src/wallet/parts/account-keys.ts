import crypto from 'node:crypto';
import { AppError } from '../../errors/app-error.ts';
import { Accounts, planName } from '../accounts.ts';
import { toIso } from '../clock.ts';
import { keySetCondition, type KeyListing } from '../keys.ts';
import type { Queryable } from '../store.ts';
import type { KeyInfo, Wallet } from '../wallet-api.ts';
import { balanceOf, type PartContext } from './context.ts';

export const APP_KEY_NAME = 'in-app search';

export type AccountKeysPart = Pick<
  Wallet,
  'appPrincipal' | 'accountKeys' | 'createAccountKey' | 'revokeAccountKey'
>;

/** The keys a signed-in account manages itself on the dashboard, and the principal of its in-app search. */
export function accountKeysPart({ store, clock, ledger, keys }: PartContext): AccountKeysPart {
  return {
    appPrincipal: async (accountId) => {
      const found = await appKeyOf(store, accountId);
      if (found) return { keyId: found.id, accountId, kind: 'standard', mode: 'live' };
      return store.tx(async (q) => {
        // PostgreSQL: the account row lock makes the check-then-insert one decision across replicas.
        const lock = q.dialect === 'postgres' ? ' FOR UPDATE' : '';
        await q.get(`SELECT id FROM accounts WHERE id = ?${lock}`, [accountId]);
        const again = await appKeyOf(q, accountId);
        if (again) return { keyId: again.id, accountId, kind: 'standard' as const, mode: 'live' as const };
        const account = await Accounts.resolve(q, { accountId });
        const keyId = `key_${crypto.randomBytes(8).toString('hex')}`;
        await q.run(
          `INSERT INTO api_keys (id, account_id, kind, name, secret_hash, hint, created_at, internal)
           VALUES (?, ?, 'standard', ?, ?, '', ?, 1)`,
          [keyId, account.id, APP_KEY_NAME, crypto.randomBytes(32), clock()],
        );
        return { keyId, accountId: account.id, kind: 'standard' as const, mode: 'live' as const };
      });
    },

    accountKeys: async (accountId, set = 'own') =>
      (
        await store.all<KeyListing>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? AND internal = 0 AND ${keySetCondition(set)}
           ORDER BY created_at, rowid`,
          [accountId],
        )
      ).map(keyInfo),

    createAccountKey: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, { accountId: input.accountId });
        const name = input.name.trim();
        if (name.length < 1 || name.length > 80) {
          throw new AppError('validation_failed', 'a key name is 1-80 characters');
        }
        const now = clock();
        const mode = input.mode ?? 'live';
        const { key, keyId } = await keys.create(q, account.id, 'standard', mode, name, now, input.set);
        return {
          key,
          keyId,
          accountId: account.id,
          email: account.email,
          kind: 'standard' as const,
          mode,
          plan: planName(account, now),
          accountCreated: false,
          balance: await balanceOf(ledger, q, account, now),
        };
      }),

    revokeAccountKey: (input) =>
      store.tx(async (q) => {
        // Scoped in SQL: a key id of another account (or the in-app key) is indistinguishable from none.
        const row = await q.get<KeyListing>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ? AND internal = 0`,
          [input.keyId, input.accountId],
        );
        if (!row) throw new AppError('not_found', 'no such API key');
        const { row: revoked } = await keys.revoke(q, { keyId: row.id }, clock());
        return { keyId: revoked.id, revokedAt: toIso(revoked.revoked_at) ?? '' };
      }),
  };
}

const KEY_COLUMNS = 'id, account_id, kind, mode, name, hint, created_at, revoked_at, last_used_at';

export function keyInfo(k: KeyListing): KeyInfo {
  return {
    keyId: k.id,
    kind: k.kind,
    mode: k.mode,
    name: k.name,
    hint: k.hint,
    createdAt: toIso(k.created_at) ?? '',
    revokedAt: toIso(k.revoked_at),
    lastUsedAt: toIso(k.last_used_at),
  };
}

function appKeyOf(q: Queryable, accountId: string): Promise<{ id: string } | undefined> {
  return q.get<{ id: string }>('SELECT id FROM api_keys WHERE account_id = ? AND internal = 1', [accountId]);
}
