import { TermFolder } from './term-folder.ts';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import type { CountryCode } from '../contract/countries.ts';
import type { CountryManifest } from '../contract/data-contract.ts';
import type { CountParams, FiltersResponse, SearchParams, TreeNode } from '../contract/api-schemas.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { ConnectionPool, Row } from './connection-pool.ts';
import { rowsJson, type LookupStore } from './lookup-store.ts';
import type { PageBytes } from './page-arena.ts';
import { answerTask, planKey, textTerms, type Plan, type PlanAnswer, type PlanTask } from './planner.ts';
import { PlannerPool } from './planner-pool.ts';
import type { Postings } from './postings.ts';
import type { QueryContext } from './query-builder.ts';
import { tables, type DictionaryColumn } from './tables.ts';

/** A location node flattened for the `query` search of /locations. */
export interface IndexedLocation {
  node: TreeNode;
  depth: number;
  /** Lower-cased, accent-stripped label. */
  key: string;
}

export interface CountryData {
  manifest: CountryManifest;
  /** filters.json: the /filters response, the authority on a country's filters. */
  filters: FiltersResponse;
  /** Activity trees per label language. */
  activityTrees: Record<string, TreeNode[]>;
  /** Codes of the retired activity edition → the served leaf (activities.json `forward`; services/industry-codes.ts). */
  activityForward: Readonly<Record<string, string>>;
  /** Null for NO and SE. */
  tree: TreeNode[] | null;
  locationIndex: IndexedLocation[];
  /** The location tree pruned to each max_depth asked for so far (at most four). */
  prunedTrees: Map<number, TreeNode[]>;
  /** Value-to-id maps of the dictionary columns (tables.ts), for IN lists over integers. */
  dictionaries: Record<DictionaryColumn, Map<string, number>>;
  /** Documents and search rows, read without DuckDB (lookup-store.ts). */
  lookups: LookupStore;
  /** The posting lists every search and count is planned on (postings.ts, planner.ts). */
  postings: Postings;
  /** The change history (changes.parquet) when the snapshot has one, for `updated_since`. */
  changesFile?: string;
  /** The watchlist events (events.parquet) and the first day they cover, when the publish wrote them. */
  events?: { file: string; since: string };
}

/** Counts remembered per snapshot: a key is ~100-500 bytes, so this bounds the cache at a few MB. */
const COUNT_CACHE_SIZE = 10_000;

/**
 * Queue order of DuckDB queries when every connection is busy: a statement narrowed to index candidates
 * reads a few rows and goes before a full scan, so a burst of heavy searches cannot starve it.
 */
export const QUERY_PRIORITY = { narrowed: 0, scan: 1 } as const;

/** Omit over each member of a union (the plain Omit merges the members first). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type QueryObserver = (label: string, seconds: number) => void;
/** Told how each new search or count was planned: the plan's explanation. */
export type PlanObserver = (country: CountryCode, explain: string) => void;

/** The same folding the snapshot writer applies to `search_name` (lower(strip_accents(...))), in JS. */
export function foldText(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * One snapshot loaded into its own DuckDB instance. Requests hold a reference while they run; when a newer
 * snapshot replaces this one it is retired, and the instance closes once the last request has finished,
 * so a swap never cuts a query short and never leaks the old tables.
 */
export class LoadedSnapshot {
  private refs = 0;
  private retired = false;
  private closed = false;
  private readonly warming = new AbortController();
  private readonly counts = new Map<string, Promise<number>>();
  /** Plans made on this thread when the snapshot has no planner threads. */
  private readonly plans = new Map<string, Plan>();
  private planners: PlannerPool | null = null;
  /** On its own connection, so a fold never waits in the pool behind a scan. */
  private readonly folder: TermFolder;
  observer: QueryObserver | undefined;
  planObserver: PlanObserver | undefined;

  constructor(
    readonly id: string,
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
    private readonly foldConnection: DuckDBConnection,
    private readonly data: Partial<Record<CountryCode, CountryData>>,
    readonly loadMs: number,
    /** How long a query may wait for a connection before it is turned away (undefined: no limit). */
    private readonly maxQueueMs?: number,
    /** Threads that plan searches and counts (0: on the calling thread). */
    private readonly plannerThreads = 0,
    /** Whether those threads run under SCHED_IDLE (PlannerPoolOptions.idle). */
    private readonly plannersIdle = false,
  ) {
    this.folder = new TermFolder(foldConnection);
  }

  static indexLocations(tree: TreeNode[] | null): IndexedLocation[] {
    const out: IndexedLocation[] = [];
    const walk = (nodes: TreeNode[], depth: number) => {
      for (const node of nodes) {
        out.push({ node, depth, key: foldText(node.label) });
        walk(node.children, depth + 1);
      }
    };
    if (tree) walk(tree, 1);
    return out;
  }

  get countries(): CountryCode[] {
    return Object.keys(this.data) as CountryCode[];
  }

  /** The country's files; a country missing from the snapshot is a backend problem, not a client one. */
  country(code: CountryCode): CountryData {
    const d = this.data[code];
    if (!d) throw new AppError('backend_unavailable', 'data backend temporarily unavailable');
    return d;
  }

  /** Table names and dictionaries of one country, for the query builder. */
  context(code: CountryCode): QueryContext {
    const d = this.country(code);
    return {
      tables: tables(code),
      dictionaries: d.dictionaries,
      ...(d.changesFile !== undefined && { changesFile: d.changesFile }),
    };
  }

  /** The country's lookup store: documents and search rows without DuckDB. */
  lookups(code: CountryCode): LookupStore {
    return this.country(code).lookups;
  }

  /** The text filter terms folded as DuckDB folded the indexed texts (term-folder.ts). */
  fold(terms: readonly string[]): Promise<string[]> {
    return this.folder.fold(terms);
  }

  /** The total of a count on the posting lists (planner.ts). */
  async planCount(params: CountParams): Promise<number> {
    return (await this.planned(params, { kind: 'count', params })).total;
  }

  /**
   * The total, the page's rids in the search's order, and the page's rows as the JSON text of an array of
   * row objects (lookup-store.ts rowsJson). A planner thread reads and writes the rows too, so the event
   * loop does neither: at c=1 on the demo, parsing a 50-row page into objects and serialising them again
   * took 0.3 ms of the event loop per search (.tmp measurement, loaded machine); without threads both
   * happen here.
   */
  async searchPage(
    params: SearchParams,
  ): Promise<{ total: number; rids: number[]; rows: string | PageBytes }> {
    const a = await this.planned(params, { kind: 'search', params, rows: true });
    const rids = a.rids ?? [];
    if (a.rowsBytes) return { total: a.total, rids, rows: a.rowsBytes };
    const lookups = this.lookups(params.country);
    const json = this.lookup('search_rows', () => a.rowsJson ?? rowsJson(lookups.rawRows(rids)));
    return { total: a.total, rids, rows: json };
  }

  /** The rids an export writes (the first `limit` in its order, ascending), or null when over `most`. */
  async planExport(params: SearchParams, limit: number, most: number): Promise<number[] | null> {
    return (await this.planned(params, { kind: 'export', params, limit, most })).rids;
  }

  /**
   * Answers a plan task on a planner thread (planner-pool.ts), or on this thread when the snapshot has
   * none. Text terms are folded by DuckDB and a registration code's rid read here first: both live on this
   * thread.
   */
  private async planned(
    params: CountParams,
    task: DistributiveOmit<PlanTask, 'key' | 'folded' | 'rid'>,
  ): Promise<PlanAnswer> {
    const terms = textTerms(params);
    const folded: [string, string][] = [];
    if (terms.length > 0) (await this.fold(terms)).forEach((f, i) => folded.push([terms[i]!, f]));
    const d = this.country(params.country);
    const code = params.filters['registration_code'];
    const rid = code?.kind === 'scalar' ? d.lookups.ridOf(String(code.value)) : null;
    // The caller's fresh literal, completed in place rather than spread into a new one (spreads on a
    // request's path gave V8 a new hidden class per object: operations.ts withFreshness).
    const full = task as PlanTask;
    full.key = planKey(params);
    full.folded = folded;
    full.rid = rid;
    const started = performance.now();
    let answer: PlanAnswer;
    try {
      if (this.plannerThreads > 0) {
        this.planners ??= new PlannerPool(
          Object.fromEntries(Object.entries(this.data).map(([c, x]) => [c, x.postings.shared])),
          this.plannerThreads,
          Object.fromEntries(Object.entries(this.data).map(([c, x]) => [c, x.lookups.file])),
          { idle: this.plannersIdle },
        );
        answer = await this.planners.run(full);
      } else {
        answer = answerTask(full, d.postings, this.plans);
      }
    } catch (err) {
      throw new AppError('backend_unavailable', 'data backend temporarily unavailable', [], { cause: err });
    } finally {
      this.observer?.('plan', (performance.now() - started) / 1000);
    }
    if (answer.fresh) this.planObserver?.(params.country, answer.explain);
    return answer;
  }

  /**
   * Runs one bound query; DuckDB failures become 502s whose cause is logged but never shown. `priority`
   * orders the waiting queries when every connection is busy (QUERY_PRIORITY); a query that waited
   * longer than the engine's maxQueueMs is turned away with 503 (the pool's overloaded error).
   */
  async query(
    label: string,
    sql: string,
    params: readonly DuckDBValue[] = [],
    priority: number = QUERY_PRIORITY.scan,
    keep = true,
  ): Promise<Row[]> {
    const started = performance.now();
    try {
      return await this.pool.query(sql, params, {
        priority,
        keep,
        ...(this.maxQueueMs !== undefined ? { maxWaitMs: this.maxQueueMs } : {}),
      });
    } catch (err) {
      if (isAppError(err)) throw err;
      throw new AppError('backend_unavailable', 'data backend temporarily unavailable', [], { cause: err });
    } finally {
      this.observer?.(label, (performance.now() - started) / 1000);
    }
  }

  /** Runs one lookup in the lookup store, observed like a query; failures become 502s like DuckDB's. */
  lookup<T>(label: string, read: () => T): T {
    const started = performance.now();
    try {
      return read();
    } catch (err) {
      throw new AppError('backend_unavailable', 'data backend temporarily unavailable', [], { cause: err });
    } finally {
      this.observer?.(label, (performance.now() - started) / 1000);
    }
  }

  /**
   * A `count(*)` statement's value, cached for the life of the snapshot. A snapshot never changes, so a
   * cached count is exact; a search and its count, every page of one search, and clients that ask /count
   * before they search all repeat the same filter set. Concurrent identical counts share one query.
   */
  async count(
    sql: string,
    params: readonly DuckDBValue[],
    priority: number = QUERY_PRIORITY.scan,
  ): Promise<number> {
    const key = `${sql}\u0000${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
    let hit = this.counts.get(key);
    if (hit) {
      // Re-insert to keep the map in least-recently-used order.
      this.counts.delete(key);
    } else {
      hit = this.query('count', sql, params, priority).then((rows) => Number(rows[0]?.['n'] ?? 0));
      // A failed count is not remembered.
      hit.catch(() => this.counts.delete(key));
      if (this.counts.size >= COUNT_CACHE_SIZE) {
        const oldest = this.counts.keys().next().value as string;
        this.counts.delete(oldest);
      }
    }
    this.counts.set(key, hit);
    return hit;
  }

  /** True once retired and drained: its DuckDB instance is gone. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Requests currently running on this snapshot. */
  get inFlight(): number {
    return this.refs;
  }

  acquire(): void {
    this.refs++;
  }

  release(): void {
    this.refs--;
    if (this.retired && this.refs === 0) this.close();
  }

  /** No new requests will use this snapshot; it closes as soon as the running ones are done. */
  retire(): void {
    this.retired = true;
    if (this.refs === 0) this.close();
  }

  /**
   * Reads every country's lookup store once in the background (LookupStore.warmPageCache), one after the
   * other; stops when the snapshot closes. Resolves with the bytes read; a failure only ends the warming.
   */
  async warmLookups(): Promise<number> {
    let bytes = 0;
    for (const d of Object.values(this.data)) {
      if (this.warming.signal.aborted) break;
      bytes += await d.lookups.warmPageCache(this.warming.signal);
    }
    return bytes;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.warming.abort();
    this.pool.close();
    void this.planners?.close();
    this.foldConnection.closeSync();
    for (const d of Object.values(this.data)) d.lookups.close();
    this.instance.closeSync();
  }
}
