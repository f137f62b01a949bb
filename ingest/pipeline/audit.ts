import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRIES, type CountryCode } from '../../src/contract/countries.ts';
import {
  CHANGE_COLUMNS,
  COMPANY_COLUMNS,
  HISTORY_COLUMNS,
  HISTORY_GRANULARITIES,
  normaliseType,
  SNAPSHOT_FILES,
  STATUS_CODES,
  WORKPLACE_COLUMNS,
  type ColumnSpec,
} from '../../src/contract/data-contract.ts';
import type { CountryReference } from '../reference/types.ts';
import { queryRows, sqlPath } from './sql.ts';

/**
 * The "audit" of write-audit-publish: a written country folder is checked against the contract before
 * any snapshot holding it can be promoted. Every check reads the files as written, not the stage tables.
 */
export class AuditError extends Error {
  override readonly name = 'AuditError';
  constructor(
    readonly country: CountryCode,
    readonly problems: string[],
  ) {
    super(`${country}: ${problems.join('; ')}`);
  }
}

async function checkSchema(
  conn: DuckDBConnection,
  file: string,
  columns: readonly ColumnSpec[],
): Promise<string[]> {
  const described = await queryRows(conn, `DESCRIBE SELECT * FROM read_parquet(${sqlPath(file)})`);
  const problems: string[] = [];
  const name = path.basename(file);
  if (described.length !== columns.length) {
    problems.push(`${name} has ${described.length} columns, contract has ${columns.length}`);
  }
  columns.forEach((c, i) => {
    const got = described[i];
    if (!got || got['column_name'] !== c.name) {
      problems.push(`${name} column ${i} is ${String(got?.['column_name'])}, expected ${c.name}`);
    } else if (normaliseType(String(got['column_type'])) !== normaliseType(c.type)) {
      problems.push(`${name}.${c.name} has type ${String(got['column_type'])}, expected ${c.type}`);
    }
  });
  return problems;
}

async function scalar(conn: DuckDBConnection, sql: string, params?: Record<string, string>): Promise<number> {
  const rows = await queryRows(conn, sql, params);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
}

function collectCodes(
  nodes: { kood: string; children: { kood: string; children: unknown[] }[] }[],
): Set<string> {
  const out = new Set<string>();
  const walk = (ns: typeof nodes) => {
    for (const n of ns) {
      out.add(n.kood);
      walk(n.children as typeof nodes);
    }
  };
  walk(nodes);
  return out;
}

/** Creates a one-column temp table of allowed codes so a set-membership check is one anti-join. */
async function allowedTable(conn: DuckDBConnection, name: string, codes: Iterable<string>): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${name} (kood VARCHAR PRIMARY KEY)`);
  const appender = await conn.createAppender(name);
  for (const code of new Set(codes)) {
    appender.appendVarchar(code);
    appender.endRow();
  }
  appender.closeSync();
}

export async function auditCountry(
  conn: DuckDBConnection,
  dir: string,
  country: CountryCode,
  reference: CountryReference,
): Promise<void> {
  const file = (k: keyof typeof SNAPSHOT_FILES) => path.join(dir, SNAPSHOT_FILES[k]);
  const a: Audit = {
    conn,
    country,
    reference,
    file,
    companies: `read_parquet(${sqlPath(file('companies'))})`,
    history: `read_parquet(${sqlPath(file('history'))})`,
    problems: [],
  };
  const checks = [
    checkFilesPresent,
    checkSchemas,
    checkRegistrationCodes,
    checkTreeCodes,
    checkHistory,
    checkPeopleAndSoleTraders,
    checkWorkplaces,
    checkDecoding,
  ];
  for (const check of checks) await check(a);
  if (a.problems.length) throw new AuditError(country, a.problems);
}

/** One country's audit: its snapshot files, the parquet reads of its tables, and the problems found. */
interface Audit {
  conn: DuckDBConnection;
  country: CountryCode;
  reference: CountryReference;
  file: (k: keyof typeof SNAPSHOT_FILES) => string;
  companies: string;
  history: string;
  problems: string[];
}

/** Every snapshot file is there (a missing one ends the audit). */
async function checkFilesPresent({ country, file, problems }: Audit): Promise<void> {
  for (const k of [
    'companies',
    'history',
    'changes',
    'activities',
    'locations',
    'filters',
    'manifest',
  ] as const) {
    if (!fs.existsSync(file(k))) problems.push(`${SNAPSHOT_FILES[k]} is missing`);
  }
  if (COUNTRIES[country].workplaces && !fs.existsSync(file('workplaces')))
    problems.push('workplaces.parquet is missing');
  if (problems.length) throw new AuditError(country, problems);
}

/** The parquet files have the contract's columns and types (a mismatch ends the audit). */
async function checkSchemas({ conn, country, file, problems }: Audit): Promise<void> {
  problems.push(...(await checkSchema(conn, file('companies'), COMPANY_COLUMNS)));
  problems.push(...(await checkSchema(conn, file('history'), HISTORY_COLUMNS)));
  if (COUNTRIES[country].workplaces)
    problems.push(...(await checkSchema(conn, file('workplaces'), WORKPLACE_COLUMNS)));
  problems.push(...(await checkSchema(conn, file('changes'), CHANGE_COLUMNS)));
  if (problems.length) throw new AuditError(country, problems);
}

/** Registration codes are present, unique and valid; statuses are the contract's. */
async function checkRegistrationCodes({ conn, country, companies, problems }: Audit): Promise<void> {
  // Unique, non-empty registration codes; sole traders whose only number is a personal ID (SE) carry ''.
  const emptyCodes = await scalar(
    conn,
    `SELECT count(*) FROM ${companies} WHERE coalesce(registrikood, '') = ''
       AND NOT (${COUNTRIES[country].soleTraders.withoutCode ? 'is_sole_trader' : 'false'})`,
  );
  if (emptyCodes) problems.push(`${emptyCodes} rows with an empty registrikood`);
  const dupes = await scalar(
    conn,
    `SELECT count(*) FROM (SELECT registrikood FROM ${companies} WHERE registrikood <> ''
       GROUP BY registrikood HAVING count(*) > 1)`,
  );
  if (dupes) problems.push(`${dupes} duplicated registrikood values`);

  // Check digits: every code must pass the rule the API uses for 400 malformed.
  const rule = COUNTRIES[country].registrationCode;
  // Streamed in chunks: PL has ~4.8M codes at national scale, too many to materialise as JS objects.
  const stream = await conn.stream(`SELECT registrikood FROM ${companies} WHERE registrikood <> ''`);
  let invalidCount = 0;
  let firstInvalid = '';
  for await (const rows of stream.yieldRows()) {
    for (const [code] of rows) {
      if (!rule.isValid(String(code))) {
        invalidCount++;
        firstInvalid ||= String(code);
      }
    }
  }
  if (invalidCount)
    problems.push(`${invalidCount} registration codes fail "${rule.describe}", e.g. ${firstInvalid}`);

  const badStatus = await scalar(
    conn,
    `SELECT count(*) FROM ${companies} WHERE staatus IS NULL OR staatus NOT IN (${Object.keys(STATUS_CODES)
      .map((s) => `'${s}'`)
      .join(', ')})`,
  );
  if (badStatus) problems.push(`${badStatus} rows with a status outside the contract's codes`);
}

async function checkTreeCodes({ conn, reference, companies, problems }: Audit): Promise<void> {
  // Every activity and location code a row carries must resolve in the tree the API serves.
  const activityCodes = collectCodes(reference.activityTrees['en'] ?? []);
  await allowedTable(conn, 'audit_activity_codes', activityCodes);
  const unknownActivities = await queryRows(
    conn,
    `SELECT DISTINCT a.kood FROM (SELECT unnest(emtak).kood AS kood FROM ${companies}) a
     ANTI JOIN audit_activity_codes c ON a.kood = c.kood LIMIT 5`,
  );
  if (unknownActivities.length) {
    problems.push(
      `activity codes missing from the tree: ${unknownActivities.map((r) => r['kood']).join(', ')}`,
    );
  }
  const locationCodes = reference.locationTree
    ? collectCodes(reference.locationTree)
    : reference.locationLeaves.map((l) => l.kood).filter((k): k is string => k !== null);
  await allowedTable(conn, 'audit_location_codes', locationCodes);
  const unknownLocations = await queryRows(
    conn,
    `SELECT DISTINCT ehak_kood FROM ${companies} l WHERE ehak_kood IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM audit_location_codes c WHERE c.kood = l.ehak_kood) LIMIT 5`,
  );
  if (unknownLocations.length) {
    problems.push(
      `location codes missing from the tree: ${unknownLocations.map((r) => r['ehak_kood']).join(', ')}`,
    );
  }
}

async function checkHistory({ conn, country, companies, history, problems }: Audit): Promise<void> {
  // History belongs to known companies, uses the spec's granularities, and exists only where 2.4 says.
  const orphanHistory = await scalar(
    conn,
    `SELECT count(*) FROM ${history} h ANTI JOIN ${companies} c ON h.registrikood = c.registrikood`,
  );
  if (orphanHistory) problems.push(`${orphanHistory} history rows for unknown companies`);
  const badGranularity = await scalar(
    conn,
    `SELECT count(*) FROM ${history} WHERE granularity NOT IN (${HISTORY_GRANULARITIES.map((g) => `'${g}'`).join(', ')})`,
  );
  if (badGranularity) problems.push(`${badGranularity} history rows with an unknown granularity`);
  if (!COUNTRIES[country].hasHistory) {
    const rows = await scalar(conn, `SELECT count(*) FROM ${history}`);
    if (rows) problems.push(`${rows} history rows, but ${country} publishes no series`);
  }
}

/** No people where the country publishes none; sole traders not for sale where the spec says so. */
async function checkPeopleAndSoleTraders({ conn, country, companies, problems }: Audit): Promise<void> {
  if (COUNTRIES[country].people === 'none') {
    const withPeople = await scalar(conn, `SELECT count(*) FROM ${companies} WHERE len(people) > 0`);
    if (withPeople) problems.push(`${withPeople} rows with people, but ${country} publishes none`);
  }
  const soldSoleTraders = await scalar(
    conn,
    `SELECT count(*) FROM ${companies} WHERE is_sole_trader AND NOT not_for_sale AND ${
      COUNTRIES[country].soleTraders.forSale ? 'false' : 'true'
    }`,
  );
  if (soldSoleTraders) problems.push(`${soldSoleTraders} ${country} sole traders not marked not_for_sale`);
}

/** Countries with workplaces (SE): every workplace belongs to a known company, and each company has exactly one main one. */
async function checkWorkplaces({ conn, country, file, companies, problems }: Audit): Promise<void> {
  if (COUNTRIES[country].workplaces) {
    const workplaces = `read_parquet(${sqlPath(file('workplaces'))})`;
    const orphans = await scalar(
      conn,
      `SELECT count(*) FROM ${workplaces} w ANTI JOIN ${companies} c ON w.registrikood = c.registrikood`,
    );
    if (orphans) problems.push(`${orphans} workplaces of unknown companies`);
    const badMain = await scalar(
      conn,
      `SELECT count(*) FROM (SELECT registrikood FROM ${workplaces} GROUP BY registrikood
         HAVING count(*) FILTER (WHERE is_main) <> 1)`,
    );
    if (badMain) problems.push(`${badMain} companies whose workplaces do not have exactly one main one`);
  }
}

async function checkDecoding({ conn, country, file, problems }: Audit): Promise<void> {
  // A full read of every column proves the files decode end to end.
  for (const k of [
    'companies',
    'history',
    ...(COUNTRIES[country].workplaces ? (['workplaces'] as const) : []),
  ] as const) {
    await scalar(conn, `SELECT count(hash(t)) FROM read_parquet(${sqlPath(file(k))}) t`);
  }
  for (const k of ['activities', 'locations', 'filters', 'manifest'] as const) {
    try {
      JSON.parse(fs.readFileSync(file(k), 'utf8'));
    } catch {
      problems.push(`${SNAPSHOT_FILES[k]} is not valid JSON`);
    }
  }
}
