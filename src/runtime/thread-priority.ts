import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Keeps the request thread ahead of the scans on the CPU. Everything a lookup needs runs on the event
 * loop's thread (HTTP, auth, the wallet, the lookup store), while DuckDB's scans run on its worker threads
 * and on libuv's pool. On a machine with fewer cores than busy scan threads the kernel shares the cores
 * evenly among them all, so a detail that needs 0.2 ms of CPU waited tens of milliseconds behind four
 * scans (issue 17, "lookups under scan load"). Giving every other thread of the process a higher nice
 * value lets the event loop run whenever it has work, and the scans use whatever CPU is left; when the
 * event loop is idle they lose nothing.
 *
 * Linux only: there a nice value belongs to a thread, and setpriority() takes a thread id (the ids are
 * the entries of /proc/self/task). The thread spared is the one that creates this object, the server's
 * event loop (the main thread, or a worker thread when a test runs the server in one). Raising a nice value needs no
 * privilege. New threads appear later (libuv's pool on first use, a new snapshot's DuckDB instance), so
 * `lowerOtherThreads` is called again on a timer; a thread already lowered is skipped. The planner threads go
 * further: each puts itself under SCHED_IDLE (engine/planner-thread.ts), since at nice 10 they still kept
 * the event loop waiting for a core under heavy searches.
 */
export class ThreadPriority {
  private readonly lowered = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly own = ownThreadId();

  constructor(
    /** The nice value given to every thread but the main one; 0 turns this off. */
    readonly nice: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Whether this platform lets a process set its threads' priorities one by one. */
  static supported(): boolean {
    return process.platform === 'linux' && fs.existsSync('/proc/thread-self');
  }

  /** Lowers the threads not lowered yet; returns how many it lowered this time. */
  lowerOtherThreads(): number {
    if (this.nice === 0 || !ThreadPriority.supported()) return 0;
    let count = 0;
    const alive = new Set<number>();
    for (const entry of fs.readdirSync('/proc/self/task')) {
      const tid = Number(entry);
      alive.add(tid);
      if (tid === this.own || this.lowered.has(tid)) continue;
      try {
        os.setPriority(tid, this.nice);
        this.lowered.add(tid);
        count++;
      } catch (err) {
        // A thread that ended between the listing and the call; anything else is worth a log line.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') this.onError(err);
      }
    }
    for (const tid of this.lowered) if (!alive.has(tid)) this.lowered.delete(tid);
    return count;
  }

  /** Lowers now and then every `intervalMs`, without keeping the process alive. */
  start(intervalMs: number): this {
    this.lowerOtherThreads();
    if (this.nice !== 0 && ThreadPriority.supported() && this.timer === null) {
      this.timer = setInterval(() => this.lowerOtherThreads(), intervalMs).unref();
    }
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The kernel's id of the calling thread (`/proc/thread-self` links to `<pid>/task/<tid>`). */
function ownThreadId(): number {
  if (!ThreadPriority.supported()) return process.pid;
  return Number(path.basename(fs.readlinkSync('/proc/thread-self')));
}
