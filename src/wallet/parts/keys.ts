import { AppError } from '../../errors/app-error.ts';
import { Accounts, normaliseEmail, planName, type PlanName } from '../accounts.ts';
import { toIso } from '../clock.ts';
import { creditsToMicro } from '../money.ts';
import type { Queryable } from '../store.ts';
import type { KeyKind, KeyMode } from '../types.ts';
import type { CreatedKey, Wallet } from '../wallet-api.ts';
import { keyInfo } from './account-keys.ts';
import { balanceOf, type PartContext } from './context.ts';
import { createKeylessAccount } from './credits.ts';

export const DEMO_EMAIL = 'demo@localhost';
/** Any constant: serialises createDemoKeyIfEmpty across replicas on PostgreSQL. */
const DEMO_LOCK = 7_391_555_020;

export type KeysPart = Pick<Wallet, 'createKey' | 'createDemoKeyIfEmpty' | 'revokeKey' | 'listKeys'>;

interface KeyRequest {
  email: string;
  kind: KeyKind;
  /** Default live. */
  mode?: KeyMode;
  credits?: number;
  plan?: PlanName;
  name?: string;
}

/** The operator's keys: a key (and its account, when new) by e-mail, the demo key, revocation, listing. */
export function keysPart(ctx: PartContext): KeysPart {
  const { store, clock, keys } = ctx;
  return {
    createKey: (input) => store.tx((q) => createKeyTx(ctx, q, input)),

    createDemoKeyIfEmpty: (input = {}) =>
      store.tx(async (q) => {
        // Checked and created in one transaction, so two processes starting together make one demo account
        // (PostgreSQL: the advisory lock stands in for SQLite's write lock, which a SELECT would not take).
        if (q.dialect === 'postgres') await q.get('SELECT pg_advisory_xact_lock(?)', [DEMO_LOCK]);
        return (await Accounts.count(q)) > 0
          ? null
          : createKeyTx(ctx, q, {
              email: input.email ?? DEMO_EMAIL,
              kind: 'standard',
              plan: input.plan ?? 'trial',
              name: 'demo',
            });
      }),

    revokeKey: (ref) =>
      store.tx(async (q) => {
        const { row, alreadyRevoked } = await keys.revoke(q, ref, clock());
        return {
          keyId: row.id,
          accountId: row.account_id,
          revokedAt: toIso(row.revoked_at) ?? '',
          alreadyRevoked,
        };
      }),

    listKeys: async (ref, set) =>
      (await keys.list(store, (await Accounts.resolve(store, ref)).id, set)).map(keyInfo),
  };
}

async function createKeyTx(
  { clock, ledger, keys }: PartContext,
  q: Queryable,
  input: KeyRequest,
): Promise<CreatedKey> {
  if (input.kind !== 'standard' && input.kind !== 'admin') {
    throw new AppError('validation_failed', `key kind must be standard or admin, not ${String(input.kind)}`);
  }
  const grant = input.credits === undefined ? 0 : creditsToMicro(input.credits, 'credits');
  const email = normaliseEmail(input.email);
  const now = clock();
  let account = await Accounts.findByEmail(q, email);
  const accountCreated = !account;
  if (!account) {
    const plan = input.plan ?? 'trial';
    if (plan === 'trial') {
      account = await createKeylessAccount(q, ledger, email, now);
    } else if (plan === 'payg' || plan === 'unlimited') {
      account = await Accounts.create(q, email, plan, null, now);
    } else {
      throw new AppError('validation_failed', `plan must be payg, trial or unlimited, not ${String(plan)}`);
    }
  } else if (input.plan !== undefined && input.plan !== planName(account, now)) {
    // Silently changing (or re-granting a trial to) an existing account from `keys create` would be a
    // surprise; plan changes go through setPlan.
    throw new AppError(
      'validation_failed',
      `account ${email} exists with plan ${planName(account, now)}; change plans with setPlan`,
    );
  }
  if (grant > 0) await ledger.grant(q, account.id, 'grant', grant, null, now);
  const mode = input.mode ?? 'live';
  const { key, keyId } = await keys.create(q, account.id, input.kind, mode, input.name ?? null, now);
  return {
    key,
    keyId,
    accountId: account.id,
    email,
    kind: input.kind,
    mode,
    plan: planName(account, now),
    accountCreated,
    balance: await balanceOf(ledger, q, account, now),
  };
}
