/**
 * Latency of the REST API over real HTTP on a built snapshot, with a realistic mix of filter-heavy
 * searches, counts, details and histories whose values are picked from the data. Not a vitest file: run it
 * by hand against a national-scale world, e.g.
 *
 *   npx tsx test/http/measure-latency.ts --data-dir .tmp/scale1 [--rounds 3] [--concurrency 4]
 *     [--work-dir .tmp/perf/scale1] [--slowest 15]
 *
 * It starts the server in this process (port 0, own wallet in a temp folder), prints the snapshot load
 * time, p50/p95/max per operation, and the process RSS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.tmp/scale1' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    'work-dir': { type: 'string' },
    /** Also list the N slowest search/count shapes (country and position in the mix). */
    slowest: { type: 'string' },
    /** Serve and measure only these countries (comma-separated), e.g. PL for a one-country run. */
    countries: { type: 'string' },
  },
});
const sourceDir = path.resolve(values['data-dir']);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const out = (s: string) => process.stdout.write(`${s}\n`);

// Own data folder: the snapshot's files linked in (so the engine can write its serving databases beside
// them without touching the source), a fresh wallet. With --work-dir the folder is kept, and the serving
// databases built by the first run are reused by the next ones (the server start is then an attach).
const source = new SnapshotStore(sourceDir);
const id = source.currentId();
if (!id) throw new Error(`no snapshot in ${sourceDir}`);
const workDir = values['work-dir'] ? path.resolve(values['work-dir']) : null;
const dataDir = workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-measure-'));
const store = new SnapshotStore(dataDir);
const only = values.countries ? new Set(values.countries.split(',')) : null;
for (const entry of fs.readdirSync(source.snapshotDir(id), { withFileTypes: true })) {
  if (only && entry.isDirectory() && !only.has(entry.name)) {
    fs.rmSync(path.join(store.snapshotDir(id), entry.name), { recursive: true, force: true });
    continue;
  }
  const from = path.join(source.snapshotDir(id), entry.name);
  const to = path.join(store.snapshotDir(id), entry.name);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (!entry.isDirectory()) {
    if (!fs.existsSync(to)) fs.symlinkSync(from, to);
    continue;
  }
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) {
    if (!fs.existsSync(path.join(to, f))) fs.symlinkSync(path.join(from, f), path.join(to, f));
  }
}
store.promote(id);
for (const f of ['wallet.db', 'wallet.db-wal', 'wallet.db-shm'])
  fs.rmSync(path.join(dataDir, f), { force: true });

// Values for the queries, picked with a plain DuckDB over the Parquet files.
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await db.connect();
const file = (c: CountryCode, f: string) => `read_parquet('${path.join(store.snapshotDir(id), c, f)}')`;
async function col(sql: string): Promise<string[]> {
  return (await conn.runAndReadAll(sql)).getRowsJson().map((r) => String(r[0]));
}
const COUNTRIES = [...COUNTRY_CODES].filter((c) => !only || only.has(c));
interface Picks {
  words: string[];
  forms: string[];
  codes: string[];
  activities: string[];
  people: string[];
  location: Record<string, string[]>;
  history: string[];
}
const picks = {} as Record<CountryCode, Picks>;
for (const c of COUNTRIES) {
  const co = file(c, 'companies.parquet');
  const active = `FROM ${co} WHERE NOT not_for_sale AND staatus = 'R'`;
  const locationsJson = JSON.parse(
    fs.readFileSync(path.join(store.snapshotDir(id), c, 'locations.json'), 'utf8'),
  ) as { tree: TreeNode[] | null };
  const tree = locationsJson.tree ?? [];
  picks[c] = {
    // Word pieces of real names: 4-6 letters from the start of a random word.
    words: await col(
      `SELECT substr(w, 1, 4 + (hash(w) % 3)::INTEGER) FROM (SELECT unnest(string_split(search_name, ' ')) AS w ${active} USING SAMPLE 2000 ROWS) WHERE length(w) >= 6 LIMIT 40`,
    ),
    forms: await col(`SELECT oiguslik_vorm ${active} GROUP BY 1 ORDER BY count(*) DESC LIMIT 3`),
    codes: await col(`SELECT registrikood ${active} USING SAMPLE 200 ROWS`),
    activities: await col(
      `SELECT k FROM (SELECT unnest(emtak).kood AS k ${active} USING SAMPLE 5000 ROWS) GROUP BY 1 ORDER BY count(*) DESC LIMIT 60`,
    ),
    people: await col(
      `SELECT split_part(p.nimi, ' ', -1) FROM (SELECT unnest(people) AS p ${active} USING SAMPLE 2000 ROWS) WHERE p.isiku_tyyp = 'F' LIMIT 40`,
    ),
    location:
      c === 'LT'
        ? {
            lt_locations: tree
              .flatMap((n) => n.children)
              .slice(0, 5)
              .flatMap((n) => n.locations ?? []),
          }
        : tree.length
          ? { ehak_kood: tree[Math.min(1, tree.length - 1)]!.codes ?? [] }
          : {
              location: await col(`SELECT ehak_nimetus ${active} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`),
            },
    history: await col(`SELECT registrikood FROM ${file(c, 'history.parquet')} USING SAMPLE 200 ROWS`),
  };
}
conn.closeSync();
db.closeSync();

const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const server = await startServer(
  loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
  }),
  {
    handleSignals: false,
    engine: {
      onCountryLoaded: ({ country, ms }) =>
        out(`  ${country}: attached (or built) in ${(ms / 1000).toFixed(1)} s`),
    },
  },
);
const loadMs = performance.now() - started;
const { key } = await server.wallet.createKey({ email: 'bench@local', kind: 'admin' });
out(
  `snapshot ${id} loaded in ${(loadMs / 1000).toFixed(1)} s; rss ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB (before ${(rssBefore / 2 ** 30).toFixed(2)})`,
);

let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const one = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const some = <T>(xs: T[], n: number): T[] => Array.from({ length: n }, () => one(xs));

type Q = Record<string, string | number | boolean | (string | number)[]>;
function searchMix(c: CountryCode): Q[] {
  const p = picks[c];
  const base: Q[] = [
    { company_name: one(p.words) },
    { company_name: one(p.words), legal_form: [one(p.forms)], has_email: true },
    { industry_codes: some(p.activities, 3), ...p.location, has_phone: true },
    { industry_codes: some(p.activities, 5), sort_by: 'company_name', page: 2 },
    { legal_form: p.forms.slice(0, 2), registered_from: '2015-01-01', vat_active: true, page_size: 100 },
    { ...p.location, company_name: one(p.words), status: ['__all__'] },
    { has_website: true, sort_by: 'registered_date', sort_dir: 'desc' },
  ];
  if (['EE', 'LV', 'NO'].includes(c)) {
    base.push({
      annual_revenue_min: 100000,
      sort_by: 'annual_revenue',
      sort_dir: 'desc',
      industry_codes: some(p.activities, 4),
    });
    base.push({ annual_net_profit_min: 0, annual_equity_min: 10000, ...p.location });
  }
  if (['EE', 'LV', 'LT'].includes(c)) {
    base.push({
      last_quarter_turnover_min: 50000,
      last_quarter_turnover_growth_pct_min: 10,
      sort_by: 'last_quarter_turnover',
      sort_dir: 'desc',
    });
  }
  if (p.people.length) base.push({ person_name: one(p.people) });
  if (c === 'SE') {
    base.push({
      employees_band: [3, 4, 5],
      exclude_marketing_optout: true,
      industry_codes: some(p.activities, 3),
    });
    base.push({ turnover_band: [3, 4], se_workplace_kommun: ['0180', '1480'], has_contact: true });
  }
  return base;
}

function url(pathname: string, q: Q): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) sp.append(k, String(x));
  return `${server.url}${pathname}?${sp}`;
}

const timings: Record<string, number[]> = {};
/** Per search/count shape (country and position in the mix), to find the slow ones. */
const byShape: Record<string, number[]> = {};
async function hit(kind: string, u: string, shape?: string): Promise<void> {
  const t0 = performance.now();
  const res = await fetch(u, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200 && res.status !== 404) throw new Error(`${res.status} for ${u}`);
  (timings[kind] ??= []).push(ms);
  if (shape) (byShape[shape] ??= []).push(ms);
}

const jobs: [string, string, string?][] = [];
for (let r = 0; r < rounds; r++) {
  for (const c of COUNTRIES) {
    for (const [i, q] of searchMix(c).entries()) {
      jobs.push([`search`, url('/api/v1/data/companies', { country: c, ...q }), `search ${c}#${i}`]);
      const { sort_by: _s, sort_dir: _d, page: _p, page_size: _ps, ...filters } = q;
      jobs.push([`count`, url('/api/v1/data/count', { country: c, ...filters }), `count ${c}#${i}`]);
    }
    for (let i = 0; i < 10; i++) {
      jobs.push(['detail', url(`/api/v1/data/companies/${one(picks[c].codes)}`, { country: c })]);
      const h = picks[c].history.length ? one(picks[c].history) : one(picks[c].codes);
      jobs.push(['history', url(`/api/v1/data/companies/${h}/history`, { country: c })]);
    }
  }
}
// Warm-up: every statement shape once (prepared statements are per connection).
for (const [kind, u] of jobs.slice(0, Math.ceil(jobs.length / rounds))) await hit(`warmup-${kind}`, u);
for (const k of Object.keys(timings)) delete timings[k];

let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const [kind, u, shape] = jobs[next++]!;
      await hit(kind, u, shape);
    }
  }),
);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
out(`concurrency ${concurrency}, ${jobs.length} requests`);
for (const [kind, xs] of Object.entries(timings)) {
  out(
    `${kind.padEnd(8)} n=${String(xs.length).padStart(4)}  p50 ${pct(xs, 0.5).toFixed(1).padStart(6)} ms  p95 ${pct(xs, 0.95).toFixed(1).padStart(6)} ms  max ${Math.max(
      ...xs,
    )
      .toFixed(1)
      .padStart(6)} ms`,
  );
}
if (values['slowest']) {
  const slow = Object.entries(byShape)
    .map(([shape, xs]) => [shape, Math.max(...xs)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values['slowest']));
  for (const [shape, ms] of slow) out(`  slowest ${shape.padEnd(14)} max ${ms.toFixed(1)} ms`);
}
out(`rss after run ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB`);
await server.close();
if (!workDir) fs.rmSync(dataDir, { recursive: true, force: true });
