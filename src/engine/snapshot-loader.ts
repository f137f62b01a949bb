import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import { ACTIVE_STATUS, type CountryManifest } from '../contract/data-contract.ts';
import type { SnapshotStore } from '../contract/snapshot-store.ts';
import type { FiltersResponse, TreeNode } from '../contract/api-schemas.ts';
import { ConnectionPool } from './connection-pool.ts';
import { LoadedSnapshot, type CountryData } from './loaded-snapshot.ts';
import { DICTIONARY_COLUMNS, ORDER_COLUMNS, tables, type DictionaryColumn } from './tables.ts';

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
 * SQL macros of the serving layout. `bigram_sig` is a 64-bit signature of a text's character pairs: if `q` is a
 * substring of `s`, every bit of bigram_sig(q) is set in bigram_sig(s). Testing the bits first skips most rows
 * before the ~30 ns/row `contains` runs (measured on this machine: 37 ms -> 10 ms for 2M names). A text shorter
 * than two characters has the empty signature 0, which lets every row through to `contains`.
 */
const MACROS = [
  `CREATE MACRO bigram_sig(s) AS list_reduce(
     list_transform(range(1, length(s)), i -> 1::UBIGINT << (hash(substr(s, i, 2)) % 64)),
     (a, b) -> a | b, 0::UBIGINT)`,
  // Any-of signature of a list of codes (activity codes, kommun codes): one bit per code.
  `CREATE MACRO code_sig(l) AS list_reduce(
     list_transform(l, k -> 1::UBIGINT << (hash(k) % 64)), (a, b) -> a | b, 0::UBIGINT)`,
];

/**
 * Builds the serving tables of one country from its Parquet files. The derived columns exist because the
 * research on this machine found list-column predicates ~30x slower than flat ones and text comparisons ~5x
 * slower than integer ones: contact kinds, domains, the SE band with unknown as 0, dictionary ids, signatures
 * and order ranks are computed once here, never per query. docs/api-decisions.md has the measurements.
 */
async function loadCountryTables(
  conn: DuckDBConnection,
  dir: string,
  country: CountryCode,
): Promise<Record<DictionaryColumn, Map<string, number>>> {
  const t = tables(country);
  // File paths are built by this process from the snapshot store, never from a request.
  const file = (name: string) => sqlString(path.join(dir, name));
  const dictionaryIds = DICTIONARY_COLUMNS.map(
    (c) => `dense_rank() OVER (ORDER BY "${c}")::INTEGER AS "d_${c}"`,
  ).join(',\n      ');
  const orderRanks = Object.entries(ORDER_COLUMNS)
    .map(
      ([key, col]) =>
        `(CASE WHEN "${col}" IS NOT NULL THEN row_number() OVER (ORDER BY "${col}", registrikood) END)::INTEGER AS "o_${key}"`,
    )
    .join(',\n      ');
  // SE: which kommuner a company has active workplaces in, as a signature for se_workplace_kommun.
  const kommunJoin =
    country === 'SE'
      ? `LEFT JOIN (SELECT registrikood, code_sig(list(DISTINCT kommun_code)) AS sig_kommun
                    FROM read_parquet(${file('workplaces.parquet')}) WHERE is_active GROUP BY registrikood) k
           USING (registrikood)`
      : '';
  await conn.run(`
    CREATE TABLE ${t.companies} AS
    SELECT (row_number() OVER (ORDER BY registrikood))::INTEGER AS rid, s.*,
      staatus = '${ACTIVE_STATUS}' AS f_active,
      list_bool_or([x.liik = 'EMAIL' FOR x IN contacts]) IS TRUE AS f_email,
      list_bool_or([x.liik = 'WWW' FOR x IN contacts]) IS TRUE AS f_website,
      list_bool_or([x.liik IN ('TEL', 'MOB') FOR x IN contacts]) IS TRUE AS f_phone,
      len(contacts) > 0 AS f_contact,
      len(registered_domains) > 0 AS f_domain,
      coalesce(se_employees_band, 0) AS f_employees_band,
      bigram_sig(search_name) AS sig_name,
      bigram_sig(search_people) AS sig_people,
      bigram_sig(f_location) AS sig_location,
      code_sig([a.kood FOR a IN emtak]) AS sig_activities,
      ${country === 'SE' ? 'coalesce(k.sig_kommun, 0::UBIGINT)' : '0::UBIGINT'} AS sig_kommun,
      ${dictionaryIds},
      ${orderRanks}
    FROM (
      SELECT *, lower(strip_accents(concat_ws(' | ', ehak_nimetus, asukoht, aadress_text))) AS f_location
      FROM read_parquet(${file('companies.parquet')})
      WHERE NOT not_for_sale
    ) s
    ${kommunJoin}
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
      SELECT c.rid, w.* FROM read_parquet(${file('workplaces.parquet')}) w
      JOIN ${t.companies} c USING (registrikood)
      WHERE w.is_active
      ORDER BY w.registrikood, w.is_main DESC, w.cfar_nr`);
  }
  const dictionaries = {} as Record<DictionaryColumn, Map<string, number>>;
  for (const c of DICTIONARY_COLUMNS) {
    const reader = await conn.runAndReadAll(
      `SELECT DISTINCT "${c}" AS v, "d_${c}" AS id FROM ${t.companies} WHERE "${c}" IS NOT NULL`,
    );
    dictionaries[c] = new Map(reader.getRowObjectsJson().map((r) => [String(r['v']), Number(r['id'])]));
  }
  return dictionaries;
}

interface LocationsJson {
  has_tree: boolean;
  tree: TreeNode[] | null;
}
interface ActivitiesJson {
  industry_system: string;
  trees: Record<string, TreeNode[]>;
}

function readCountryFiles(dir: string): Omit<CountryData, 'locationIndex' | 'dictionaries' | 'prunedTrees'> {
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
      // allowed_directories cannot be given at creation through the node API; set it before access is cut.
      await conn.run(`SET allowed_directories = [${sqlString(root + path.sep)}]`);
      await conn.run('SET enable_external_access = false');
      for (const m of MACROS) await conn.run(m);
      for (const country of countries) {
        const dir = store.countryDir(snapshotId, country);
        const dictionaries = await loadCountryTables(conn, dir, country);
        const files = readCountryFiles(dir);
        data[country] = {
          ...files,
          dictionaries,
          locationIndex: LoadedSnapshot.indexLocations(files.tree),
          prunedTrees: new Map(),
        };
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
