import type { DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import type { CountryCode } from '../contract/countries.ts';
import type { CountryManifest } from '../contract/data-contract.ts';
import type { FiltersResponse, TreeNode } from '../contract/api-schemas.ts';
import { AppError } from '../errors/app-error.ts';
import type { ConnectionPool, Row } from './connection-pool.ts';
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
  /** Null for NO and SE. */
  tree: TreeNode[] | null;
  locationIndex: IndexedLocation[];
  /** The location tree pruned to each max_depth asked for so far (at most four). */
  prunedTrees: Map<number, TreeNode[]>;
  /** Value-to-id maps of the dictionary columns (tables.ts), for IN lists over integers. */
  dictionaries: Record<DictionaryColumn, Map<string, number>>;
}

/** Counts remembered per snapshot: a key is ~100-500 bytes, so this bounds the cache at a few MB. */
const COUNT_CACHE_SIZE = 10_000;

export type QueryObserver = (label: string, seconds: number) => void;

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
  private readonly counts = new Map<string, Promise<number>>();
  observer: QueryObserver | undefined;

  constructor(
    readonly id: string,
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
    private readonly data: Partial<Record<CountryCode, CountryData>>,
    readonly loadMs: number,
  ) {}

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
    return { tables: tables(code), dictionaries: this.country(code).dictionaries };
  }

  /** Runs one bound query; DuckDB failures become 502s whose cause is logged but never shown. */
  async query(label: string, sql: string, params: readonly DuckDBValue[] = []): Promise<Row[]> {
    const started = performance.now();
    try {
      return await this.pool.query(sql, params);
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
  async count(sql: string, params: readonly DuckDBValue[]): Promise<number> {
    const key = `${sql}\u0000${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
    let hit = this.counts.get(key);
    if (hit) {
      // Re-insert to keep the map in least-recently-used order.
      this.counts.delete(key);
    } else {
      hit = this.query('count', sql, params).then((rows) => Number(rows[0]?.['n'] ?? 0));
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

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.close();
    this.instance.closeSync();
  }
}
