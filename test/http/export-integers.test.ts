import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { COMPANY_COLUMNS, PERIOD_TYPE } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { parseCsv } from './helpers/csv.ts';

/*
 * Issue 30 item 5: integral columns (employee counts INTEGER since contract 1.3.0, like the year and the SE
 * bands) are written as integers in every export format, both for a snapshot of this contract and for one
 * written under contract 1.2.0 (employee counts DOUBLE), which the server serves as this one. The readers
 * are the test's own: the CSV text split by a small RFC 4180 reader, the NDJSON text matched as written
 * (JSON.parse would read `3.0` as 3), and the Parquet schema read with DuckDB's parquet_schema.
 */

type Row = Record<string, unknown>;
const EMPLOYEES = 'last_quarter_employees_number';
/** The contract's integral columns among the export's (the export writes the search row). */
const INTEGRAL = COMPANY_COLUMNS.filter((c) => c.type === 'INTEGER' || c.type === 'BIGINT').map(
  (c) => c.name,
);
/** latest_metrics as contract 1.2.0 typed it: employees DOUBLE. */
const LATEST_METRICS_1_2_0 =
  `STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, turnover DOUBLE, employees DOUBLE, ` +
  `turnover_period ${PERIOD_TYPE}, employees_period ${PERIOD_TYPE})`;

let tmp: string;
const servers: StartedServer[] = [];

async function start(dataDir: string): Promise<{ base: string; key: string }> {
  const server = await startServer(
    loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      REGDATA_EXPORT_DIR: path.join(dataDir, '..', `exports-${servers.length}`),
    }),
    { handleSignals: false, engine: { connections: 2 } },
  );
  servers.push(server);
  const { key } = await server.wallet.createKey({
    email: `integers-${servers.length}@test.local`,
    kind: 'standard',
    plan: 'payg',
    credits: 100_000,
  });
  return { base: `${server.url}/api/v1/data`, key };
}

async function sql(query: string, params?: Record<string, string>): Promise<Row[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(query, params)).getRowObjectsJson() as Row[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

async function fetchOk(url: string, key: string): Promise<Buffer> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The integral columns' cells of a CSV export: column name -> non-null cells. */
function csvIntegralCells(text: string): Map<string, string[]> {
  const [header, ...records] = parseCsv(text);
  const cells = new Map<string, string[]>();
  header!.forEach((name, i) => {
    if (name !== null && INTEGRAL.includes(name))
      cells.set(
        name,
        records.map((r) => r[i] ?? null).filter((v): v is string => v !== null),
      );
  });
  return cells;
}

/** The integral columns' values of an NDJSON export as written in the text: column name -> literals. */
function ndjsonIntegralLiterals(text: string): Map<string, string[]> {
  const lines = text.trimEnd().split('\n').slice(0, -1); // the last line is the meta trailer
  const literals = new Map<string, string[]>(INTEGRAL.map((c) => [c, []]));
  for (const line of lines) {
    for (const c of INTEGRAL) {
      const m = new RegExp(`"${c}"\\s*:\\s*([^,}\\s]+)`).exec(line);
      if (m && m[1] !== 'null') literals.get(c)!.push(m[1]!);
    }
  }
  return literals;
}

/** Exports `country` in the three formats and checks every integral column is written as integers. */
async function expectIntegersInExports(base: string, key: string, country: string): Promise<number> {
  const query = `${base}/companies/export?country=${country}&status=__all__&max_rows=5000`;

  const csv = csvIntegralCells((await fetchOk(`${query}&format=csv`, key)).toString('utf8'));
  expect([...csv.keys()]).toContain(EMPLOYEES);
  for (const [c, cells] of csv) {
    for (const cell of cells) expect(cell, `CSV ${c}`).toMatch(/^-?\d+$/);
  }

  const nd = ndjsonIntegralLiterals((await fetchOk(`${query}&format=ndjson`, key)).toString('utf8'));
  for (const [c, literals] of nd) {
    for (const literal of literals) expect(literal, `NDJSON ${c}`).toMatch(/^-?\d+$/);
  }
  expect(nd.get(EMPLOYEES)).toHaveLength(csv.get(EMPLOYEES)!.length);

  const file = path.join(tmp, `export-${country}-${Date.now()}.parquet`);
  fs.writeFileSync(file, await fetchOk(`${query}&format=parquet`, key));
  const schema = await sql(`SELECT name, type FROM parquet_schema($f)`, { f: file });
  const types = new Map(schema.map((r) => [String(r['name']), String(r['type'])]));
  expect(types.has(EMPLOYEES)).toBe(true);
  for (const c of INTEGRAL) {
    if (types.has(c)) expect(types.get(c), `Parquet ${c}`).toMatch(/^INT(32|64)$/);
  }
  // Money keeps its cents: turnover stays a double (docs/data-contract.md, "Conventions").
  if (types.has('last_quarter_turnover')) expect(types.get('last_quarter_turnover')).toBe('DOUBLE');
  return csv.get(EMPLOYEES)!.length;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-integers-'));
});

afterAll(async () => {
  for (const s of servers) await s.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('exports of integral columns', () => {
  it('write employee counts, years and SE bands as integers in CSV, NDJSON and Parquet', async () => {
    const dataDir = path.join(tmp, 'data');
    fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
    const { base, key } = await start(dataDir);
    // EE, LV, LT and NO have employee counts; SE has the two band codes.
    for (const country of ['EE', 'LV', 'LT', 'NO']) {
      expect(await expectIntegersInExports(base, key, country), country).toBeGreaterThan(0);
    }
    await expectIntegersInExports(base, key, 'SE');
  }, 180_000);

  it('do so for a snapshot written under contract 1.2.0 too, with the counts the files hold', async () => {
    // The test world as contract 1.2.0 wrote it: employee counts DOUBLE, serving files not yet built.
    const dataDir = path.join(tmp, 'data-1.2.0');
    fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
    const store = new SnapshotStore(dataDir);
    const id = store.currentId()!;
    for (const country of ['EE', 'NO'] as const) {
      const companies = store.file(id, country, 'companies');
      const history = store.file(id, country, 'history');
      await sql(
        `COPY (SELECT * REPLACE (${EMPLOYEES}::DOUBLE AS ${EMPLOYEES},
           CAST(latest_metrics AS ${LATEST_METRICS_1_2_0}) AS latest_metrics) FROM read_parquet($f))
         TO '${companies}.old' (FORMAT parquet)`,
        { f: companies },
      );
      await sql(
        `COPY (SELECT * REPLACE (employees::DOUBLE AS employees) FROM read_parquet($f)) TO '${history}.old' (FORMAT parquet)`,
        { f: history },
      );
      fs.renameSync(`${companies}.old`, companies);
      fs.renameSync(`${history}.old`, history);
      const folder = path.dirname(companies);
      for (const f of fs.readdirSync(folder)) {
        if (!f.endsWith('.parquet') && !f.endsWith('.json')) fs.rmSync(path.join(folder, f));
      }
      const manifest = path.join(folder, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(manifest, 'utf8')) as Row;
      fs.writeFileSync(manifest, JSON.stringify({ ...m, contract_version: '1.2.0' }));
    }
    const described = await sql(`DESCRIBE SELECT ${EMPLOYEES} FROM read_parquet($f)`, {
      f: store.file(id, 'EE', 'companies'),
    });
    expect(described[0]?.['column_type']).toBe('DOUBLE');

    const { base, key } = await start(dataDir);
    for (const country of ['EE', 'NO']) {
      expect(await expectIntegersInExports(base, key, country), country).toBeGreaterThan(0);
    }
    // The detail and history answer the counts the 1.2.0 files hold.
    const [company] = await sql(
      `SELECT registrikood, ${EMPLOYEES} AS n FROM read_parquet($f)
       WHERE NOT not_for_sale AND ${EMPLOYEES} > 0 ORDER BY registrikood LIMIT 1`,
      { f: store.file(id, 'EE', 'companies') },
    );
    const code = String(company!['registrikood']);
    const detail = JSON.parse(
      (await fetchOk(`${base}/companies/${code}?country=EE`, key)).toString('utf8'),
    ) as { data: Row & { latest_metrics: Row } };
    expect(detail.data[EMPLOYEES]).toBe(Number(company!['n']));
    expect(detail.data.latest_metrics['employees']).toBe(Number(company!['n']));
    const periods = await sql(
      `SELECT employees FROM read_parquet($f) WHERE registrikood = $c ORDER BY "year", quarter, "month"`,
      { f: store.file(id, 'EE', 'history'), c: code },
    );
    const history = JSON.parse(
      (await fetchOk(`${base}/companies/${code}/history?country=EE`, key)).toString('utf8'),
    ) as { data: { periods: Row[] } };
    expect(history.data.periods.map((p) => p['employees'])).toEqual(
      periods.map((p) => (p['employees'] === null ? null : Number(p['employees']))),
    );
  }, 180_000);
});
