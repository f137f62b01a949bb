/**
 * The serving engine's DuckDB defaults, which REGDATA_DUCKDB_* (src/config.ts) override. Kept apart from the
 * loader so that reading the configuration does not load DuckDB. The memory limit bounds DuckDB's buffer
 * pool, into which the attached serving databases are read: at scale 1 it keeps the server under 6 GiB
 * (docs/data-contract.md, Performance).
 */
export const ENGINE_DEFAULTS = {
  memoryLimit: '3GB',
  threads: 2,
  connections: 3,
  /**
   * A search or count still waiting for a DuckDB connection after this long is answered 503 with
   * Retry-After: a queue this long means more work arrives than the cores finish.
   */
  maxQueueMs: 5_000,
  /**
   * Threads that plan searches and counts on the posting lists, off the event loop: two per core of this
   * 2-core machine. With one per core a count waited behind a long search's text check on both threads;
   * with four the kernel shares the cores among them (they run below the event loop, thread-priority.ts).
   * Interleaved A/B on the scale-1 world, fresh queries each round (`.tmp/s7/ab.ts`, 2026-11-28), 2 -> 4
   * threads at c=4: count p95 15.4 -> 10.3 ms, search mix p95 20.6 -> 17.7, c=1 unchanged; 6 gained a
   * little more on searches and lost on detail p95, and each thread keeps its own lookup connections and
   * caches (about 150 MiB at most), so 4.
   */
  plannerThreads: 4,
} as const;
