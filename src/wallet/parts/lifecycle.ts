import type { Clock } from '../clock.ts';
import type { Ledger } from '../ledger.ts';
import type { ModeRateLimiter } from '../rate-limiter.ts';
import type { WalletStore } from '../store.ts';
import { SWEEP_LOCK, type Instances, type Sweeper } from '../sweeper.ts';
import type { Wallet } from '../wallet-api.ts';

/** This process's open holds, through holds_open as OPEN_HOLDS_SQL (sweeper.ts) says why. */
export const INSTANCE_OPEN_HOLDS_SQL = `SELECT id FROM holds WHERE state = 'pending' AND instance_id = ? ORDER BY +id`;

export type LifecyclePart = Pick<Wallet, 'audit' | 'sweep' | 'close'>;

export interface LifecycleInput {
  store: WalletStore;
  /** A store passed in belongs to the caller (closed by it); one opened by openWallet is closed with the wallet. */
  ownStore: boolean;
  clock: Clock;
  ledger: Ledger;
  sweeper: Sweeper;
  instances: Instances;
  instanceId: string;
  rateLimiter: ModeRateLimiter;
  /** 0 disables the periodic sweep; the start-up sweep always runs. */
  sweepIntervalMs: number;
}

/**
 * Registers this process, sweeps what earlier ones left open, and starts the periodic sweep. The part
 * returned audits, sweeps on demand, and on close releases what this process still holds.
 */
export async function startLifecycle(life: LifecycleInput): Promise<LifecyclePart> {
  const { store, clock, ledger, sweeper, instances, rateLimiter } = life;
  try {
    await store.tx((q) => instances.register(q, clock(), life.sweepIntervalMs));
    await sweeper.sweep();
  } catch (err) {
    if (life.ownStore) await store.close();
    throw err;
  }
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  if (life.sweepIntervalMs > 0) {
    timer = setInterval(() => {
      // A failed sweep (lock held too long by the CLI, the database restarting) is retried at the next
      // tick; the holds it would have voided stay reserved a little longer, never lost.
      if (sweeping) return;
      sweeping = (async () => {
        await sweeper.sweep();
        await rateLimiter.prune();
      })()
        .catch(() => undefined)
        .finally(() => {
          sweeping = null;
        });
    }, life.sweepIntervalMs);
    timer.unref();
  }
  let closed = false;

  return {
    audit: () =>
      store.tx(async (q) => {
        // PostgreSQL: booking every account's expiry locks lots of many accounts; waiting for the sweep
        // lock keeps the two multi-account transactions from deadlocking each other.
        if (q.dialect === 'postgres') await q.get('SELECT pg_advisory_xact_lock(?)', [SWEEP_LOCK]);
        return ledger.audit(q, clock());
      }),

    sweep: () => sweeper.sweep(),

    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      try {
        await sweeping;
        // A clean shutdown releases what this process still holds, so the next start finds nothing open.
        await store.tx(async (q) => {
          const now = clock();
          for (const hold of await q.all<{ id: number }>(INSTANCE_OPEN_HOLDS_SQL, [life.instanceId])) {
            await ledger.void(q, hold.id, 'closed', now);
          }
          await q.run(`DELETE FROM idempotency_keys WHERE state = 'in_flight' AND instance_id = ?`, [
            life.instanceId,
          ]);
          await instances.unregister(q);
        });
      } finally {
        if (life.ownStore) await store.close();
      }
    },
  };
}
