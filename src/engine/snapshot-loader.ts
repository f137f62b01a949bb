import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import { ACTIVE_STATUS, type CountryManifest } from '../contract/data-contract.ts';
import type { SnapshotStore } from '../contract/snapshot-store.ts';
import type { FiltersResponse, TreeNode } from '../contract/api-schemas.ts';
import { ConnectionPool } from './connection-pool.ts';
import { LoadedSnapshot, type CountryData } from './loaded-snapshot.ts';
import { FILTERS } from '../contract/filters.ts';
import {
  COLD_DB,
  HOT_DB,
  COMPANY_ROW_COLUMNS,
  DETAIL_COLUMNS,
  DICTIONARY_COLUMNS,
  HISTORY_PERIOD_COLUMNS,
  ORDER_COLUMNS,
  WORKPLACE_COLUMNS,
  tables,
  type DictionaryColumn,
} from './tables.ts';

export interface EngineOptions {
  /** DuckDB worker threads (default: 2, the machine's cores). */
  threads?: number;
  /** DuckDB memory limit (default '12GB'): scale 1 serves from ~4 GiB of tables, but the load peaks higher. */
  memoryLimit?: string;
  /** Connections in the pool (default 3). */
  connections?: number;
  /** Where DuckDB may spill; default: none (in-memory only). */
  tempDirectory?: string;
  /** Progress of a load: each country's load time and DuckDB's memory after it. */
  onCountryLoaded?: (info: { country: CountryCode; ms: number; duckdbBytes: number }) => void;
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
 * Search-row texts that no filter scans (filters use their dictionary ids, `search_name` or `f_location`):
 * only these are compressed in the hot tier. Everything a filter or a sort reads stays uncompressed, because
 * a scan decompresses whole vectors: with the hot tier fully compressed a PL name count went from ~22 ms to
 * ~70 ms; with nothing compressed the scale-1 world needed ~6.3 GiB.
 */
const COMPRESSED_ROW_TEXT = new Set([
  'arinimi',
  'oiguslik_vorm',
  'oiguslik_vorm_tekstina',
  'staatus',
  'ehak_kood',
  'ehak_nimetus',
  'asukoht',
  'kmkr_nr',
  'vat_number',
  'kapital',
]);

/** Does the country have this filter? Signature columns are built only where a filter can use them. */
const hasFilter = (country: CountryCode, id: string) =>
  FILTERS.some((f) => f.id === id && f.countries.includes(country));

/**
 * Builds the serving tables of one country from its Parquet files, in two tiers (measured on this machine,
 * docs/api-decisions.md):
 *
 * - hot, uncompressed (`co_xx`, `act_xx`, `wp_xx`): every column a filter, a sort or a search row reads,
 *   plus derived flat columns, because list predicates are ~30x slower than flat ones and text ~5x slower
 *   than integers: contact kinds, domains, the SE band with unknown as 0, dictionary ids, signatures and
 *   order ranks are computed once here, never per query;
 * - cold, compressed (`cold.detail_xx`, `cold.history_xx`, `cold.workplaces_xx`): one JSON document per
 *   company for its detail, its history and its workplaces. Compressed storage is ~10x smaller, and
 *   a lookup decompresses one column instead of the ~60 leaf columns of the nested fields.
 */
async function loadCountryTables(
  conn: DuckDBConnection,
  dir: string,
  country: CountryCode,
): Promise<Record<DictionaryColumn, Map<string, number>>> {
  const t = tables(country);
  // File paths are built by this process from the snapshot store, never from a request.
  const file = (name: string) => sqlString(path.join(dir, name));
  const companies = `(SELECT * FROM read_parquet(${file('companies.parquet')}) WHERE NOT not_for_sale)`;
  const q = (c: string) => `"${c}"`;
  const withLocation = hasFilter(country, 'location');
  const withPeople = hasFilter(country, 'person_name');
  const folded = `lower(strip_accents(concat_ws(' | ', ehak_nimetus, aadress_text)))`;

  // 1. Hot rows in registrikood order; rid is the row's position in that order.
  await conn.run(`
    CREATE TEMP TABLE hot_rows AS
    SELECT (row_number() OVER (ORDER BY registrikood))::INTEGER AS rid,
      ${COMPANY_ROW_COLUMNS.map(q).join(', ')}, kapital_amount, search_name,
      ${withPeople ? 'search_people' : 'NULL::VARCHAR AS search_people'},
      staatus = '${ACTIVE_STATUS}' AS f_active,
      list_bool_or([x.liik = 'EMAIL' FOR x IN contacts]) IS TRUE AS f_email,
      list_bool_or([x.liik = 'WWW' FOR x IN contacts]) IS TRUE AS f_website,
      list_bool_or([x.liik IN ('TEL', 'MOB') FOR x IN contacts]) IS TRUE AS f_phone,
      len(contacts) > 0 AS f_contact,
      len(registered_domains) > 0 AS f_domain,
      coalesce(se_employees_band, 0) AS f_employees_band,
      bigram_sig(search_name) AS sig_name,
      ${withPeople ? 'bigram_sig(search_people)' : '0::UBIGINT'} AS sig_people,
      ${withLocation ? folded : 'NULL::VARCHAR'} AS f_location,
      ${withLocation ? `bigram_sig(${folded})` : '0::UBIGINT'} AS sig_location,
      code_sig([a.kood FOR a IN emtak]) AS sig_activities
    FROM ${companies}
    ORDER BY registrikood`);

  // 2. Dictionary ids and order ranks: window sorts over a narrow projection, not the whole row.
  const dictionaryIds = DICTIONARY_COLUMNS.map(
    (c) => `dense_rank() OVER (ORDER BY ${q(c)})::INTEGER AS "d_${c}"`,
  );
  const orderRanks = Object.entries(ORDER_COLUMNS).map(
    ([key, col]) =>
      `(CASE WHEN ${q(col)} IS NOT NULL THEN row_number() OVER (ORDER BY ${q(col)}, registrikood) END)::INTEGER AS "o_${key}"`,
  );
  await conn.run(`
    CREATE TEMP TABLE hot_ranks AS
    SELECT rid, ${[...dictionaryIds, ...orderRanks].join(', ')} FROM hot_rows`);

  // 3. SE: which kommuner a company has active workplaces in, as a signature for se_workplace_kommun.
  const kommun =
    country === 'SE'
      ? `(SELECT h.rid, code_sig(list(DISTINCT w.kommun_code)) AS sig_kommun
          FROM read_parquet(${file('workplaces.parquet')}) w JOIN hot_rows h USING (registrikood)
          WHERE w.is_active GROUP BY h.rid)`
      : '(SELECT NULL::INTEGER AS rid, NULL::UBIGINT AS sig_kommun WHERE false)';

  // Both sides are in rid order, so a positional join attaches the ranks without another wide sort.
  await conn.run(`
    CREATE TEMP TABLE hot_full AS
    SELECT h.*, r.* EXCLUDE (rid), coalesce(k.sig_kommun, 0::UBIGINT) AS sig_kommun
    FROM hot_rows h
    POSITIONAL JOIN (SELECT * FROM hot_ranks ORDER BY rid) r
    LEFT JOIN ${kommun} k ON k.rid = h.rid
    ORDER BY h.rid`);
  // Explicit column definitions, because only they can choose compression per column (see COMPRESSED_ROW_TEXT).
  const described = await conn.runAndReadAll('DESCRIBE hot_full');
  const columns = described.getRowObjectsJson().map((r) => {
    const name = String(r['column_name']);
    const type = String(r['column_type']);
    return `${q(name)} ${type}${COMPRESSED_ROW_TEXT.has(name) ? '' : ' USING COMPRESSION uncompressed'}`;
  });
  await conn.run(`CREATE TABLE ${t.companies} (${columns.join(', ')})`);
  await conn.run(`INSERT INTO ${t.companies} SELECT * FROM hot_full ORDER BY rid`);
  for (const tmp of ['hot_full', 'hot_rows', 'hot_ranks']) await conn.run(`DROP TABLE ${tmp}`);

  await conn.run(`
    CREATE TABLE ${t.activities} AS
    SELECT DISTINCT c.rid, a.kood AS kood
    FROM (SELECT registrikood, unnest(emtak) AS a FROM ${companies}) JOIN ${t.companies} c USING (registrikood)
    ORDER BY kood, c.rid`);

  // Cold documents: the whole detail in one, so a detail is one lookup of one compressed column.
  await conn.run(`
    CREATE TABLE ${t.detail} AS
    SELECT registrikood, to_json(struct_pack(${DETAIL_COLUMNS.map(q).join(', ')}))::VARCHAR AS doc
    FROM ${companies}
    ORDER BY registrikood`);
  await conn.run(`
    CREATE TABLE ${t.history} AS
    SELECT registrikood, to_json(list(struct_pack(${HISTORY_PERIOD_COLUMNS.map(q).join(', ')})
      ORDER BY "year", (quarter = 0 AND "month" = 0), quarter, "month", granularity))::VARCHAR AS doc
    FROM read_parquet(${file('history.parquet')})
    GROUP BY registrikood
    ORDER BY registrikood`);
  if (country === 'SE') {
    await conn.run(`
      CREATE TABLE ${t.workplaceDocs} AS
      SELECT registrikood, to_json(list(struct_pack(${WORKPLACE_COLUMNS.map(q).join(', ')})
        ORDER BY is_main DESC, cfar_nr))::VARCHAR AS doc
      FROM read_parquet(${file('workplaces.parquet')})
      WHERE is_active
      GROUP BY registrikood
      ORDER BY registrikood`);
    await conn.run(`
      CREATE TABLE ${t.workplaces} AS
      SELECT DISTINCT c.rid, w.kommun_code
      FROM read_parquet(${file('workplaces.parquet')}) w JOIN ${t.companies} c USING (registrikood)
      WHERE w.is_active
      ORDER BY w.kommun_code, c.rid`);
  }

  const dictionaries = {} as Record<DictionaryColumn, Map<string, number>>;
  for (const c of DICTIONARY_COLUMNS) {
    const reader = await conn.runAndReadAll(
      `SELECT DISTINCT ${q(c)} AS v, "d_${c}" AS id FROM ${t.companies} WHERE ${q(c)} IS NOT NULL`,
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
    memory_limit: opts.memoryLimit ?? '12GB',
    autoinstall_known_extensions: 'false',
    // Lets the allocator hand back what the load's sorts and aggregates used (PL alone: 2.7 -> 2.1 GiB RSS).
    allocator_background_threads: 'true',
    autoload_known_extensions: 'true',
  };
  if (opts.tempDirectory) config['temp_directory'] = opts.tempDirectory;
  const instance = await DuckDBInstance.create(':memory:', config);
  let pool: ConnectionPool | undefined;
  try {
    const conn = await instance.connect();
    const data: Partial<Record<CountryCode, CountryData>> = {};
    try {
      // The cold tier: compressed in-memory storage (it compresses at CHECKPOINT, below).
      await conn.run(`ATTACH ':memory:' AS ${COLD_DB} (COMPRESS)`);
      await conn.run(`ATTACH ':memory:' AS ${HOT_DB} (COMPRESS)`);
      // allowed_directories cannot be given at creation through the node API; set it before access is cut.
      await conn.run(`SET allowed_directories = [${sqlString(root + path.sep)}]`);
      await conn.run('SET enable_external_access = false');
      for (const m of MACROS) await conn.run(m);
      for (const country of countries) {
        const countryStarted = performance.now();
        const dir = store.countryDir(snapshotId, country);
        const dictionaries = await loadCountryTables(conn, dir, country);
        // Compress this country's tables now, so the load never holds them all uncompressed.
        await conn.run(`CHECKPOINT ${COLD_DB}`);
        // In-memory databases compress at CHECKPOINT: the cold documents and the hot display-only texts.
        await conn.run(`CHECKPOINT ${HOT_DB}`);
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
