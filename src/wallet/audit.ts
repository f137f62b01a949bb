import type { Micro } from './money.ts';
import type { Queryable } from './store.ts';

/**
 * The ledger's invariants, recomputed from the tables as they are (`regdata wallet audit`, docs/wallet.md
 * "Audit"). Nothing here writes: unlike Ledger.audit it books no expiry and voids no hold, so an operator
 * checking a restored copy sees it exactly as restored, and a hold the sweeper failed to void is reported
 * rather than quietly repaired by the check itself.
 */

/** What a lot still holds by its own fields; below zero is an overdrawn lot. */
const REMAINING = 'credits_posted - debits_pending - debits_posted - debits_expired';

/** A pending transfer no post or void has resolved yet: money still reserved. */
const UNRESOLVED = `kind = 'pending' AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.pending_id = t.id)`;

export type InvariantName =
  | 'lot_balances'
  | 'conservation'
  | 'no_overdrawn_lot'
  | 'holds_match_transfers'
  | 'no_stale_hold'
  | 'idempotency'
  | 'usage_matches_ledger';

export interface Violation {
  /** The row at fault: a lot or hold id, an account id, or `key_id/idempotency_key`. */
  id: string;
  detail: string;
}

export interface InvariantResult {
  name: InvariantName;
  /** Rows examined (lots, accounts, holds or idempotency rows). */
  checked: number;
  violations: Violation[];
}

export interface WalletAuditReport {
  ok: boolean;
  /** The instant the audit judged hold timeouts against (ms since epoch). */
  now: number;
  staleGraceMs: number;
  /** Holds still pending and within their timeout: normal while calls are in flight, shown for context. */
  openHolds: number;
  invariants: InvariantResult[];
}

/** Lots whose four balance fields differ from the sums of their own transfers. */
export async function lotMismatches(q: Queryable): Promise<{ id: number; detail: string }[]> {
  const rows = await q.all<{
    id: number;
    credits_posted: Micro;
    debits_pending: Micro;
    debits_posted: Micro;
    debits_expired: Micro;
    g: Micro;
    pe: Micro;
    po: Micro;
    e: Micro;
  }>(
    `SELECT l.id, l.credits_posted, l.debits_pending, l.debits_posted, l.debits_expired,
       coalesce(s.g, 0) AS g, coalesce(s.pe, 0) AS pe, coalesce(s.po, 0) AS po, coalesce(s.e, 0) AS e
     FROM credit_lots l LEFT JOIN (
       SELECT lot_id,
         sum(CASE kind WHEN 'grant' THEN amount ELSE 0 END) AS g,
         sum(CASE kind WHEN 'post' THEN amount ELSE 0 END) AS po,
         sum(CASE kind WHEN 'expire' THEN amount ELSE 0 END) AS e,
         sum(CASE WHEN ${UNRESOLVED} THEN amount ELSE 0 END) AS pe
       FROM transfers t GROUP BY lot_id) s ON s.lot_id = l.id
     WHERE l.credits_posted <> coalesce(s.g, 0) OR l.debits_posted <> coalesce(s.po, 0)
        OR l.debits_expired <> coalesce(s.e, 0) OR l.debits_pending <> coalesce(s.pe, 0)
     ORDER BY l.id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    detail:
      `fields (credited ${r.credits_posted}, pending ${r.debits_pending}, posted ${r.debits_posted}, ` +
      `expired ${r.debits_expired}) but transfers (${r.g}, ${r.pe}, ${r.po}, ${r.e}) micro-credits`,
  }));
}

/** Holds whose state or amount disagrees with their transfers. */
export async function holdMismatches(q: Queryable): Promise<number[]> {
  const rows = await q.all<{ id: number }>(
    `SELECT h.id FROM holds h WHERE
       (h.state = 'pending') <> EXISTS (SELECT 1 FROM transfers t WHERE t.hold_id = h.id AND ${UNRESOLVED})
       OR h.amount <> (SELECT coalesce(sum(amount), 0) FROM transfers p WHERE p.hold_id = h.id AND p.kind = 'pending')
     ORDER BY h.id`,
  );
  return rows.map((r) => Number(r.id));
}

/** Accounts whose usage records' charges differ from the posts in the ledger. */
export async function usageMismatches(q: Queryable): Promise<string[]> {
  const rows = await q.all<{ id: string }>(
    `SELECT a.id FROM accounts a
       LEFT JOIN (SELECT account_id, sum(amount) AS posted FROM transfers WHERE kind = 'post'
                  GROUP BY account_id) t ON t.account_id = a.id
     WHERE coalesce((SELECT sum(charged) FROM usage_records u WHERE u.account_id = a.id), 0)
       <> coalesce(t.posted, 0)
     ORDER BY a.id`,
  );
  return rows.map((r) => r.id);
}

const count = async (q: Queryable, table: string): Promise<number> =>
  Number((await q.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0);

/**
 * Runs every check; call it inside one transaction so all of them see the same instant (on PostgreSQL a
 * REPEATABLE READ one: under READ COMMITTED a settle committing between two checks would look like a
 * violation). `staleGraceMs`: how long past its timeout a pending hold may wait for the next sweep.
 */
export async function auditWallet(
  q: Queryable,
  now: number,
  opts: { staleGraceMs: number },
): Promise<WalletAuditReport> {
  const lots = await count(q, 'credit_lots');
  const accounts = await count(q, 'accounts');
  const holds = await count(q, 'holds');
  const invariants: InvariantResult[] = [];

  invariants.push({
    name: 'lot_balances',
    checked: lots,
    violations: (await lotMismatches(q)).map((m) => ({
      id: String(m.id),
      detail: `lot ${m.id}: ${m.detail}`,
    })),
  });

  invariants.push(await conservationCheck(q, accounts), await overdrawnCheck(q, lots));

  invariants.push({
    name: 'holds_match_transfers',
    checked: holds,
    violations: (await holdMismatches(q)).map((id) => ({
      id: String(id),
      detail: `hold ${id}: its state or amount disagrees with its pending, post and void transfers`,
    })),
  });

  const { check: staleCheck, stale, pending } = await staleHoldCheck(q, now - opts.staleGraceMs);
  invariants.push(staleCheck);

  invariants.push(await idempotencyCheck(q));
  const usage = await usageMismatches(q);
  invariants.push({
    name: 'usage_matches_ledger',
    checked: accounts,
    violations: usage.map((id) => ({
      id,
      detail: `account ${id}: its usage records' charges differ from its post transfers`,
    })),
  });

  return {
    ok: invariants.every((i) => i.violations.length === 0),
    now,
    staleGraceMs: opts.staleGraceMs,
    openHolds: pending - stale,
    invariants,
  };
}

/**
 * Per account, from the two sides separately: what the transfers (by their own account_id) say is left
 * against what the lots' fields (by the lots' account_id) say, over every lot, expired or not, so the
 * check needs no expiry booked first.
 */
async function conservationCheck(q: Queryable, accounts: number): Promise<InvariantResult> {
  const conservation = await q.all<{ id: string; by_transfers: Micro; by_lots: Micro }>(
    `SELECT a.id, coalesce(s.left_over, 0) AS by_transfers,
       coalesce((SELECT sum(${REMAINING}) FROM credit_lots l WHERE l.account_id = a.id), 0) AS by_lots
     FROM accounts a LEFT JOIN (
       SELECT account_id, sum(CASE WHEN kind = 'grant' THEN amount
                                   WHEN kind IN ('post', 'expire') THEN -amount
                                   WHEN ${UNRESOLVED} THEN -amount ELSE 0 END) AS left_over
       FROM transfers t GROUP BY account_id) s ON s.account_id = a.id
     ORDER BY a.id`,
  );
  return {
    name: 'conservation',
    checked: accounts,
    violations: conservation
      .filter((r) => Number(r.by_transfers) !== Number(r.by_lots))
      .map((r) => ({
        id: r.id,
        detail:
          `account ${r.id}: granted - expired - charged - pending = ${r.by_transfers} by transfers, ` +
          `but its lots hold ${r.by_lots} micro-credits`,
      })),
  };
}

async function overdrawnCheck(q: Queryable, lots: number): Promise<InvariantResult> {
  const overdrawn = await q.all<{ id: number; remaining: Micro }>(
    `SELECT id, ${REMAINING} AS remaining FROM credit_lots
     WHERE ${REMAINING} < 0 OR credits_posted < 0 OR debits_pending < 0 OR debits_posted < 0 OR debits_expired < 0
     ORDER BY id`,
  );
  return {
    name: 'no_overdrawn_lot',
    checked: lots,
    violations: overdrawn.map((r) => ({
      id: String(r.id),
      detail: `lot ${r.id}: remaining ${r.remaining} micro-credits (or a negative balance field)`,
    })),
  };
}

/** Open holds timed out before a time, through holds_open as OPEN_HOLDS_SQL (sweeper.ts) says why. */
export const STALE_HOLDS_SQL = `SELECT id, timeout_at FROM holds WHERE state = 'pending' AND timeout_at <= ? ORDER BY +id`;

/** Pending holds timed out before `before`: the sweeper should have voided them by now. */
async function staleHoldCheck(
  q: Queryable,
  before: number,
): Promise<{ check: InvariantResult; stale: number; pending: number }> {
  const stale = await q.all<{ id: number; timeout_at: number }>(STALE_HOLDS_SQL, [before]);
  const pending = Number(
    (await q.get<{ n: number }>(`SELECT count(*) AS n FROM holds WHERE state = 'pending'`))?.n ?? 0,
  );
  const check: InvariantResult = {
    name: 'no_stale_hold',
    checked: pending,
    violations: stale.map((r) => ({
      id: String(r.id),
      detail: `hold ${r.id}: still pending, timed out at ${new Date(Number(r.timeout_at)).toISOString()}`,
    })),
  };
  return { check, stale: stale.length, pending };
}

/**
 * An idempotency row is consistent when:
 * - its hold_id, if any, names an existing hold made with the same API key;
 * - in flight with a hold: that hold is still pending (a settle finishes the row and a void releases it in
 *   the same commit that resolves the hold, so an in-flight row on a resolved hold is a leak);
 * - done: it has a stored answer, its hold (if any) is resolved, and the answer's credits_charged equals
 *   what the ledger posted for that hold (0 without one), so a replay never shows a charge that did not
 *   happen or hides one that did.
 */
async function idempotencyCheck(q: Queryable): Promise<InvariantResult> {
  // Only the charge is read out of the stored answer: the result part can be large.
  const charged =
    q.dialect === 'postgres'
      ? `(i.response::jsonb -> 'meta' ->> 'credits_charged')`
      : `json_extract(i.response, '$.meta.credits_charged')`;
  const validJson = q.dialect === 'postgres' ? 'i.response IS NOT NULL' : 'json_valid(i.response)';
  const rows = await q.all<{
    key_id: string;
    idempotency_key: string;
    state: 'in_flight' | 'done';
    hold_id: number | null;
    has_response: number | boolean;
    answered: string | number | null;
    hold_state: string | null;
    hold_key: string | null;
    posted: Micro;
  }>(
    `SELECT i.key_id, i.idempotency_key, i.state, i.hold_id,
       CASE WHEN ${validJson} THEN 1 ELSE 0 END AS has_response,
       CASE WHEN i.state = 'done' AND ${validJson} THEN ${charged} END AS answered,
       h.state AS hold_state, h.key_id AS hold_key,
       coalesce((SELECT sum(amount) FROM transfers t WHERE t.hold_id = i.hold_id AND t.kind = 'post'), 0) AS posted
     FROM idempotency_keys i LEFT JOIN holds h ON h.id = i.hold_id
     ORDER BY i.key_id, i.idempotency_key`,
  );
  const violations: Violation[] = [];
  for (const r of rows) {
    const id = `${r.key_id}/${r.idempotency_key}`;
    const bad = (detail: string) => violations.push({ id, detail: `idempotency key ${id}: ${detail}` });
    if (r.hold_id !== null && r.hold_state === null) {
      bad(`names hold ${r.hold_id}, which does not exist`);
      continue;
    }
    if (r.hold_id !== null && r.hold_key !== r.key_id) bad(`hold ${r.hold_id} belongs to key ${r.hold_key}`);
    if (r.state === 'in_flight') {
      if (r.hold_id !== null && r.hold_state !== 'pending') {
        bad(`in flight, but its hold ${r.hold_id} is already ${r.hold_state}`);
      }
      continue;
    }
    if (r.hold_state === 'pending') bad(`done, but its hold ${r.hold_id} is still pending`);
    if (!Number(r.has_response) || r.answered === null || !Number.isFinite(Number(r.answered))) {
      bad('done without a stored answer carrying credits_charged');
      continue;
    }
    const answered = Math.round(Number(r.answered) * 1_000_000);
    if (answered !== Number(r.posted)) {
      bad(`its stored answer says ${answered} micro-credits charged, the ledger posted ${r.posted}`);
    }
  }
  return { name: 'idempotency', checked: rows.length, violations };
}
