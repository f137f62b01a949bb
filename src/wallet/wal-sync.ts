import fs from 'node:fs';

/**
 * Makes the wallet's commits durable without blocking the event loop, and lets concurrent commits share
 * one flush (group commit).
 *
 * With `synchronous = FULL` SQLite fdatasyncs the WAL inside COMMIT, on the caller's thread: better-sqlite3
 * is synchronous, so every metered call stopped the server's event loop for one disk flush (0.5-2 ms
 * here, more while another process writes), and every request behind it waited, lookups included. The
 * server's connection commits with `synchronous = NORMAL` instead (WAL frames written, not flushed) and
 * a durable transaction then awaits `flush()`, which fdatasyncs the same WAL file on libuv's thread pool.
 * The caller answers only after that, so what it acknowledges is on disk exactly as with FULL; the
 * difference is that other requests run meanwhile, and commits that land while one flush runs share the
 * next one. Another transaction may read a commit before its flush ends: what it can observe is at worst
 * undone by a power cut together with the commit, which for the ledger only ever un-charges.
 *
 * A process crash (SIGKILL) loses nothing either way: the frames are in the OS page cache once COMMIT
 * returns. The WAL file stays open between flushes (one thread-pool job per flush instead of three):
 * SQLite deletes a WAL only when the last connection to the database closes, and the store's own
 * connection is open for as long as this object is used. A WAL that is not there yet holds nothing.
 */
export class WalSync {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  private handle: Promise<fs.promises.FileHandle | null> | null = null;
  private soon: NodeJS.Timeout | null = null;

  constructor(
    private readonly walPath: string,
    private readonly datasync: (file: string) => Promise<void> = (file) => this.datasyncOpen(file),
  ) {}

  /** Resolves once every commit made before the call is on disk. */
  flush(): Promise<void> {
    if (this.running === null) {
      this.running = this.datasync(this.walPath).finally(() => {
        this.running = null;
      });
      return this.running;
    }
    // The running flush may have started before this caller's commit was written: wait for the one after
    // (also when the running one fails: its error is its own callers').
    const after = () => {
      this.next = null;
      return this.flush();
    };
    this.next ??= this.running.then(after, after);
    return this.next;
  }

  /**
   * Flushes within `delayMs` (one timer for any number of calls): bounds how long a commit that did not
   * wait for its flush can stay in the page cache only.
   */
  flushSoon(delayMs: number): void {
    if (this.soon !== null) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      // A failure here is also the next waiting flush's, which reports it to its caller.
      this.flush().catch(() => {});
    }, delayMs);
    this.soon.unref();
  }

  /** Flushes what is pending, then closes the WAL's handle; a flush after this opens it again. */
  async close(): Promise<void> {
    if (this.soon !== null) {
      clearTimeout(this.soon);
      this.soon = null;
      await this.flush().catch(() => {});
    }
    // Flushes under way finish first (their callers still wait for them).
    await this.next?.catch(() => {});
    await this.running?.catch(() => {});
    const handle = await this.handle?.catch(() => null);
    this.handle = null;
    await handle?.close();
  }

  private async datasyncOpen(file: string): Promise<void> {
    this.handle ??= fs.promises.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    let handle: fs.promises.FileHandle | null;
    try {
      handle = await this.handle;
    } catch (err) {
      this.handle = null;
      throw err;
    }
    if (handle === null) {
      this.handle = null;
      return;
    }
    await handle.datasync();
  }
}
