import type { Queryable } from './store.ts';
import type { Micro } from './money.ts';

export type UsageOutcome = 'charged' | 'free' | 'voided' | 'rejected' | 'replayed';
/**
 * Why a call cost nothing: a test key (issue 30: logged at zero cost, never reserved), the four waivers
 * of spec 5.5/5.6, a call that had nothing to reserve
 * (price 0), a hold the sweeper voided before the call settled, or an operation the spec makes free
 * (discovery and count).
 */
export type FreeReason =
  | 'test'
  | 'admin'
  | 'unlimited'
  | 'subscription'
  | 'trial'
  | 'nothing_to_reserve'
  | 'hold_expired'
  | 'free_operation';

export interface UsageEntry {
  accountId: string;
  keyId: string;
  channel: string;
  operation: string;
  country: string;
  outcome: UsageOutcome;
  freeReason: FreeReason | null;
  rowsReturned: number | null;
  chargeableRows: number | null;
  reserved: Micro;
  charged: Micro;
  holdId: number | null;
}

export interface UsageRow {
  id: number;
  key_id: string;
  channel: string;
  operation: string;
  country: string;
  outcome: UsageOutcome;
  free_reason: FreeReason | null;
  rows_returned: number | null;
  chargeable_rows: number | null;
  reserved: Micro;
  charged: Micro;
  created_at: number;
}

export interface UsageGroup {
  operation: string;
  country: string;
  requests: number;
  rows: number;
  charged: Micro;
}

/** One row per metered call: the operator's record, written in the same commit as the ledger change. */
export class UsageLog {
  async record(q: Queryable, e: UsageEntry, now: number): Promise<void> {
    await q.run(
      `INSERT INTO usage_records (account_id, key_id, channel, operation, country, outcome, free_reason,
         rows_returned, chargeable_rows, reserved, charged, hold_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        e.accountId,
        e.keyId,
        e.channel,
        e.operation,
        e.country,
        e.outcome,
        e.freeReason,
        e.rowsReturned,
        e.chargeableRows,
        e.reserved,
        e.charged,
        e.holdId,
        now,
      ],
    );
  }

  async list(q: Queryable, accountId: string, from: number, to: number, limit: number): Promise<UsageRow[]> {
    return q.all<UsageRow>(
      `SELECT id, key_id, channel, operation, country, outcome, free_reason, rows_returned, chargeable_rows,
         reserved, charged, created_at
       FROM usage_records WHERE account_id = ? AND created_at >= ? AND created_at < ?
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      [accountId, from, to, limit],
    );
  }

  async summary(q: Queryable, accountId: string, from: number, to: number): Promise<UsageGroup[]> {
    return q.all<UsageGroup>(
      `SELECT operation, country, count(*) AS requests, coalesce(sum(rows_returned), 0) AS rows,
         sum(charged) AS charged
       FROM usage_records WHERE account_id = ? AND created_at >= ? AND created_at < ?
         AND outcome IN ('charged', 'free')
       GROUP BY operation, country ORDER BY operation, country`,
      [accountId, from, to],
    );
  }
}
