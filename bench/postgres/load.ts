import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import {
  CompanyDetailSchema,
  CompanyRowSchema,
  HistoryPeriodSchema,
} from '../../src/contract/api-schemas.ts';
import type { CountryCode } from '../../src/contract/countries.ts';
import { filtersFor } from '../../src/contract/filters.ts';
import { quoteIdent, sqlPath } from '../../ingest/pipeline/sql.ts';
import { ORDER_COLUMNS } from '../../src/engine/tables.ts';

/**
 * Loads a snapshot into PostgreSQL the way a competent engineer would serve the same filters: one table of
 * for-sale companies per country with the search-row columns, the folded search texts and the contact flags
 * as plain columns and the activity (and SE workplace kommun) codes as text[]; the detail as one jsonb per
 * company; history as rows. Then btree indexes on every filtered and sorted column, GIN pg_trgm on the
 * name, person and location texts, GIN on the code arrays, VACUUM ANALYZE.
 *
 * DuckDB reads the Parquet and writes CSV (lists flattened into array literals, structs into JSON), psql's
 * \copy streams it in. The load is skipped when the database already holds this snapshot.
 */

export const ROW_COLUMNS = Object.keys(CompanyRowSchema.shape);
export const DETAIL_COLUMNS = Object.keys(CompanyDetailSchema.shape);
export const HISTORY_COLUMNS = Object.keys(HistoryPeriodSchema.shape);

export const pgTables = (c: CountryCode) => {
  const cc = c.toLowerCase();
  return { companies: `co_${cc}`, detail: `detail_${cc}`, history: `history_${cc}` };
};

/** Sort keys (src/contract/api-schemas.ts SORT_FIELDS values) to the column they order by, as the API. */
export const SORT_COLUMNS: Record<string, string> = { registrikood: 'registrikood', ...ORDER_COLUMNS };

/** The filter that makes a sort column worth an index in a country (its column is filled there). */
const SORT_FILTER: Record<string, string> = {
  arinimi: 'company_name',
  esmaregistreerimise_kpv: 'registered',
  kapital_amount: 'share_capital',
  annual_revenue: 'annual_revenue',
  last_quarter_turnover: 'last_quarter_turnover',
  last_quarter_employees_number: 'last_quarter_employees',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
};

const RANGE_ONLY_COLUMNS: Record<string, string> = {
  annual_net_profit: 'annual_net_profit',
  annual_equity: 'annual_equity',
  annual_total_assets: 'annual_total_assets',
  last_quarter_turnover_growth_pct: 'last_quarter_turnover_growth_pct',
};

const q = quoteIdent;

/** A DuckDB list of texts as a PostgreSQL array literal: {"a","b"}. */
const pgArray = (list: string) =>
  `'{' || array_to_string(list_transform(list_distinct(${list}), x -> '"' || replace(replace(x, '\\', '\\\\'), '"', '\\"') || '"'), ',') || '}'`;

function companiesSelect(dir: string, c: CountryCode): string {
  const has = new Set<string>(filtersFor(c).map((f) => f.id));
  const file = (f: string) => `read_parquet(${sqlPath(path.join(dir, c, f))})`;
  const wp =
    c === 'SE'
      ? `LEFT JOIN (SELECT registrikood, list(kommun_code) AS k FROM ${file('workplaces.parquet')}
           WHERE is_active AND kommun_code IS NOT NULL GROUP BY registrikood) w USING (registrikood)`
      : '';
  return `
    SELECT ${ROW_COLUMNS.map(q).join(', ')}, kapital_amount, search_name,
      ${has.has('person_name') ? 'search_people' : 'NULL::VARCHAR AS search_people'},
      ${has.has('location') ? `lower(strip_accents(concat_ws(' | ', ehak_nimetus, aadress_text)))` : 'NULL::VARCHAR'} AS f_location,
      ${has.has('postcode') ? "nullif(regexp_replace(postcode, '[^0-9]', '', 'g'), '')" : 'NULL::VARCHAR'} AS f_postcode,
      list_bool_or([x.liik = 'EMAIL' FOR x IN contacts]) IS TRUE AS f_email,
      list_bool_or([x.liik = 'WWW' FOR x IN contacts]) IS TRUE AS f_website,
      list_bool_or([x.liik IN ('TEL', 'MOB') FOR x IN contacts]) IS TRUE AS f_phone,
      len(contacts) > 0 AS f_contact,
      len(registered_domains) > 0 AS f_domain,
      coalesce(se_employees_band, 0) AS f_employees_band,
      ${pgArray('[a.kood FOR a IN emtak]')} AS emtak_codes,
      ${c === 'SE' ? pgArray('coalesce(w.k, [])') : `'{}'`} AS wp_kommun
    FROM ${file('companies.parquet')} ${wp}
    WHERE NOT not_for_sale
    ORDER BY registrikood`;
}

function detailSelect(dir: string, c: CountryCode): string {
  return `
    SELECT registrikood, to_json(struct_pack(${DETAIL_COLUMNS.map(q).join(', ')}))::VARCHAR AS doc
    FROM read_parquet(${sqlPath(path.join(dir, c, 'companies.parquet'))})
    WHERE NOT not_for_sale ORDER BY registrikood`;
}

function historySelect(dir: string, c: CountryCode): string {
  return `
    SELECT registrikood, ${HISTORY_COLUMNS.map(q).join(', ')}
    FROM read_parquet(${sqlPath(path.join(dir, c, 'history.parquet'))})
    ORDER BY registrikood`;
}

const PG_TYPES: Record<string, string> = {
  VARCHAR: 'text',
  DOUBLE: 'double precision',
  FLOAT: 'real',
  INTEGER: 'integer',
  BIGINT: 'bigint',
  SMALLINT: 'smallint',
  TINYINT: 'smallint',
  BOOLEAN: 'boolean',
  DATE: 'date',
};
const TYPE_OVERRIDES: Record<string, string> = { emtak_codes: 'text[]', wp_kommun: 'text[]', doc: 'jsonb' };

async function exportCsv(
  conn: DuckDBConnection,
  select: string,
  file: string,
): Promise<{ name: string; type: string }[]> {
  const described = (await conn.runAndReadAll(`DESCRIBE ${select}`)).getRowObjectsJson();
  const columns = described.map((r) => {
    const name = String(r['column_name']);
    const duck = String(r['column_type']);
    const type = TYPE_OVERRIDES[name] ?? PG_TYPES[duck];
    if (!type) throw new Error(`no PostgreSQL type for ${name} ${duck}`);
    return { name, type };
  });
  await conn.run(`COPY (${select}) TO ${sqlPath(file)} (FORMAT csv, HEADER true)`);
  return columns;
}

async function psqlCopy(url: string, table: string, file: string): Promise<void> {
  // psql reads the file as this user and streams it: the server needs no access to our folders.
  const literal = `'${file.replaceAll("'", "''")}'`;
  await promisify(execFile)(
    'psql',
    [url, '-v', 'ON_ERROR_STOP=1', '-qc', `\\copy ${table} FROM ${literal} WITH (FORMAT csv, HEADER true)`],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

/** The index statements of one country's tables. */
export function indexStatements(c: CountryCode): string[] {
  const t = pgTables(c);
  const has = new Set<string>(filtersFor(c).map((f) => f.id));
  const out = [
    `ALTER TABLE ${t.companies} ADD PRIMARY KEY (registrikood)`,
    `ALTER TABLE ${t.detail} ADD PRIMARY KEY (registrikood)`,
    `CREATE INDEX ON ${t.history} (registrikood)`,
    `CREATE INDEX ON ${t.companies} (oiguslik_vorm)`,
    `CREATE INDEX ON ${t.companies} (staatus)`,
    `CREATE INDEX ON ${t.companies} USING gin (search_name gin_trgm_ops)`,
    `CREATE INDEX ON ${t.companies} USING gin (emtak_codes)`,
  ];
  if (has.has('person_name'))
    out.push(`CREATE INDEX ON ${t.companies} USING gin (search_people gin_trgm_ops)`);
  if (has.has('location')) out.push(`CREATE INDEX ON ${t.companies} USING gin (f_location gin_trgm_ops)`);
  if (has.has('postcode')) out.push(`CREATE INDEX ON ${t.companies} (f_postcode text_pattern_ops)`);
  if (has.has('ehak_kood')) out.push(`CREATE INDEX ON ${t.companies} (ehak_kood)`);
  if (has.has('lt_locations')) out.push(`CREATE INDEX ON ${t.companies} (ehak_nimetus)`);
  if (has.has('se_workplace_kommun')) out.push(`CREATE INDEX ON ${t.companies} USING gin (wp_kommun)`);
  if (has.has('employees_band')) out.push(`CREATE INDEX ON ${t.companies} (f_employees_band)`);
  if (has.has('turnover_band')) out.push(`CREATE INDEX ON ${t.companies} (se_turnover_band)`);
  // Sort columns: names ascending, the rest largest (newest) first, as listings ask; ranges use them too.
  out.push(`CREATE INDEX ON ${t.companies} (arinimi, registrikood)`);
  for (const [col, filter] of Object.entries(SORT_FILTER)) {
    if (col === 'arinimi' || !has.has(filter)) continue;
    out.push(`CREATE INDEX ON ${t.companies} (${col} DESC NULLS LAST, registrikood DESC)`);
  }
  for (const [filter, col] of Object.entries(RANGE_ONLY_COLUMNS)) {
    if (has.has(filter)) out.push(`CREATE INDEX ON ${t.companies} (${col})`);
  }
  return out;
}

export interface PgLoad {
  snapshotId: string;
  loadSeconds: number;
  sizeBytes: number;
  /** True when the database already held this snapshot and nothing was loaded in this run. */
  reused: boolean;
  version: string;
}

/** Loads the snapshot unless the database holds it already; its load time and size either way. */
export async function ensurePgLoaded(opts: {
  url: string;
  snapshotDir: string;
  snapshotId: string;
  countries: CountryCode[];
  scratchDir: string;
  log: (line: string) => void;
}): Promise<PgLoad> {
  const client = new pg.Client({ connectionString: opts.url });
  await client.connect();
  try {
    const version = String((await client.query('SHOW server_version')).rows[0]?.server_version ?? '');
    await client.query(
      'CREATE TABLE IF NOT EXISTS bench_meta (snapshot_id text, countries text, load_seconds double precision, loaded_at timestamptz)',
    );
    const countries = opts.countries.join(',');
    const meta = await client.query(
      'SELECT load_seconds FROM bench_meta WHERE snapshot_id = $1 AND countries = $2',
      [opts.snapshotId, countries],
    );
    const size = async () =>
      Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0]?.n ?? 0);
    if (meta.rows[0]) {
      opts.log(`PostgreSQL already holds ${opts.snapshotId}: reusing it`);
      return {
        snapshotId: opts.snapshotId,
        loadSeconds: Number(meta.rows[0].load_seconds),
        sizeBytes: await size(),
        reused: true,
        version,
      };
    }

    const started = performance.now();
    await client.query('DELETE FROM bench_meta');
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    fs.mkdirSync(opts.scratchDir, { recursive: true });
    const db = await DuckDBInstance.create(':memory:', { threads: '2', preserve_insertion_order: 'true' });
    const duck = await db.connect();
    try {
      for (const c of opts.countries) {
        const t = pgTables(c);
        const parts: [string, string][] = [
          [t.companies, companiesSelect(opts.snapshotDir, c)],
          [t.detail, detailSelect(opts.snapshotDir, c)],
          [t.history, historySelect(opts.snapshotDir, c)],
        ];
        for (const [table, select] of parts) {
          const csv = path.join(opts.scratchDir, `${table}.csv`);
          const columns = await exportCsv(duck, select, csv);
          await client.query(`DROP TABLE IF EXISTS ${table}`);
          await client.query(
            `CREATE TABLE ${table} (${columns.map((x) => `${q(x.name)} ${x.type}`).join(', ')})`,
          );
          await psqlCopy(opts.url, table, csv);
          fs.rmSync(csv);
        }
        for (const sql of indexStatements(c)) await client.query(sql);
        opts.log(
          `PostgreSQL: ${c} loaded and indexed (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    } finally {
      duck.closeSync();
      db.closeSync();
    }
    await client.query('VACUUM ANALYZE');
    const loadSeconds = Math.round((performance.now() - started) / 100) / 10;
    await client.query('INSERT INTO bench_meta VALUES ($1, $2, $3, now())', [
      opts.snapshotId,
      countries,
      loadSeconds,
    ]);
    return { snapshotId: opts.snapshotId, loadSeconds, sizeBytes: await size(), reused: false, version };
  } finally {
    await client.end();
  }
}
