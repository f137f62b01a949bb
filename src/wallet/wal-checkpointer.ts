import { Worker } from 'node:worker_threads';
import type { WalletDb } from './db.ts';

/** SQLite's own default: a checkpoint once the WAL holds this many pages. */
const AUTOCHECKPOINT_PAGES = 1000;
/** Rounds' worth of commits a running round may fall behind before writers wait for it (`behind`). */
const BEHIND_ROUNDS = 4;

export interface WalCheckpointerOptions {
  /** Commits counted before the thread starts: a process that commits less (the CLI) never starts one. */
  startAfterCommits?: number;
  /** Commits between two checkpoints. */
  everyCommits?: number;
  /** A WAL still this long after a checkpoint is not being restarted: the next round holds the writers. */
  restartFrames?: number;
}

/** Runs `fn` with this process's writers held back (the store's transaction lock). */
export type WithWritersHeld = <T>(fn: () => Promise<T>) => Promise<T>;

interface Round {
  log: number;
  checkpointed: number;
}

/**
 * Moves the wallet's WAL checkpoints off the event loop.
 *
 * better-sqlite3 is synchronous, so SQLite's automatic checkpoint ran inside whichever COMMIT pushed the
 * WAL past 1,000 pages: about every 50th metered call (a reserve and a settle write about 20 pages), it
 * copied the WAL into the database and synced both files on the event loop, and every request of the
 * server waited. Measured with a scratch loop of metered calls on the real wallet (.tmp, 2026-11-27, busy
 * machine): commit p50 0.03 ms, p99 3 ms, max 109 ms.
 *
 * Once the process has committed `startAfterCommits` times, its connection stops checkpointing
 * (`wal_autocheckpoint = 0`) and a thread with a connection of its own runs a PASSIVE checkpoint every
 * `everyCommits` commits, while requests go on. SQLite restarts the WAL from its beginning only when a
 * write starts on a WAL that is wholly copied; under a steady stream of commits that moment never comes
 * and the file grows. So when a round leaves more than `restartFrames` frames, the next round copies what
 * is there and then holds this process's writers back (asynchronously: reads and other requests go on)
 * for the short copy of what they committed meanwhile, and the next commit restarts the WAL. A checkpoint
 * is SQLite's own operation whichever connection runs it, so crash safety is unchanged; a thread that
 * fails hands checkpoints back to the connection.
 */
export class WalCheckpointer {
  private commits = 0;
  private sinceRound = 0;
  private worker: Worker | null = null;
  private stopped = false;
  private inFlight: Promise<void> | null = null;
  private holdNext = false;
  private reply: ((r: Round) => void) | null = null;
  /** Rounds and a close waiting on the thread. */
  private waiting = 0;

  constructor(
    private readonly db: WalletDb,
    private readonly dbPath: string,
    private readonly withWritersHeld: WithWritersHeld,
    private readonly options: WalCheckpointerOptions = {},
    private readonly onError: (message: string) => void = () => {},
  ) {}

  /** Counts a commit (called with the transaction lock held, right after COMMIT). */
  committed(): void {
    this.commits++;
    this.sinceRound++;
    if (this.stopped) return;
    if (this.worker === null) {
      if (this.commits >= (this.options.startAfterCommits ?? 200)) this.start();
      return;
    }
    if (this.inFlight === null && this.sinceRound >= (this.options.everyCommits ?? 200)) {
      this.sinceRound = 0;
      const round = this.holdNext ? this.restartRound() : this.plainRound();
      this.inFlight = round.then(
        () => {},
        (err: unknown) => this.onError(`wallet checkpoint failed: ${String(err)}`),
      );
      void this.inFlight.finally(() => (this.inFlight = null));
    }
  }

  /**
   * The round the next transaction must wait for, or null. A thread starved of CPU (a loaded machine)
   * answers late, and no round starts while one runs, so without this a burst of commits grew the WAL
   * without bound meanwhile (test/wallet/wal-checkpointer.test.ts saw 28 MB in 6,000 commits). Past
   * BEHIND_ROUNDS rounds' worth of commits, writers wait for the round; reads and other requests go on.
   */
  get behind(): Promise<void> | null {
    const every = this.options.everyCommits ?? 200;
    return this.inFlight !== null && this.sinceRound >= BEHIND_ROUNDS * every ? this.inFlight : null;
  }

  /**
   * Stops the thread after its current round; the connection's close checkpoints what is left. Called
   * with the transaction lock held, so it never waits for a round that waits for that lock: such a round
   * finds no thread when it gets the lock, and ends at once.
   */
  async close(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Referenced until it has closed its connection, so the process waits for it.
    this.hold(worker);
    worker.postMessage('close');
    await exited;
    this.reply?.({ log: 0, checkpointed: 0 });
    this.reply = null;
  }

  /** Keeps the process alive for the thread while anyone waits on it (ref() is not counted by Node). */
  private hold(worker: Worker): void {
    if (this.waiting++ === 0) worker.ref();
  }

  private release(worker: Worker): void {
    if (--this.waiting === 0) worker.unref();
  }

  /** A round while writers go on; the next one holds them when this one left the WAL long or not copied. */
  private async plainRound(): Promise<void> {
    const r = await this.round();
    this.holdNext = r.log - r.checkpointed > 0 || r.log > (this.options.restartFrames ?? 8000);
  }

  /**
   * A round that lets the next commit restart the WAL: first what is there is copied while writers go on,
   * then writers are held for a second round that copies only what they committed meanwhile. Holding
   * them for the whole copy held every metered call for 3-11 ms about once a second under the bench's
   * searches at c=4 (6.2 ms on average); held for the short second round, 1.9 ms (docs/wallet.md
   * "Checkpoints"). When the held round copied everything, the next commit starts the WAL over, so the
   * round after is a plain one.
   */
  private async restartRound(): Promise<void> {
    await this.round();
    const r = await this.withWritersHeld(() => this.round());
    this.holdNext = r.log - r.checkpointed > 0;
  }

  private round(): Promise<Round> {
    const worker = this.worker;
    if (!worker) return Promise.resolve({ log: 0, checkpointed: 0 });
    // Referenced while a round runs: a transaction may be waiting for it (a held round), and an
    // unreferenced thread would let the process exit under that transaction.
    this.hold(worker);
    return new Promise<Round>((resolve) => {
      this.reply = (r) => {
        this.release(worker);
        resolve(r);
      };
      worker.postMessage('checkpoint');
    });
  }

  private start(): void {
    const worker = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), {
      workerData: { dbPath: this.dbPath },
    });
    // The thread never keeps the process alive; the connection's close does the last checkpoint.
    worker.unref();
    worker.on('message', (m: Partial<Round> & { error?: string }) => {
      const reply = this.reply;
      this.reply = null;
      if (m.error) this.onError(`wallet checkpoint failed: ${m.error}`);
      reply?.({ log: m.log ?? 0, checkpointed: m.checkpointed ?? 0 });
    });
    const fallBack = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.stopped = true;
      this.onError(why);
      this.reply?.({ log: 0, checkpointed: 0 });
      this.reply = null;
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    worker.on('error', (err) => fallBack(`wallet checkpoint thread failed: ${err.message}`));
    worker.on('exit', (code) => fallBack(`wallet checkpoint thread exited with code ${code}`));
    // The connection checkpoints until the thread runs (starting one takes tens of milliseconds).
    worker.once('online', () => {
      if (this.worker === worker) this.db.pragma('wal_autocheckpoint = 0');
    });
    this.worker = worker;
  }
}
