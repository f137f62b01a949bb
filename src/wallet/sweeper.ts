import os from 'node:os';
import type { Clock } from './clock.ts';
import type { WalletDb } from './db.ts';
import { writeTx } from './db.ts';
import type { IdempotencyRow, IdempotencyStore } from './idempotency.ts';
import type { HoldRow, Ledger } from './ledger.ts';
import type { Micro } from './money.ts';
import type { UsageLog } from './usage.ts';

interface InstanceRow {
  id: string;
  pid: number;
  hostname: string;
  heartbeat_at: number;
  heartbeat_interval_ms: number;
}

/**
 * Instances opened in this very process and not yet closed. A registry row carrying our own pid but absent
 * here belongs to a previous process that had the same pid: routine in containers, where the server is
 * often pid 1 before and after a restart.
 */
const OPEN_IN_THIS_PROCESS = new Set<string>();

/**
 * Which wallet processes are alive. A hold belongs to the process that made it; when that process is gone
 * (SIGKILL, OOM, power loss) nobody will settle the hold, so the sweeper voids it at once instead of
 * waiting for its timeout. WAL needs every connection on one host, so a pid check is normally decisive;
 * the heartbeat is the fallback for processes seen under another hostname (containers sharing a volume).
 */
export class Instances {
  private readonly insert;
  private readonly beat;
  private readonly remove;
  private readonly byId;
  private readonly all;
  private readonly hostname = os.hostname();

  constructor(
    db: WalletDb,
    readonly id: string,
  ) {
    this.insert = db.prepare<[string, number, string, number, number, number]>(
      `INSERT INTO wallet_instances (id, pid, hostname, started_at, heartbeat_at, heartbeat_interval_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.beat = db.prepare<[number, string]>('UPDATE wallet_instances SET heartbeat_at = ? WHERE id = ?');
    this.remove = db.prepare<[string]>('DELETE FROM wallet_instances WHERE id = ?');
    this.byId = db.prepare<[string], InstanceRow>('SELECT * FROM wallet_instances WHERE id = ?');
    this.all = db.prepare<[], InstanceRow>('SELECT * FROM wallet_instances');
  }

  register(now: number, heartbeatIntervalMs: number): void {
    this.insert.run(this.id, process.pid, this.hostname, now, now, heartbeatIntervalMs);
    OPEN_IN_THIS_PROCESS.add(this.id);
  }

  heartbeat(now: number): void {
    this.beat.run(now, this.id);
  }

  unregister(id: string = this.id): void {
    this.remove.run(id);
    OPEN_IN_THIS_PROCESS.delete(id);
  }

  list(): InstanceRow[] {
    return this.all.all();
  }

  isAlive(instanceId: string, now: number): boolean {
    if (instanceId === this.id) return true;
    const row = this.byId.get(instanceId);
    // Unregistered means closed cleanly (its holds were voided on close) or already swept.
    if (!row) return false;
    if (row.hostname === this.hostname) {
      if (row.pid === process.pid) return OPEN_IN_THIS_PROCESS.has(instanceId);
      try {
        process.kill(row.pid, 0);
        return true;
      } catch (err) {
        // EPERM: the pid exists but belongs to another user, so something is alive there. A reused pid also
        // reads as alive; such holds are then released by their timeout instead.
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (row.heartbeat_interval_ms <= 0) return true;
    return now - row.heartbeat_at <= 3 * row.heartbeat_interval_ms + 5_000;
  }
}

export interface SweepReport {
  voidedHolds: number;
  releasedMicro: Micro;
  expiredLots: number;
  expiredMicro: Micro;
  purgedIdempotencyKeys: number;
  releasedIdempotencyKeys: number;
}

/**
 * Issue 4: "nothing stays reserved forever". Voids holds whose process is gone or whose timeout has
 * passed, books due expiries, and drops idempotency records past their 24 h. Runs at open and on a timer.
 */
export class Sweeper {
  private readonly openHolds;

  constructor(
    private readonly db: WalletDb,
    private readonly ledger: Ledger,
    private readonly idempotency: IdempotencyStore,
    private readonly usage: UsageLog,
    private readonly instances: Instances,
    private readonly clock: Clock,
    private readonly holdTimeoutMs: number,
  ) {
    this.openHolds = db.prepare<[], HoldRow>(`SELECT * FROM holds WHERE state = 'pending'`);
  }

  /** An in-flight idempotency record nobody will finish: its process is gone or it outlived a hold. */
  isAbandoned(row: IdempotencyRow, now: number): boolean {
    if (!this.instances.isAlive(row.instance_id, now)) return true;
    if (now - row.created_at >= this.holdTimeoutMs) return true;
    if (row.hold_id !== null) return this.ledger.getHold(row.hold_id)?.state !== 'pending';
    return false;
  }

  sweep(): SweepReport {
    return writeTx(this.db, () => {
      const now = this.clock();
      this.instances.heartbeat(now);
      const report: SweepReport = {
        voidedHolds: 0,
        releasedMicro: 0,
        expiredLots: 0,
        expiredMicro: 0,
        purgedIdempotencyKeys: 0,
        releasedIdempotencyKeys: 0,
      };
      const alive = new Map<string, boolean>();
      const isAlive = (id: string): boolean => {
        let v = alive.get(id);
        if (v === undefined) alive.set(id, (v = this.instances.isAlive(id, now)));
        return v;
      };
      for (const hold of this.openHolds.all()) {
        const reason = hold.timeout_at <= now ? 'timeout' : isAlive(hold.instance_id) ? null : 'owner_gone';
        if (reason === null || !this.ledger.void(hold.id, reason, now)) continue;
        report.voidedHolds++;
        report.releasedMicro += hold.amount;
        // The call never settled, so no usage row exists for it yet; this one tells the operator why.
        this.usage.record(
          {
            accountId: hold.account_id,
            keyId: hold.key_id,
            channel: hold.channel,
            operation: hold.operation,
            country: hold.country,
            outcome: 'voided',
            freeReason: null,
            rowsReturned: null,
            chargeableRows: null,
            reserved: hold.amount,
            charged: 0,
            holdId: hold.id,
          },
          now,
        );
      }
      for (const row of this.idempotency.inFlight()) {
        if (this.isAbandoned(row, now)) {
          this.idempotency.release(row.key_id, row.idempotency_key);
          report.releasedIdempotencyKeys++;
        }
      }
      report.purgedIdempotencyKeys = this.idempotency.purgeExpired(now);
      for (const inst of this.instances.list()) {
        if (!isAlive(inst.id)) this.instances.unregister(inst.id);
      }
      const expired = this.ledger.bookExpiry(null, now);
      report.expiredLots = expired.lots;
      report.expiredMicro = expired.amount;
      return report;
    });
  }
}
