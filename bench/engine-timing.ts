import type { CountParams, SearchParams } from '../src/contract/api-schemas.ts';
import {
  CountQueryObject,
  CountQuerySchema,
  SearchQueryObject,
  SearchQuerySchema,
} from '../src/contract/api-schemas.ts';
import { SnapshotStore } from '../src/contract/snapshot-store.ts';
import { Engine } from '../src/engine/engine.ts';
import { AppError } from '../src/errors/app-error.ts';
import { arrayParams } from '../src/http/query-params.ts';
import { countCompanies, getCompany, getHistory, searchCompanies } from '../src/services/companies.ts';
import { dropRawItems } from '../src/services/raw-items.ts';
import { answerOf, type Answer } from './http-target.ts';
import type { BenchQuery, QueryValues } from './workload.ts';

const SEARCH_ARRAYS = arrayParams(SearchQueryObject);
const COUNT_ARRAYS = arrayParams(CountQueryObject);

/** The query object the HTTP layer hands to zod: a repeatable parameter sent once becomes a list. */
export function rawQuery(q: BenchQuery, arrays: ReadonlySet<string>): Record<string, unknown> {
  const raw: Record<string, unknown> = { country: q.country };
  for (const [k, v] of Object.entries(q.params as QueryValues))
    raw[k] = arrays.has(k) && !Array.isArray(v) ? [v] : v;
  return raw;
}

export function parseSearch(q: BenchQuery): SearchParams {
  return SearchQuerySchema.parse(rawQuery(q, SEARCH_ARRAYS));
}
export function parseCount(q: BenchQuery): CountParams {
  return CountQuerySchema.parse(rawQuery(q, COUNT_ARRAYS));
}

/**
 * The in-process engine: the same service functions the routes call, on the same snapshot, without HTTP,
 * authentication or the wallet. Requests are parsed before timing starts, so the difference to the HTTP
 * figures is routing, validation, auth, metering, serialisation and the socket.
 */
export class InProcessEngine {
  private readonly parsed = new Map<number, SearchParams | CountParams>();
  /** How the engine planned the searches and counts it was asked (a sample of the explanations). */
  readonly plans = { count: 0, samples: [] as string[] };

  private constructor(
    readonly engine: Engine,
    readonly loadMs: number,
  ) {}

  static async open(dataDir: string): Promise<InProcessEngine> {
    const started = performance.now();
    const engine = await Engine.open(new SnapshotStore(dataDir));
    if (!engine.snapshot) throw engine.lastLoadError ?? new Error(`no snapshot in ${dataDir}`);
    const inProcess = new InProcessEngine(engine, performance.now() - started);
    engine.observePlans((country, explain) => {
      inProcess.plans.count++;
      if (inProcess.plans.samples.length < 12) inProcess.plans.samples.push(`${country}: ${explain}`);
    });
    return inProcess;
  }

  prepare(queries: readonly BenchQuery[]): void {
    for (const q of queries) {
      if (q.op === 'search') this.parsed.set(q.id, parseSearch(q));
      if (q.op === 'count') this.parsed.set(q.id, parseCount(q));
    }
  }

  private async data(q: BenchQuery): Promise<unknown> {
    const ref = { country: q.country, registrikood: q.code ?? '' };
    switch (q.op) {
      case 'search':
        return searchCompanies(
          this.engine,
          (this.parsed.get(q.id) as SearchParams | undefined) ?? parseSearch(q),
        );
      case 'count':
        return countCompanies(
          this.engine,
          (this.parsed.get(q.id) as CountParams | undefined) ?? parseCount(q),
        );
      case 'detail':
        return getCompany(this.engine, ref);
      case 'history':
        return getHistory(this.engine, ref);
    }
  }

  /** Runs the request; the status the API would answer with. */
  async exec(q: BenchQuery): Promise<number> {
    try {
      // The page is never sent: its arena slot goes back at once, as a sent answer's does.
      dropRawItems(await this.data(q));
      return 200;
    } catch (err) {
      if (err instanceof AppError) return err.status;
      throw err;
    }
  }

  async answer(q: BenchQuery): Promise<Answer> {
    try {
      return answerOf(q, 200, await this.data(q));
    } catch (err) {
      if (err instanceof AppError) return { status: err.status };
      throw err;
    }
  }

  close(): void {
    this.engine.close();
  }
}
