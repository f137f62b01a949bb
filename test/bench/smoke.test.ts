import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBench, splitLists } from '../../bench/bench.ts';
import { fold } from '../../bench/postgres/queries.ts';
import type { BenchResult } from '../../bench/report.ts';
import { LATEST_END, LATEST_START } from '../../bench/report.ts';
import { buildWorkload, QUERY_CLASSES, type Workload } from '../../bench/workload.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { REGISTRATION_CODE_RULES } from '../../src/contract/registration-codes.ts';

/**
 * A smoke run of the benchmark harness on the shared test world: a few hundred requests through the real
 * server process, the in-process engine and the report. It checks that the harness works and prints the
 * table; it asserts no timings (targets live in bench/README.md). The PostgreSQL peer joins when
 * REGDATA_BENCH_PG_URL names a running server (bench/postgres/setup.sh).
 */
const dataDir = inject('testDataDir');
const store = new SnapshotStore(dataDir);
const snapshotDir = store.snapshotDir(store.currentId() as string);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-bench-smoke-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Independent look at the snapshot: plain DuckDB over the Parquet files. */
async function parquetCount(country: string, where: string, params: Record<string, string>): Promise<number> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const file = path.join(snapshotDir, country, 'companies.parquet').replaceAll("'", "''");
    const reader = await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM read_parquet('${file}') WHERE ${where}`,
      params,
    );
    return Number(reader.getRowObjects()[0]?.['n']);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe('bench workload', () => {
  let workload: Workload;
  beforeAll(async () => {
    workload = await buildWorkload(snapshotDir, { requests: 400, seed: 3 });
  });

  it('is the same list for the same snapshot and seed', async () => {
    const again = await buildWorkload(snapshotDir, { requests: 400, seed: 3 });
    expect(again.queries).toEqual(workload.queries);
  });

  it('looks up valid codes: existing for-sale companies, or codes the register does not hold', async () => {
    for (const q of workload.queries.filter((x) => x.op === 'detail' || x.op === 'history')) {
      const code = q.code as string;
      expect(REGISTRATION_CODE_RULES[q.country].isValid(code), code).toBe(true);
      const n = await parquetCount(q.country, 'registrikood = $code AND NOT not_for_sale', { code });
      expect(n, `${q.cls} ${q.country} ${code}`).toBe(q.expect === 404 ? 0 : 1);
    }
  });

  it('searches name fragments that occur in names of active companies', async () => {
    const names = workload.queries.filter((q) => q.cls === 'name');
    expect(names.length).toBeGreaterThan(0);
    for (const q of names) {
      const fragment = q.params['company_name'] as string;
      const n = await parquetCount(
        q.country,
        `staatus = 'R' AND NOT not_for_sale AND contains(lower(strip_accents(arinimi)), lower(strip_accents($f)))`,
        { f: fragment },
      );
      expect(n, `${q.country} ${fragment}`).toBeGreaterThan(0);
    }
  });
});

describe('bench request lists', () => {
  it('gives the probe and every concurrency disjoint lists of the requested length, in draw order', () => {
    fc.assert(
      fc.property(
        fc.nat(50),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 4 }),
        (verify, requests, lists) => {
          const queries = Array.from(
            { length: verify + requests * lists },
            (_, id) => ({ id }) as Workload['queries'][number],
          );
          const { probe, timed } = splitLists(queries, verify, requests, lists);
          expect(probe.map((q) => q.id)).toEqual(Array.from({ length: verify }, (_, i) => i));
          expect(timed).toHaveLength(lists);
          for (const list of timed) expect(list).toHaveLength(requests);
          const ids = [...probe, ...timed.flat()].map((q) => q.id);
          expect(ids).toEqual(queries.map((q) => q.id));
        },
      ),
    );
  });
});

describe('PostgreSQL peer text folding', () => {
  it("folds like DuckDB's lower(strip_accents()), which folded the stored search texts", async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const letters = [...'aAzZäÄöÖõÕüÜšŠžŽąĄćĆęĘłŁńŃóÓśŚźŹżŻæÆøØåÅéÉèìíúůčďěňřťýāĀēĒīĪūŪķĶļĻņŅģĢėĖįĮųŲß -.&1'];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...letters), { maxLength: 12 }), async (chars) => {
          const s = chars.join('');
          const reader = await conn.runAndReadAll('SELECT lower(strip_accents($s)) AS f', { s });
          expect(fold(s)).toBe(String(reader.getRowObjects()[0]?.['f']));
        }),
        { numRuns: 200 },
      );
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});

describe('bench harness smoke run', () => {
  let result: BenchResult;
  let table: string;
  let file: string | null;
  const readme = path.join(tmp, 'README.md');
  const historyFile = path.join(tmp, 'history.jsonl');
  const pgUrl = process.env['REGDATA_BENCH_PG_URL'];

  beforeAll(async () => {
    fs.writeFileSync(readme, `# x\n\n${LATEST_START}\nold\n${LATEST_END}\n\ntail\n`);
    ({
      result,
      markdown: table,
      file,
    } = await runBench({
      scale: null,
      seed: 1,
      dataDir,
      concurrency: [1, 2],
      requests: 300,
      maxSeconds: 120,
      peer: pgUrl ? 'postgres' : null,
      pgUrl: pgUrl ?? '',
      verify: 100,
      workDir: path.join(tmp, 'work'),
      output: { resultsDir: path.join(tmp, 'results'), historyFile, readme },
      log: () => {},
    }));
    process.stdout.write(`\n${table}`);
  }, 240_000);

  it('sends every request of every run and gets the expected status for each', () => {
    const runs = [...result.api.runs, ...(result.engine?.runs ?? []), ...(result.postgres?.runs ?? [])];
    expect(runs.map((r) => r.concurrency)).toEqual(pgUrl ? [1, 2, 1, 2, 1, 2] : [1, 2, 1, 2]);
    for (const run of runs) {
      expect(run.requests).toBe(300);
      expect(run.capped).toBe(false);
      expect(run.errorSamples).toEqual([]);
      expect(run.groups['all']).toMatchObject({ n: 300, errors: 0 });
      const perClass = QUERY_CLASSES.reduce((sum, c) => sum + (run.groups[`class:${c}`]?.n ?? 0), 0);
      expect(perClass).toBe(300);
      const perCountry = result.countries.reduce((sum, c) => sum + (run.groups[`country:${c}`]?.n ?? 0), 0);
      expect(perCountry).toBe(300);
      const all = run.groups['all'];
      expect(all && all.p50 <= all.p95 && all.p95 <= all.p99 && all.p99 <= all.max).toBe(true);
    }
  });

  it('gets the same answers over HTTP as from the engine in-process (and from PostgreSQL when present)', () => {
    for (const a of Object.values(result.agreement)) {
      expect(a.samples).toEqual([]);
      expect(a).toMatchObject({ checked: 100, differing: 0 });
    }
  });

  it('meters the run through the wallet and reads the server process memory', () => {
    expect(result.api.credits_spent).toBeGreaterThan(0);
    expect(result.api.rss_after_load_bytes).toBeGreaterThan(0);
    expect(result.api.load_ms).toBeGreaterThan(0);
  });

  it('writes the JSON result, one history line and the README section, and prints the table', () => {
    expect(JSON.parse(fs.readFileSync(file as string, 'utf8'))).toEqual(JSON.parse(JSON.stringify(result)));
    const lines = fs.readFileSync(historyFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ snapshot_id: result.snapshot_id, requests: 300 });
    const text = fs.readFileSync(readme, 'utf8');
    expect(text).not.toContain('\nold\n');
    expect(text).toContain(table.trim().split('\n')[0]);
    expect(text.endsWith('\n\ntail\n')).toBe(true);
    expect(table).toContain('| **search mix** |');
    expect(table).toContain('#### Targets');
    expect(result.targets.length).toBeGreaterThan(5);
  });
});
