import { Worker } from 'node:worker_threads';
import { createPageArena, PageBytes, type PageArenaShared } from './page-arena.ts';
import type { PlanAnswer, PlanTask } from './planner.ts';
import { MAX_GRAM, type SharedPostings } from './postings.ts';
import { fnv1a } from './string-hash.ts';

interface Pending {
  resolve: (a: PlanAnswer) => void;
  reject: (e: Error) => void;
}

interface Waiting extends Pending {
  task: PlanTask;
  /** Lower runs first (taskClass). */
  cls: number;
  since: number;
}

/**
 * A task waiting longer than this runs before cheaper ones that came later, so a stream of counts never
 * starves a search that has to check its text.
 */
const MAX_WAIT_MS = 25;

/** How long a closing thread may take to end by itself before it is stopped. */
const CLOSE_GRACE_MS = 5_000;

export interface PlannerPoolOptions {
  /** MAX_WAIT_MS; tests set it to decide the order without depending on the clock. */
  maxWaitMs?: number;
  /**
   * Each thread puts itself under SCHED_IDLE (Linux, packages/thread-policy) before its first task: it then
   * runs only when no ordinary thread wants the core, so the event loop (HTTP, the wallet, the lookups)
   * never waits for a core behind a plan. See planner-thread.ts for what that costs and when not to.
   */
  idle?: boolean;
}

/**
 * Each thread's page arena (page-arena.ts): a slot holds a page of 500 rows (page_size's largest) of up
 * to 2 KB of JSON each, with its envelope; a larger page, or one that finds all 64 slots unsent, goes as a
 * string. Only the bytes pages touch are resident.
 */
const PAGE_SLOT_BYTES = 1024 * 1024;
const PAGE_SLOTS = 64;

/**
 * Threads that plan searches, counts and exports (planner.ts) off the event loop, so both cores plan and
 * a detail or history never waits behind a plan. Each thread maps the same posting lists (shared memory)
 * and keeps its own cache of plans.
 *
 * Each thread holds one task at a time; the others wait here, in one queue for all threads. A task goes
 * to the thread its key hashes to when that one is free, so a search's pages and its count meet the same
 * cache, else to any free thread, else into the queue, from which the first thread to finish takes the
 * cheapest (taskClass: counts, plain searches, text checks, exports), oldest first. With a queue per thread, as before, a count waited behind a search
 * checking 170,000 names on its home thread while the other thread was about to finish (issue 27: count
 * p95 at c=4). A thread that fails is replaced at the next task; its task fails.
 */
export class PlannerPool {
  private readonly workers: (Worker | null)[];
  /** The task each thread is answering, by its id; a thread keeps the process alive only while it has one. */
  private readonly running: ((Pending & { id: number }) | null)[];
  private readonly queue: Waiting[] = [];
  private readonly arenas: PageArenaShared[];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly countries: Record<string, SharedPostings>,
    size: number,
    /** Each country's lookup store file, which a thread opens when a search asks for its rows. */
    private readonly lookupFiles: Record<string, string> = {},
    private readonly options: PlannerPoolOptions = {},
  ) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => null);
    this.running = this.workers.map(() => null);
    this.arenas = this.workers.map(() => createPageArena(PAGE_SLOTS, PAGE_SLOT_BYTES));
  }

  run(task: PlanTask): Promise<PlanAnswer> {
    if (this.closed) return Promise.reject(new Error('planner pool closed'));
    return new Promise((resolve, reject) => {
      const index = this.pick(task.key);
      if (index === -1) {
        this.queue.push({ task, resolve, reject, cls: taskClass(task), since: performance.now() });
      } else {
        this.send(index, task, { resolve, reject });
      }
    });
  }

  /** The free thread a key hashes to, else any free thread, else -1. */
  private pick(key: string): number {
    const home = fnv1a(key) % this.workers.length;
    if (this.running[home] === null) return home;
    return this.running.indexOf(null);
  }

  private send(index: number, task: PlanTask, p: Pending): void {
    const worker = this.workers[index] ?? this.start(index);
    const id = this.nextId++;
    this.running[index] = { resolve: p.resolve, reject: p.reject, id };
    worker.ref();
    worker.postMessage({ id, task });
  }

  /** The next task for a thread that just finished: the oldest over MAX_WAIT_MS, else the cheapest, oldest. */
  private next(): Waiting | undefined {
    if (this.queue.length === 0) return undefined;
    let best = 0;
    const now = performance.now();
    if (now - this.queue[0]!.since <= (this.options.maxWaitMs ?? MAX_WAIT_MS)) {
      for (let i = 1; i < this.queue.length; i++) {
        if (this.queue[i]!.cls < this.queue[best]!.cls) best = i;
      }
    }
    return this.queue.splice(best, 1)[0];
  }

  private finished(index: number): void {
    this.running[index] = null;
    const w = this.next();
    if (w) this.send(index, w.task, w);
    else this.workers[index]?.unref();
  }

  /**
   * Ends the threads; the tasks in flight and waiting fail. Resolves with the started threads' exit codes
   * once they have ended: 0 for one that ended by itself, 1 for one stopped after CLOSE_GRACE_MS.
   */
  close(): Promise<number[]> {
    this.closed = true;
    const ended: Promise<number>[] = [];
    for (const w of this.workers) {
      if (!w) continue;
      ended.push(new Promise((resolve) => w.once('exit', resolve)));
      // The thread closes its connections and ends (planner-thread.ts); one still busy with a plan after
      // CLOSE_GRACE_MS is stopped. Referenced meanwhile, so the process waits for it to end cleanly.
      w.ref();
      w.postMessage({ close: true });
      const stop = setTimeout(() => void w.terminate(), CLOSE_GRACE_MS);
      stop.unref();
      w.once('exit', () => clearTimeout(stop));
    }
    const err = new Error('planner pool closed');
    for (const [i, p] of this.running.entries()) {
      this.running[i] = null;
      p?.reject(err);
    }
    for (const w of this.queue.splice(0)) w.reject(err);
    return Promise.all(ended);
  }

  private start(index: number): Worker {
    const worker = new Worker(new URL('./planner-worker.mjs', import.meta.url), {
      workerData: {
        countries: this.countries,
        lookupFiles: this.lookupFiles,
        idle: this.options.idle === true,
        arena: this.arenas[index],
      },
    });
    // A thread with nothing in flight must not keep the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; answer?: PlanAnswer; error?: string }) => {
      const p = this.running[index];
      if (!p || p.id !== m.id) return;
      this.finished(index);
      const a = m.answer;
      if (a?.rowsSlot) {
        a.rowsBytes = new PageBytes(this.arenas[index]!, a.rowsSlot);
        delete a.rowsSlot;
      }
      if (a) p.resolve(a);
      else p.reject(new Error(m.error ?? 'planner failed'));
    });
    const gone = (err: Error) => {
      if (this.workers[index] !== worker) return;
      this.workers[index] = null;
      const p = this.running[index];
      // The queue moves on: the next task starts a new thread in this slot.
      if (!this.closed) this.finished(index);
      p?.reject(err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`planner thread exited with code ${code}`)));
    this.workers[index] = worker;
    return worker;
  }
}

/**
 * How much a task may cost, before planning it: 0 for counts whose sets come straight off the posting
 * lists, 1 for such searches (they also read and write their page's rows), 2 when a text term is longer
 * than a posting list's piece (its candidates are checked against the texts, up to tens of milliseconds
 * for a common fragment), 3 for exports (many rows).
 */
function taskClass(task: PlanTask): number {
  if (task.kind === 'export') return 3;
  if (task.folded.some(([, folded]) => Array.from(folded).length > MAX_GRAM)) return 2;
  return task.kind === 'count' ? 0 : 1;
}
