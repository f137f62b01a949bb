import type { SnapshotStore } from '../contract/snapshot-store.ts';
import { AppError } from '../errors/app-error.ts';
import type { LoadedSnapshot, PlanObserver, QueryObserver } from './loaded-snapshot.ts';
import { exportDirectory, loadSnapshot, type EngineOptions } from './snapshot-loader.ts';

/**
 * The refcounted holder of the live snapshot. Every request runs inside `use`, which pins the snapshot it
 * started on; `swap` loads a newly promoted snapshot beside the old one, makes it live for new requests,
 * and retires the old one, which closes when its last request finishes. The engine may also be empty
 * (no snapshot promoted yet, or the load failed): requests then get 502, never a crash.
 */
export class Engine {
  private live: LoadedSnapshot | null = null;
  private observer: QueryObserver | undefined;
  private readonly planObservers: PlanObserver[] = [];
  /** Why the engine has no snapshot, for /healthz and logs (never sent to API clients). */
  lastLoadError: Error | null = null;

  private constructor(
    readonly store: SnapshotStore,
    private readonly options: EngineOptions,
  ) {}

  /** Opens the store's current snapshot. A missing or unreadable snapshot leaves the engine empty. */
  static async open(store: SnapshotStore, options: EngineOptions = {}): Promise<Engine> {
    const engine = new Engine(store, options);
    const id = store.currentId();
    if (id === null) {
      engine.lastLoadError = new Error(`no live snapshot in ${store.dataDir}`);
      return engine;
    }
    try {
      await engine.swap(id);
    } catch (err) {
      engine.lastLoadError = err instanceof Error ? err : new Error(String(err));
    }
    return engine;
  }

  /** The one folder the snapshots' DuckDB may write to (exports). */
  get exportDirectory(): string {
    return exportDirectory(this.options);
  }

  get snapshot(): LoadedSnapshot | null {
    return this.live;
  }

  /** Called with every query's duration (the metrics histogram). */
  observeQueries(observer: QueryObserver): void {
    this.observer = observer;
    if (this.live) this.live.observer = observer;
  }

  /** Called with every new plan (logs, metrics, the bench); a plan reused from the cache is not told again. */
  observePlans(observer: PlanObserver): void {
    this.planObservers.push(observer);
    if (this.live) this.live.planObserver = this.tellPlan;
  }

  private readonly tellPlan: PlanObserver = (country, explain) => {
    for (const o of this.planObservers) o(country, explain);
  };

  async use<T>(fn: (snapshot: LoadedSnapshot) => Promise<T>): Promise<T> {
    const snap = this.live;
    if (!snap) throw new AppError('backend_unavailable', 'data backend temporarily unavailable');
    snap.acquire();
    try {
      return await fn(snap);
    } finally {
      snap.release();
    }
  }

  /** Loads snapshot `id` and makes it live; the previous one drains and closes. */
  async swap(id: string): Promise<LoadedSnapshot> {
    const next = await loadSnapshot(this.store, id, this.options);
    next.observer = this.observer;
    next.planObserver = this.tellPlan;
    const previous = this.live;
    this.live = next;
    this.lastLoadError = null;
    previous?.retire();
    // Best effort: a lookup store that cannot be read fails its requests, not the swap.
    next.warmLookups().catch(() => {});
    return next;
  }

  /** Stops serving; running requests finish first (their snapshot closes when they release it). */
  close(): void {
    const previous = this.live;
    this.live = null;
    previous?.retire();
  }
}
