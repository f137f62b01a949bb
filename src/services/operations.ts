import type { EventsData, EventsParams } from '../contract/watchlist-schemas.ts';
import { listEvents } from './events.ts';
import { z } from 'zod';
import {
  CompanyPathSchema,
  CountrySchema,
  SearchQuerySchema,
  WorkplacesQuerySchema,
  type CompanyDetail,
  type CountParams,
  type HistoryData,
  type SearchData,
  type SearchParams,
  type WorkplacesData,
} from '../contract/api-schemas.ts';
import { ChangesQuerySchema, type ChangesData, type ChangesParams } from '../contract/change-schemas.ts';
import {
  ExportQuerySchema,
  type EstimateData,
  type EstimateRequest,
  type ExportParams,
} from '../contract/export-schemas.ts';
import type { CountryCode } from '../contract/countries.ts';
import type { Engine } from '../engine/engine.ts';
import type { TestWorldSource } from './test-world.ts';
import { AppError, validationError, type ValidationIssue } from '../errors/app-error.ts';
import type {
  Channel,
  FreeOperation,
  Metering,
  MeteredCall,
  MeteredOperation,
  Principal,
  Quote,
  RateLimitDecision,
  RateLimiter,
  UsageMeta,
} from '../wallet/types.ts';
import {
  assertRegistrationCode,
  countCompanies,
  getCompany,
  getHistory,
  getWorkplaces,
  searchCompanies,
  type CompanyRef,
} from './companies.ts';
import { listChanges } from './changes.ts';
import { itemCount } from './raw-items.ts';
import { InsufficientCreditsError, RateLimitedError } from '../wallet/errors.ts';
import { MICRO_PER_CREDIT } from '../wallet/money.ts';
import { streamExport, writeExport, type ExportSink } from './export.ts';
import { listActivities, listCountries, listFilters, listLocations } from './discovery.ts';

/**
 * The nine operations of spec part 4 as every channel sells them: REST routes, MCP tools and the in-app
 * search call these and nothing below them, so what is reserved, what is charged, which result voids a hold
 * and which calls are rate-limited is decided once. Authentication belongs to the transport (a REST
 * header, the MCP request, a dashboard session's key); everything after "who is calling" is here.
 */

/** Who is calling, through which channel, and the optional Idempotency-Key of a metered call. */
export interface Caller {
  principal: Principal;
  channel: Channel;
  idempotencyKey?: string;
}

/**
 * How fresh an answer's data is: the live snapshot and the day its country was published into it (the
 * ingest reads that night's register files). Every answer about one country carries it.
 */
export interface Freshness {
  data_as_of: string;
  snapshot_id: string;
}

/**
 * A metered answer's `meta`: the usage, then the freshness, written out as one object literal. An object
 * spread on a request's path (`{ ...meta, ...fresh }`) made V8 build a new hidden class for each answer,
 * allocated in the old generation, which the full collections then had to clear (docs/data-contract.md
 * "Seventh round").
 */
function withFreshness(meta: UsageMeta, fresh: Freshness): UsageMeta & Freshness {
  return {
    rows_returned: meta.rows_returned,
    credits_charged: meta.credits_charged,
    credits_reserved: meta.credits_reserved,
    credit_balance: meta.credit_balance,
    data_as_of: fresh.data_as_of,
    snapshot_id: fresh.snapshot_id,
  };
}

/** A free operation's answer and the rate-limit state the transport may show (REST sets RateLimit headers). */
export interface Admitted<T> {
  data: T;
  rate: RateLimitDecision | null;
  /** Null for answers about no one country (/countries) or when no snapshot is loaded. */
  fresh: Freshness | null;
}

/**
 * A metered operation's answer: the envelope's `data`, the usage `meta` of spec 2.8 with the data's
 * freshness, and the rate-limit state.
 */
export interface Metered<T> extends Admitted<T> {
  meta: UsageMeta & Freshness;
  fresh: Freshness;
}

/** The detail, history and workplaces parameters as an estimate takes them: the path parameter in the query. */
const CompanyRefSchema = z.strictObject({
  country: CountrySchema,
  registrikood: CompanyPathSchema.shape.registrikood,
});
const WorkplacesRefSchema = CompanyRefSchema.extend({ country: WorkplacesQuerySchema.shape.country });

/** A quote in the estimate's words, shared by the estimate and the MCP export's answer. */
export function priceFields(quote: Quote) {
  return {
    unit_price: quote.unitPrice,
    credits_needed: quote.needed,
    credit_balance: quote.balance,
    waived: quote.waiver !== null,
    waiver: quote.waiver,
  };
}

/** An operation's own schema over the rest of an estimate's query: its 422s are the call's 422s. */
function parseRest<T>(schema: z.ZodType<T>, rest: Record<string, unknown>): T {
  const parsed = schema.safeParse(rest);
  if (parsed.success) return parsed.data;
  const issues: ValidationIssue[] = [];
  for (const i of parsed.error.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        issues.push({ loc: ['query', key], param: key, msg: 'unknown parameter', type: 'unknown_parameter' });
      }
      continue;
    }
    const custom = i.code === 'custom' ? (i.params as { type?: unknown } | undefined)?.type : undefined;
    issues.push({
      loc: ['query', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
      param: String(i.path[0] ?? ''),
      msg: i.message,
      type: typeof custom === 'string' ? custom : i.code,
    });
  }
  throw validationError(issues);
}

/** What a metered run hands the ledger to keep for an idempotent replay: the answer and its freshness. */
interface Kept<T> {
  body: T;
  fresh: Freshness;
}

export interface ExportOptions {
  /** The largest max_rows accepted (REGDATA_EXPORT_MAX_ROWS). */
  maxRows: number;
  /** How long an export's hold may stay pending (REGDATA_EXPORT_HOLD_TIMEOUT_MS). */
  holdTimeoutMs: number;
  /** Exports one key may run at once in this process (REGDATA_EXPORT_MAX_CONCURRENT). */
  maxConcurrent: number;
}

export const DEFAULT_EXPORT_OPTIONS: ExportOptions = {
  maxRows: 1_000_000,
  holdTimeoutMs: 3_600_000,
  maxConcurrent: 2,
};

/** What a client turned away for running too many exports is told to wait: an export takes seconds. */
export const EXPORT_BUSY_RETRY_SECONDS = 5;

/** An export's answer once its body is out: the usage meta the transport appends (trailer or last line). */
export interface ExportDone {
  meta: UsageMeta & Freshness;
}

/** An export priced for a download link: the rows it would reserve now and the quote for them. */
export interface ExportQuote {
  rows: number;
  quote: Quote;
}

export interface OperationsDeps {
  /** The live snapshot: every live key's answers. */
  engine: Engine;
  /**
   * The synthetic test world (src/services/test-world.ts): every test key's answers, and nothing else's.
   * Absent: test keys are answered 403, never from the live snapshot.
   */
  testWorld?: TestWorldSource;
  rateLimiter: RateLimiter;
  metering: Metering;
  exports?: ExportOptions;
  /** Which watchlist events an account was charged for (issue 31); without it, events are not served. */
  eventCharges?: EventCharges;
}

/** src/watchlists/watchlists.ts: marks events charged, returning how many were not yet. */
export interface EventCharges {
  claimCharges(accountId: string, eventIds: readonly string[]): Promise<number>;
}

export class Operations {
  /**
   * Exports running now per key id. Each one holds disk (its file) and a slow client can keep it for an
   * hour, so a key may run only a few at a time. An entry is deleted when its count drops to 0, so the map
   * holds only keys with an export running.
   */
  private readonly runningExports = new Map<string, number>();

  constructor(private readonly deps: OperationsDeps) {}

  /** The live engine (the public landing page's figures); callers with a key go through engineOf. */
  get engine(): Engine {
    return this.deps.engine;
  }

  /**
   * The one place a caller's data is chosen: a test key reads the test world, every other key the live
   * snapshot. A test key on a server without test mode is refused (403: retrying will not help), never
   * served live data.
   */
  async engineOf(caller: Caller): Promise<Engine> {
    if (caller.principal.mode !== 'test') return this.deps.engine;
    return this.testWorldOf().engine();
  }

  /** The test world, or the 403 of a server without test mode. */
  private testWorldOf(): NonNullable<OperationsDeps['testWorld']> {
    if (!this.deps.testWorld) {
      throw new AppError(
        'forbidden',
        'this server does not serve test keys (test mode is off); use a live key',
      );
    }
    return this.deps.testWorld;
  }

  /** A snapshot's freshness for a country (null when none is loaded or it lacks the country); live by default. */
  freshness(country: CountryCode, engine: Engine = this.deps.engine): Freshness | null {
    const snap = engine.snapshot;
    if (!snap?.countries.includes(country)) return null;
    return {
      data_as_of: snap.country(country).manifest.generated_at.slice(0, 10),
      snapshot_id: snap.id,
    };
  }

  /** Spends one rate-limit token (429 when empty); admin keys pass. */
  admit(caller: Caller, operation: MeteredOperation | FreeOperation): Promise<RateLimitDecision | null> {
    return this.deps.rateLimiter.take(caller.principal, operation);
  }

  /** Rate-limited, never charged; a successful call leaves a usage record (who asked what, when). */
  private async free<T>(
    caller: Caller,
    operation: FreeOperation,
    country: CountryCode | null,
    run: (engine: Engine) => T | Promise<T>,
    readsData = true,
  ): Promise<Admitted<T>> {
    const engine = readsData ? await this.engineOf(caller) : this.deps.engine;
    const rate = await this.admit(caller, operation);
    const fresh = country ? this.freshness(country, engine) : null;
    const data = await run(engine);
    // Not awaited: the line holds no money, and is written after the answer (metering.ts recordFree).
    void this.deps.metering.recordFree({
      principal: caller.principal,
      channel: caller.channel,
      operation,
      country,
    });
    return { data, rate, fresh };
  }

  /**
   * Account management of issue 31 (watchlists): rate-limited like any call, recorded, never charged. It
   * reads no data, so a test key does not load the test world for it (it is still refused where test mode
   * is off, like every call of a test key).
   */
  async manageWatchlists<T>(caller: Caller, run: () => Promise<T>): Promise<Admitted<T>> {
    if (caller.principal.mode === 'test') this.testWorldOf();
    return this.free(caller, 'watchlists', null, run, false);
  }

  countries(caller: Caller): Promise<Admitted<ReturnType<typeof listCountries>>> {
    return this.free(caller, 'countries', null, (engine) => listCountries(engine));
  }

  filters(caller: Caller, country: CountryCode) {
    return this.free(caller, 'filters', country, (engine) => listFilters(engine, country));
  }

  activities(caller: Caller, params: Parameters<typeof listActivities>[1]) {
    return this.free(caller, 'activities', params.country, (engine) => listActivities(engine, params));
  }

  locations(caller: Caller, params: Parameters<typeof listLocations>[1]) {
    return this.free(caller, 'locations', params.country, (engine) => listLocations(engine, params));
  }

  count(caller: Caller, params: CountParams) {
    return this.free(caller, 'count', params.country, (engine) => countCompanies(engine, params));
  }

  /** Spec 8.3: reserves page_size rows at the country price, charges the rows returned. */
  search(caller: Caller, params: SearchParams): Promise<Metered<SearchData>> {
    return this.metered(
      caller,
      'search',
      params.country,
      params.page_size,
      params,
      async (engine) => {
        const result = await searchCompanies(engine, params);
        const rows = itemCount(result);
        return { result, chargeableRows: rows, rowsReturned: rows };
      },
      true,
    );
  }

  /** Spec 8.4: one row; a 404 voids the hold. */
  detail(caller: Caller, ref: CompanyRef): Promise<Metered<CompanyDetail>> {
    return this.oneRow(
      caller,
      'detail',
      ref,
      (engine) => getCompany(engine, ref),
      () => true,
    );
  }

  /** Spec 8.4: one row when there is history; a company without periods costs nothing. */
  history(caller: Caller, ref: CompanyRef): Promise<Metered<HistoryData>> {
    return this.oneRow(
      caller,
      'history',
      ref,
      (engine) => getHistory(engine, ref),
      (r) => r.periods.length > 0,
    );
  }

  /** Spec 8.4: one SE row when the company has an active workplace; none costs nothing. */
  workplaces(caller: Caller, ref: CompanyRef): Promise<Metered<WorkplacesData>> {
    return this.oneRow(
      caller,
      'workplaces',
      ref,
      (engine) => getWorkplaces(engine, ref),
      (r) => r.workplaces.length > 0,
    );
  }

  /** A read of one company's row: charged as one row when `found` says the answer holds it. */
  private oneRow<T>(
    caller: Caller,
    operation: 'detail' | 'history' | 'workplaces',
    ref: CompanyRef,
    get: (engine: Engine) => Promise<T>,
    found: (result: T) => boolean,
  ): Promise<Metered<T>> {
    assertRegistrationCode(ref);
    return this.metered(
      caller,
      operation,
      ref.country,
      1,
      ref,
      async (engine) => {
        const result = await get(engine);
        const rows = found(result) ? 1 : 0;
        return { result, chargeableRows: rows, rowsReturned: rows };
      },
      true,
    );
  }

  /** Issue 19: the change feed, priced like search (reserve page_size rows, charge the items returned). */
  changes(caller: Caller, params: ChangesParams): Promise<Metered<ChangesData>> {
    return this.metered(
      caller,
      'changes',
      params.country,
      params.page_size,
      params,
      async (engine) => {
        const result = await listChanges(engine, params);
        return { result, chargeableRows: result.items.length, rowsReturned: result.items.length };
      },
      true,
    );
  }

  /**
   * Issue 31: a page of the account's watchlist events after a cursor. Reserves page_size events at the
   * country's row price; charges only the events this account was never charged for (a page read again,
   * or an event a webhook already delivered, is free).
   */
  events(caller: Caller, params: EventsParams): Promise<Metered<EventsData>> {
    const charges = this.deps.eventCharges;
    if (!charges) throw new AppError('not_found', 'watchlist events are not served here');
    // A test key reads the test world, whose snapshots carry no events: an empty feed, nothing marked.
    return this.metered(caller, 'events', params.country, params.page_size, params, async (engine) => {
      const result = await listEvents(engine, caller.principal.accountId, params);
      const fresh = await charges.claimCharges(
        caller.principal.accountId,
        result.items.map((e) => e.id),
      );
      // Not read-only: it marks the events charged, which must wait for the hold.
      return { result, chargeableRows: fresh, rowsReturned: result.items.length };
    });
  }

  /**
   * Issue 19: every matching row to `sink`. Reserves min(total, max_rows) rows before the first byte (or
   * 402 and nothing runs), charges the rows the connection accepted and releases the rest. With an
   * Idempotency-Key, a repeat of a finished export streams the same number of rows again, free, and
   * answers the first call's meta, as a search replay does.
   */
  async export(caller: Caller, params: ExportParams, sink: ExportSink): Promise<ExportDone> {
    const limits = this.exportLimits(params);
    const engine = await this.engineOf(caller);
    const rate = await this.admit(caller, 'export');
    const keyId = caller.principal.keyId;
    const running = this.runningExports.get(keyId) ?? 0;
    if (running >= limits.maxConcurrent) {
      throw new RateLimitedError(
        `too many exports at once: at most ${limits.maxConcurrent} per API key; retry when one has finished`,
        EXPORT_BUSY_RETRY_SECONDS,
        null,
      );
    }
    this.runningExports.set(keyId, running + 1);
    try {
      return await this.runExport(caller, engine, params, limits, rate, sink);
    } finally {
      const left = (this.runningExports.get(keyId) ?? 1) - 1;
      if (left > 0) this.runningExports.set(keyId, left);
      else this.runningExports.delete(keyId);
    }
  }

  private async runExport(
    caller: Caller,
    engine: Engine,
    params: ExportParams,
    limits: ExportOptions,
    rate: RateLimitDecision | null,
    sink: ExportSink,
  ): Promise<ExportDone> {
    const reserveRows = await this.exportRows(engine, params);
    let ran = false;
    const { result, meta } = await this.deps.metering.runMetered<Kept<{ rows: number }>>(
      {
        principal: caller.principal,
        channel: caller.channel,
        operation: 'export',
        country: params.country,
        reserveRows,
        holdTimeoutMs: limits.holdTimeoutMs,
        ...(caller.idempotencyKey !== undefined && { idempotencyKey: caller.idempotencyKey }),
        fingerprint: JSON.stringify(['export', params]),
      },
      async () => {
        ran = true;
        const written = await writeExport(engine, params, reserveRows);
        const rows = await streamExport(written, params.format, sink, params.country, rate);
        return { result: { body: { rows }, fresh: written.fresh }, chargeableRows: rows, rowsReturned: rows };
      },
    );
    if (!ran) {
      const written = await writeExport(engine, params, result.body.rows);
      await streamExport(written, params.format, sink, params.country, rate);
    }
    return { meta: withFreshness(meta, result.fresh) };
  }

  /**
   * What the MCP tool export_companies checks before it hands out a download link: the export's own 422s
   * (max_rows over the cap, a too-old updated_since, through the free count) and its 402, with the message
   * the download itself would answer, computed from the quote (nothing is reserved: the download reserves
   * when it starts). One rate-limit token and a free usage record, like the estimate.
   */
  exportQuote(caller: Caller, params: ExportParams): Promise<Admitted<ExportQuote>> {
    this.exportLimits(params);
    return this.free(caller, 'export_link', params.country, async (engine) => {
      const rows = await this.exportRows(engine, params);
      const quote = await this.deps.metering.quote({
        principal: caller.principal,
        channel: caller.channel,
        country: params.country,
        reserveRows: rows,
      });
      if (quote.needed > quote.balance) {
        // The quote is in credits; the 402 text is the metering's own, from micro-credits.
        const micro = (credits: number) => Math.round(credits * MICRO_PER_CREDIT);
        throw new InsufficientCreditsError(micro(quote.balance), micro(quote.needed));
      }
      return { rows, quote };
    });
  }

  /** The server's export limits; a max_rows above its cap (configuration, not the schema) is a 422. */
  private exportLimits(params: ExportParams): ExportOptions {
    const limits = this.deps.exports ?? DEFAULT_EXPORT_OPTIONS;
    if (params.max_rows > limits.maxRows) {
      throw validationError([
        {
          loc: ['query', 'max_rows'],
          param: 'max_rows',
          msg: `max_rows is at most ${limits.maxRows} on this server`,
          type: 'too_big',
        },
      ]);
    }
    return limits;
  }

  /** An export's reserve rule: min(matching rows, max_rows); the count is free and cached. */
  private async exportRows(engine: Engine, params: ExportParams): Promise<number> {
    const { count } = await countCompanies(engine, params);
    return Math.min(count, params.max_rows);
  }

  /**
   * Issue 19: what a call would reserve now, by that operation's own reserve rule and its own parameter
   * schema (so an estimate accepts exactly what the call accepts), with the waivers applied.
   */
  estimate(caller: Caller, req: EstimateRequest): Promise<Admitted<EstimateData>> {
    return this.free(caller, 'estimate', req.country, async (engine) => {
      const rows = await this.reserveRule(engine, req);
      const quote: Quote = await this.deps.metering.quote({
        principal: caller.principal,
        channel: caller.channel,
        country: req.country,
        reserveRows: rows,
      });
      return {
        country: req.country,
        operation: req.operation,
        rows,
        ...priceFields(quote),
        would_succeed: quote.needed <= quote.balance,
      };
    });
  }

  private async reserveRule(engine: Engine, req: EstimateRequest): Promise<number> {
    switch (req.operation) {
      case 'search':
        return parseRest(SearchQuerySchema, req.rest).page_size;
      case 'changes':
        return parseRest(ChangesQuerySchema, req.rest).page_size;
      case 'export': {
        const params = parseRest(ExportQuerySchema, req.rest);
        this.exportLimits(params);
        return this.exportRows(engine, params);
      }
      case 'detail':
      case 'history':
      case 'workplaces': {
        const ref = parseRest(
          req.operation === 'workplaces' ? WorkplacesRefSchema : CompanyRefSchema,
          req.rest,
        );
        assertRegistrationCode(ref);
        return 1;
      }
    }
  }

  private async metered<T>(
    caller: Caller,
    operation: MeteredOperation,
    country: CountryCode,
    reserveRows: number,
    params: unknown,
    run: (engine: Engine) => Promise<{ result: T; chargeableRows: number; rowsReturned: number }>,
    /**
     * `run` only reads (MeteredCall.readOnly): without an Idempotency-Key it runs first and the call pays in
     * one commit; with one, it starts while the hold is made.
     */
    readOnly = false,
  ): Promise<Metered<T>> {
    const engine = await this.engineOf(caller);
    const rate = await this.admit(caller, operation);
    // Object literals without spreads on this path: see withFreshness.
    const call: MeteredCall = {
      principal: caller.principal,
      channel: caller.channel,
      operation,
      country,
      reserveRows,
      // The validated parameters, whatever the channel: a REST retry and an MCP retry of one request
      // with one Idempotency-Key agree.
      fingerprint: JSON.stringify([operation, params]),
      readOnly,
    };
    if (caller.idempotencyKey !== undefined) call.idempotencyKey = caller.idempotencyKey;
    const { result, meta } = await this.deps.metering.runMetered<Kept<T>>(call, async () => {
      // Read as the query starts: the engine answers it from the snapshot live at this moment.
      const fresh = this.freshness(country, engine);
      const out = await run(engine);
      if (!fresh) throw new AppError('backend_unavailable', `no live snapshot holds ${country}`);
      return {
        result: { body: out.result, fresh },
        chargeableRows: out.chargeableRows,
        rowsReturned: out.rowsReturned,
      };
    });
    // A replay returns what the first answer kept, its freshness included.
    return { data: result.body, meta: withFreshness(meta, result.fresh), rate, fresh: result.fresh };
  }
}
