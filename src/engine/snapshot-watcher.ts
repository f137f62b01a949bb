import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from './engine.ts';

export interface SnapshotWatcherOptions {
  /** How often the `current` pointer is re-read; 0 disables polling (fs events and `check()` still work). */
  pollMs: number;
  /** After a failed load of an id, wait this long before trying that same id again. */
  retryMs?: number;
  log?: {
    info(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

/**
 * Makes a running server follow the `current` pointer: when an ingest (or `regdata snapshots promote /
 * rollback`) renames a new pointer into place, the engine loads that snapshot beside the live one and
 * swaps; in-flight requests finish on the snapshot they pinned. The pointer is re-read on a timer and on
 * fs events in the data folder (events alone are not trusted: they can be lost or coalesced, and the
 * folder may be on a filesystem without them). A snapshot that fails to load leaves the old one serving.
 */
export class SnapshotWatcher {
  private timer: NodeJS.Timeout | null = null;
  private fsWatcher: fs.FSWatcher | null = null;
  /** The check in progress; checks never overlap, so two swaps never race. */
  private running: Promise<void> | null = null;
  private again = false;
  private failed: { id: string; at: number } | null = null;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly options: SnapshotWatcherOptions,
  ) {}

  start(): this {
    if (this.options.pollMs > 0) {
      this.timer = setInterval(() => void this.check(), this.options.pollMs);
      this.timer.unref();
    }
    this.watch();
    return this;
  }

  /**
   * Watches the pointer file itself, and the data folder only while there is no pointer yet. The wallet
   * lives in the data folder by default, so a watch on the folder woke the event loop for every commit's
   * WAL write (an inotify event, its reads and a callback per paid call). A promote renames a new pointer
   * over the old one, which ends the watch on the old file: each event re-reads the pointer and watches
   * the file that is there now.
   */
  private watch(): void {
    this.fsWatcher?.close();
    this.fsWatcher = null;
    if (this.stopped) return;
    const pointer = this.engine.store.pointerPath;
    const onEvent = () => {
      this.watch();
      void this.check();
    };
    try {
      this.fsWatcher = fs.watch(pointer, { persistent: false }, onEvent);
    } catch {
      try {
        // No pointer yet: the folder, until one is renamed into it.
        this.fsWatcher = fs.watch(this.engine.store.dataDir, { persistent: false }, (_event, name) => {
          if (name === null || name === path.basename(pointer)) onEvent();
        });
      } catch {
        // A platform without fs events, or the folder gone: the timer alone.
        return;
      }
    }
    // A watch error (the folder removed, too many watches) only loses the fast path; the timer stays.
    this.fsWatcher.on('error', () => this.fsWatcher?.close());
  }

  /**
   * Swaps to the pointer's snapshot if it is not the live one. Resolves when the engine serves the
   * pointer's snapshot, or when loading it failed (then the old one keeps serving).
   */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      // A pointer change seen mid-swap is looked at again once the swap is done.
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.checkOnce();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async checkOnce(): Promise<void> {
    let id: string | null;
    try {
      id = this.engine.store.currentId();
    } catch (err) {
      this.options.log?.error({ err }, 'cannot read the current snapshot pointer');
      return;
    }
    if (id === null || id === this.engine.snapshot?.id) return;
    const retryMs = this.options.retryMs ?? 60_000;
    if (this.failed?.id === id && Date.now() - this.failed.at < retryMs) return;
    const started = Date.now();
    try {
      const snap = await this.engine.swap(id);
      this.failed = null;
      this.options.log?.info(
        { snapshot_id: snap.id, countries: snap.countries, load_ms: Date.now() - started },
        'snapshot swapped in',
      );
    } catch (err) {
      this.failed = { id, at: Date.now() };
      this.options.log?.error(
        { err, snapshot_id: id, live_snapshot_id: this.engine.snapshot?.id ?? null },
        'new snapshot failed to load; the live one keeps serving',
      );
    }
  }

  /** Stops watching; a swap in progress finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.fsWatcher?.close();
    await this.running;
  }
}
