import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import {
  COMPANY_COLUMNS,
  HISTORY_COLUMNS,
  WORKPLACE_COLUMNS,
  type ColumnSpec,
} from '../../src/contract/data-contract.ts';
import { loadReference } from '../../ingest/reference/index.ts';
import { stageWorldCountry } from '../../ingest/world/stage-country.ts';

/** Small enough to stage all seven countries in seconds, large enough for every family and form. */
export const TEST_SCALE = 0.002;
export const TEST_SEED = 20261101;

export type Row = Record<string, unknown>;

export interface StagedCountry {
  country: CountryCode;
  companies: Row[];
  history: Row[];
  workplaces: Row[];
  /** DESCRIBE output of each stage table (name -> type), null where the table does not exist. */
  types: Record<'companies' | 'history' | 'workplaces', Map<string, string> | null>;
  /** Order-independent fingerprint of every table's contract columns. */
  fingerprint: Record<'companies' | 'history' | 'workplaces', string>;
}

export async function openDuckDb(threads = 2): Promise<{ conn: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  return {
    conn,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
}

async function describe(conn: DuckDBConnection, table: string): Promise<Map<string, string> | null> {
  const exists = await rows(
    conn,
    `SELECT (SELECT count(*) FROM duckdb_tables() WHERE table_name = '${table}')
       + (SELECT count(*) FROM duckdb_views() WHERE view_name = '${table}') AS n`,
  );
  if (Number(exists[0]?.['n'] ?? 0) === 0) return null;
  const d = await rows(conn, `DESCRIBE ${table}`);
  return new Map(d.map((r) => [String(r['column_name']), String(r['column_type'])]));
}

const select = (columns: readonly ColumnSpec[]): string => columns.map((c) => `"${c.name}"`).join(', ');

async function fingerprint(
  conn: DuckDBConnection,
  table: string,
  columns: readonly ColumnSpec[],
): Promise<string> {
  const r = await rows(
    conn,
    `SELECT md5(coalesce(string_agg(h::VARCHAR, ',' ORDER BY h), '')) AS f
     FROM (SELECT hash(t) AS h FROM (SELECT ${select(columns)} FROM ${table}) t)`,
  );
  return String(r[0]?.['f'] ?? '');
}

/** Stages one country and returns only the fingerprints of its tables. */
export async function stageFingerprint(
  conn: DuckDBConnection,
  country: CountryCode,
  scale: number,
  seed: number,
): Promise<StagedCountry['fingerprint']> {
  await stageWorldCountry(conn, country, { scale, seed, reference: loadReference(country) });
  const has = async (t: string) => (await describe(conn, t)) !== null;
  return {
    companies: await fingerprint(conn, 'stage_companies', COMPANY_COLUMNS),
    history: (await has('stage_history')) ? await fingerprint(conn, 'stage_history', HISTORY_COLUMNS) : '',
    workplaces: (await has('stage_workplaces'))
      ? await fingerprint(conn, 'stage_workplaces', WORKPLACE_COLUMNS)
      : '',
  };
}

/** Stages one country into `conn` and reads everything back as JSON-safe rows. */
export async function stageAndRead(
  conn: DuckDBConnection,
  country: CountryCode,
  scale = TEST_SCALE,
  seed = TEST_SEED,
): Promise<StagedCountry> {
  await stageWorldCountry(conn, country, { scale, seed, reference: loadReference(country) });
  const types = {
    companies: await describe(conn, 'stage_companies'),
    history: await describe(conn, 'stage_history'),
    workplaces: await describe(conn, 'stage_workplaces'),
  };
  return {
    country,
    companies: await rows(
      conn,
      `SELECT ${select(COMPANY_COLUMNS)} FROM stage_companies ORDER BY registrikood`,
    ),
    history: types.history
      ? await rows(
          conn,
          `SELECT ${select(HISTORY_COLUMNS)} FROM stage_history ORDER BY registrikood, as_of, period`,
        )
      : [],
    workplaces: types.workplaces
      ? await rows(
          conn,
          `SELECT ${select(WORKPLACE_COLUMNS)} FROM stage_workplaces ORDER BY registrikood, cfar_nr`,
        )
      : [],
    types,
    fingerprint: {
      companies: await fingerprint(conn, 'stage_companies', COMPANY_COLUMNS),
      history: types.history ? await fingerprint(conn, 'stage_history', HISTORY_COLUMNS) : '',
      workplaces: types.workplaces ? await fingerprint(conn, 'stage_workplaces', WORKPLACE_COLUMNS) : '',
    },
  };
}

export async function stageAll(
  countries: readonly CountryCode[] = COUNTRY_CODES,
  scale = TEST_SCALE,
  seed = TEST_SEED,
  threads = 2,
): Promise<Map<CountryCode, StagedCountry>> {
  const { conn, close } = await openDuckDb(threads);
  try {
    const out = new Map<CountryCode, StagedCountry>();
    for (const c of countries) out.set(c, await stageAndRead(conn, c, scale, seed));
    return out;
  } finally {
    close();
  }
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
}

export function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  return Number(v);
}
