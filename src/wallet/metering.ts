import type { CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';
import { Accounts, planName } from './accounts.ts';
import type { Clock } from './clock.ts';
import type { Queryable, WalletStore } from './store.ts';
import { InsufficientCreditsError, RateLimitedError } from './errors.ts';
import {
  isValidIdempotencyKey,
  requestFingerprint,
  type IdempotencyRow,
  type IdempotencyStore,
} from './idempotency.ts';
import type { Ledger, OwnHold, SettledAs } from './ledger.ts';
import { microToCredits, type Micro, type PriceTable } from './money.ts';
import type { Sweeper } from './sweeper.ts';
import type { FreeReason, UsageEntry, UsageLog } from './usage.ts';
import {
  MAX_EXPORT_RESERVE_ROWS,
  type FreeCall,
  type Metering,
  type MeteredCall,
  type MeteredOutcome,
  type Principal,
  type Quote,
  type UsageMeta,
} from './types.ts';

/** Spec 4.3 caps page_size at 500; a larger reserve is a caller bug, not a customer request. */
export const MAX_RESERVE_ROWS = 10_000;

export interface MeteringOptions {
  instanceId: string;
  prices: PriceTable;
  holdTimeoutMs: number;
  idempotencyTtlMs: number;
  /** Told when free calls' usage lines could not be written (recordFree). */
  onWarning?: (message: string) => void;
}

/**
 * How a call is paid for, decided in the transaction that reserves. `unheld`: the balance covers the call,
 * which holds nothing because its run already failed (executeInOneCommit).
 */
type Begun =
  | { mode: 'free'; reason: FreeReason; accountId: string }
  | ({ mode: 'held'; unitPrice: Micro } & OwnHold)
  | { mode: 'unheld'; accountId: string }
  | { mode: 'rejected'; available: Micro; needed: Micro };
/** A call that goes on to settle: free or held. */
type Settling = Extract<Begun, { mode: 'free' | 'held' }>;
type Rejected = Extract<Begun, { mode: 'rejected' }>;
/** What decide() writes for a call the balance covers: no hold, an open one, or one already resolved. */
type HoldMode = 'none' | 'open' | SettledAs;

interface Flight {
  fingerprint: string;
  promise: Promise<{ result: unknown; meta: UsageMeta }>;
}

/**
 * runMetered: reserve (one commit), run, settle (one commit); a read without an Idempotency-Key runs first
 * and pays in one commit (executeInOneCommit). On SQLite every commit is a BEGIN IMMEDIATE
 * transaction, so no two reserves interleave in one process or across processes; on PostgreSQL the
 * ledger's row locks on the account's lots serialise reserves of one account across replicas. Either way
 * a reserve is decided against the balance of that instant, which keeps every lot at or above zero.
 */
export class WalletMetering implements Metering {
  /** Calls with an Idempotency-Key now running in this process; entries leave when the call finishes. */
  private readonly inFlight = new Map<string, Flight>();
  /** Usage lines of calls that moved no money (free calls, failed reads), waiting for `freeWrite` (recordFree). */
  private freeLines: { entry: UsageEntry; at: number }[] = [];
  private freeWrite: Promise<void> | null = null;
  /** Every free-lines write not yet finished, the waiting one included (settleFree). */
  private readonly freeWrites = new Set<Promise<void>>();

  constructor(
    private readonly store: WalletStore,
    private readonly clock: Clock,
    private readonly ledger: Ledger,
    private readonly usage: UsageLog,
    private readonly idempotency: IdempotencyStore,
    private readonly sweeper: Sweeper,
    private readonly options: MeteringOptions,
  ) {}

  runMetered<T>(
    call: MeteredCall,
    run: () => Promise<MeteredOutcome<T>>,
  ): Promise<{ result: T; meta: UsageMeta }> {
    try {
      validateCall(call);
    } catch (err) {
      return Promise.reject(err);
    }
    const idemKey = call.idempotencyKey;
    if (idemKey === undefined) return this.execute(call, run, null);

    const slot = `${call.principal.keyId}\n${idemKey}`;
    const fingerprint = requestFingerprint(call);
    const flight = this.inFlight.get(slot);
    if (flight) {
      if (flight.fingerprint !== fingerprint) return Promise.reject(fingerprintMismatch());
      // A concurrent duplicate in this process shares the first call's outcome: one run, one charge.
      // The stored value is the same T the first caller asked for; the map cannot carry the type.
      return flight.promise as Promise<{ result: T; meta: UsageMeta }>;
    }
    const promise = this.execute(call, run, { key: idemKey, fingerprint });
    const cleanup = (): void => {
      if (this.inFlight.get(slot)?.promise === promise) this.inFlight.delete(slot);
    };
    promise.then(cleanup, cleanup);
    this.inFlight.set(slot, { fingerprint, promise });
    return promise;
  }

  private async execute<T>(
    call: MeteredCall,
    run: () => Promise<MeteredOutcome<T>>,
    idem: { key: string; fingerprint: string } | null,
  ): Promise<{ result: T; meta: UsageMeta }> {
    if (call.readOnly && idem === null) return this.executeInOneCommit(call, run);
    const { principal } = call;
    // A read with an Idempotency-Key starts with its hold instead of after it, so the two overlap (a search
    // plans on its thread while the reserve commits here); nothing it answers leaves before the hold is made.
    const early = call.readOnly ? run() : null;
    early?.catch(() => {
      // Dropped unless the hold is made; awaited (and its error handled) below when it is.
    });
    const start = await this.store.tx(
      async (q) => {
        const now = this.clock();
        if (idem) {
          await this.idempotency.lock(q, principal.keyId, idem.key);
          let row: IdempotencyRow | undefined = await this.idempotency.find(q, principal.keyId, idem.key);
          if (row && row.expires_at <= now) {
            await this.idempotency.release(q, row.key_id, row.idempotency_key);
            row = undefined;
          }
          if (row) {
            if (row.fingerprint !== idem.fingerprint) return { kind: 'mismatch' as const };
            if (row.state === 'done' && row.response !== null) {
              const stored = JSON.parse(row.response) as { result: T; meta: UsageMeta };
              await this.recordReplay(q, call, stored.meta, now);
              return { kind: 'replay' as const, stored };
            }
            // Its process died mid-call: take the key over and release its hold now rather than at the next
            // sweep. If the call settled after `row` was read, the claim is no longer there to take: the caller
            // retries and gets the stored answer, never a second run and charge.
            if (!(await this.sweeper.releaseIfAbandoned(q, row, now))) return { kind: 'busy' as const };
            if (row.hold_id !== null) await this.ledger.void(q, row.hold_id, 'owner_gone', now);
          }
        }
        const begun = await this.begin(q, call, now);
        if (idem && begun.mode !== 'rejected') {
          await this.idempotency.claim(
            q,
            principal.keyId,
            idem.key,
            idem.fingerprint,
            this.options.instanceId,
            begun.mode === 'held' ? begun.holdId : null,
            now,
            this.options.idempotencyTtlMs,
          );
        }
        return { kind: 'begun' as const, begun };
        // Not flushed: see docs/wallet.md "Durability". Losing this commit to power loss loses only a hold nobody will settle.
      },
      { durable: false },
    );

    switch (start.kind) {
      case 'mismatch':
        throw fingerprintMismatch();
      case 'replay':
        return start.stored;
      case 'busy':
        // Another process holds this key mid-call. 409 is what the IETF draft suggests; the error registry
        // has no 409 yet, so "retry shortly" is said with 429 + Retry-After (see docs/wallet.md).
        throw new RateLimitedError(
          'a request with this Idempotency-Key is still in progress; retry shortly',
          1,
          null,
        );
      case 'begun':
        break;
    }
    const begun = start.begun;
    if (begun.mode === 'rejected') throw new InsufficientCreditsError(begun.available, begun.needed);

    let outcome: MeteredOutcome<T>;
    try {
      outcome = await (early ?? run());
      validateOutcome(outcome, call.reserveRows);
    } catch (err) {
      await this.abandon(call, begun, idem);
      throw err;
    }
    try {
      return await this.settle(call, begun, outcome, idem);
    } catch (err) {
      // The settle commit failed (disk full, lock timeout): try to release now; if that fails as well the
      // sweeper releases the hold at its timeout. Either way nothing was charged.
      try {
        await this.abandon(call, begun, idem);
      } catch {
        // The original error is the one worth reporting.
      }
      throw err;
    }
  }

  /**
   * A read without an Idempotency-Key runs first; then one commit decides free, held or refused, holds and
   * settles (or voids, when `run` failed), with the same ledger entries and usage line as the two commits
   * of `execute`. Nothing is written before the answer exists, so there is no hold for a crash to leave
   * behind, and the answer leaves only after its charge commits. The second commit cost each lookup about
   * a tenth of a millisecond of the event loop (docs/wallet.md "A read pays in one commit").
   */
  private async executeInOneCommit<T>(
    call: MeteredCall,
    run: () => Promise<MeteredOutcome<T>>,
  ): Promise<{ result: T; meta: UsageMeta }> {
    // null when `run` failed (then `failure` holds why).
    let outcome: MeteredOutcome<T> | null = null;
    let failure: { error: unknown } | null = null;
    try {
      const out = await run();
      validateOutcome(out, call.reserveRows);
      outcome = out;
    } catch (error) {
      failure = { error };
    }
    if (failure !== null) {
      const now = this.clock();
      const line = await this.failedRunLine(call, now);
      if (line !== null) {
        void this.queueLine(line, now);
        throw failure.error;
      }
      // Refused, or the account is gone: the commit below decides and words it under the lock.
    }
    const settled = await this.store.tx(
      async (q) => {
        // A failed run (a 404) holds nothing: a hold, its pending transfer and their void would cancel out
        // in this very commit. Its balance is still checked, so it is a 402 exactly when a hold would be.
        const begun = await this.decide(q, call, this.clock(), this.oneCommitHold(call, outcome));
        // The balance decides first: a refused call is a 402 whatever its run found or threw.
        if (begun.mode === 'rejected') return begun;
        if (outcome === null || begun.mode === 'unheld') {
          await this.abandonIn(q, call, begun, null);
          return null;
        }
        return this.settleIn(q, call, begun, outcome, null);
      },
      // As the two commits of `execute` (docs/wallet.md "Durability"): a commit lost to a power cut is a call
      // answered and not charged, never a charge without its answer.
      { durable: false },
    );
    if (settled === null) throw failure!.error;
    if ('mode' in settled) throw new InsufficientCreditsError(settled.available, settled.needed);
    return settled;
  }

  /**
   * The usage line of a read whose run failed (a 404, a 502) and whose balance covers it, decided without a
   * write transaction: such a call moves no money, so it needs no commit before its answer, and its line
   * is written after the answer as a free call's is (recordFree). The decision is decide()'s, read without
   * the account's lock: the same free reasons, and the balance net of expired lots as spendable() counts it.
   * null when the call would be refused (or the account is gone), which the caller leaves to the commit
   * that words the 402 and writes its 'rejected' line.
   */
  private async failedRunLine(call: MeteredCall, now: number): Promise<UsageEntry | null> {
    const terms = await this.terms(this.store, call, now);
    if (!terms) return null;
    if (
      terms.mode === 'priced' &&
      (await this.ledger.available(this.store, terms.accountId, now)) < terms.unitPrice * call.reserveRows
    ) {
      return null;
    }
    return usageEntry(call, terms.accountId, {
      outcome: 'voided',
      freeReason: terms.mode === 'free' ? terms.reason : null,
      rowsReturned: null,
      chargeableRows: null,
      reserved: 0,
      charged: 0,
      holdId: null,
    });
  }

  /** Decides free or held, and holds. Runs inside the reserve transaction. */
  private async begin(q: Queryable, call: MeteredCall, now: number): Promise<Settling | Rejected> {
    const begun = await this.decide(q, call, now, 'open');
    if (begun.mode === 'unheld') throw new Error('a reserve that holds returned no hold');
    return begun;
  }

  /**
   * Whether the call is free (and why) or priced, for decide() and failedRunLine(): its account, the
   * waivers, then a reserve that would be zero. undefined when the key's account is gone.
   */
  private async terms(
    q: Queryable,
    call: MeteredCall,
    now: number,
  ): Promise<
    | { mode: 'free'; reason: FreeReason; accountId: string }
    | { mode: 'priced'; unitPrice: Micro; accountId: string }
    | undefined
  > {
    const found = await Accounts.forCall(q, call.principal.accountId, call.country, now);
    if (!found) return undefined;
    const { account, subscribed } = found;
    const reason = freeReason(call.principal, planName(account, now), call, () => subscribed);
    if (reason) return { mode: 'free', reason, accountId: account.id };
    const unitPrice = this.options.prices[call.country];
    if (unitPrice * call.reserveRows === 0)
      return { mode: 'free', reason: 'nothing_to_reserve', accountId: account.id };
    return { mode: 'priced', unitPrice, accountId: account.id };
  }

  /**
   * Decides free, held or refused, and holds as `hold` says; with 'none' it only checks that the balance
   * covers the call (`unheld`).
   */
  private async decide(q: Queryable, call: MeteredCall, now: number, hold: HoldMode): Promise<Begun> {
    const { principal } = call;
    const terms = await this.terms(q, call, now);
    if (!terms) throw new AppError('unauthorized', 'API key has no account');
    if (terms.mode === 'free') return terms;
    const { accountId, unitPrice } = terms;
    const res =
      hold !== 'none'
        ? await this.ledger.reserve(
            q,
            {
              accountId,
              keyId: principal.keyId,
              instanceId: this.options.instanceId,
              channel: call.channel,
              operation: call.operation,
              country: call.country,
              unitPrice,
              reservedRows: call.reserveRows,
              timeoutAt: now + (call.holdTimeoutMs ?? this.options.holdTimeoutMs),
            },
            now,
            hold === 'open' ? null : hold,
          )
        : await this.ledger.covers(q, accountId, unitPrice * call.reserveRows, now);
    if (!res.ok) {
      const needed = unitPrice * call.reserveRows;
      await this.usage.record(
        q,
        usageEntry(call, accountId, {
          outcome: 'rejected',
          freeReason: null,
          rowsReturned: null,
          chargeableRows: null,
          reserved: 0,
          charged: 0,
          holdId: null,
        }),
        now,
      );
      return { mode: 'rejected', available: res.available, needed };
    }
    if (!('holdId' in res)) return { mode: 'unheld', accountId };
    return {
      mode: 'held',
      unitPrice,
      settledAs: res.settledAs,
      holdId: res.holdId,
      amount: res.amount,
      accountId,
      pendings: res.pendings,
    };
  }

  /**
   * The hold of a read paid in one commit, whose outcome is known before the commit: none when its run
   * failed, else made already posted (or voided, with nothing to charge), as its settle in that commit
   * will leave it.
   */
  private oneCommitHold(call: MeteredCall, outcome: MeteredOutcome<unknown> | null): HoldMode {
    if (outcome === null) return 'none';
    return outcome.chargeableRows * this.options.prices[call.country] > 0 ? 'posted' : 'voided';
  }

  private settle<T>(
    call: MeteredCall,
    begun: Settling,
    outcome: MeteredOutcome<T>,
    idem: { key: string } | null,
  ): Promise<{ result: T; meta: UsageMeta }> {
    // Not waiting for the flush: see docs/wallet.md "Durability". A settle lost to a power cut is a call
    // served and not charged, never a charge without its answer.
    return this.store.tx((q) => this.settleIn(q, call, begun, outcome, idem), { durable: false });
  }

  /** Charges what the call returned and records it. Runs inside the settle transaction. */
  private async settleIn<T>(
    q: Queryable,
    call: MeteredCall,
    begun: Settling,
    outcome: MeteredOutcome<T>,
    idem: { key: string } | null,
  ): Promise<{ result: T; meta: UsageMeta }> {
    const now = this.clock();
    let reserved: Micro = 0;
    let charged: Micro = 0;
    let reason: FreeReason | null = begun.mode === 'free' ? begun.reason : null;
    if (begun.mode === 'held') {
      reserved = begun.amount;
      const amount = outcome.chargeableRows * begun.unitPrice;
      // A hold made already resolved was made by this transaction (a read paid in one commit).
      if (begun.settledAs !== null) {
        await this.ledger.postOwn(q, begun, amount, now);
        charged = amount;
      } else if (await this.ledger.post(q, begun.holdId, amount, now)) charged = amount;
      // The sweeper voided the hold (the call outlived its timeout): the data is served, nothing is taken.
      else reason = 'hold_expired';
    } else {
      await this.ledger.lockAccount(q, begun.accountId);
      await this.ledger.bookExpiry(q, begun.accountId, now);
    }
    const meta: UsageMeta = {
      rows_returned: outcome.rowsReturned,
      credits_charged: microToCredits(charged),
      credits_reserved: microToCredits(reserved),
      credit_balance: microToCredits(await this.ledger.available(q, begun.accountId, now)),
    };
    await this.usage.record(
      q,
      usageEntry(call, begun.accountId, {
        outcome: reason === null ? 'charged' : 'free',
        freeReason: reason,
        rowsReturned: outcome.rowsReturned,
        chargeableRows: outcome.chargeableRows,
        reserved,
        charged,
        holdId: begun.mode === 'held' ? begun.holdId : null,
      }),
      now,
    );
    const response = { result: outcome.result, meta };
    // Stored in the settle commit: a replay can never see a result whose charge did not happen.
    if (idem) {
      await this.idempotency.finish(
        q,
        call.principal.keyId,
        idem.key,
        this.options.instanceId,
        JSON.stringify(response),
      );
    }
    return response;
  }

  /** `run` threw (404, 502, a bug): void the hold, free the idempotency key, record it. */
  private abandon(
    call: MeteredCall,
    begun: Exclude<Begun, { mode: 'rejected' }>,
    idem: { key: string } | null,
  ): Promise<void> {
    // Not waiting for the flush (a 404 is a common answer): a void lost to a power cut leaves a hold of a
    // process that is gone, which the sweeper voids, and a claim that releaseIfAbandoned takes over.
    return this.store.tx((q) => this.abandonIn(q, call, begun, idem), { durable: false });
  }

  /** Voids the hold, frees the idempotency key, records the call. Runs inside a transaction. */
  private async abandonIn(
    q: Queryable,
    call: MeteredCall,
    begun: Exclude<Begun, { mode: 'rejected' }>,
    idem: { key: string } | null,
  ): Promise<void> {
    const now = this.clock();
    if (begun.mode === 'held') await this.ledger.void(q, begun.holdId, 'run_failed', now);
    // Failures are not replayed: a retry after a 404 or 502 runs again (and costs nothing if it fails again).
    if (idem) await this.idempotency.releaseOwn(q, call.principal.keyId, idem.key, this.options.instanceId);
    await this.usage.record(
      q,
      usageEntry(call, begun.accountId, {
        outcome: 'voided',
        freeReason: begun.mode === 'free' ? begun.reason : null,
        rowsReturned: null,
        chargeableRows: null,
        reserved: begun.mode === 'held' ? begun.amount : 0,
        charged: 0,
        holdId: begun.mode === 'held' ? begun.holdId : null,
      }),
      now,
    );
  }

  async quote(call: Pick<MeteredCall, 'principal' | 'channel' | 'country' | 'reserveRows'>): Promise<Quote> {
    const now = this.clock();
    const q = this.store;
    const found = await Accounts.forCall(q, call.principal.accountId, call.country, now);
    if (!found) throw new AppError('unauthorized', 'API key has no account');
    // The same decision begin() takes, read without reserving.
    const { account, subscribed } = found;
    const reason = freeReason(call.principal, planName(account, now), call, () => subscribed);
    const unitPrice = this.options.prices[call.country];
    return {
      unitPrice: microToCredits(unitPrice),
      needed: reason ? 0 : microToCredits(unitPrice * call.reserveRows),
      balance: microToCredits(await this.ledger.available(q, account.id, now)),
      waiver: reason,
    };
  }

  /**
   * A free call's usage line is written after its answer, in one commit with every other free line of the
   * same turn of the event loop: setImmediate runs once the turn's I/O callbacks, the answer's write among
   * them, are done. Not money: committed without the fsync, and a crash between an answer and that commit
   * loses its line, as a power cut may lose the last lines written (never a ledger entry). On the scale-1
   * bench a count's own commit was about 75 µs of its 325 µs of event loop at c=1 (docs/wallet.md).
   */
  recordFree(call: FreeCall): Promise<void> {
    return this.queueLine(
      {
        accountId: call.principal.accountId,
        keyId: call.principal.keyId,
        channel: call.channel,
        operation: call.operation,
        country: call.country ?? '',
        outcome: 'free',
        freeReason: call.principal.mode === 'test' ? 'test' : 'free_operation',
        rowsReturned: call.rowsReturned ?? null,
        chargeableRows: 0,
        reserved: 0,
        charged: 0,
        holdId: null,
      },
      this.clock(),
    );
  }

  /** Queues a usage line that moves no money for the next turn's write (recordFree). */
  private queueLine(entry: UsageEntry, at: number): Promise<void> {
    this.freeLines.push({ entry, at });
    if (this.freeWrite === null) {
      const write = this.writeFreeLines().finally(() => this.freeWrites.delete(write));
      this.freeWrite = write;
      this.freeWrites.add(write);
    }
    return this.freeWrite;
  }

  async settleFree(): Promise<void> {
    await Promise.all(this.freeWrites);
  }

  /** Never rejects: nobody waits for these lines, so a failure is reported, not thrown. */
  private async writeFreeLines(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const lines = this.freeLines;
    this.freeLines = [];
    this.freeWrite = null;
    try {
      await this.store.tx(
        async (q) => {
          for (const { entry, at } of lines) await this.usage.record(q, entry, at);
        },
        { durable: false },
      );
    } catch (err) {
      this.options.onWarning?.(
        `usage: the lines of ${lines.length} call(s) that moved no money were not written: ${(err as Error).message}`,
      );
    }
  }

  private recordReplay(q: Queryable, call: MeteredCall, meta: UsageMeta, now: number): Promise<void> {
    return this.usage.record(
      q,
      usageEntry(call, call.principal.accountId, {
        outcome: 'replayed',
        freeReason: null,
        rowsReturned: meta.rows_returned,
        chargeableRows: null,
        reserved: 0,
        charged: 0,
        holdId: null,
      }),
      now,
    );
  }
}

/**
 * Spec 5.5/5.6 waivers, in order of precedence, after test mode: a test key's call is free before any plan
 * is looked at (nothing is reserved, the usage record says `test`). The trial covers "API and MCP use"; in-app search
 * (channel 'app') draws on the registration credits during the trial, which is what those are for.
 */
export function freeReason(
  principal: Principal,
  plan: 'payg' | 'trial' | 'unlimited',
  call: Pick<MeteredCall, 'channel' | 'country'>,
  subscribed: (country: CountryCode) => boolean,
): Quote['waiver'] {
  if (principal.mode === 'test') return 'test';
  if (principal.kind === 'admin') return 'admin';
  if (plan === 'unlimited') return 'unlimited';
  if (subscribed(call.country)) return 'subscription';
  if (plan === 'trial' && call.channel !== 'app') return 'trial';
  return null;
}

/**
 * A usage line of `call`, written out as one object literal. An object spread (`{ ...base, outcome }`)
 * here made V8 build a new hidden class for every line, allocated in the old generation: a loop of
 * metered calls left 2.2 KB of it per call for the full collections to clear (a sampling heap profile of
 * what they freed; docs/data-contract.md "Seventh round").
 */
function usageEntry(
  call: MeteredCall,
  accountId: string,
  e: Omit<UsageEntry, 'accountId' | 'keyId' | 'channel' | 'operation' | 'country'>,
): UsageEntry {
  return {
    accountId,
    keyId: call.principal.keyId,
    channel: call.channel,
    operation: call.operation,
    country: call.country,
    outcome: e.outcome,
    freeReason: e.freeReason,
    rowsReturned: e.rowsReturned,
    chargeableRows: e.chargeableRows,
    reserved: e.reserved,
    charged: e.charged,
    holdId: e.holdId,
  };
}

function fingerprintMismatch(): AppError {
  return new AppError('validation_failed', 'Idempotency-Key was already used with different parameters', [
    {
      loc: ['header', 'Idempotency-Key'],
      param: 'Idempotency-Key',
      msg: 'already used with different parameters',
      type: 'idempotency_key_reused',
    },
  ]);
}

function validateCall(call: MeteredCall): void {
  const max = call.operation === 'export' ? MAX_EXPORT_RESERVE_ROWS : MAX_RESERVE_ROWS;
  if (!Number.isInteger(call.reserveRows) || call.reserveRows < 0 || call.reserveRows > max) {
    throw new AppError('internal', `reserveRows must be an integer in 0..${max}`);
  }
  if (call.idempotencyKey !== undefined && !isValidIdempotencyKey(call.idempotencyKey)) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1-255 printable ASCII characters', [
      {
        loc: ['header', 'Idempotency-Key'],
        param: 'Idempotency-Key',
        msg: 'must be 1-255 printable ASCII characters',
        type: 'value_error',
      },
    ]);
  }
}

function validateOutcome(outcome: MeteredOutcome<unknown>, reserveRows: number): void {
  const { chargeableRows, rowsReturned } = outcome;
  // Two-phase rule: a post can never exceed its pending amount. Returning more rows than were reserved is
  // a bug in the caller; it is voided and surfaced rather than silently capped.
  if (!Number.isInteger(chargeableRows) || chargeableRows < 0 || chargeableRows > reserveRows) {
    throw new AppError('internal', `chargeableRows ${chargeableRows} outside 0..${reserveRows}`);
  }
  if (!Number.isInteger(rowsReturned) || rowsReturned < 0) {
    throw new AppError('internal', `rowsReturned ${rowsReturned} is not a count`);
  }
}
