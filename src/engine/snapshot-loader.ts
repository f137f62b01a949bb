import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import type { CountryManifest } from '../contract/data-contract.ts';
import type { SnapshotStore } from '../contract/snapshot-store.ts';
import type { FiltersResponse, TreeNode } from '../contract/api-schemas.ts';
import { ConnectionPool } from './connection-pool.ts';
import { LoadedSnapshot, type CountryData } from './loaded-snapshot.ts';
import { tables } from './tables.ts';

export interface EngineOptions {
  /** DuckDB worker threads (default: 2, the machine's cores). */
  threads?: number;
  /** DuckDB memory limit, e.g. '4GB' (default). Tables beyond it spill to `tempDirectory`. */
  memoryLimit?: string;
  /** Connections in the pool (default 3). */
  connections?: number;
  /** Where DuckDB may spill; default: none (in-memory only). */
  tempDirectory?: string;
}

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/**
 * Builds the serving tables of one country from its Parquet files. The derived columns exist because the
 * research on this machine found list-column predicates ~30x slower than flat ones: contact kinds, domains,
 * the SE size band with unknown as 0 and the free-text location are computed once here, not per query.
 */
async function loadCountryTables(conn: DuckDBConnection, dir: string, country: CountryCode): Promise<void> {
  const t = tables(country);
  // File paths are built by this process from the snapshot store, never from a request.
  const file = (name: string) => sqlString(path.join(dir, name));
  await conn.run(`
    CREATE TABLE ${t.companies} AS
    SELECT (row_number() OVER (ORDER BY registrikood))::INTEGER AS rid, c.*,
      list_bool_or([x.liik = 'EMAIL' FOR x IN contacts]) IS TRUE AS f_email,
      list_bool_or([x.liik = 'WWW' FOR x IN contacts]) IS TRUE AS f_website,
      list_bool_or([x.liik IN ('TEL', 'MOB') FOR x IN contacts]) IS TRUE AS f_phone,
      len(contacts) > 0 AS f_contact,
      len(registered_domains) > 0 AS f_domain,
      coalesce(se_employees_band, 0) AS f_employees_band,
      lower(strip_accents(concat_ws(' | ', ehak_nimetus, asukoht, aadress_text))) AS f_location
    FROM read_parquet(${file('companies.parquet')}) c
    WHERE NOT not_for_sale
    ORDER BY registrikood`);
  await conn.run(`
    CREATE TABLE ${t.activities} AS
    SELECT DISTINCT rid, a.kood AS kood
    FROM (SELECT rid, unnest(emtak) AS a FROM ${t.companies})
    ORDER BY kood, rid`);
  await conn.run(`
    CREATE TABLE ${t.history} AS
    SELECT * FROM read_parquet(${file('history.parquet')})
    ORDER BY registrikood, "year", quarter, "month", granularity`);
  if (country === 'SE') {
    await conn.run(`
      CREATE TABLE ${t.workplaces} AS
      SELECT * FROM read_parquet(${file('workplaces.parquet')})
      WHERE is_active
      ORDER BY registrikood, is_main DESC, cfar_nr`);
  }
}

interface LocationsJson {
  has_tree: boolean;
  tree: TreeNode[] | null;
}
interface ActivitiesJson {
  industry_system: string;
  trees: Record<string, TreeNode[]>;
}

function readCountryFiles(dir: string): Omit<CountryData, 'locationIndex'> & { tree: TreeNode[] | null } {
  const manifest = readJson<CountryManifest>(path.join(dir, 'manifest.json'));
  const filters = readJson<FiltersResponse>(path.join(dir, 'filters.json'));
  const activities = readJson<ActivitiesJson>(path.join(dir, 'activities.json'));
  const locations = readJson<LocationsJson>(path.join(dir, 'locations.json'));
  return {
    manifest,
    filters,
    activityTrees: activities.trees,
    tree: locations.has_tree ? locations.tree : null,
  };
}

/**
 * Opens a new in-process DuckDB for one snapshot and loads every country into native tables. The
 * instance reads only the snapshot folder: external access is off apart from that directory, and the
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
    threads: String(opts.threads ?? 2),
    memory_limit: opts.memoryLimit ?? '4GB',
    enable_external_access: 'false',
    allowed_directories: `[${sqlString(root + path.sep)}]`,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'true',
  };
  if (opts.tempDirectory) config['temp_directory'] = opts.tempDirectory;
  const instance = await DuckDBInstance.create(':memory:', config);
  let pool: ConnectionPool | undefined;
  try {
    const conn = await instance.connect();
    const data: Partial<Record<CountryCode, CountryData>> = {};
    try {
      for (const country of countries) {
        const dir = store.countryDir(snapshotId, country);
        await loadCountryTables(conn, dir, country);
        const files = readCountryFiles(dir);
        data[country] = { ...files, locationIndex: LoadedSnapshot.indexLocations(files.tree) };
      }
      await conn.run('SET lock_configuration = true');
    } finally {
      conn.closeSync();
    }
    pool = await ConnectionPool.open(instance, opts.connections ?? 3);
    return new LoadedSnapshot(snapshotId, instance, pool, data, performance.now() - started);
  } catch (err) {
    pool?.close();
    instance.closeSync();
    throw err;
  }
}
