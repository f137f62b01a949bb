import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBench, SCAN_CLIENTS, splitLists } from '../../bench/bench.ts';
import { fold } from '../../bench/postgres/queries.ts';
import type { BenchResult } from '../../bench/report.ts';
import { LATEST_END, LATEST_START } from '../../bench/report.ts';
import { runPaired } from '../../bench/stats.ts';
import {
  type BenchQuery,
  buildWorkload,
  HEAVY_CLASSES,
  LOOKUP_CLASSES,
  QUERY_CLASSES,
  type Workload,
} from '../../bench/workload.ts';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { COUNTRIES } from '../../src/contract/countries.ts';

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
      expect(COUNTRIES[q.country].registrationCode.isValid(code), code).toBe(true);
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

/** Every node of a tree with its depth (1 = root) and its leaf codes, read independently of the workload. */
function nodesOf(tree: TreeNode[], depth = 1): { node: TreeNode; depth: number; leaves: string[] }[] {
  const leavesOf = (n: TreeNode): string[] => (n.children.length ? n.children.flatMap(leavesOf) : [n.kood]);
  return tree.flatMap((node) => [
    { node, depth, leaves: leavesOf(node) },
    ...nodesOf(node.children, depth + 1),
  ]);
}

describe('bench many-code class', () => {
  it("sends a division's leaves and a county's codes together, as the trees give them", async () => {
    const workload = await buildWorkload(snapshotDir, { requests: 1500, seed: 11 });
    const many = workload.queries.filter((q) => q.cls === 'many_codes');
    expect(many.length).toBeGreaterThan(0);
    const countries = new Set<string>();
    for (const q of many) {
      countries.add(q.country);
      const dir = path.join(snapshotDir, q.country);
      const activities = JSON.parse(fs.readFileSync(path.join(dir, 'activities.json'), 'utf8')) as {
        trees: Record<string, TreeNode[]>;
      };
      const codes = q.params['industry_codes'] as string[];
      expect(Array.isArray(codes), `${q.country} industry_codes`).toBe(true);
      // A division: a node at depth 2 of the activity tree, sent as all of its leaves.
      const divisions = nodesOf(Object.values(activities.trees)[0] ?? []).filter((n) => n.depth === 2);
      expect(
        divisions.some((d) => d.leaves.join() === codes.join()),
        `${q.country}: ${codes.length} codes are not a division's leaves`,
      ).toBe(true);
      const locations = JSON.parse(fs.readFileSync(path.join(dir, 'locations.json'), 'utf8')) as {
        tree: TreeNode[] | null;
      };
      if (locations.tree === null) {
        // NO and SE have no location tree: a municipality name instead.
        expect(typeof q.params['location']).toBe('string');
        continue;
      }
      const param = q.country === 'LT' ? 'lt_locations' : 'ehak_kood';
      const sent = q.params[param] as string[];
      // A county: a root of the location tree, sent as its `codes` (LT: its `locations`).
      expect(
        locations.tree.some((n) => (q.country === 'LT' ? n.locations : n.codes)?.join() === sent.join()),
        `${q.country}: ${sent.length} location values are not a county's`,
      ).toBe(true);
    }
    expect(countries.size).toBe(workload.countries.length);
  });
});

describe('bench request lists', () => {
  it('gives the probe, every concurrency, the overhead run and the warm-up disjoint lists of the requested length, in draw order', () => {
    fc.assert(
      fc.property(
        fc.nat(50),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(60),
        (verify, requests, lists, warm) => {
          const queries = Array.from(
            { length: verify + requests * (lists + 2) + warm },
            (_, id) => ({ id, cls: QUERY_CLASSES[id % QUERY_CLASSES.length] }) as Workload['queries'][number],
          );
          const { probe, timed, scanLoad, paired, warmup } = splitLists(
            queries,
            verify,
            requests,
            lists,
            warm,
          );
          // The warm-up is the draw's last slice: the other lists are the same with or without it.
          const without = splitLists(queries.slice(0, queries.length - warm), verify, requests, lists);
          expect(without.timed).toEqual(timed);
          expect(without.scanLoad).toEqual(scanLoad);
          expect(without.paired).toEqual(paired);
          expect(warmup.map((q) => q.id)).toEqual(queries.slice(queries.length - warm).map((q) => q.id));
          expect(probe.map((q) => q.id)).toEqual(Array.from({ length: verify }, (_, i) => i));
          expect(timed).toHaveLength(lists);
          for (const list of timed) expect(list).toHaveLength(requests);
          const ids = [...probe, ...timed.flat()].map((q) => q.id);
          expect(ids).toEqual(queries.slice(0, verify + requests * lists).map((q) => q.id));
          // The scan-load run: the last slice's lookups and heavy searches, and nothing else.
          const last = queries.slice(verify + requests * lists, verify + requests * (lists + 1));
          expect(scanLoad.lookups).toEqual(last.filter((q) => LOOKUP_CLASSES.includes(q.cls)));
          expect(scanLoad.heavy).toEqual(last.filter((q) => HEAVY_CLASSES.includes(q.cls)));
          // The overhead run: the slice after it, whole.
          expect(paired).toEqual(
            queries.slice(verify + requests * (lists + 1), verify + requests * (lists + 2)),
          );
        },
      ),
    );
  });
});

describe('bench overhead run', () => {
  it('sends each block of requests to one side and then the other, alternating which goes first, and takes the median of the differences', async () => {
    const queries = Array.from(
      { length: 21 },
      (_, id) =>
        ({ id, cls: QUERY_CLASSES[id % QUERY_CLASSES.length], country: 'EE', expect: 200 }) as BenchQuery,
    );
    const calls: string[] = [];
    const run = await runPaired(
      queries,
      120,
      async (q) => {
        calls.push(`a${q.id}`);
        await sleep(8);
        return 200;
      },
      async (q) => {
        calls.push(`b${q.id}`);
        return q.id === 5 ? 500 : 200;
      },
      4,
    );
    const expected: string[] = [];
    for (let k = 0; k * 4 < 21; k++) {
      const ids = queries.slice(k * 4, k * 4 + 4).map((q) => q.id);
      for (const side of k % 2 === 0 ? ['a', 'b'] : ['b', 'a'])
        expected.push(...ids.map((id) => `${side}${id}`));
    }
    expect(calls).toEqual(expected);
    expect(run.requests).toBe(21);
    expect(run.block).toBe(4);
    expect(run.first['all']?.n).toBe(21);
    expect(run.second['all']?.n).toBe(21);
    // A timer fires no earlier than about its delay: every difference is near 8 ms or more.
    expect(run.median_difference['all']).toBeGreaterThanOrEqual(7);
    expect(run.first['all']?.p50).toBeGreaterThanOrEqual(7);
    expect(run.errors).toBe(1);
    expect(run.errorSamples).toEqual([`#5 ${queries[5]?.cls} EE: status 500, expected 200`]);
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
      concurrency: [1, 4, 16],
      requests: 150,
      maxSeconds: 120,
      peer: pgUrl ? 'postgres' : null,
      pgUrl: pgUrl ?? '',
      verify: 100,
      warmup: 60,
      workDir: path.join(tmp, 'work'),
      output: { resultsDir: path.join(tmp, 'results'), historyFile, readme },
      log: () => {},
    }));
    process.stdout.write(`\n${table}`);
  }, 600_000);

  it('sends every request of every run and gets the expected status for each', () => {
    expect(result.warmup).toBe(60);
    const runs = [...result.api.runs, ...(result.engine?.runs ?? []), ...(result.postgres?.runs ?? [])];
    const cs = [1, 4, 16];
    expect(runs.map((r) => r.concurrency)).toEqual(pgUrl ? [...cs, ...cs, ...cs] : [...cs, ...cs]);
    for (const run of runs) {
      expect(run.requests).toBe(150);
      expect(run.capped).toBe(false);
      expect(run.errorSamples).toEqual([]);
      expect(run.groups['all']).toMatchObject({ n: 150, errors: 0 });
      const perClass = QUERY_CLASSES.reduce((sum, c) => sum + (run.groups[`class:${c}`]?.n ?? 0), 0);
      expect(perClass).toBe(150);
      const perCountry = result.countries.reduce((sum, c) => sum + (run.groups[`country:${c}`]?.n ?? 0), 0);
      expect(perCountry).toBe(150);
      const all = run.groups['all'];
      expect(all && all.p50 <= all.p95 && all.p95 <= all.p99 && all.p99 <= all.max).toBe(true);
    }
  });

  it('times every lookup of its list while the scan clients send heavy searches', () => {
    const loads = [result.api.scan_load, result.engine?.scan_load, result.postgres?.scan_load].filter(
      (x) => x !== undefined,
    );
    expect(loads).toHaveLength(pgUrl ? 3 : 2);
    for (const load of loads) {
      expect(load.scanClients).toBe(SCAN_CLIENTS);
      const lookups = load.lookups.groups['all'];
      expect(lookups?.n).toBe(load.lookups.requests);
      expect(lookups?.n).toBeGreaterThan(10);
      expect(lookups?.errors).toBe(0);
      expect(load.lookups.errorSamples).toEqual([]);
      for (const c of Object.keys(load.lookups.groups).filter((g) => g.startsWith('class:'))) {
        expect(LOOKUP_CLASSES).toContain(c.slice(6));
      }
      // The scans really ran alongside: at least one heavy search per client, none of them a lookup.
      expect(load.scans.requests).toBeGreaterThanOrEqual(SCAN_CLIENTS);
      expect(load.scans.groups['all']?.errors).toBe(0);
      for (const c of Object.keys(load.scans.groups).filter((g) => g.startsWith('class:'))) {
        expect(HEAVY_CLASSES).toContain(c.slice(6));
      }
    }
  });

  it('times every request of its list on the API and on the engine, side by side, for the overhead', () => {
    const o = result.overhead;
    expect(o).toBeDefined();
    if (!o) return;
    expect(o.requests).toBe(150);
    expect(o.errors).toBe(0);
    expect(o.errorSamples).toEqual([]);
    expect(o.first['all']?.n).toBe(150);
    expect(o.second['all']?.n).toBe(150);
    for (const c of QUERY_CLASSES) expect(o.first[`class:${c}`]?.n).toBe(o.second[`class:${c}`]?.n);
    const a = o.first['all'];
    const e = o.second['all'];
    const t = result.targets.find((x) => x.target.startsWith('HTTP+auth+wallet overhead'));
    expect(t?.target).toBe(
      'HTTP+auth+wallet overhead at p50, all requests (c=1, API and engine side by side)',
    );
    expect(t?.measured).toBe(`${((a?.p50 ?? 0) - (e?.p50 ?? 0)).toFixed(1)} ms`);
    expect(table).toContain(
      '#### Overhead: API and engine side by side, one request at a time, in turns of 50',
    );
  });

  it('checks every target of issue 27, says by how much, and stores the table in the result', () => {
    const names = result.targets.map((t) => t.target);
    for (const expected of [
      'search mix p95 over HTTP (c=4)',
      'many_codes p95 over HTTP (c=4)',
      'throughput over HTTP (c=16)',
      'PostgreSQL p95 / API p95, search mix (c=1)',
      'detail p95 over HTTP under 4 scan-only clients',
      'history p95 over HTTP under 4 scan-only clients',
      'errors over HTTP (c=16)',
      'p99 over HTTP, all requests (c=16)',
      'PostgreSQL p95 / API p95, search mix (c=4)',
      'no class where PostgreSQL is faster at p50 or p95',
      'server RSS, peak',
    ]) {
      expect(names).toContain(expected);
    }
    const c16 = result.api.runs.find((r) => r.concurrency === 16)?.groups['all'];
    const errors = result.targets.find((t) => t.target === 'errors over HTTP (c=16)');
    expect(errors).toMatchObject({ measured: String(c16?.errors), met: c16?.errors === 0 });
    const p99 = result.targets.find((t) => t.target === 'p99 over HTTP, all requests (c=16)');
    expect(p99?.measured).toBe(`${c16?.p99.toFixed(1)} ms`);
    expect(p99?.met).toBe((c16?.p99 ?? Infinity) <= 80);
    const scanDetail = result.api.scan_load.lookups.groups['class:detail'];
    const t = result.targets.find((x) => x.target === 'detail p95 over HTTP under 4 scan-only clients');
    expect(t?.met).toBe(scanDetail ? scanDetail.p95 <= 3 : null);
    for (const x of result.targets) {
      // Every measured target says how far it is from its limit, met or not.
      if (x.met !== null) expect(x.by).toMatch(x.met ? /^met/ : /^missed/);
    }
    const peer = result.targets.find((x) => x.target === 'no class where PostgreSQL is faster at p50 or p95');
    expect(peer?.met).toEqual(pgUrl ? expect.any(Boolean) : null);
    expect(table).toContain('| target | limit | measured | met | by how much |');
    expect(table).toContain('#### Lookups under scan load');
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
    expect(JSON.parse(lines[0] as string)).toMatchObject({ snapshot_id: result.snapshot_id, requests: 150 });
    const text = fs.readFileSync(readme, 'utf8');
    expect(text).not.toContain('\nold\n');
    expect(text).toContain(table.trim().split('\n')[0]);
    expect(text.endsWith('\n\ntail\n')).toBe(true);
    expect(table).toContain('| **search mix** |');
    expect(table).toContain('#### Targets');
    expect(JSON.parse(fs.readFileSync(file as string, 'utf8')).targets).toEqual(result.targets);
  });
});
