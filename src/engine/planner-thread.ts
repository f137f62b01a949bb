import { parentPort, workerData } from 'node:worker_threads';
import threadPolicy from '@regdata/thread-policy';
import { LookupStore, rowsJson } from './lookup-store.ts';
import { PageArenaWriter, type PageArenaShared } from './page-arena.ts';
import { answerTask, type Plan, type PlanTask } from './planner.ts';
import { Postings, type SharedPostings } from './postings.ts';

/**
 * A planner thread (planner-pool.ts): maps the snapshot's posting lists from the shared memory the main
 * thread read them into, and answers plan tasks one at a time, with its own cache of plans. A search that
 * asks for its rows also gets the page's stored rows from the country's lookup store, read here on a
 * connection of this thread's own, and written as the JSON text of the page's items (lookup-store.ts rowsJson),
 * so that the event loop neither reads, parses nor serialises them.
 */
const data = workerData as {
  countries: Record<string, SharedPostings>;
  lookupFiles: Record<string, string>;
  idle: boolean;
  /** Where this thread puts search pages for the event loop (page-arena.ts). */
  arena: PageArenaShared;
};

// SCHED_IDLE instead of the nice value the server gives its other threads (runtime/thread-priority.ts).
// Under four clients of heavy searches, a nice-10 planner thread still kept the event loop waiting for a
// core: 0.12 ms a request (schedstat), and lookups beside the searches took 0.46-0.60 ms at p50. Under
// SCHED_IDLE the waking event loop takes the core at once: 0.03-0.05 ms waiting, lookups 0.34-0.38 ms,
// the searches' throughput unchanged (docs/data-contract.md "Fourteenth round"). The cost: any ordinary
// thread of the same scheduling group comes first, so a CPU-bound job beside the server (an ingest started
// from the same session, a test runner) can hold the plans back; REGDATA_PLANNER_SCHED=normal turns it off.
if (data.idle) threadPolicy.setIdle();
const postings = new Map(Object.entries(data.countries).map(([c, s]) => [c, Postings.fromShared(s)]));
const lookups = new Map<string, LookupStore>();
const cache = new Map<string, Plan>();
const arena = new PageArenaWriter(data.arena);

/** A small page cache per country and thread: the main thread's connection keeps the large one. */
const THREAD_LOOKUP_CACHE_MIB = 4;

function lookupOf(country: string): LookupStore {
  let store = lookups.get(country);
  if (!store) {
    const file = data.lookupFiles[country];
    if (!file) throw new Error(`no lookup store of ${country}`);
    store = LookupStore.open(file, THREAD_LOOKUP_CACHE_MIB);
    lookups.set(country, store);
  }
  return store;
}

parentPort!.on('message', (m: { id: number; task: PlanTask } | { close: true }) => {
  if ('close' in m) {
    // Ends the thread by itself, its SQLite connections closed first: a thread stopped by terminate()
    // with connections open can take the whole process down in better-sqlite3's teardown (one
    // munmap_chunk() abort on Node 26; better-sqlite3 issue 1476).
    for (const store of lookups.values()) store.close();
    lookups.clear();
    parentPort!.close();
    return;
  }
  try {
    const country = m.task.params.country;
    const p = postings.get(country);
    if (!p) throw new Error(`no posting lists of ${country}`);
    const answer = answerTask(m.task, p, cache);
    if (m.task.kind === 'search' && m.task.rows && answer.rids) {
      const json = rowsJson(lookupOf(country).rawRows(answer.rids));
      const slot = arena.write(json);
      if (slot) answer.rowsSlot = slot;
      else answer.rowsJson = json;
    }
    parentPort!.postMessage({ id: m.id, answer });
  } catch (err) {
    parentPort!.postMessage({
      id: m.id,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
  }
});
