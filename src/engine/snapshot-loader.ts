import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import type { CountryManifest } from '../contract/data-contract.ts';
import type { SnapshotStore } from '../contract/snapshot-store.ts';
import type { FiltersResponse, TreeNode } from '../contract/api-schemas.ts';
import { AppError } from '../errors/app-error.ts';
import { ConnectionPool } from './connection-pool.ts';
import { ENGINE_DEFAULTS } from './engine-defaults.ts';
import { LoadedSnapshot, type CountryData } from './loaded-snapshot.ts';
import { LOOKUP_FILE, LookupStore } from './lookup-store.ts';
import { Postings } from './postings.ts';
import { POSTINGS_FILE } from './postings-file.ts';
import { buildServingDatabase, macros, servingFingerprint, sqlString } from './serving-build.ts';
import { attachIfCurrent, attachServing } from './serving-files.ts';
import { DICTIONARY_COLUMNS, SERVING_FILE, servingAlias, type DictionaryColumn } from './tables.ts';

export interface EngineOptions {
  /** DuckDB worker threads (default 2, the machine's cores). */
  threads?: number;
  /**
   * DuckDB memory limit of a serving instance (default ENGINE_DEFAULTS): the buffer pool the attached
   * serving files are read into, and also the limit of a serving build the engine has to run itself.
   */
  memoryLimit?: string;
  /** Connections in the pool (default 3): the DuckDB queries that run at once. */
  connections?: number;
  /**
   * How long a query may wait for a free connection before it is turned away with 503 and Retry-After
   * (default: no limit).
   */
  maxQueueMs?: number;
  /** Threads planning searches and counts (default ENGINE_DEFAULTS; 0: on the event loop). */
  plannerThreads?: number;
  /**
   * 'idle': the planner threads run under SCHED_IDLE (Linux; src/engine/planner-thread.ts says what it
   * gains and costs). Default 'normal': they keep the priority they were born with.
   */
  plannerSched?: 'idle' | 'normal';
  /** Where DuckDB may spill; default: none. */
  tempDirectory?: string;
  /**
   * The one folder DuckDB may write to: exports are written there and streamed out (issue 19). Default:
   * `regdata-export` in the system's temporary folder.
   */
  exportDirectory?: string;
  /** Progress of a load: each country's attach (or build) time and DuckDB's memory after it. */
  onCountryLoaded?: (info: { country: CountryCode; ms: number; duckdbBytes: number }) => void;
}

export const exportDirectory = (opts: EngineOptions): string =>
  path.resolve(opts.exportDirectory ?? path.join(os.tmpdir(), 'regdata-export'));

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/**
 * Where the engine builds a serving database the snapshot lacks: under the data folder, not in the
 * snapshot, because published files are immutable and a snapshot folder may be shared read-only (linked
 * into several data folders). One folder per snapshot id, removed once that snapshot is gone.
 */
export const servingCacheDir = (store: SnapshotStore, snapshotId: string) =>
  path.join(store.dataDir, 'serving-cache', snapshotId);

/** Removes cached serving databases of snapshots no longer on disk. */
function pruneServingCache(store: SnapshotStore): void {
  const root = path.join(store.dataDir, 'serving-cache');
  if (!fs.existsSync(root)) return;
  const live = new Set(store.list());
  for (const id of fs.readdirSync(root)) {
    if (!live.has(id)) fs.rmSync(path.join(root, id), { recursive: true, force: true });
  }
}

/**
 * Attaches the country's serving database read-only and opens its lookup store: the pair published in the
 * snapshot (serving-build.ts) or the engine's own cached build, whichever is current; when neither is,
 * builds it into the cache. Returns the dictionaries the serving database holds and the lookup store.
 */
async function attachCountry(
  conn: DuckDBConnection,
  dir: string,
  cacheDir: string,
  country: CountryCode,
  opts: EngineOptions,
): Promise<{
  dictionaries: Record<DictionaryColumn, Map<string, number>>;
  lookups: LookupStore;
  postings: Postings;
}> {
  const alias = servingAlias(country);
  const fingerprint = servingFingerprint(dir);
  const cached = path.join(cacheDir, country);
  let folder = dir;
  if (!(await attachIfCurrent(conn, dir, alias, fingerprint))) {
    folder = cached;
    if (!(await attachIfCurrent(conn, cached, alias, fingerprint))) {
      fs.mkdirSync(cached, { recursive: true });
      await buildServingDatabase(dir, country, {
        ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
        ...(opts.threads ? { threads: opts.threads } : {}),
        target: path.join(cached, SERVING_FILE),
      });
      await attachServing(conn, cached, alias);
    }
  }
  const dictionaries = Object.fromEntries(
    DICTIONARY_COLUMNS.map((c) => [c, new Map<string, number>()]),
  ) as Record<DictionaryColumn, Map<string, number>>;
  const rows = (await conn.runAndReadAll(`SELECT col, value, id FROM ${alias}.dict`)).getRowObjectsJson();
  for (const r of rows) dictionaries[r['col'] as DictionaryColumn].set(String(r['value']), Number(r['id']));
  const postings = Postings.open(path.join(folder, POSTINGS_FILE));
  return { dictionaries, lookups: LookupStore.open(path.join(folder, LOOKUP_FILE)), postings };
}

/** The events file and the first day it covers, read once at load (issue 31); null when none was written. */
function readEvents(
  store: SnapshotStore,
  snapshotId: string,
  country: CountryCode,
): { file: string; since: string } | null {
  const file = store.file(snapshotId, country, 'events');
  const meta = store.file(snapshotId, country, 'eventsMeta');
  if (!fs.existsSync(file) || !fs.existsSync(meta)) return null;
  return { file, since: readJson<{ since: string }>(meta).since };
}

interface LocationsJson {
  has_tree: boolean;
  tree: TreeNode[] | null;
}
interface ActivitiesJson {
  industry_system: string;
  trees: Record<string, TreeNode[]>;
  /** Absent in snapshots written before editions were mapped forward. */
  forward?: Record<string, string>;
}

function readCountryFiles(
  dir: string,
): Omit<CountryData, 'locationIndex' | 'dictionaries' | 'prunedTrees' | 'lookups' | 'postings'> {
  const manifest = readJson<CountryManifest>(path.join(dir, 'manifest.json'));
  const filters = readJson<FiltersResponse>(path.join(dir, 'filters.json'));
  const activities = readJson<ActivitiesJson>(path.join(dir, 'activities.json'));
  const locations = readJson<LocationsJson>(path.join(dir, 'locations.json'));
  return {
    manifest,
    filters,
    activityTrees: activities.trees,
    activityForward: activities.forward ?? {},
    tree: locations.has_tree ? locations.tree : null,
  };
}

/**
 * Opens a new in-process DuckDB for one snapshot and attaches every country's serving database (building
 * the ones the snapshot lacks). The instance reads only the snapshot folder: external access is off apart from that directory, and the
 * configuration is locked before the first request can reach it.
 */
export async function loadSnapshot(
  store: SnapshotStore,
  snapshotId: string,
  opts: EngineOptions = {},
): Promise<LoadedSnapshot> {
  const started = performance.now();
  const root = store.snapshotDir(snapshotId);
  const countries = COUNTRY_CODES.filter((c) => fs.existsSync(path.join(root, c, 'manifest.json')));
  if (countries.length === 0) throw new Error(`snapshot ${snapshotId} has no country folders`);
  const config: Record<string, string> = {
    threads: String(opts.threads ?? ENGINE_DEFAULTS.threads),
    memory_limit: opts.memoryLimit ?? ENGINE_DEFAULTS.memoryLimit,
    autoinstall_known_extensions: 'false',
    // Lets the allocator hand back memory that queries' sorts and aggregates used.
    allocator_background_threads: 'true',
    autoload_known_extensions: 'true',
  };
  if (opts.tempDirectory) config['temp_directory'] = opts.tempDirectory;
  const instance = await DuckDBInstance.create(':memory:', config);
  let pool: ConnectionPool | undefined;
  let foldConnection: DuckDBConnection | undefined;
  const data: Partial<Record<CountryCode, CountryData>> = {};
  try {
    const conn = await instance.connect();
    try {
      for (const m of macros(false)) await conn.run(m);
      for (const country of countries) {
        const countryStarted = performance.now();
        const dir = store.countryDir(snapshotId, country);
        const files = readCountryFiles(dir);
        const { dictionaries, lookups, postings } = await attachCountry(
          conn,
          dir,
          servingCacheDir(store, snapshotId),
          country,
          opts,
        );
        const changesFile = store.file(snapshotId, country, 'changes');
        const events = readEvents(store, snapshotId, country);
        data[country] = {
          ...files,
          ...(files.manifest.changes && fs.existsSync(changesFile) && { changesFile }),
          ...(events && { events }),
          dictionaries,
          lookups,
          postings,
          locationIndex: LoadedSnapshot.indexLocations(files.tree),
          prunedTrees: new Map(),
        };
        if (opts.onCountryLoaded) {
          const mem = await conn.runAndReadAll(
            'SELECT sum(memory_usage_bytes)::DOUBLE AS b FROM duckdb_memory()',
          );
          opts.onCountryLoaded({
            country,
            ms: performance.now() - countryStarted,
            duckdbBytes: Number(mem.getRowObjectsJson()[0]?.['b'] ?? 0),
          });
        }
      }
      pruneServingCache(store);
      // allowed_directories cannot be given at creation through the node API; set it before access is cut.
      // The attached files stay readable through their open handles.
      const exportDir = exportDirectory(opts);
      fs.mkdirSync(exportDir, { recursive: true });
      await conn.run(
        `SET allowed_directories = [${sqlString(root + path.sep)}, ${sqlString(exportDir + path.sep)}]`,
      );
      await conn.run('SET enable_external_access = false');
      await conn.run('SET lock_configuration = true');
    } finally {
      conn.closeSync();
    }
    pool = await ConnectionPool.open(
      instance,
      opts.connections ?? ENGINE_DEFAULTS.connections,
      () => new AppError('overloaded', 'the service is busy; retry shortly'),
    );
    foldConnection = await instance.connect();
    return new LoadedSnapshot(
      snapshotId,
      instance,
      pool,
      foldConnection,
      data,
      performance.now() - started,
      opts.maxQueueMs,
      opts.plannerThreads ?? ENGINE_DEFAULTS.plannerThreads,
      opts.plannerSched === 'idle',
    );
  } catch (err) {
    foldConnection?.closeSync();
    pool?.close();
    for (const d of Object.values(data)) d.lookups.close();
    instance.closeSync();
    throw err;
  }
}
