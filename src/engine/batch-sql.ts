/**
 * DuckDB idioms shared by the batch jobs that build files (the serving build, the ingest's staging and
 * writing, the official-format writers), never by request-time queries.
 */

/**
 * Instance settings of a batch job: freed memory goes back to the OS promptly (jemalloc's background
 * threads, a low flush threshold). Without them the process peaked up to 1.8 GiB above DuckDB's
 * memory_limit (the scale-1 ingest of all seven: 4.10 GiB at a 3 GB limit, 3.58 GiB with them).
 */
export const RELEASE_FREED_MEMORY = {
  allocator_background_threads: 'true',
  allocator_flush_threshold: '64MB',
} as const;

/**
 * `list()` of `value` per group, in ascending order of `keys` (SQL expressions; negate a boolean or a
 * number for descending), optionally only over rows matching `filter`. An ordered aggregate
 * (`list(... ORDER BY ...)`) buffers every group's input separately and ran national-scale groupings out
 * of memory (LT's history in the serving build, PL's activity codes, NO's roles); a plain list() of
 * (key, value) structs sorted afterwards needs no such state. Rows with equal keys are ordered by value.
 */
export function sortedList(value: string, keys: readonly string[], filter?: string): string {
  const key = keys.map((k, i) => `k${i} := ${k}`).join(', ');
  const where = filter ? ` FILTER (WHERE ${filter})` : '';
  return `list_transform(list_sort(list(struct_pack(k := struct_pack(${key}), v := ${value}))${where}), x -> x.v)`;
}
