import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, inject } from 'vitest';
import type { CountryCode } from '../../../src/contract/countries.ts';
import { SnapshotStore } from '../../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../../ingest/official/report.ts';
import { runIngest } from '../../../ingest/official/run-ingest.ts';
import { writeOfficialFiles } from '../../../ingest/official/write-official.ts';
import { compareCountry, type CompareResult } from '../compare-snapshots.ts';

/** What one round trip leaves for its tests; filled in by the file's beforeAll. */
export interface RoundTrip {
  /** Scratch folder: `official/` (the written files) and `data/` (the ingested snapshot). */
  tmp: string;
  worldSnapshot: string;
  ingestedSnapshot: string;
  report: IngestReport;
  conn: DuckDBConnection;
  results: Map<string, CompareResult>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * The ground-truth test of the adapters, shared by the per-country round-trip files: the shared test world
 * is written out as the registers' official files, those are ingested, and each country is compared with
 * the world (compare-snapshots.ts). Registers the file's beforeAll/afterAll.
 */
export function roundTrip(countries: readonly CountryCode[]): RoundTrip {
  let instance: DuckDBInstance | undefined;
  const rt = {
    results: new Map<string, CompareResult>(),
    rows: async (sql: string) =>
      (await rt.conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[],
  } as RoundTrip;

  beforeAll(async () => {
    const world = new SnapshotStore(inject('testDataDir'));
    rt.worldSnapshot = world.snapshotDir(world.currentId()!);
    rt.tmp = fs.mkdtempSync(path.join(os.tmpdir(), `regdata-round-trip-${countries.join('-')}-`));
    await writeOfficialFiles({
      snapshotDir: rt.worldSnapshot,
      countries,
      outDir: path.join(rt.tmp, 'official'),
    });
    const store = new SnapshotStore(path.join(rt.tmp, 'data'));
    rt.report = new IngestReport();
    const result = await runIngest({
      store,
      countries,
      from: path.join(rt.tmp, 'official'),
      report: rt.report,
    });
    rt.ingestedSnapshot = store.snapshotDir(result.snapshotId);
    instance = await DuckDBInstance.create(':memory:');
    rt.conn = await instance.connect();
    for (const c of countries) {
      rt.results.set(c, await compareCountry(rt.conn, c, rt.worldSnapshot, rt.ingestedSnapshot));
    }
  }, 180_000);

  afterAll(() => {
    rt.conn?.closeSync();
    instance?.closeSync();
    if (rt.tmp) fs.rmSync(rt.tmp, { recursive: true, force: true });
  });
  return rt;
}
