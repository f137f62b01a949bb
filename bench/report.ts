import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Figures, LoadRun, PairedRun, ScanLoadRun } from './stats.ts';
import { QUERY_CLASSES } from './workload.ts';

/** One benchmark run, as written to bench/results/<time>.json. */
export interface BenchResult {
  run_at: string;
  commit: string;
  /** Tracked files with uncommitted changes when the run started (the run measures the working tree). */
  dirty_paths: string[];
  machine: { cpus: number; cpu_model: string; memory_gib: number; node: string; platform: string };
  scale: number | null;
  seed: number;
  snapshot_id: string;
  countries: string[];
  requests: number;
  /** Untimed requests each target answered at concurrency 4 before its timed runs (absent before 2026-11-28). */
  warmup?: number;
  concurrency: number[];
  max_seconds: number;
  api: {
    load_ms: number | null;
    ready_ms: number;
    rss_after_load_bytes: number | null;
    rss_peak_bytes: number | null;
    rss_after_run_bytes: number | null;
    credits_spent: number | null;
    runs: LoadRun[];
    /** Lookups while SCAN_CLIENTS clients send only heavy searches (issue 17). */
    scan_load: ScanLoadRun;
  };
  engine: { load_ms: number; runs: LoadRun[]; scan_load: ScanLoadRun } | null;
  /**
   * The overhead run: API (`first`) and engine (`second`) side by side at c=1, one request at a time, in
   * turns of `block` requests (absent before 2026-11-28 15:00, when the overhead was the difference of the
   * two c=1 runs; the runs of 15:15-15:42 that day alternated every request and have no `block`).
   */
  overhead?: PairedRun;
  postgres: {
    version: string;
    load_seconds: number;
    size_bytes: number;
    reused: boolean;
    runs: LoadRun[];
    scan_load: ScanLoadRun;
  } | null;
  /** Answers compared request by request before timing (status, total, page codes, names, periods). */
  agreement: Record<string, { checked: number; differing: number; samples: string[] }>;
  targets: TargetCheck[];
}

export interface TargetCheck {
  target: string;
  limit: string;
  measured: string;
  /** null: not measured in this run (or no verdict possible). */
  met: boolean | null;
  /** How far from the limit, in words ("2.4x over", "12 ms under"); empty when not measured. */
  by: string;
}

export function gitCommit(root: string): { commit: string; dirty: string[] } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root })
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3));
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: [] };
  }
}

export function machine(): BenchResult['machine'] {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

const runAt = (runs: LoadRun[] | undefined, c: number) => runs?.find((r) => r.concurrency === c);
const fig = (run: LoadRun | undefined, group: string): Figures | undefined => run?.groups[group];
const num = (v: number | undefined, digits = 1) => (v === undefined ? '–' : v.toFixed(digits));
const gib = (b: number | null | undefined) => (b ? `${(b / 2 ** 30).toFixed(2)} GiB` : '–');

/** How far a measured value is from its limit, in words. */
function distance(measured: number, limit: number, upper: boolean, unit: string): string {
  const over = upper ? measured > limit : measured < limit;
  if (!over) {
    const margin = Math.abs(limit - measured);
    return `met, ${margin.toFixed(unit === 'x' || unit === 'req/s' ? 1 : 2)} ${unit} to spare`;
  }
  if (unit === 'x')
    return `missed by ${(limit - measured).toFixed(1)}x (${(measured / limit).toFixed(2)} of the limit)`;
  const ratio = upper ? measured / limit : limit / measured;
  return `missed by ${Math.abs(measured - limit).toFixed(unit === 'req/s' ? 1 : 2)} ${unit} (${ratio.toFixed(1)}x)`;
}

/**
 * The targets of issue 27 (bench/README.md "Targets"), measured at concurrency 4 unless a target says
 * otherwise: the run at c=4 when there is one, else the highest concurrency run (named in each target).
 * A target whose run or peer is missing is listed as not measured.
 */
export function checkTargets(r: Omit<BenchResult, 'targets'>): TargetCheck[] {
  const c = r.concurrency.includes(4) ? 4 : Math.max(...r.concurrency);
  const api = runAt(r.api.runs, c);
  const p95 = (g: string) => fig(api, g)?.p95;
  const checks: TargetCheck[] = [];
  const check = (
    target: string,
    limit: number,
    measured: number | undefined,
    unit = 'ms',
    upper = true,
  ): TargetCheck => {
    const t: TargetCheck = {
      target,
      limit: `${upper ? '<=' : '>='} ${limit} ${unit}`,
      measured:
        measured === undefined ? 'not measured' : `${measured.toFixed(unit === 'GiB' ? 2 : 1)} ${unit}`,
      met: measured === undefined ? null : upper ? measured <= limit : measured >= limit,
      by: measured === undefined ? '' : distance(measured, limit, upper, unit),
    };
    checks.push(t);
    return t;
  };
  check(`search mix p95 over HTTP (c=${c})`, 20, p95('mix:search'));
  for (const cls of ['name', 'person', 'many_codes'])
    check(`${cls} p95 over HTTP (c=${c})`, 25, p95(`class:${cls}`));
  check(`count p95 over HTTP (c=${c})`, 10, p95('class:count'));
  check(`detail p95 over HTTP (c=${c})`, 3, p95('class:detail'));
  check(`history p95 over HTTP (c=${c})`, 3, p95('class:history'));
  const scan = r.api.scan_load?.lookups;
  const n = r.api.scan_load?.scanClients ?? 4;
  check(`detail p95 over HTTP under ${n} scan-only clients`, 3, fig(scan, 'class:detail')?.p95);
  check(`history p95 over HTTP under ${n} scan-only clients`, 3, fig(scan, 'class:history')?.p95);

  // Overhead at p50: from the side-by-side run when there is one (both sides on the same machine load),
  // else from the sequential runs, where neither side queues behind other requests.
  const seq = Math.min(...r.concurrency);
  const paired = r.overhead;
  const httpP50 = paired ? paired.first['all']?.p50 : fig(runAt(r.api.runs, seq), 'all')?.p50;
  const engP50 = paired ? paired.second['all']?.p50 : fig(runAt(r.engine?.runs, seq), 'all')?.p50;
  const overhead = check(
    paired
      ? 'HTTP+auth+wallet overhead at p50, all requests (c=1, API and engine side by side)'
      : `HTTP+auth+wallet overhead at p50, all requests (c=${seq})`,
    0.5,
    httpP50 !== undefined && engP50 !== undefined ? httpP50 - engP50 : undefined,
  );
  // A negative overhead means the two runs met different machine load: no verdict either way.
  if (httpP50 !== undefined && engP50 !== undefined && httpP50 < engP50) {
    overhead.met = null;
    overhead.by = 'no verdict: the engine run was slower than HTTP';
  }

  const c16 = runAt(r.api.runs, 16)?.groups['all'];
  const errors = check('errors over HTTP (c=16)', 0, c16?.errors, 'errors');
  if (c16) errors.measured = String(c16.errors);
  check('p99 over HTTP, all requests (c=16)', 80, c16?.p99);
  check('throughput over HTTP (c=16)', 400, c16?.rps, 'req/s', false);

  for (const cc of r.concurrency) {
    const pg = fig(runAt(r.postgres?.runs, cc), 'mix:search')?.p95;
    const ours = fig(runAt(r.api.runs, cc), 'mix:search')?.p95;
    check(
      `PostgreSQL p95 / API p95, search mix (c=${cc})`,
      30,
      pg !== undefined && ours ? pg / ours : undefined,
      'x',
      false,
    );
  }
  // No class in which the peer is faster, at p50 or p95, at any concurrency or under the scan load.
  if (r.postgres) {
    const faster: string[] = [];
    const compareRuns = (label: string, a: LoadRun | undefined, p: LoadRun | undefined) => {
      for (const cls of QUERY_CLASSES) {
        const x = fig(a, `class:${cls}`);
        const y = fig(p, `class:${cls}`);
        if (!x || !y) continue;
        if (y.p50 < x.p50) faster.push(`${cls} ${label} p50 (${y.p50.toFixed(1)} < ${x.p50.toFixed(1)} ms)`);
        if (y.p95 < x.p95) faster.push(`${cls} ${label} p95 (${y.p95.toFixed(1)} < ${x.p95.toFixed(1)} ms)`);
      }
    };
    for (const cc of r.concurrency) compareRuns(`c=${cc}`, runAt(r.api.runs, cc), runAt(r.postgres.runs, cc));
    compareRuns('under scan load', r.api.scan_load?.lookups, r.postgres.scan_load?.lookups);
    checks.push({
      target: 'no class where PostgreSQL is faster at p50 or p95',
      limit: '0 classes',
      measured: `${faster.length} class figures`,
      met: faster.length === 0,
      by:
        faster.length === 0
          ? 'met'
          : `missed: ${faster.slice(0, 6).join('; ')}${faster.length > 6 ? `; and ${faster.length - 6} more (see the tables)` : ''}`,
    });
  } else {
    checks.push({
      target: 'no class where PostgreSQL is faster at p50 or p95',
      limit: '0 classes',
      measured: 'not measured',
      met: null,
      by: '',
    });
  }
  const rss = r.api.rss_peak_bytes;
  check('server RSS, peak', 4, rss === null ? undefined : rss / 2 ** 30, 'GiB');
  // Publish time is measured by the ingest (docs/data-contract.md "Performance"), not by this run.
  checks.push({
    target: 'publish time of all seven countries (scale 1) at most 15% above before issue 27',
    limit: '<= +15%',
    measured: 'not measured by the bench',
    met: null,
    by: 'see docs/data-contract.md "Performance"',
  });
  return checks;
}

/** The markdown of a run: per-class tables at each concurrency, per country, resources and targets. */
/**
 * Where the CPU went in one concurrency's runs: the server's CPU per request and in cores, the engine's
 * (the harness process) beside it, and how busy the whole machine was. Runs without figures print nothing.
 */
function cpuLine(api: LoadRun | undefined, eng: LoadRun | undefined): string[] {
  const part = (who: string, run: LoadRun | undefined) => {
    const s = run?.cpu?.target_seconds;
    if (!run || s === null || s === undefined || run.requests === 0 || run.wallSeconds === 0) return null;
    const busy = run.cpu?.machine_busy_share;
    return (
      `${who} ${num((1000 * s) / run.requests, 2)} ms of CPU per request (${num(s / run.wallSeconds, 2)} cores)` +
      (busy === null || busy === undefined ? '' : `, machine ${Math.round(busy * 100)}% busy`)
    );
  };
  const parts = [part('API server', api), part('in-process engine', eng)].filter((p) => p !== null);
  return parts.length ? [`CPU: ${parts.join('; ')}.`, ''] : [];
}

export function markdown(r: BenchResult): string {
  const lines: string[] = [];
  const scale = r.scale === null ? 'given data folder' : `scale ${r.scale}`;
  lines.push(
    `Run ${r.run_at} on commit \`${r.commit}\`${r.dirty_paths.length ? ` (+${r.dirty_paths.length} uncommitted files)` : ''}, ` +
      `${scale}, snapshot \`${r.snapshot_id}\`, ${r.machine.cpus} × ${r.machine.cpu_model}, ${r.machine.memory_gib} GiB, ` +
      `Node ${r.machine.node}. ${r.requests} requests per run, at most ${r.max_seconds} s per run` +
      `${r.warmup ? `, after ${r.warmup} untimed warm-up requests per target` : ''}. Times in ms.`,
    '',
  );
  const groups = [...QUERY_CLASSES.map((c) => `class:${c}`), 'mix:search', 'all'];
  const label = (g: string) => (g === 'mix:search' ? '**search mix**' : g === 'all' ? '**all**' : g.slice(6));
  for (const c of r.concurrency) {
    const api = runAt(r.api.runs, c);
    const eng = runAt(r.engine?.runs, c);
    const pgr = runAt(r.postgres?.runs, c);
    lines.push(
      `#### Concurrency ${c}: API ${api?.requests ?? 0} requests in ${num(api?.wallSeconds)} s` +
        (pgr
          ? `, PostgreSQL ${pgr.requests} in ${num(pgr.wallSeconds)} s${pgr.capped ? ' (time cap)' : ''}`
          : ''),
      '',
      ...cpuLine(api, eng),
      '| class | n | API p50 | p95 | p99 | max | req/s | errors | engine p50 | engine p95 | overhead p50 | PG p50 | PG p95 | PG p99 | PG errors | PG/API p95 |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const g of groups) {
      const a = fig(api, g);
      if (!a) continue;
      const e = fig(eng, g);
      const p = fig(pgr, g);
      lines.push(
        `| ${label(g)} | ${a.n} | ${num(a.p50)} | ${num(a.p95)} | ${num(a.p99)} | ${num(a.max)} | ${num(a.rps)} | ${a.errors} | ` +
          `${num(e?.p50)} | ${num(e?.p95)} | ${e ? num(a.p50 - e.p50, 2) : '–'} | ${num(p?.p50)} | ${num(p?.p95)} | ${num(p?.p99)} | ` +
          `${p ? p.errors : '–'} | ${p && a.p95 ? `${(p.p95 / a.p95).toFixed(1)}x` : '–'} |`,
      );
    }
    lines.push('');
  }
  const sl = r.api.scan_load;
  if (sl) {
    const targets: [string, ScanLoadRun | undefined][] = [
      ['API', sl],
      ['engine', r.engine?.scan_load],
      ['PostgreSQL', r.postgres?.scan_load],
    ];
    lines.push(
      `#### Lookups under scan load: one client's lookups while ${sl.scanClients} clients send only heavy searches`,
      '',
      '| target | lookups | detail p50 | detail p95 | history p50 | history p95 | lookup errors | heavy searches | heavy p95 | heavy errors |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const [who, run] of targets) {
      if (!run) continue;
      const d = fig(run.lookups, 'class:detail');
      const h = fig(run.lookups, 'class:history');
      const s = fig(run.scans, 'all');
      lines.push(
        `| ${who} | ${run.lookups.requests} | ${num(d?.p50)} | ${num(d?.p95)} | ${num(h?.p50)} | ${num(h?.p95)} | ` +
          `${fig(run.lookups, 'all')?.errors ?? 0} | ${run.scans.requests} | ${num(s?.p95)} | ${s?.errors ?? 0} |`,
      );
    }
    lines.push('');
  }
  if (r.overhead) {
    const o = r.overhead;
    lines.push(
      `#### Overhead: API and engine side by side, one request at a time, in turns of ${o.block} requests (${o.requests} requests in ${num(o.wallSeconds)} s)`,
      '',
      '| class | n | API p50 | engine p50 | overhead p50 (difference of the p50s) | median of the per-request differences | API p95 | engine p95 |',
      '|---|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const g of groups) {
      const a = o.first[g];
      const e = o.second[g];
      if (!a || !e) continue;
      lines.push(
        `| ${label(g)} | ${a.n} | ${num(a.p50)} | ${num(e.p50)} | ${num(a.p50 - e.p50, 2)} | ${num(o.median_difference[g], 2)} | ${num(a.p95)} | ${num(e.p95)} |`,
      );
    }
    lines.push('');
  }
  const top = Math.max(...r.concurrency);
  const api = runAt(r.api.runs, top);
  const pgr = runAt(r.postgres?.runs, top);
  lines.push(
    `#### Per country, p95 at concurrency ${top}`,
    '',
    '| country | search mix | PG search mix | name | count | PG count | detail | history |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const cc of r.countries) {
    const f = (run: LoadRun | undefined, g: string) => num(fig(run, `country:${cc}/${g}`)?.p95);
    lines.push(
      `| ${cc} | ${f(api, 'mix:search')} | ${f(pgr, 'mix:search')} | ${f(api, 'class:name')} | ${f(api, 'class:count')} | ` +
        `${f(pgr, 'class:count')} | ${f(api, 'class:detail')} | ${f(api, 'class:history')} |`,
    );
  }
  lines.push(
    '',
    '#### Resources',
    '',
    '| | load time | memory / size |',
    '|---|--:|--:|',
    `| API server (\`regdata serve\`) | ${r.api.load_ms === null ? '–' : `${(r.api.load_ms / 1000).toFixed(1)} s`} (ready after ${(r.api.ready_ms / 1000).toFixed(1)} s) | RSS ${gib(r.api.rss_after_load_bytes)} after load, ${gib(r.api.rss_after_run_bytes)} after the runs, peak ${gib(r.api.rss_peak_bytes)} |`,
  );
  if (r.engine) lines.push(`| in-process engine (harness) | ${(r.engine.load_ms / 1000).toFixed(1)} s | – |`);
  if (r.postgres) {
    lines.push(
      `| PostgreSQL ${r.postgres.version} | ${r.postgres.load_seconds.toFixed(1)} s${r.postgres.reused ? ' (earlier load, reused)' : ''} | database ${gib(r.postgres.size_bytes)} |`,
    );
  }
  lines.push('');
  if (r.api.credits_spent !== null) {
    lines.push(
      `Metered through a standard pay-as-you-go key: ${r.api.credits_spent.toFixed(2)} credits spent.`,
      '',
    );
  }
  const agreements = Object.entries(r.agreement);
  if (agreements.length) {
    lines.push(
      'Answers compared before timing: ' +
        agreements.map(([k, a]) => `${k} ${a.checked - a.differing}/${a.checked} identical`).join('; ') +
        '.',
      '',
    );
  }
  lines.push(
    '#### Targets',
    '',
    '| target | limit | measured | met | by how much |',
    '|---|---|---|---|---|',
  );
  for (const t of r.targets) {
    lines.push(
      `| ${t.target} | ${t.limit} | ${t.measured} | ${t.met === null ? '–' : t.met ? 'yes' : '**no**'} | ${t.by} |`,
    );
  }
  return lines.join('\n') + '\n';
}

export const LATEST_START = '<!-- bench:latest:start -->';
export const LATEST_END = '<!-- bench:latest:end -->';

/** Writes the JSON result, appends the history line and replaces the README's latest-results section. */
export function writeResult(
  r: BenchResult,
  opts: { resultsDir: string; historyFile: string; readme: string | null },
): string {
  fs.mkdirSync(opts.resultsDir, { recursive: true });
  const file = path.join(opts.resultsDir, `${r.run_at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  const top = Math.max(...r.concurrency);
  const summary = (runs: LoadRun[] | undefined) => {
    const run = runAt(runs, top);
    const out: Record<string, number> = {};
    for (const g of ['mix:search', 'class:name', 'class:count', 'class:detail', 'class:history', 'all']) {
      const f = fig(run, g);
      if (f) out[g] = f.p95;
    }
    return out;
  };
  const line = {
    run_at: r.run_at,
    commit: r.commit,
    dirty: r.dirty_paths.length > 0,
    scale: r.scale,
    snapshot_id: r.snapshot_id,
    requests: r.requests,
    concurrency: top,
    api_p95_ms: summary(r.api.runs),
    api_rps: runAt(r.api.runs, top)?.groups['all']?.rps ?? null,
    postgres_p95_ms: r.postgres ? summary(r.postgres.runs) : null,
    api_p95_under_scan_load_ms: {
      detail: fig(r.api.scan_load?.lookups, 'class:detail')?.p95 ?? null,
      history: fig(r.api.scan_load?.lookups, 'class:history')?.p95 ?? null,
    },
    targets_met: r.targets.filter((t) => t.met === true).length,
    targets_missed: r.targets.filter((t) => t.met === false).length,
    api_load_ms: r.api.load_ms,
    api_rss_peak_bytes: r.api.rss_peak_bytes,
    result: path.basename(file),
  };
  fs.appendFileSync(opts.historyFile, `${JSON.stringify(line)}\n`);
  if (opts.readme) {
    const text = fs.readFileSync(opts.readme, 'utf8');
    const start = text.indexOf(LATEST_START);
    const end = text.indexOf(LATEST_END);
    if (start >= 0 && end > start) {
      const body = `${LATEST_START}\n\n${markdown(r)}\nFull figures: [results/${path.basename(file)}](results/${path.basename(file)}).\n\n`;
      fs.writeFileSync(opts.readme, text.slice(0, start) + body + text.slice(end));
    }
  }
  return file;
}
