import os from 'node:os';
import type { Clock } from './clock.ts';
import type { Queryable, WalletStore } from './store.ts';
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
 * waiting for its timeout. On this host a pid check is decisive; for a process on another host (a replica
 * on another machine, with PostgreSQL) the heartbeat decides: each sweep refreshes its own, and an instance
 * silent for three intervals plus five seconds is dead.
 */

/**
 * The open holds in id order. `+id` keeps SQLite from walking the whole table in rowid order to spare a
 * sort: written `ORDER BY id`, this sweep read every hold ever made (one per metered call) every 30 s on
 * the event loop; now it reads the partial index holds_open, which has only the open ones (issue 27).
 * PostgreSQL reads `+id` as id. test/wallet/open-holds-plan.test.ts checks the plans.
 */
export const OPEN_HOLDS_SQL = `SELECT * FROM holds WHERE state = 'pending' ORDER BY +id`;
export class Instances {
  private readonly hostname = os.hostname();

  constructor(readonly id: string) {}

  async register(q: Queryable, now: number, heartbeatIntervalMs: number): Promise<void> {
    await q.run(
      `INSERT INTO wallet_instances (id, pid, hostname, started_at, heartbeat_at, heartbeat_interval_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [this.id, process.pid, this.hostname, now, now, heartbeatIntervalMs],
    );
    OPEN_IN_THIS_PROCESS.add(this.id);
  }

  async heartbeat(q: Queryable, now: number): Promise<void> {
    await q.run('UPDATE wallet_instances SET heartbeat_at = ? WHERE id = ?', [now, this.id]);
  }

  async unregister(q: Queryable, id: string = this.id): Promise<void> {
    await q.run('DELETE FROM wallet_instances WHERE id = ?', [id]);
    OPEN_IN_THIS_PROCESS.delete(id);
  }

  async list(q: Queryable): Promise<InstanceRow[]> {
    return q.all<InstanceRow>('SELECT * FROM wallet_instances ORDER BY id');
  }

  async isAlive(q: Queryable, instanceId: string, now: number): Promise<boolean> {
    if (instanceId === this.id) return true;
    const row = await q.get<InstanceRow>('SELECT * FROM wallet_instances WHERE id = ?', [instanceId]);
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
  /** Expired records of the MCP authorization server (codes, tokens, interactions; src/oauth). */
  purgedOAuthRecords: number;
  /** PostgreSQL: another replica was sweeping at that moment, so this one left it to that one. */
  skipped?: boolean;
}

/** Any constant: the advisory lock that lets one replica sweep at a time (PostgreSQL). */
export const SWEEP_LOCK = 7_391_555_019;

/** PostgreSQL: the longest a sweep waits for the hold locks of owners it found gone (docs/wallet.md). */
export const GONE_OWNER_WAIT_MS = 5_000;

/** The application_name of a wallet instance's PostgreSQL sessions, by which a sweeper can end them. */
export function sessionName(instanceId: string): string {
  return `regdata-wallet ${instanceId}`;
}

/**
 * Issue 4: "nothing stays reserved forever". Voids holds whose process is gone or whose timeout has
 * passed, books due expiries, and drops idempotency records past their 24 h. Runs at open and on a timer,
 * on every replica: on PostgreSQL a transaction-scoped advisory lock (try, never wait) keeps two sweepers
 * from running at once, and each void locks its hold row, so a settle racing the sweeper resolves it once.
 */
export class Sweeper {
  constructor(
    private readonly store: WalletStore,
    private readonly ledger: Ledger,
    private readonly idempotency: IdempotencyStore,
    private readonly usage: UsageLog,
    private readonly instances: Instances,
    private readonly clock: Clock,
    private readonly holdTimeoutMs: number,
  ) {}

  /** An in-flight idempotency record nobody will finish: its process is gone or it outlived a hold. */
  async isAbandoned(q: Queryable, row: IdempotencyRow, now: number): Promise<boolean> {
    if (!(await this.instances.isAlive(q, row.instance_id, now))) return true;
    if (row.hold_id !== null) {
      // A held call is busy until its own hold times out: an export's hold runs for an hour, and releasing
      // its key at the default timeout would let a retry with the same Idempotency-Key start (and charge) a
      // second export while the first still streams.
      const hold = await this.ledger.getHold(q, row.hold_id);
      return hold?.state !== 'pending' || now >= hold.timeout_at;
    }
    return now - row.created_at >= this.holdTimeoutMs;
  }

  /**
   * Releases an in-flight idempotency record nobody will finish. `row` may have been read before its call
   * settled (a read-committed snapshot per statement): the release only removes the claim as it was read,
   * so a record that became done meanwhile keeps the stored answer of its charged call.
   */
  async releaseIfAbandoned(q: Queryable, row: IdempotencyRow, now: number): Promise<boolean> {
    if (!(await this.isAbandoned(q, row, now))) return false;
    return this.idempotency.releaseClaim(q, row);
  }

  /**
   * PostgreSQL: the sessions of a killed process outlive it until the server notices the closed socket. A
   * session waiting for a lock or running a statement notices only when that ends, and one whose client
   * machine lost power hears nothing until TCP keepalive gives up (hours by default). Until then it keeps
   * the row locks of the holds it was settling, and `SKIP LOCKED` would pass those holds by, leaving them
   * open until a later sweep or their timeout (a start-up sweep found 1-5 so in test/wallet/crash.test.ts).
   * So the holds of owners found gone are taken first: their named sessions (`sessionName`) are ended, and
   * their holds locked waiting, at most GONE_OWNER_WAIT_MS. Should that run out (sessions under another
   * name, e.g. an application_name in the URL, still busy), those holds are skipped and the next sweep
   * tries again. Holds are locked before any lot, as below, so this wait cannot deadlock with a settle.
   */
  private async lockHoldsOfGoneOwners(
    q: Queryable,
    isAlive: (id: string) => Promise<boolean>,
  ): Promise<void> {
    const gone: string[] = [];
    for (const { instance_id } of await q.all<{ instance_id: string }>(
      `SELECT DISTINCT instance_id FROM holds WHERE state = 'pending' ORDER BY instance_id`,
    )) {
      if (!(await isAlive(instance_id))) gone.push(instance_id);
    }
    if (gone.length === 0) return;
    const marks = gone.map(() => '?').join(', ');
    // Only this role's sessions: ending another role's is refused, and would abort the sweep.
    await q.all(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name IN (${marks}) AND usename = current_user AND pid <> pg_backend_pid()`,
      gone.map(sessionName),
    );
    await q.run('SAVEPOINT gone_owners');
    try {
      await q.run(`SET LOCAL statement_timeout = ${GONE_OWNER_WAIT_MS}`);
      await q.all(
        `SELECT id FROM holds WHERE state = 'pending' AND instance_id IN (${marks}) ORDER BY id FOR UPDATE`,
        gone,
      );
    } catch (err) {
      if ((err as { code?: string }).code !== '57014') throw err;
      // Also undoes the SET LOCAL.
      await q.run('ROLLBACK TO SAVEPOINT gone_owners');
      return;
    }
    await q.run('RELEASE SAVEPOINT gone_owners');
    await q.run('SET LOCAL statement_timeout = DEFAULT');
  }

  sweep(): Promise<SweepReport> {
    return this.store.tx(async (q) => {
      const report: SweepReport = {
        voidedHolds: 0,
        releasedMicro: 0,
        expiredLots: 0,
        expiredMicro: 0,
        purgedIdempotencyKeys: 0,
        releasedIdempotencyKeys: 0,
        purgedOAuthRecords: 0,
      };
      if (q.dialect === 'postgres') {
        const got = await q.get<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(?) AS ok', [SWEEP_LOCK]);
        if (!got?.ok) {
          await this.instances.heartbeat(q, this.clock());
          return { ...report, skipped: true };
        }
      }
      const now = this.clock();
      await this.instances.heartbeat(q, now);
      const alive = new Map<string, boolean>();
      const isAlive = async (id: string): Promise<boolean> => {
        let v = alive.get(id);
        if (v === undefined) alive.set(id, (v = await this.instances.isAlive(q, id, now)));
        return v;
      };
      if (q.dialect === 'postgres') await this.lockHoldsOfGoneOwners(q, isAlive);
      // PostgreSQL: the open holds are locked before any lot, and a hold a settle has locked is skipped (that
      // settle resolves it), so the sweeper never waits on a settle while holding lots the settle needs.
      // The holds of gone owners locked just above are this transaction's own and are not skipped.
      const skipLocked = q.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
      const open = await q.all<HoldRow>(`${OPEN_HOLDS_SQL}${skipLocked}`);
      for (const hold of open) {
        const reason =
          hold.timeout_at <= now ? 'timeout' : (await isAlive(hold.instance_id)) ? null : 'owner_gone';
        if (reason === null || !(await this.ledger.void(q, hold.id, reason, now))) continue;
        report.voidedHolds++;
        report.releasedMicro += hold.amount;
        // The call never settled, so no usage row exists for it yet; this one tells the operator why.
        await this.usage.record(
          q,
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
      for (const row of await this.idempotency.inFlight(q)) {
        if (await this.releaseIfAbandoned(q, row, now)) report.releasedIdempotencyKeys++;
      }
      report.purgedIdempotencyKeys = await this.idempotency.purgeExpired(q, now);
      // Read as absent once expired (oauth-store.ts); removed here so they do not pile up.
      report.purgedOAuthRecords = (
        await q.run('DELETE FROM oauth_records WHERE expires_at IS NOT NULL AND expires_at <= ?', [now])
      ).changes;
      for (const inst of await this.instances.list(q)) {
        if (!(await isAlive(inst.id))) await this.instances.unregister(q, inst.id);
      }
      const expired = await this.ledger.bookExpiry(q, null, now);
      report.expiredLots = expired.lots;
      report.expiredMicro = expired.amount;
      return report;
    });
  }
}
