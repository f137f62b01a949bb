import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRIES, type CountryCode } from '../../src/contract/countries.ts';
import {
  COMPANY_COLUMNS,
  CONTRACT_VERSION,
  HISTORY_COLUMNS,
  SE_EMPLOYEE_BANDS,
  SNAPSHOT_FILES,
  SORT_KEYS,
  STATUS_CODES,
  WORKPLACE_COLUMNS,
  type ColumnSpec,
  type CountryManifest,
} from '../../src/contract/data-contract.ts';
import { filterSpecJson, filtersFor, type OptionsSource } from '../../src/contract/filters.ts';
import type { CountryReference } from '../reference/types.ts';
import { writeChanges, type ChangeInput } from './changes.ts';
import { queryRows, quoteIdent, sqlPath, tableExists } from './sql.ts';

/** Stage tables a country adapter (world generator or ingest) leaves in the connection. */
export const STAGE_TABLES = {
  companies: 'stage_companies',
  history: 'stage_history',
  workplaces: 'stage_workplaces',
} as const;

export interface WriteCountryOptions {
  dir: string;
  snapshotId: string;
  country: CountryCode;
  reference: CountryReference;
  source: string;
  sourceDetail: Record<string, unknown>;
  now: Date;
  /** The live snapshot's folder of this country, if any: the base of the change feed. */
  previous?: string;
}

/** The contract's columns, cast to the contract's types, from a stage table (missing columns fail loudly). */
function contractSelect(columns: readonly ColumnSpec[], from: string, orderBy: readonly string[]): string {
  const cols = columns
    .map((c) => `CAST(${quoteIdent(c.name)} AS ${c.type}) AS ${quoteIdent(c.name)}`)
    .join(', ');
  return `SELECT ${cols} FROM ${from} ORDER BY ${orderBy.join(', ')}`;
}

/** A typed, empty relation for countries without that file's data (FI/PL/SE have no history). */
function emptySelect(columns: readonly ColumnSpec[]): string {
  const cols = columns.map((c) => `CAST(NULL AS ${c.type}) AS ${quoteIdent(c.name)}`).join(', ');
  return `SELECT ${cols} WHERE false`;
}

async function copyToParquet(conn: DuckDBConnection, select: string, file: string): Promise<void> {
  // zstd keeps national-scale files small; row groups of ~100k rows keep min/max pruning useful.
  await conn.run(
    `COPY (${select}) TO ${sqlPath(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
  );
}

type Option = { value: string | number; label: string; count?: number };

async function filterOptions(
  conn: DuckDBConnection,
  country: CountryCode,
  reference: CountryReference,
): Promise<Partial<Record<OptionsSource, Option[]>>> {
  const forSale = `FROM ${STAGE_TABLES.companies} WHERE NOT not_for_sale`;
  const legalForms = await queryRows(
    conn,
    `SELECT oiguslik_vorm AS value, coalesce(any_value(oiguslik_vorm_tekstina), oiguslik_vorm) AS label,
            count(*)::INTEGER AS count
     ${forSale} AND oiguslik_vorm IS NOT NULL GROUP BY oiguslik_vorm ORDER BY count DESC, value`,
  );
  const statusCounts = new Map(
    (await queryRows(conn, `SELECT staatus, count(*)::INTEGER AS n ${forSale} GROUP BY staatus`)).map((r) => [
      String(r['staatus']),
      Number(r['n']),
    ]),
  );
  const statuses: Option[] = Object.entries(STATUS_CODES)
    .filter(([code]) => statusCounts.has(code))
    .map(([code, label]) => ({ value: code, label, count: statusCounts.get(code) ?? 0 }));
  statuses.push({ value: '__all__', label: 'Every status' });
  const options: Partial<Record<OptionsSource, Option[]>> = {
    legal_forms: legalForms.map((r) => ({
      value: String(r['value']),
      label: String(r['label']),
      count: Number(r['count']),
    })),
    statuses,
  };
  // The option lists of the filters the country has (filters.ts says which: today SE's register filters).
  const needs = new Set(filtersFor(country).map((f) => (f.kind === 'single' ? f.options : undefined)));
  if (needs.has('se_employee_bands')) {
    options.se_employee_bands = SE_EMPLOYEE_BANDS.map((b) => ({ value: b.code, label: b.label }));
  }
  if (needs.has('se_turnover_bands')) {
    const bands = await queryRows(
      conn,
      `SELECT se_turnover_band AS value, coalesce(any_value(se_register.turnover_class.label), se_turnover_band::VARCHAR) AS label,
              count(*)::INTEGER AS count
       ${forSale} AND se_turnover_band IS NOT NULL GROUP BY se_turnover_band ORDER BY se_turnover_band`,
    );
    options.se_turnover_bands = bands.map((r) => ({
      value: Number(r['value']),
      label: String(r['label']),
      count: Number(r['count']),
    }));
  }
  if (needs.has('se_kommuner')) {
    options.se_kommuner = reference.locationLeaves
      .filter((l) => l.kood !== null)
      .map((l) => ({ value: l.kood as string, label: l.name }))
      .sort((a, b) => String(a.value).localeCompare(String(b.value)));
  }
  return options;
}

function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value)}\n`);
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function countRows(conn: DuckDBConnection, file: string): Promise<number> {
  const rows = await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlPath(file)})`);
  return Number(rows[0]?.['n'] ?? 0);
}

/** The live snapshot's folder of the same country, as the change feed's base. */
function previousCountry(dir: string): NonNullable<ChangeInput['previous']> | null {
  const companies = path.join(dir, SNAPSHOT_FILES.companies);
  if (!fs.existsSync(companies)) return null;
  const changes = path.join(dir, SNAPSHOT_FILES.changes);
  const manifestFile = path.join(dir, SNAPSHOT_FILES.manifest);
  const manifest = fs.existsSync(manifestFile)
    ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as CountryManifest)
    : null;
  return {
    companies,
    changes: fs.existsSync(changes) ? changes : null,
    since: manifest?.changes?.since ?? null,
  };
}

/**
 * Writes one country folder of a snapshot from the stage tables: the three Parquet files in contract
 * order and types, sorted for the engine's access paths, the trees, filters.json and manifest.json.
 */
export async function writeCountry(
  conn: DuckDBConnection,
  opts: WriteCountryOptions,
): Promise<CountryManifest> {
  const { dir, country, reference } = opts;
  fs.mkdirSync(dir, { recursive: true });
  const file = (k: keyof typeof SNAPSHOT_FILES) => path.join(dir, SNAPSHOT_FILES[k]);

  await copyToParquet(
    conn,
    contractSelect(COMPANY_COLUMNS, STAGE_TABLES.companies, SORT_KEYS.companies),
    file('companies'),
  );
  const historySelect = (await tableExists(conn, STAGE_TABLES.history))
    ? contractSelect(HISTORY_COLUMNS, STAGE_TABLES.history, SORT_KEYS.history)
    : emptySelect(HISTORY_COLUMNS);
  await copyToParquet(conn, historySelect, file('history'));
  if (COUNTRIES[country].workplaces) {
    await copyToParquet(
      conn,
      contractSelect(WORKPLACE_COLUMNS, STAGE_TABLES.workplaces, SORT_KEYS.workplaces),
      file('workplaces'),
    );
  }

  writeJson(file('activities'), {
    industry_system: reference.industrySystem,
    edition: reference.activityEdition,
    trees: reference.activityTrees,
    // Retired-edition codes onto served leaves: the API maps `industry_codes` through it.
    forward: Object.fromEntries(reference.activityForward),
  });
  writeJson(file('locations'), {
    has_tree: reference.locationTree !== null,
    tree: reference.locationTree,
    leaves: reference.locationLeaves,
  });
  const options = await filterOptions(conn, country, reference);
  writeJson(file('filters'), {
    country,
    industry_system: COUNTRIES[country].industrySystem,
    filters: filtersFor(country).map((f) => filterSpecJson(f, country, options)),
  });

  const changes = await writeChanges(conn, {
    companies: file('companies'),
    previous: opts.previous ? previousCountry(opts.previous) : null,
    out: file('changes'),
    snapshotId: opts.snapshotId,
    asOf: opts.now.toISOString().slice(0, 10),
  });

  const forSale = await queryRows(
    conn,
    `SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlPath(file('companies'))}) WHERE NOT not_for_sale`,
  );
  const files: CountryManifest['files'] = {};
  for (const key of Object.keys(SNAPSHOT_FILES) as (keyof typeof SNAPSHOT_FILES)[]) {
    if (key === 'manifest' || !fs.existsSync(file(key))) continue;
    files[SNAPSHOT_FILES[key]] = { bytes: fs.statSync(file(key)).size, sha256: await sha256(file(key)) };
  }
  const manifest: CountryManifest = {
    contract_version: CONTRACT_VERSION,
    snapshot_id: opts.snapshotId,
    country,
    source: opts.source,
    source_detail: { ...opts.sourceDetail, reference_sources: reference.sources },
    generated_at: opts.now.toISOString(),
    row_counts: {
      companies: await countRows(conn, file('companies')),
      companies_for_sale: Number(forSale[0]?.['n'] ?? 0),
      history: await countRows(conn, file('history')),
      workplaces: COUNTRIES[country].workplaces ? await countRows(conn, file('workplaces')) : 0,
    },
    files,
    changes,
  };
  writeJson(file('manifest'), manifest);
  return manifest;
}
