import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { writeOfficialFiles } from '../../ingest/official/write-official.ts';
import { extractZip } from '../../ingest/official/zip.ts';
import { CARRIED, compareCountry, type CompareResult } from './compare-snapshots.ts';

/*
 * The ground-truth test of every adapter: the shared test world (a canonical snapshot) is written out as
 * the registers' official files, those files are ingested, and the result must equal the world on every
 * field the files carry (compare-snapshots.ts lists what is not carried; docs/ingest.md explains why).
 */

const COUNTRIES = ['EE', 'LV', 'LT'] as const;
let tmp: string;
let worldSnapshot: string;
let ingestedSnapshot: string;
let report: IngestReport;
let instance: DuckDBInstance;
let conn: DuckDBConnection;
const results = new Map<string, CompareResult>();

beforeAll(async () => {
  const world = new SnapshotStore(inject('testDataDir'));
  worldSnapshot = world.snapshotDir(world.currentId()!);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-round-trip-'));
  await writeOfficialFiles({
    snapshotDir: worldSnapshot,
    countries: COUNTRIES,
    outDir: path.join(tmp, 'official'),
  });
  const store = new SnapshotStore(path.join(tmp, 'data'));
  report = new IngestReport();
  const result = await runIngest({ store, countries: COUNTRIES, from: path.join(tmp, 'official'), report });
  ingestedSnapshot = store.snapshotDir(result.snapshotId);
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  for (const c of COUNTRIES) results.set(c, await compareCountry(conn, c, worldSnapshot, ingestedSnapshot));
}, 180_000);

afterAll(() => {
  conn?.closeSync();
  instance?.closeSync();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe.each(COUNTRIES)('%s: world -> official files -> ingest', (country) => {
  it('yields exactly the world companies and history rows', () => {
    const r = results.get(country)!;
    expect(r.worldRows).toBeGreaterThan(0);
    expect({ missing: r.missing, extra: r.extra, rows: r.ingestedRows }).toEqual({
      missing: 0,
      extra: 0,
      rows: r.worldRows,
    });
    expect({ missing: r.history.missing, extra: r.history.extra }).toEqual({ missing: 0, extra: 0 });
    expect(r.history.ingestedRows).toBe(r.history.worldRows);
  });

  it('agrees with the world on every field the official files carry', () => {
    const r = results.get(country)!;
    const differences = [
      ...r.columns,
      ...r.history.columns.map((c) => ({ ...c, column: `history.${c.column}` })),
    ]
      .filter((c) => c.different > 0)
      .map((c) => ({ column: c.column, different: c.different, of: c.compared, examples: c.examples }));
    expect(differences).toEqual([]);
  });

  it('compares every carried field on real rows, not on an empty selection', () => {
    const r = results.get(country)!;
    const empty = r.columns.filter((c) => c.compared === 0).map((c) => c.column);
    expect(empty).toEqual([]);
    // What is left out is exactly the documented list (docs/ingest.md, "Not carried").
    const notCarried = Object.entries(CARRIED[country] ?? {})
      .filter(([, rule]) => rule === 'not carried')
      .map(([col]) => col);
    expect(r.columns.filter((c) => notCarried.includes(c.column))).toEqual([]);
  });
});

describe('the quirks the writers plant are met and counted', () => {
  it('counts the duplicated debtor, the unknown debtor code and the duplicated JAR row as rejected rows', () => {
    const rejects = report
      .rejectRows()
      .map((r) => `${String(r['country'])} ${String(r['file'])}: ${String(r['reason'])}`);
    expect(rejects).toEqual(
      expect.arrayContaining([
        'EE maksuvolglaste_nimekiri.csv: duplicate registration code (one row kept)',
        'EE maksuvolglaste_nimekiri.csv: debtor rows for a code not in the register file',
        'LT JAR_IREGISTRUOTI.csv: duplicate registration code (one row kept)',
      ]),
    );
  });

  it('writes EMTAK 2008 codes (version 2) beside EMTAK 2025 ones, which the ingest maps onto the 2025 tree', async () => {
    const json = path.join(tmp, 'yldandmed.json');
    await extractZip(path.join(tmp, 'official', 'EE', 'ettevotja_rekvisiidid__yldandmed.json.zip'), json);
    const versions = (
      await conn.runAndReadAll(
        `SELECT a.emtak_versioon AS v, count(*)::INTEGER AS n
         FROM read_json('${json}', format = 'array') j, unnest(j.yldandmed.teatatud_tegevusalad) AS u(a)
         GROUP BY ALL ORDER BY v`,
      )
    ).getRowObjectsJson();
    expect(versions.map((r) => Number(r['v']))).toEqual([2, 3]);
    // And the round trip above holds for them: every activity came back as the world's 2025 leaf.
    expect(results.get('EE')!.columns.find((c) => c.column === 'emtak')?.different).toBe(0);
  });

  it('writes no personal code into the snapshot', async () => {
    const rows = (
      await conn.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(ingestedSnapshot, 'EE', 'companies.parquet')}') c,
           unnest(c.people) AS u(p) WHERE regexp_matches(p.nimi, '\\d{11}')`,
      )
    ).getRowObjectsJson()[0];
    expect(Number(rows?.['n'])).toBe(0);
  });
});
