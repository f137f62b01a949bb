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
   * Threads that plan searches and counts on the posting lists, off the event loop: one per core. Four
   * (two per core) were tried on 2026-11-28: an interleaved A/B with fresh queries each round gave c=4
   * count p95 15.4 -> 10.3 ms, but two scale-1 bench runs with four (bench/results 2026-11-28T03-11 and
   * 03-20) against one with two (02-46) showed the lookups paying for it (detail p50 at c=4 0.73 -> 1.0-1.3
   * ms, p95 4.1 -> 4.9-5.8) with searches and counts no better, and RSS 2.51 -> 2.88 GiB; not kept. A
   * third thread that only answers plain counts was no better (A/B, c=4: count p95 10.1 -> 13.1 ms, search
   * p95 14.6 -> 18.2; docs/data-contract.md "Sixth round").
   */
  plannerThreads: 2,
} as const;
