import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * COPY targets cannot be bound parameters, so file paths are the one thing spliced into SQL. They are
 * always paths this process built under the snapshot folder, never user input; quoting still escapes.
 */
export function sqlPath(p: string): string {
  return `'${p.replaceAll("'", "''")}'`;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export async function tableExists(conn: DuckDBConnection, name: string): Promise<boolean> {
  const r = await conn.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = $name
     UNION ALL SELECT count(*)::INTEGER FROM duckdb_views() WHERE view_name = $name`,
    { name },
  );
  return r.getRowObjects().some((row) => Number(row['n']) > 0);
}

/** Runs a query and returns JSON-safe rows (BIGINT and HUGEINT arrive as strings, dates as YYYY-MM-DD). */
export async function queryRows(
  conn: DuckDBConnection,
  sql: string,
  params?: Record<string, string | number | boolean | null>,
): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJson() as Record<string, unknown>[];
}
