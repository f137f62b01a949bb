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
  /** Threads that plan searches and counts on the posting lists: one per core, off the event loop. */
  plannerThreads: 2,
} as const;
