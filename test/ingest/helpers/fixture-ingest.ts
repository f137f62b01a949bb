import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';
import type { CountryCode } from '../../../src/contract/countries.ts';
import { SnapshotStore } from '../../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../../ingest/official/report.ts';
import { runIngest } from '../../../ingest/official/run-ingest.ts';

export type Row = Record<string, unknown>;

/**
 * What the hand-made fixture tests share: a scratch folder and a DuckDB instance per test file (registered
 * as the file's beforeAll/afterAll), a real ingest of one country into a fresh data folder, and plain SQL
 * over what it wrote.
 */
export function fixtureIngest(label: string) {
  let tmp = '';
  let instance: DuckDBInstance | undefined;
  let n = 0;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), `regdata-fixtures-${label}-`));
    instance = await DuckDBInstance.create(':memory:');
  });
  afterAll(() => {
    instance?.closeSync();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A new, unused path in the file's scratch folder. */
  const scratch = (prefix: string): string => path.join(tmp, `${prefix}-${++n}`);

  async function ingest(country: CountryCode, from: string, dataDir = scratch('data')) {
    const store = new SnapshotStore(dataDir);
    const report = new IngestReport();
    const result = await runIngest({ store, countries: [country], from, report });
    return { store, report, dir: store.countryDir(result.snapshotId, country) };
  }

  async function rows(sql: string): Promise<Row[]> {
    const conn = await instance!.connect();
    try {
      return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
    } finally {
      conn.closeSync();
    }
  }

  /** A country file's rows by registration code (SE sole traders' empty codes left out). */
  async function companies(dir: string, file = 'companies.parquet'): Promise<Map<string, Row>> {
    const list = await rows(`SELECT * FROM read_parquet('${path.join(dir, file)}') WHERE registrikood <> ''`);
    return new Map(list.map((r) => [String(r['registrikood']), r]));
  }

  return { scratch, ingest, rows, companies };
}
