import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { LOOKUP_FILE, LookupStore } from './lookup-store.ts';
import { POSTINGS_FILE, readPostingsMeta } from './postings-file.ts';
import { sqlString } from './serving-build.ts';
import { SERVING_FILE, SERVING_LAYOUT_VERSION } from './tables.ts';

/**
 * The three serving files of a country (serving-build.ts), one test of whether they may be served, used
 * by the loader on a snapshot and its cache and by the publish on a carried-over country: the same test in
 * both places, so a publish leaves nothing the first load would rebuild.
 */
export const SERVING_FILES = [SERVING_FILE, LOOKUP_FILE, POSTINGS_FILE] as const;

/** Attaches the folder's serving database read-only as `alias`. */
export const attachServing = (conn: DuckDBConnection, folder: string, alias: string): Promise<void> =>
  conn.run(`ATTACH ${sqlString(path.join(folder, SERVING_FILE))} AS ${alias} (READ_ONLY)`).then(() => {});

type Stamp = { layoutVersion: unknown; fingerprint: unknown } | null | undefined;

/**
 * Are the folder's three files all there, of this layout (SERVING_LAYOUT_VERSION) and built from the
 * Parquet files whose servingFingerprint is `fingerprint`? When they are, the serving database is left
 * attached as `alias` on `conn`; when not, nothing is attached. A file that cannot be read (damaged, or
 * from an incompatible DuckDB or SQLite) is not current.
 */
export async function attachIfCurrent(
  conn: DuckDBConnection,
  folder: string,
  alias: string,
  fingerprint: string,
): Promise<boolean> {
  const isCurrent = (meta: Stamp) =>
    meta?.layoutVersion === SERVING_LAYOUT_VERSION && meta.fingerprint === fingerprint;
  if (!SERVING_FILES.every((f) => fs.existsSync(path.join(folder, f)))) return false;
  try {
    if (
      !isCurrent(LookupStore.readMeta(path.join(folder, LOOKUP_FILE))) ||
      !isCurrent(readPostingsMeta(path.join(folder, POSTINGS_FILE)))
    )
      return false;
    await attachServing(conn, folder, alias);
    const meta = (
      await conn.runAndReadAll(`SELECT layout_version, fingerprint FROM ${alias}.meta`)
    ).getRowObjectsJson()[0];
    if (isCurrent({ layoutVersion: meta?.['layout_version'], fingerprint: meta?.['fingerprint'] })) {
      return true;
    }
  } catch {
    // Unreadable: not current, like an outdated one.
  }
  await conn.run(`DETACH DATABASE IF EXISTS ${alias}`);
  return false;
}

/**
 * attachIfCurrent on its own, for a caller without a serving instance (the publish): one throwaway
 * in-memory DuckDB instance attaches the folder's database and lets it go again.
 */
export async function servingFilesCurrent(folder: string, fingerprint: string): Promise<boolean> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    autoinstall_known_extensions: 'false',
  });
  try {
    const conn = await instance.connect();
    try {
      return await attachIfCurrent(conn, folder, 'probe', fingerprint);
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
