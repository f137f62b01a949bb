import type { WalletDb } from './db.ts';
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

export type ReserveResult = { ok: true; holdId: number; amount: Micro } | { ok: false; available: Micro };

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
 * The two-phase ledger (TigerBeetle's pending / post / void). Every method expects to run inside a
 * writeTx; none opens its own, so a caller can combine a reserve with its idempotency row and usage
 * record in one atomic commit.
 */
export class Ledger {
  private readonly insertLot;
  private readonly insertTransfer;
  private readonly spendableLots;
  private readonly insertHold;
  private readonly holdById;
  private readonly holdPendings;
  private readonly resolveHold;
  private readonly expirableLotsOf;
  private readonly expirableLotsAll;
  private readonly availableOf;
  private readonly pendingOf;
  private readonly lotsOf;

  constructor(private readonly db: WalletDb) {
    this.insertLot = db.prepare<[string, LotSource, number | null, number]>(
      'INSERT INTO credit_lots (account_id, source, expires_at, created_at) VALUES (?, ?, ?, ?)',
    );
    this.insertTransfer = db.prepare<[string, number, string, Micro, number | null, number | null, number]>(
      `INSERT INTO transfers (account_id, lot_id, kind, amount, hold_id, pending_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    // Spec/issue: credit is spent earliest expiry first; non-expiring credit last; ties by age.
    this.spendableLots = db.prepare<[string, number], { id: number; available: Micro }>(
      `SELECT id, ${AVAILABLE} AS available FROM credit_lots
       WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?) AND ${AVAILABLE} > 0
       ORDER BY expires_at IS NULL, expires_at, id`,
    );
    this.insertHold = db.prepare<
      [string, string, string, string, string, string, Micro, number, Micro, number, number]
    >(
      `INSERT INTO holds (account_id, key_id, instance_id, channel, operation, country, unit_price,
         reserved_rows, amount, created_at, timeout_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.holdById = db.prepare<[number], HoldRow>('SELECT * FROM holds WHERE id = ?');
    this.holdPendings = db.prepare<[number], { id: number; lot_id: number; amount: Micro }>(
      `SELECT id, lot_id, amount FROM transfers WHERE hold_id = ? AND kind = 'pending' ORDER BY id`,
    );
    this.resolveHold = db.prepare<[string, number, string | null, number]>(
      `UPDATE holds SET state = ?, resolved_at = ?, void_reason = ? WHERE id = ? AND state = 'pending'`,
    );
    this.expirableLotsOf = db.prepare<[string, number], { id: number; account_id: string; available: Micro }>(
      `SELECT id, account_id, ${AVAILABLE} AS available FROM credit_lots
       WHERE account_id = ? AND expires_at <= ? AND ${AVAILABLE} > 0`,
    );
    this.expirableLotsAll = db.prepare<[number], { id: number; account_id: string; available: Micro }>(
      `SELECT id, account_id, ${AVAILABLE} AS available FROM credit_lots
       WHERE expires_at <= ? AND ${AVAILABLE} > 0`,
    );
    this.availableOf = db.prepare<[string, number], { v: Micro }>(
      `SELECT coalesce(sum(${AVAILABLE}), 0) AS v FROM credit_lots
       WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.pendingOf = db.prepare<[string], { v: Micro }>(
      'SELECT coalesce(sum(debits_pending), 0) AS v FROM credit_lots WHERE account_id = ?',
    );
    this.lotsOf = db.prepare<[string], LotRow>('SELECT * FROM credit_lots WHERE account_id = ? ORDER BY id');
  }

  /** A new lot, credited by its one grant transfer. */
  grant(accountId: string, source: LotSource, amount: Micro, expiresAt: number | null, now: number): number {
    const lotId = Number(this.insertLot.run(accountId, source, expiresAt, now).lastInsertRowid);
    this.insertTransfer.run(accountId, lotId, 'grant', amount, null, null, now);
    return lotId;
  }

  /**
   * Books what is left on expired lots as `expire` transfers. Called before any balance is read or spent,
   * so expiry is exact to the millisecond without depending on the sweeper having run.
   */
  bookExpiry(accountId: string | null, now: number): { lots: number; amount: Micro } {
    const lots =
      accountId === null ? this.expirableLotsAll.all(now) : this.expirableLotsOf.all(accountId, now);
    let amount = 0;
    for (const lot of lots) {
      this.insertTransfer.run(lot.account_id, lot.id, 'expire', lot.available, null, null, now);
      amount += lot.available;
    }
    return { lots: lots.length, amount };
  }

  /** Spendable balance: unexpired lots, net of holds. Call bookExpiry first when exactness matters. */
  available(accountId: string, now: number): Micro {
    return this.availableOf.get(accountId, now)?.v ?? 0;
  }

  pending(accountId: string): Micro {
    return this.pendingOf.get(accountId)?.v ?? 0;
  }

  lots(accountId: string): LotRow[] {
    return this.lotsOf.all(accountId);
  }

  /** Phase one: holds `reservedRows x unitPrice` across lots, earliest expiry first, or holds nothing. */
  reserve(req: HoldRequest, now: number): ReserveResult {
    this.bookExpiry(req.accountId, now);
    const amount = req.reservedRows * req.unitPrice;
    const lots = this.spendableLots.all(req.accountId, now);
    const available = lots.reduce((s, l) => s + l.available, 0);
    if (available < amount) return { ok: false, available };
    const holdId = Number(
      this.insertHold.run(
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
      ).lastInsertRowid,
    );
    let left = amount;
    for (const lot of lots) {
      if (left === 0) break;
      const take = Math.min(lot.available, left);
      this.insertTransfer.run(req.accountId, lot.id, 'pending', take, holdId, null, now);
      left -= take;
    }
    return { ok: true, holdId, amount };
  }

  getHold(holdId: number): HoldRow | undefined {
    return this.holdById.get(holdId);
  }

  /**
   * Phase two: posts `amount` (at most the hold) against the hold's pending transfers in the order they
   * were reserved, and releases the rest. Returns false when the hold was already resolved (voided by the
   * sweeper), in which case nothing is charged.
   */
  post(holdId: number, amount: Micro, now: number): boolean {
    const hold = this.holdById.get(holdId);
    if (!hold || hold.state !== 'pending') return false;
    if (!Number.isSafeInteger(amount) || amount < 0 || amount > hold.amount) {
      throw new RangeError(`post of ${amount} against a hold of ${hold.amount}`);
    }
    if (amount === 0) return this.void(holdId, 'nothing to charge', now);
    let left = amount;
    for (const p of this.holdPendings.all(holdId)) {
      const take = Math.min(p.amount, left);
      if (take > 0) this.insertTransfer.run(hold.account_id, p.lot_id, 'post', take, holdId, p.id, now);
      else this.insertTransfer.run(hold.account_id, p.lot_id, 'void', p.amount, holdId, p.id, now);
      left -= take;
    }
    this.resolveHold.run('posted', now, null, holdId);
    // Released remainder on a lot that expired while the hold was open must expire now, not linger.
    this.bookExpiry(hold.account_id, now);
    return true;
  }

  /** Releases the whole hold. Returns false when it was already resolved. */
  void(holdId: number, reason: string, now: number): boolean {
    const hold = this.holdById.get(holdId);
    if (!hold || hold.state !== 'pending') return false;
    for (const p of this.holdPendings.all(holdId)) {
      this.insertTransfer.run(hold.account_id, p.lot_id, 'void', p.amount, holdId, p.id, now);
    }
    this.resolveHold.run('voided', now, reason, holdId);
    this.bookExpiry(hold.account_id, now);
    return true;
  }

  /**
   * Recomputes everything from the transfer log and compares it with the lots' balance fields, the holds'
   * states and the usage records. Used by tests and by operators (`regdata` can expose it); it books due
   * expiry first, so it must run inside a writeTx.
   */
  audit(now: number): LedgerAudit {
    this.bookExpiry(null, now);
    const db = this.db;
    const totals = db
      .prepare<[number], Omit<AccountAudit, 'conserved'>>(
        `SELECT a.id AS accountId,
           coalesce((SELECT sum(amount) FROM transfers t WHERE t.account_id = a.id AND kind = 'grant'), 0) AS granted,
           coalesce((SELECT sum(amount) FROM transfers t WHERE t.account_id = a.id AND kind = 'expire'), 0) AS expired,
           coalesce((SELECT sum(amount) FROM transfers t WHERE t.account_id = a.id AND kind = 'post'), 0) AS charged,
           coalesce((SELECT sum(p.amount) FROM transfers p WHERE p.account_id = a.id AND p.kind = 'pending'
             AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.pending_id = p.id)), 0) AS pending,
           coalesce((SELECT sum(${AVAILABLE}) FROM credit_lots l WHERE l.account_id = a.id
             AND (l.expires_at IS NULL OR l.expires_at > ?)), 0) AS balance
         FROM accounts a ORDER BY a.id`,
      )
      .all(now);
    const accounts = totals.map((t) => ({
      ...t,
      conserved: t.granted - t.expired - t.charged === t.balance + t.pending,
    }));
    const lotMismatches = db
      .prepare<[], number>(
        `SELECT l.id FROM credit_lots l LEFT JOIN (
           SELECT lot_id,
             sum(CASE kind WHEN 'grant' THEN amount ELSE 0 END) AS g,
             sum(CASE kind WHEN 'post' THEN amount ELSE 0 END) AS po,
             sum(CASE kind WHEN 'expire' THEN amount ELSE 0 END) AS e,
             sum(CASE WHEN kind = 'pending' AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.pending_id = t.id)
                 THEN amount ELSE 0 END) AS pe
           FROM transfers t GROUP BY lot_id) s ON s.lot_id = l.id
         WHERE l.credits_posted IS NOT coalesce(s.g, 0) OR l.debits_posted IS NOT coalesce(s.po, 0)
            OR l.debits_expired IS NOT coalesce(s.e, 0) OR l.debits_pending IS NOT coalesce(s.pe, 0)`,
      )
      .pluck()
      .all();
    const holdMismatches = db
      .prepare<[], number>(
        `SELECT h.id FROM holds h WHERE
           (h.state = 'pending') <> EXISTS (SELECT 1 FROM transfers p WHERE p.hold_id = h.id AND p.kind = 'pending'
             AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.pending_id = p.id))
           OR h.amount <> (SELECT coalesce(sum(amount), 0) FROM transfers p WHERE p.hold_id = h.id AND p.kind = 'pending')`,
      )
      .pluck()
      .all();
    const usageMismatches = db
      .prepare<[], string>(
        `SELECT a.id FROM accounts a WHERE
           coalesce((SELECT sum(charged) FROM usage_records u WHERE u.account_id = a.id), 0)
           <> coalesce((SELECT sum(amount) FROM transfers t WHERE t.account_id = a.id AND kind = 'post'), 0)`,
      )
      .pluck()
      .all();
    const openHolds =
      db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM holds WHERE state = 'pending'`).get()?.n ?? 0;
    return { accounts, lotMismatches, holdMismatches, usageMismatches, openHolds };
  }
}
