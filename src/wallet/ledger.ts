import { holdMismatches, lotMismatches, usageMismatches } from './audit.ts';
import type { Queryable } from './store.ts';
import type { Micro } from './money.ts';

export type LotSource = 'registration' | 'topup' | 'grant';

export interface LotRow {
  id: number;
  account_id: string;
  source: LotSource;
  expires_at: number | null;
  created_at: number;
  credits_posted: Micro;
  debits_pending: Micro;
  debits_posted: Micro;
  debits_expired: Micro;
}

export interface HoldRequest {
  accountId: string;
  keyId: string;
  instanceId: string;
  channel: string;
  operation: string;
  country: string;
  unitPrice: Micro;
  reservedRows: number;
  timeoutAt: number;
}

/**
 * How a hold is resolved when the transaction that makes it already knows (a read paid in one commit):
 * it is written in that state, so the row is written once and never enters the open-holds index.
 */
export type SettledAs = 'posted' | 'voided';
const NOTHING_TO_CHARGE = 'nothing to charge';

export type ReserveResult = ({ ok: true } & OwnHold) | { ok: false; available: Micro };

/** A hold as reserve() made it: what postOwn() needs, so that the transaction that made it reads nothing back. */
export interface OwnHold {
  /** Made already resolved (reserve's `settledAs`): postOwn() must resolve it the same way. */
  settledAs: SettledAs | null;
  holdId: number;
  accountId: string;
  amount: Micro;
  pendings: Pending[];
}

export interface HoldRow {
  id: number;
  account_id: string;
  key_id: string;
  instance_id: string;
  channel: string;
  operation: string;
  country: string;
  unit_price: Micro;
  reserved_rows: number;
  amount: Micro;
  created_at: number;
  timeout_at: number;
  state: 'pending' | 'posted' | 'voided';
}

/** Per-account totals recomputed from the transfer log alone; `balance` comes from the lots' fields. */
export interface AccountAudit {
  accountId: string;
  granted: Micro;
  expired: Micro;
  charged: Micro;
  pending: Micro;
  balance: Micro;
  /** Spec invariant 1: granted - expired - charged = balance + pending. */
  conserved: boolean;
}

export interface LedgerAudit {
  accounts: AccountAudit[];
  /** Lots whose balance fields disagree with the sum of their transfers (should be none). */
  lotMismatches: number[];
  /** Holds whose state disagrees with their transfers (should be none). */
  holdMismatches: number[];
  /** Accounts whose usage records' charges disagree with the posts in the ledger (should be none). */
  usageMismatches: string[];
  openHolds: number;
}

const AVAILABLE = 'credits_posted - debits_pending - debits_posted - debits_expired';

/**
 * Lots with anything left, expired or not: a reserve books the expired ones and spends the others. Put in
 * id order by the caller: no index gives that order, and SQLite would open a sorter for every paid call.
 */
const LOTS_LEFT = `SELECT id, expires_at, ${AVAILABLE} AS available FROM credit_lots
  WHERE account_id = ? AND ${AVAILABLE} > 0`;
const INSERT_TRANSFER = `INSERT INTO transfers (account_id, lot_id, kind, amount, hold_id, pending_id, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;
const HOLD_PENDINGS = `SELECT t.id, t.lot_id, t.amount, l.expires_at FROM transfers t
  JOIN credit_lots l ON l.id = t.lot_id WHERE t.hold_id = ? AND t.kind = 'pending' ORDER BY t.id`;

export interface Pending {
  id: number;
  lot_id: number;
  amount: Micro;
  expires_at: number | null;
}

const expiredBy = (expiresAt: number | null, now: number): boolean => expiresAt !== null && expiresAt <= now;
const RESOLVE_HOLD = `UPDATE holds SET state = ?, resolved_at = ?, void_reason = ? WHERE id = ? AND state = 'pending'`;

/**
 * The two-phase ledger (TigerBeetle's pending / post / void). Every method expects to run inside a
 * transaction (the Queryable it is given); none opens its own, so a caller can combine a reserve with its
 * idempotency row and usage record in one atomic commit.
 *
 * Concurrency: on SQLite the write lock (BEGIN IMMEDIATE) serialises every transaction. On PostgreSQL each
 * method that moves an account's money first locks that account's lots, `SELECT ... ORDER BY id FOR UPDATE`
 * (and a post or void locks its hold row before that), so two replicas reserving on one account queue on
 * the row locks and each decides against the balance the other committed; the fixed order (hold, then
 * lots by id) keeps them from deadlocking. docs/wallet.md has the choice and its measurement.
 */
export class Ledger {
  /** PostgreSQL: the row locks above. SQLite: nothing to do, the transaction already holds the write lock. */
  async lockAccount(q: Queryable, accountId: string): Promise<void> {
    if (q.dialect !== 'postgres') return;
    await q.all('SELECT id FROM credit_lots WHERE account_id = ? ORDER BY id FOR UPDATE', [accountId]);
  }

  /** A new lot, credited by its one grant transfer. */
  async grant(
    q: Queryable,
    accountId: string,
    source: LotSource,
    amount: Micro,
    expiresAt: number | null,
    now: number,
  ): Promise<number> {
    const lotId = await q.insert(
      'INSERT INTO credit_lots (account_id, source, expires_at, created_at) VALUES (?, ?, ?, ?)',
      [accountId, source, expiresAt, now],
    );
    await q.run(INSERT_TRANSFER, [accountId, lotId, 'grant', amount, null, null, now]);
    return lotId;
  }

  /**
   * Books what is left on expired lots as `expire` transfers. Called before any balance is read or spent,
   * so expiry is exact to the millisecond without depending on the sweeper having run. With a null
   * account it books every account's (sweeper, audit), one account at a time under its row locks.
   */
  async bookExpiry(
    q: Queryable,
    accountId: string | null,
    now: number,
  ): Promise<{ lots: number; amount: Micro }> {
    if (accountId === null) {
      const due = await q.all<{ account_id: string }>(
        `SELECT DISTINCT account_id FROM credit_lots WHERE expires_at <= ? AND ${AVAILABLE} > 0 ORDER BY account_id`,
        [now],
      );
      let lots = 0;
      let amount = 0;
      for (const { account_id } of due) {
        await this.lockAccount(q, account_id);
        const booked = await this.bookExpiry(q, account_id, now);
        lots += booked.lots;
        amount += booked.amount;
      }
      return { lots, amount };
    }
    const lots = await q.all<{ id: number; account_id: string; available: Micro }>(
      `SELECT id, account_id, ${AVAILABLE} AS available FROM credit_lots
       WHERE account_id = ? AND expires_at <= ? AND ${AVAILABLE} > 0 ORDER BY id`,
      [accountId, now],
    );
    let amount = 0;
    for (const lot of lots) {
      await q.run(INSERT_TRANSFER, [lot.account_id, lot.id, 'expire', lot.available, null, null, now]);
      amount += lot.available;
    }
    return { lots: lots.length, amount };
  }

  /** Spendable balance: unexpired lots, net of holds. Call bookExpiry first when exactness matters. */
  async available(q: Queryable, accountId: string, now: number): Promise<Micro> {
    const row = await q.get<{ v: Micro }>(
      `SELECT coalesce(sum(${AVAILABLE}), 0) AS v FROM credit_lots
       WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
      [accountId, now],
    );
    return row?.v ?? 0;
  }

  async pending(q: Queryable, accountId: string): Promise<Micro> {
    const row = await q.get<{ v: Micro }>(
      'SELECT coalesce(sum(debits_pending), 0) AS v FROM credit_lots WHERE account_id = ?',
      [accountId],
    );
    return row?.v ?? 0;
  }

  async lots(q: Queryable, accountId: string): Promise<LotRow[]> {
    return q.all<LotRow>(
      `SELECT id, account_id, source, expires_at, created_at, credits_posted, debits_pending, debits_posted,
         debits_expired FROM credit_lots WHERE account_id = ? ORDER BY id`,
      [accountId],
    );
  }

  /**
   * What a reserve of `amount` would decide, without holding: it books the account's expired lots and
   * answers whether the rest covers `amount` (a read whose run failed, metering.ts executeInOneCommit).
   */
  async covers(
    q: Queryable,
    accountId: string,
    amount: Micro,
    now: number,
  ): Promise<{ ok: boolean; available: Micro }> {
    const { available } = await this.spendable(q, accountId, now);
    return { ok: available >= amount, available };
  }

  /**
   * Locks the account, books its expired lots and returns the others with credit left, earliest expiry
   * first (lots that never expire last), and their sum.
   */
  private async spendable(
    q: Queryable,
    accountId: string,
    now: number,
  ): Promise<{ lots: { id: number; expires_at: number | null; available: Micro }[]; available: Micro }> {
    await this.lockAccount(q, accountId);
    // bookExpiry and the spendable lots in one read: a metered call's statements are its cost (issue 27).
    const withCredit = (
      await q.all<{ id: number; expires_at: number | null; available: Micro }>(LOTS_LEFT, [accountId])
    ).sort((a, b) => a.id - b.id);
    for (const lot of withCredit) {
      if (expiredBy(lot.expires_at, now))
        await q.run(INSERT_TRANSFER, [accountId, lot.id, 'expire', lot.available, null, null, now]);
    }
    const lots = withCredit
      .filter((lot) => !expiredBy(lot.expires_at, now))
      .sort((a, b) => (a.expires_at ?? Infinity) - (b.expires_at ?? Infinity) || a.id - b.id);
    return { lots, available: lots.reduce((s, l) => s + l.available, 0) };
  }

  /** Phase one: holds `reservedRows x unitPrice` across lots, earliest expiry first, or holds nothing. */
  async reserve(
    q: Queryable,
    req: HoldRequest,
    now: number,
    settledAs: SettledAs | null = null,
  ): Promise<ReserveResult> {
    const { lots, available } = await this.spendable(q, req.accountId, now);
    const amount = req.reservedRows * req.unitPrice;
    if (available < amount) return { ok: false, available };
    const holdId = await q.insert(
      `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price,
         reserved_rows, amount, created_at, timeout_at, state, resolved_at, void_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        req.accountId,
        req.keyId,
        req.instanceId,
        req.channel,
        req.operation,
        req.country,
        req.unitPrice,
        req.reservedRows,
        amount,
        now,
        req.timeoutAt,
        settledAs ?? 'pending',
        settledAs ? now : null,
        settledAs === 'voided' ? NOTHING_TO_CHARGE : null,
      ],
    );
    let left = amount;
    const pendings: Pending[] = [];
    for (const lot of lots) {
      if (left === 0) break;
      const take = Math.min(lot.available, left);
      const pendingId = await q.insert(INSERT_TRANSFER, [
        req.accountId,
        lot.id,
        'pending',
        take,
        holdId,
        null,
        now,
      ]);
      pendings.push({ id: pendingId, lot_id: lot.id, amount: take, expires_at: lot.expires_at });
      left -= take;
    }
    return { ok: true, settledAs, holdId, accountId: req.accountId, amount, pendings };
  }

  /** The hold, locked against a concurrent post, void or sweep on PostgreSQL. */
  async getHold(q: Queryable, holdId: number, opts: { lock?: boolean } = {}): Promise<HoldRow | undefined> {
    const lock = opts.lock && q.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return q.get<HoldRow>(`SELECT * FROM holds WHERE id = ?${lock}`, [holdId]);
  }

  /**
   * Phase two: posts `amount` (at most the hold) against the hold's pending transfers in the order they
   * were reserved, and releases the rest. Returns false when the hold was already resolved (voided by the
   * sweeper), in which case nothing is charged.
   */
  async post(q: Queryable, holdId: number, amount: Micro, now: number): Promise<boolean> {
    const hold = await this.getHold(q, holdId, { lock: true });
    if (!hold || hold.state !== 'pending') return false;
    if (!Number.isSafeInteger(amount) || amount < 0 || amount > hold.amount) {
      throw new RangeError(`post of ${amount} against a hold of ${hold.amount}`);
    }
    if (amount === 0) return this.void(q, holdId, NOTHING_TO_CHARGE, now);
    await this.lockAccount(q, hold.account_id);
    const pendings = await q.all<Pending>(HOLD_PENDINGS, [holdId]);
    await this.postPendings(q, hold.account_id, holdId, pendings, amount, now, true);
    return true;
  }

  /**
   * post() of a hold the calling transaction made already resolved (reserve's `settledAs`, a read paid in
   * one commit): nobody else can have resolved it, and its pending transfers are known, so neither is read
   * back and the hold is not updated.
   */
  async postOwn(q: Queryable, hold: OwnHold, amount: Micro, now: number): Promise<void> {
    if (!Number.isSafeInteger(amount) || amount < 0 || amount > hold.amount) {
      throw new RangeError(`post of ${amount} against a hold of ${hold.amount}`);
    }
    const state: SettledAs = amount > 0 ? 'posted' : 'voided';
    if (hold.settledAs !== state) {
      throw new Error(
        `hold ${hold.holdId} was made ${hold.settledAs ?? 'pending'}, its settle leaves it ${state}`,
      );
    }
    const { accountId, holdId, pendings } = hold;
    if (amount > 0) return this.postPendings(q, accountId, holdId, pendings, amount, now, false);
    await this.voidPendings(q, accountId, holdId, pendings, NOTHING_TO_CHARGE, now, false);
  }

  /** Posts `amount` against `pendings` in order and voids what is left of them; `resolve`: the hold too. */
  private async postPendings(
    q: Queryable,
    accountId: string,
    holdId: number,
    pendings: Pending[],
    amount: Micro,
    now: number,
    resolve: boolean,
  ): Promise<void> {
    let left = amount;
    for (const p of pendings) {
      const take = Math.min(p.amount, left);
      if (take > 0) await q.run(INSERT_TRANSFER, [accountId, p.lot_id, 'post', take, holdId, p.id, now]);
      else await q.run(INSERT_TRANSFER, [accountId, p.lot_id, 'void', p.amount, holdId, p.id, now]);
      left -= take;
    }
    if (resolve) await q.run(RESOLVE_HOLD, ['posted', now, null, holdId]);
    await this.expireReleased(q, accountId, pendings, now);
  }

  /** Releases the whole hold. Returns false when it was already resolved. */
  async void(q: Queryable, holdId: number, reason: string, now: number): Promise<boolean> {
    const hold = await this.getHold(q, holdId, { lock: true });
    if (!hold || hold.state !== 'pending') return false;
    await this.lockAccount(q, hold.account_id);
    const pendings = await q.all<Pending>(HOLD_PENDINGS, [holdId]);
    await this.voidPendings(q, hold.account_id, holdId, pendings, reason, now, true);
    return true;
  }

  private async voidPendings(
    q: Queryable,
    accountId: string,
    holdId: number,
    pendings: Pending[],
    reason: string,
    now: number,
    resolve: boolean,
  ): Promise<void> {
    for (const p of pendings) {
      await q.run(INSERT_TRANSFER, [accountId, p.lot_id, 'void', p.amount, holdId, p.id, now]);
    }
    if (resolve) await q.run(RESOLVE_HOLD, ['voided', now, reason, holdId]);
    await this.expireReleased(q, accountId, pendings, now);
  }

  /**
   * What a post or void released on a lot that expired while the hold was open must expire now, not
   * linger. A hold whose lots are all still valid released nothing that could expire, and the read is
   * skipped: the usual settle (issue 27). Other lots of the account are booked by the next reserve, the
   * sweep or the audit; no balance counts an expired lot meanwhile (`available` reads unexpired lots only).
   */
  private async expireReleased(
    q: Queryable,
    accountId: string,
    pendings: Pending[],
    now: number,
  ): Promise<void> {
    if (pendings.some((p) => expiredBy(p.expires_at, now))) await this.bookExpiry(q, accountId, now);
  }

  /**
   * Recomputes everything from the transfer log and compares it with the lots' balance fields, the holds'
   * states and the usage records. Used by tests and Wallet.audit; it books due expiry first (so balances
   * are those a call would see), hence it writes and must run inside a transaction. `regdata wallet audit`
   * uses auditWallet (audit.ts) instead, which writes nothing.
   */
  async audit(q: Queryable, now: number): Promise<LedgerAudit> {
    await this.bookExpiry(q, null, now);
    // One scan of the transfers grouped by account (transfers have no index by account: it cost every
    // metered call a page, migration 9).
    const totals = await q.all<Omit<AccountAudit, 'conserved'>>(
      `SELECT a.id AS "accountId", coalesce(t.granted, 0) AS granted, coalesce(t.expired, 0) AS expired,
         coalesce(t.charged, 0) AS charged, coalesce(t.pending, 0) AS pending,
         coalesce((SELECT sum(${AVAILABLE}) FROM credit_lots l WHERE l.account_id = a.id
           AND (l.expires_at IS NULL OR l.expires_at > ?)), 0) AS balance
       FROM accounts a LEFT JOIN (
         SELECT p.account_id,
           sum(CASE WHEN p.kind = 'grant' THEN p.amount ELSE 0 END) AS granted,
           sum(CASE WHEN p.kind = 'expire' THEN p.amount ELSE 0 END) AS expired,
           sum(CASE WHEN p.kind = 'post' THEN p.amount ELSE 0 END) AS charged,
           sum(CASE WHEN p.kind = 'pending' AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.pending_id = p.id)
             THEN p.amount ELSE 0 END) AS pending
         FROM transfers p GROUP BY p.account_id) t ON t.account_id = a.id
       ORDER BY a.id`,
      [now],
    );
    const accounts = totals.map((t) => ({
      ...t,
      conserved: t.granted - t.expired - t.charged === t.balance + t.pending,
    }));
    const lots = (await lotMismatches(q)).map((m) => m.id);
    const holds = await holdMismatches(q);
    const usage = await usageMismatches(q);
    const openHolds =
      (await q.get<{ n: number }>(`SELECT count(*) AS n FROM holds WHERE state = 'pending'`))?.n ?? 0;
    return { accounts, lotMismatches: lots, holdMismatches: holds, usageMismatches: usage, openHolds };
  }
}
