import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { COUNTRIES, type CountryCode } from '../contract/countries.ts';
import {
  ACTIVE_STATUS,
  COMPANY_COLUMNS,
  contractColumnsSql,
  HISTORY_COLUMNS,
  SNAPSHOT_FILES,
  type ColumnSpec,
} from '../contract/data-contract.ts';
import { FILTERS } from '../contract/filters.ts';
import {
  COMPANY_ROW_COLUMNS,
  DICTIONARY_COLUMNS,
  HISTORY_PERIOD_COLUMNS,
  ORDER_COLUMNS,
  SERVING_FILE,
  SERVING_LAYOUT_VERSION,
  WORKPLACE_COLUMNS,
} from './tables.ts';
import { RELEASE_FREED_MEMORY, sortedList } from './batch-sql.ts';
import { LOOKUP_FILE, REST_FIELDS, ROW_FIELDS, writeLookupStore } from './lookup-store.ts';
import { POSTINGS_FILE } from './postings-file.ts';
import { writePostings } from './postings-build.ts';

/**
 * The serving database of one country: a DuckDB file written once per snapshot and country (at publish,
 * or by the engine the first time it meets a snapshot without one) and attached read-only by every
 * server that serves the snapshot. Start-up is then an ATTACH instead of minutes of loading, and memory is
 * DuckDB's buffer pool, bounded by its memory_limit, instead of every table resident.
 */

export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const q = (c: string) => `"${c}"`;

/**
 * SQL macros of the serving layout, created in the builder and in every serving instance (they are not
 * stored in the file). `bigram_sig` is a 64-bit signature of a text's character pairs: if `q` is a
 * substring of `s`, every bit of bigram_sig(q) is set in bigram_sig(s). Testing the bits first skips most
 * rows before the ~30 ns/row `contains` runs (37 ms -> 10 ms for 2M names). A text shorter than two
 * characters has the empty signature 0, which lets every row through to `contains`. The serving instance
 * creates them in its in-memory main database (visible to every connection); the builder as temporary
 * ones, so they are not stored in the file.
 */
export const macros = (temporary: boolean) => [
  `CREATE OR REPLACE ${temporary ? 'TEMP ' : ''}MACRO bigram_sig(s) AS list_reduce(
     list_transform(range(1, length(s)), i -> 1::UBIGINT << (hash(substr(s, i, 2)) % 64)),
     (a, b) -> a | b, 0::UBIGINT)`,
  // Any-of signature of a list of codes (activity codes, kommun codes): one bit per code.
  `CREATE OR REPLACE ${temporary ? 'TEMP ' : ''}MACRO code_sig(l) AS list_reduce(
     list_transform(l, k -> 1::UBIGINT << (hash(k) % 64)), (a, b) -> a | b, 0::UBIGINT)`,
];

/**
 * Search-row texts that no filter scans (filters use their dictionary ids, `search_name` or `f_location`):
 * only these are compressed in the companies table. Everything a filter or a sort reads stays
 * uncompressed, because a scan decompresses whole vectors: fully compressed, a PL name count went from
 * ~22 ms to ~70 ms.
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
 * Builds the serving tables of one country from its Parquet files into the connection's database:
 *
 * - `co`, `act`, `wp` (SE): every column a filter, a sort or a search row reads, plus derived flat
 *   columns, because list predicates are ~30x slower than flat ones and text ~5x slower than integers:
 *   contact kinds, domains, the SE band with unknown as 0, dictionary ids, signatures and order ranks are
 *   computed once here, never per query;
 * - the lookup store (`lookupFile`, lookup-store.ts): every for-sale company's search row, detail,
 *   history and (SE) workplaces as JSON documents, and the trigram indexes of the substring filters, in
 *   a SQLite file that serves lookups without queueing behind DuckDB's scans;
 * - `dict`: the value-to-id dictionaries of DICTIONARY_COLUMNS; `meta`: layout version and fingerprint.
 */
async function buildTables(
  conn: DuckDBConnection,
  dir: string,
  country: CountryCode,
  lookupFile: string,
  postingsFile: string,
  log: (msg: string) => void,
): Promise<void> {
  const step: BuildStep = async (name, run) => {
    const started = performance.now();
    await run();
    log(`${country} serving build: ${name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  const run = (sql: string, params?: DuckDBValue[]) =>
    step(/(?:CREATE (?:TABLE|INDEX)|INSERT INTO|DROP TABLE) (\S+)/.exec(sql)?.[1] ?? 'statement', () =>
      conn.run(sql, params),
    );
  // File paths are built by this process from the snapshot folder, never from a request.
  const file = (name: string) => sqlString(path.join(dir, name));
  const b: Build = {
    conn,
    dir,
    country,
    step,
    run,
    file,
    companies: `(SELECT * FROM ${await asContract(conn, file, 'companies.parquet', COMPANY_COLUMNS)} WHERE NOT not_for_sale)`,
    history: await asContract(conn, file, 'history.parquet', HISTORY_COLUMNS),
    withWorkplaces: COUNTRIES[country].workplaces,
  };
  await buildHotRows(b);
  await buildRanks(b);
  await buildCompanyTable(b);
  await run(`
    CREATE TABLE act AS
    SELECT DISTINCT c.rid, a.kood AS kood
    FROM (SELECT registrikood, unnest(emtak) AS a FROM ${b.companies}) JOIN co c USING (registrikood)
    ORDER BY kood, c.rid`);
  await buildLookupStore(b, lookupFile);
  await buildPostings(b, postingsFile);
  await run(`CREATE TABLE dict (col VARCHAR, value VARCHAR, id INTEGER)`);
  for (const c of DICTIONARY_COLUMNS) {
    await run(`INSERT INTO dict SELECT DISTINCT '${c}', ${q(c)}, "d_${c}" FROM co WHERE ${q(c)} IS NOT NULL`);
  }
  await run(`CREATE TABLE meta AS SELECT ?::INTEGER AS layout_version, ?::VARCHAR AS fingerprint`, [
    SERVING_LAYOUT_VERSION,
    servingFingerprint(dir),
  ]);
}

type BuildStep = (name: string, run: () => Promise<unknown>) => Promise<void>;

/** One country's serving build: its connection, folder, timed steps and the for-sale companies' SQL. */
interface Build {
  conn: DuckDBConnection;
  dir: string;
  country: CountryCode;
  step: BuildStep;
  run: (sql: string, params?: DuckDBValue[]) => Promise<void>;
  /** A file of the country folder as a SQL string literal. */
  file: (name: string) => string;
  /** The for-sale rows of companies.parquet, as a subquery. */
  companies: string;
  /** history.parquet as the current contract, as a subquery. */
  history: string;
  /** The country publishes workplaces (its profile): the `wp` table and the workplace documents. */
  withWorkplaces: boolean;
}

/**
 * A file of a snapshot written under an older contract, served as the current one (contractColumnsSql): the
 * columns added since (postcode, 1.2.0) as null, as the register had given none, and employee counts
 * (DOUBLE before 1.3.0) as INTEGER.
 */
async function asContract(
  conn: DuckDBConnection,
  file: (name: string) => string,
  name: string,
  columns: readonly ColumnSpec[],
): Promise<string> {
  const described = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file(name)})`);
  const present = new Map(
    described.getRowObjectsJson().map((r) => [String(r['column_name']), String(r['column_type'])]),
  );
  return `(SELECT ${contractColumnsSql(columns, present)} FROM read_parquet(${file(name)}))`;
}

/**
 * 1. Rows in file order, which the contract fixes as registrikood order (SORT_KEYS): rid is the row's
 * position (rowid + 1 of a table written in one insert-order-preserving statement). A window ordered by
 * registrikood would sort every column (the build's memory peak), and row_number() OVER () runs the
 * signature hashing on one thread.
 */
async function buildHotRows({ conn, country, run, companies }: Build): Promise<void> {
  const withLocation = hasFilter(country, 'location');
  const withPeople = hasFilter(country, 'person_name');
  const folded = `lower(strip_accents(concat_ws(' | ', ehak_nimetus, aadress_text)))`;
  await run(`
    CREATE TABLE scratch.hot_rows AS
    SELECT
      ${COMPANY_ROW_COLUMNS.map(q).join(', ')}, kapital_amount, search_name,
      ${withPeople ? 'search_people' : 'NULL::VARCHAR AS search_people'},
      staatus = '${ACTIVE_STATUS}' AS f_active,
      list_bool_or([x.liik = 'EMAIL' FOR x IN contacts]) IS TRUE AS f_email,
      list_bool_or([x.liik = 'WWW' FOR x IN contacts]) IS TRUE AS f_website,
      list_bool_or([x.liik IN ('TEL', 'MOB') FOR x IN contacts]) IS TRUE AS f_phone,
      len(contacts) > 0 AS f_contact,
      len(registered_domains) > 0 AS f_domain,
      coalesce(se_employees_band, 0) AS f_employees_band,
      ${withLocation ? folded : 'NULL::VARCHAR'} AS f_location,
      ${hasFilter(country, 'postcode') ? "nullif(regexp_replace(postcode, '[^0-9]', '', 'g'), '')" : 'NULL::VARCHAR'} AS f_postcode,
      code_sig([a.kood FOR a IN emtak]) AS sig_activities
    FROM ${companies}`);
  const unsorted = await conn.runAndReadAll(`
    SELECT count(*)::INTEGER AS n FROM (
      SELECT registrikood <= lag(registrikood) OVER (ORDER BY rowid) AS bad FROM scratch.hot_rows) WHERE bad`);
  if (Number(unsorted.getRowObjectsJson()[0]?.['n']) > 0) {
    throw new Error(`${country}/companies.parquet is not sorted by registrikood (data contract SORT_KEYS)`);
  }
}

/**
 * 2. Dictionary ids, order ranks, the text signatures and (SE) the kommun signature: window sorts over a
 * narrow projection, the signatures from stored columns (over an expression, the macro re-evaluated it
 * for every character pair: SE's folded address cost 80 s per 100,000 rows instead of 1.3 s),
 * then put in rid order, so a positional join attaches them to the rows without a wide sort.
 */
async function buildRanks({ country, run, file, withWorkplaces }: Build): Promise<void> {
  const dictionaryIds = DICTIONARY_COLUMNS.map(
    (c) => `dense_rank() OVER (ORDER BY ${q(c)})::INTEGER AS "d_${c}"`,
  );
  const orderRanks = Object.entries(ORDER_COLUMNS).map(
    ([key, col]) =>
      `(CASE WHEN ${q(col)} IS NOT NULL THEN row_number() OVER (ORDER BY ${q(col)}, registrikood) END)::INTEGER AS "o_${key}"`,
  );
  // Which kommuner a company has active workplaces in (SE), as a signature for se_workplace_kommun.
  const kommun = withWorkplaces
    ? `(SELECT h.rid, code_sig(list(DISTINCT w.kommun_code)) AS sig_kommun
          FROM read_parquet(${file('workplaces.parquet')}) w
          JOIN (SELECT (rowid + 1)::INTEGER AS rid, registrikood FROM scratch.hot_rows) h USING (registrikood)
          WHERE w.is_active GROUP BY h.rid)`
    : '(SELECT NULL::INTEGER AS rid, NULL::UBIGINT AS sig_kommun WHERE false)';
  await run(`
    CREATE TABLE scratch.hot_ranks AS
    SELECT r.*, coalesce(k.sig_kommun, 0::UBIGINT) AS sig_kommun
    FROM (SELECT (rowid + 1)::INTEGER AS rid, ${[...dictionaryIds, ...orderRanks].join(', ')},
        bigram_sig(search_name) AS sig_name,
        ${hasFilter(country, 'person_name') ? 'bigram_sig(search_people)' : '0::UBIGINT'} AS sig_people,
        ${hasFilter(country, 'location') ? 'bigram_sig(f_location)' : '0::UBIGINT'} AS sig_location
      FROM scratch.hot_rows) r
    LEFT JOIN ${kommun} k ON k.rid = r.rid
    ORDER BY r.rid`);
}

/** 3. `co`: the rows beside their ranks, with explicit column definitions (see COMPRESSED_ROW_TEXT). */
async function buildCompanyTable({ conn, run }: Build): Promise<void> {
  const full = `SELECT r.rid, h.*, r.* EXCLUDE (rid) FROM scratch.hot_rows h POSITIONAL JOIN scratch.hot_ranks r`;
  // Only explicit column definitions can choose compression per column.
  const described = await conn.runAndReadAll(`DESCRIBE ${full}`);
  const columns = described.getRowObjectsJson().map((r) => {
    const name = String(r['column_name']);
    const type = String(r['column_type']);
    return `${q(name)} ${type}${COMPRESSED_ROW_TEXT.has(name) ? '' : ' USING COMPRESSION uncompressed'}`;
  });
  await run(`CREATE TABLE co (${columns.join(', ')})`);
  await run(`INSERT INTO co ${full}`);
  for (const tmp of ['hot_rows', 'hot_ranks']) await run(`DROP TABLE scratch.${tmp}`);
}

/**
 * The documents of the lookup store (lookup-store.ts): every for-sale company's search row and detail,
 * its history periods and (SE) its workplaces, as JSON. History and workplace documents are grouped per
 * registrikood range: an ordered list() keeps every input of a group in memory, and in one statement
 * over LV's history that exceeded a 3 GB limit.
 */
async function buildLookupStore(b: Build, lookupFile: string): Promise<void> {
  const { conn, dir, run, file, companies, history, withWorkplaces } = b;
  await run(`CREATE TABLE scratch.hdoc (registrikood VARCHAR, doc VARCHAR)`);
  await inRanges(conn, file('history.parquet'), (range) =>
    run(
      `INSERT INTO scratch.hdoc
       SELECT registrikood, ${sortedDocs(HISTORY_PERIOD_COLUMNS, [
         '"year"',
         '(quarter = 0 AND "month" = 0)',
         'quarter',
         '"month"',
         'granularity',
       ])}
       FROM ${history}
       WHERE ${range.sql}
       GROUP BY registrikood`,
      range.params,
    ),
  );
  if (withWorkplaces) await buildWorkplaceDocs(b);
  // The companies in file order beside co in rid order: the same sequence (both are the for-sale rows in
  // registrikood order), which the CASE asserts row by row, so no join or sort of the wide documents.
  const values = (columns: readonly string[]) =>
    `encode(json_array(${columns.map((c) => `p.${q(c)}`).join(', ')})::VARCHAR)`;
  // The workplaces answer's opt-out flags and source (spec 2.5), beside the company.
  const seColumns = withWorkplaces
    ? 'p.marketing_optout, p.phone_optout, p.se_register.source'
    : 'NULL::BOOLEAN, NULL::BOOLEAN, NULL::VARCHAR';
  const byRid = (table: string) =>
    `SELECT c.rid, encode(d.doc) FROM ${table} d JOIN co c USING (registrikood) ORDER BY c.rid`;
  await writeLookupStore(
    conn,
    lookupFile,
    {
      companies: `
        SELECT CASE WHEN c.registrikood = p.registrikood THEN c.rid
                    ELSE error('companies out of step with co at rid ' || c.rid) END,
          p.registrikood, ${values(ROW_FIELDS)}, ${values(REST_FIELDS)}, ${seColumns}
        FROM (SELECT rid, registrikood FROM co) c POSITIONAL JOIN ${companies} p`,
      history: byRid('scratch.hdoc'),
      workplaces: withWorkplaces ? byRid('scratch.wdoc') : null,
    },
    { layoutVersion: SERVING_LAYOUT_VERSION, fingerprint: servingFingerprint(dir) },
    b.step,
  );
  await run('DROP TABLE scratch.hdoc');
  if (withWorkplaces) await run('DROP TABLE scratch.wdoc');
}

/** The workplace documents (scratch.wdoc) and `wp`, the kommuner of each company's active workplaces. */
async function buildWorkplaceDocs({ conn, run, file }: Build): Promise<void> {
  await run(`CREATE TABLE scratch.wdoc (registrikood VARCHAR, doc VARCHAR)`);
  await inRanges(conn, file('workplaces.parquet'), (range) =>
    run(
      `INSERT INTO scratch.wdoc
         SELECT registrikood, ${sortedDocs(WORKPLACE_COLUMNS, ['NOT is_main', 'cfar_nr'])}
         FROM read_parquet(${file('workplaces.parquet')})
         WHERE is_active AND ${range.sql}
         GROUP BY registrikood`,
      range.params,
    ),
  );
  await run(`
      CREATE TABLE wp AS
      SELECT DISTINCT c.rid, w.kommun_code
      FROM read_parquet(${file('workplaces.parquet')}) w JOIN co c USING (registrikood)
      WHERE w.is_active
      ORDER BY w.kommun_code, c.rid`);
}

/** The postings file (postings-build.ts), from the change feed where the manifest has one. */
async function buildPostings({ conn, dir, country, step }: Build, postingsFile: string): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, SNAPSHOT_FILES.manifest), 'utf8')) as {
    changes?: unknown;
  };
  const changes = path.join(dir, SNAPSHOT_FILES.changes);
  await writePostings(
    conn,
    postingsFile,
    country,
    manifest.changes && fs.existsSync(changes) ? changes : null,
    { layoutVersion: SERVING_LAYOUT_VERSION, fingerprint: servingFingerprint(dir) },
    step,
  );
}

/**
 * What a serving database was built from: the country's snapshot id (from manifest.json, which a carried-over
 * country keeps) and the size of each Parquet file. A file whose fingerprint or layout version differs
 * from the folder's is rebuilt before it is served, so a replaced or damaged Parquet file is never masked
 * by a stale serving database.
 */
export function servingFingerprint(dir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    snapshot_id?: unknown;
  };
  const files = [
    SNAPSHOT_FILES.companies,
    SNAPSHOT_FILES.history,
    SNAPSHOT_FILES.workplaces,
    SNAPSHOT_FILES.changes,
  ];
  const sizes = files.map((f) => {
    const file = path.join(dir, f);
    return [f, fs.existsSync(file) ? fs.statSync(file).size : null];
  });
  return JSON.stringify({ snapshot_id: manifest.snapshot_id ?? null, sizes });
}

/** A group's rows as a JSON array in the order of `keys` (see sortedList). */
function sortedDocs(columns: readonly string[], keys: readonly string[]): string {
  return `to_json(${sortedList(`struct_pack(${columns.map(q).join(', ')})`, keys)})::VARCHAR`;
}

/**
 * Input rows per range of inRanges: bounds the memory of one grouped statement, whose hash table holds
 * every group's list until the range is done.
 */
const RANGE_INPUT_ROWS = 1_000_000;

/**
 * Runs `fn` once per consecutive registrikood range of for-sale companies (from `co`) holding about
 * RANGE_INPUT_ROWS rows of `file`, with a predicate on `registrikood` that covers every code, for-sale or
 * not, exactly once.
 */
async function inRanges(
  conn: DuckDBConnection,
  file: string,
  fn: (range: { sql: string; params: string[] }) => Promise<unknown>,
): Promise<void> {
  const starts = (
    await conn.runAndReadAll(
      `SELECT registrikood FROM co
       WHERE rid % greatest(1000, (SELECT count(*) FROM co) * ${RANGE_INPUT_ROWS}
         // greatest(1, (SELECT count(*) FROM read_parquet(${file}))))::BIGINT = 1
       ORDER BY rid`,
    )
  )
    .getRowsJson()
    .map((r) => String(r[0]));
  for (const [i, lo] of starts.entries()) {
    const hi = starts[i + 1];
    const low = i === 0 ? 'true' : 'registrikood >= ?';
    const lowParams = i === 0 ? [] : [lo];
    if (hi === undefined) await fn({ sql: low, params: lowParams });
    else await fn({ sql: `${low} AND registrikood < ?`, params: [...lowParams, hi] });
  }
  if (starts.length === 0) await fn({ sql: 'true', params: [] });
}

export interface BuildServingOptions {
  /** DuckDB memory limit of the build (default '6GB'; PL at scale 1 sorts ~2.3M wide rows). */
  memoryLimit?: string;
  threads?: number;
  /** Where to write the database (default: `serving.duckdb` in the country folder). */
  target?: string;
  /** Each build step's time. */
  log?: (msg: string) => void;
}

/**
 * Writes the serving database (`<countryDir>/serving.duckdb` unless `opts.target` says otherwise) and the
 * lookup store beside it (LOOKUP_FILE) for the country's Parquet files. It is written under a temporary name and renamed into place, so a reader never
 * attaches a half-written file and two builders racing on the same snapshot both leave a complete one.
 * Returns the file's path.
 */
export async function buildServingDatabase(
  countryDir: string,
  country: CountryCode,
  opts: BuildServingOptions = {},
): Promise<string> {
  const target = opts.target ?? path.join(countryDir, SERVING_FILE);
  const tmp = `${target}.tmp-${process.pid}`;
  const lookupTarget = path.join(path.dirname(target), LOOKUP_FILE);
  const lookupTmp = `${lookupTarget}.tmp-${process.pid}`;
  const postingsTarget = path.join(path.dirname(target), POSTINGS_FILE);
  const postingsTmp = `${postingsTarget}.tmp-${process.pid}`;
  const spill = `${tmp}.spill`;
  const scratch = `${tmp}.scratch`;
  const cleanUp = () => {
    for (const f of [scratch, `${scratch}.wal`, spill]) fs.rmSync(f, { recursive: true, force: true });
  };
  fs.rmSync(tmp, { force: true });
  cleanUp();
  const instance = await DuckDBInstance.create(tmp, {
    threads: String(opts.threads ?? 2),
    memory_limit: opts.memoryLimit ?? '6GB',
    temp_directory: spill,
    // The tables are written in their ORDER BY order; point lookups rely on it (zonemaps on registrikood).
    preserve_insertion_order: 'true',
    ...RELEASE_FREED_MEMORY,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'true',
  });
  try {
    const conn = await instance.connect();
    try {
      for (const m of macros(true)) await conn.run(m);
      // Intermediate tables live in a scratch file, so the buffer manager can evict them, and the serving
      // file never carries the free blocks they would leave behind.
      await conn.run(`ATTACH ${sqlString(scratch)} AS scratch`);
      await buildTables(conn, countryDir, country, lookupTmp, postingsTmp, opts.log ?? (() => {}));
      await conn.run('DETACH scratch');
      const started = performance.now();
      await conn.run('CHECKPOINT');
      opts.log?.(
        `${country} serving build: checkpoint ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } finally {
      conn.closeSync();
    }
  } catch (err) {
    instance.closeSync();
    fs.rmSync(tmp, { force: true });
    fs.rmSync(`${tmp}.wal`, { force: true });
    fs.rmSync(lookupTmp, { force: true });
    fs.rmSync(postingsTmp, { force: true });
    cleanUp();
    throw err;
  }
  instance.closeSync();
  cleanUp();
  // The postings and the lookup store first: the loader takes the three as current only when all carry
  // the same layout version and fingerprint, so a crash between the renames leaves at worst a set it rebuilds.
  fs.renameSync(postingsTmp, postingsTarget);
  fs.renameSync(lookupTmp, lookupTarget);
  fs.renameSync(tmp, target);
  return target;
}
