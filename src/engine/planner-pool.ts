import { Worker } from 'node:worker_threads';
import type { PlanAnswer, PlanTask } from './planner.ts';
import type { SharedPostings } from './postings.ts';

interface Pending {
  resolve: (a: PlanAnswer) => void;
  reject: (e: Error) => void;
}

/**
 * Threads that plan searches, counts and exports (planner.ts) off the event loop, so both cores plan and
 * a detail or history never waits behind a plan. Each thread maps the same posting lists (shared memory)
 * and keeps its own cache of plans; a task goes to the thread its key hashes to, so a search's pages and
 * its count meet the same cache, unless that thread is busy and another idle. A thread that fails is replaced at the next task; its tasks fail.
 */
export class PlannerPool {
  private readonly workers: (Worker | null)[];
  private readonly pending = new Map<number, Pending & { worker: number }>();
  /** Tasks in flight per thread: a thread keeps the process alive only while it has some. */
  private readonly busy: number[];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly countries: Record<string, SharedPostings>,
    size: number,
    /** Each country's lookup store file, which a thread opens when a search asks for its rows. */
    private readonly lookupFiles: Record<string, string> = {},
  ) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => null);
    this.busy = this.workers.map(() => 0);
  }

  run(task: PlanTask): Promise<PlanAnswer> {
    if (this.closed) return Promise.reject(new Error('planner pool closed'));
    const index = this.pick(task.key);
    const worker = this.workers[index] ?? this.start(index);
    const id = this.nextId++;
    if (this.busy[index]!++ === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: index });
      worker.postMessage({ id, task });
    });
  }

  /**
   * The thread a key hashes to, whose cache may hold its plan; but when that one is busy and another is
   * idle, the idle one: planning again costs less than waiting behind another plan while a core idles.
   */
  private pick(key: string): number {
    const home = hash(key) % this.workers.length;
    if (this.busy[home] === 0) return home;
    const idle = this.busy.indexOf(0);
    return idle === -1 ? home : idle;
  }

  close(): void {
    this.closed = true;
    for (const w of this.workers) void w?.terminate();
    this.fail(() => true, new Error('planner pool closed'));
  }

  private start(index: number): Worker {
    const worker = new Worker(new URL('./planner-worker.mjs', import.meta.url), {
      workerData: { countries: this.countries, lookupFiles: this.lookupFiles },
    });
    // A thread with nothing in flight must not keep the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; answer?: PlanAnswer; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (--this.busy[index]! === 0) worker.unref();
      if (m.answer) p.resolve(m.answer);
      else p.reject(new Error(m.error ?? 'planner failed'));
    });
    const gone = (err: Error) => {
      if (this.workers[index] !== worker) return;
      this.workers[index] = null;
      this.busy[index] = 0;
      this.fail((p) => p.worker === index, err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`planner thread exited with code ${code}`)));
    this.workers[index] = worker;
    return worker;
  }

  private fail(which: (p: Pending & { worker: number }) => boolean, err: Error): void {
    for (const [id, p] of this.pending) {
      if (!which(p)) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }
}

/** FNV-1a of a string: spreads plan keys over the threads. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
