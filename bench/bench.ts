import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchBalance,
  createBenchKey,
  freePort,
  loggedLoadMs,
  machineCpuTicks,
  processCpuSeconds,
  processMemory,
  spawnServer,
  startApiServer,
} from './api-server.ts';
import { InProcessEngine } from './engine-timing.ts';
import { disagreement, HttpTarget, type Answer } from './http-target.ts';
import { ensurePgLoaded } from './postgres/load.ts';
import { checkTargets, gitCommit, machine, markdown, writeResult, type BenchResult } from './report.ts';
import {
  runLoad,
  runPaired,
  runUnderScanLoad,
  type LoadRun,
  type PairedRun,
  type ScanLoadRun,
} from './stats.ts';
import { buildWorkload, HEAVY_CLASSES, LOOKUP_CLASSES, type BenchQuery } from './workload.ts';
import { prepareData } from './world.ts';
import type { CountryManifest } from '../src/contract/data-contract.ts';

export const BENCH_ROOT = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_ROOT, '..');

export interface BenchOptions {
  /** World scale to make or reuse; null when `dataDir` names the data. */
  scale: number | null;
  seed: number;
  dataDir?: string | undefined;
  concurrency: number[];
  requests: number;
  /** Each (target, concurrency) run stops after this many seconds even if requests remain. */
  maxSeconds: number;
  peer: 'postgres' | null;
  pgUrl: string;
  /** Requests answered by every target one by one before timing and compared. */
  verify: number;
  /**
   * Requests each target answers untimed at concurrency WARMUP_CONCURRENCY after the verify list and before
   * the timed runs: a list of its own, the draw's last slice. 0: no warm-up.
   */
  warmup: number;
  /** Scratch: worlds, run folders, CSV for PostgreSQL. */
  workDir: string;
  /** Where the result goes; null writes nothing (the result is still returned and printed). */
  output: { resultsDir: string; historyFile: string; readme: string | null } | null;
  log: (line: string) => void;
}

interface Agreement {
  checked: number;
  differing: number;
  samples: string[];
}

function compare(
  reference: Map<number, Answer>,
  other: Map<number, Answer>,
  queries: BenchQuery[],
): Agreement {
  const a: Agreement = { checked: 0, differing: 0, samples: [] };
  for (const q of queries) {
    const x = reference.get(q.id);
    const y = other.get(q.id);
    if (!x || !y) continue;
    a.checked++;
    const why = disagreement(x, y);
    if (why) {
      a.differing++;
      if (a.samples.length < 5) a.samples.push(`#${q.id} ${q.country} ${q.cls}: ${why}`);
    }
  }
  return a;
}

async function answers(queries: BenchQuery[], answer: (q: BenchQuery) => Promise<Answer>) {
  const out = new Map<number, Answer>();
  for (const q of queries) {
    try {
      out.set(q.id, await answer(q));
    } catch (err) {
      out.set(q.id, { status: -1, name: String(err) });
    }
  }
  return out;
}

/**
 * The request lists of one run: `probe` is answered by every target before timing (compared, and the
 * warm-up); `timed[i]` is the list of the i-th concurrency; `scanLoad` the list of the "lookups under scan
 * load" run (its lookups, and its heavy searches for the scan clients); `paired` the overhead run's (API
 * and engine side by side, one at a time). The lists are disjoint slices of one seeded draw, the same for
 * every target. Each run gets its own list because a server answers a repeated filter set from its count
 * cache: replaying the c=1 list at c=4 would time cache hits, and replaying it to the API alone in the
 * overhead run would give the API cache hits the engine does not get.
 */
export function splitLists(
  queries: readonly BenchQuery[],
  verify: number,
  requests: number,
  lists: number,
  warmup = 0,
): {
  probe: BenchQuery[];
  timed: BenchQuery[][];
  scanLoad: { lookups: BenchQuery[]; heavy: BenchQuery[] };
  paired: BenchQuery[];
  warmup: BenchQuery[];
} {
  const probe = queries.slice(0, verify);
  const timed = Array.from({ length: lists }, (_, i) =>
    queries.slice(verify + i * requests, verify + (i + 1) * requests),
  );
  const rest = queries.slice(verify + lists * requests, verify + (lists + 1) * requests);
  const paired = queries.slice(verify + (lists + 1) * requests, verify + (lists + 2) * requests);
  // Last, so that a run with another warm-up times exactly the same lists.
  const warm = queries.slice(verify + (lists + 2) * requests, verify + (lists + 2) * requests + warmup);
  return {
    probe,
    timed,
    paired,
    warmup: warm,
    scanLoad: {
      lookups: rest.filter((q) => LOOKUP_CLASSES.includes(q.cls)),
      heavy: rest.filter((q) => HEAVY_CLASSES.includes(q.cls)),
    },
  };
}

/** Clients sending heavy searches in the "lookups under scan load" run (issue 17). */
export const SCAN_CLIENTS = 4;

/** The warm-up's concurrency, and the most seconds it may take per target. */
export const WARMUP_CONCURRENCY = 4;
const WARMUP_MAX_SECONDS = 120;

/**
 * Untimed requests before the timed runs. V8 compiles a server's hot functions as it serves: in the API,
 * TurboFan finished 315 optimisations in its first 1,000 requests of the mix, 42-99 per 1,000 up to
 * request 5,000 and 4-17 per 1,000 after that (`--trace-opt`), and its compiler threads took 13-28% of a
 * core meanwhile. Without a warm-up the c=1 run (requests 300-1,800 of a fresh process) timed that
 * compiling: the mix's p50 at c=1 was 2.3-2.7 ms after the verify list alone and 1.5-1.9 ms after 6,000
 * more requests, on the same list (docs/data-contract.md "Eighth round"). A server in service has long
 * passed that point, and so has every target here: the API, the in-process engine and the peer.
 */
async function warmUp(
  opts: BenchOptions,
  who: string,
  list: BenchQuery[],
  exec: (q: BenchQuery) => Promise<number>,
): Promise<void> {
  if (list.length === 0) return;
  const run = await runLoad(list, WARMUP_CONCURRENCY, Math.min(opts.maxSeconds, WARMUP_MAX_SECONDS), exec);
  const errors = run.groups['all']?.errors ?? 0;
  opts.log(
    `${who} warm-up: ${run.requests} requests at c=${WARMUP_CONCURRENCY} in ${run.wallSeconds} s` +
      `${run.capped ? ' (time cap)' : ''}, ${errors} errors (untimed)`,
  );
  for (const e of run.errorSamples) opts.log(`  ${e}`);
}

async function timedRuns(
  opts: BenchOptions,
  who: string,
  lists: BenchQuery[][],
  exec: (q: BenchQuery) => Promise<number>,
  /** The target's CPU seconds so far (its process), or null when not ours to read. */
  targetCpu: () => number | null,
): Promise<LoadRun[]> {
  const runs: LoadRun[] = [];
  for (const [i, c] of opts.concurrency.entries()) {
    const cpuBefore = targetCpu();
    const machineBefore = machineCpuTicks();
    const run = await runLoad(lists[i] ?? [], c, opts.maxSeconds, exec);
    const cpuAfter = targetCpu();
    const machineAfter = machineCpuTicks();
    run.cpu = {
      target_seconds:
        cpuBefore !== null && cpuAfter !== null ? Math.round((cpuAfter - cpuBefore) * 100) / 100 : null,
      machine_busy_share:
        machineBefore && machineAfter && machineAfter.total > machineBefore.total
          ? Math.round(
              (1000 * (machineAfter.busy - machineBefore.busy)) / (machineAfter.total - machineBefore.total),
            ) / 1000
          : null,
    };
    const all = run.groups['all'];
    opts.log(
      `${who} c=${c}: ${run.requests} requests in ${run.wallSeconds} s${run.capped ? ' (time cap)' : ''}, ` +
        `p50 ${all?.p50} ms, p95 ${all?.p95} ms, ${all?.errors ?? 0} errors; ` +
        `CPU ${run.cpu.target_seconds ?? '–'} s, machine ${run.cpu.machine_busy_share === null ? '–' : `${Math.round(run.cpu.machine_busy_share * 100)}%`} busy`,
    );
    for (const e of run.errorSamples) opts.log(`  ${e}`);
    runs.push(run);
  }
  return runs;
}

async function scanLoadRun(
  opts: BenchOptions,
  who: string,
  list: { lookups: BenchQuery[]; heavy: BenchQuery[] },
  exec: (q: BenchQuery) => Promise<number>,
): Promise<ScanLoadRun> {
  const run = await runUnderScanLoad(list.lookups, list.heavy, SCAN_CLIENTS, opts.maxSeconds, exec);
  const f = (cls: string) => run.lookups.groups[`class:${cls}`];
  opts.log(
    `${who} lookups under ${SCAN_CLIENTS} scan clients: ${run.lookups.requests} lookups, detail p95 ` +
      `${f('detail')?.p95 ?? '–'} ms, history p95 ${f('history')?.p95 ?? '–'} ms; ` +
      `${run.scans.requests} heavy searches meanwhile, p95 ${run.scans.groups['all']?.p95 ?? '–'} ms`,
  );
  for (const e of [...run.lookups.errorSamples, ...run.scans.errorSamples]) opts.log(`  ${e}`);
  return run;
}

/**
 * API and engine side by side at c=1, in turns of a few dozen requests (stats.ts runPaired), on a list
 * neither has answered: the overhead target's run.
 */
async function overheadRun(
  opts: BenchOptions,
  list: BenchQuery[],
  api: HttpTarget,
  engine: InProcessEngine,
): Promise<PairedRun> {
  const run = await runPaired(
    list,
    opts.maxSeconds,
    (q) => api.exec(q),
    (q) => engine.exec(q),
  );
  const a = run.first['all'];
  const e = run.second['all'];
  opts.log(
    `overhead, API and engine side by side in turns of ${run.block}: ${run.requests} requests in ${run.wallSeconds} s, ` +
      `API p50 ${a?.p50} ms, engine p50 ${e?.p50} ms, median difference ${run.median_difference['all']} ms, ` +
      `${run.errors} errors; harness RSS ${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB beside the server's`,
  );
  for (const s of run.errorSamples) opts.log(`  ${s}`);
  return run;
}

/**
 * Reads every serving database and lookup store of the run into the OS page cache. The API runs first and
 * the engine after it: without this the API alone paid for cold reads (point lookups hitting the disk
 * after other work had evicted the files), which showed up as 4-5 ms of "overhead" on detail and history
 * at c=1. A server that has been up for a while has its files cached, which is what the bench measures.
 * The lookup stores (`lookup.sqlite`, 7.5 GB at scale 1) were left out until 2026-11-24: a CPU profile of
 * the server at c=4 then showed a third of its event loop in reading result rows from them, one disk
 * read at a time on the request thread.
 */
function warmPageCache(dirs: string[]): number {
  let bytes = 0;
  const buf = Buffer.allocUnsafe(8 << 20);
  const visit = (p: string): void => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    } else if (p.endsWith('.duckdb') || p.endsWith('.sqlite')) {
      const fd = fs.openSync(p, 'r');
      try {
        let n: number;
        while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) bytes += n;
      } finally {
        fs.closeSync(fd);
      }
    }
  };
  for (const d of dirs) visit(d);
  return bytes;
}

/** The whole benchmark: workload, API over HTTP, in-process engine, optional PostgreSQL peer, report. */
export async function runBench(
  opts: BenchOptions,
): Promise<{ result: BenchResult; markdown: string; file: string | null }> {
  const { commit, dirty } = gitCommit(ROOT);
  const runAt = new Date().toISOString();
  fs.mkdirSync(opts.workDir, { recursive: true });
  const data = await prepareData({
    dataDir: opts.dataDir,
    scale: opts.scale ?? 1,
    seed: opts.seed,
    workDir: opts.workDir,
    log: opts.log,
  });
  let finished = false;
  try {
    opts.log(`snapshot ${data.snapshotId} (${data.sourceDir}); building the workload ...`);
    const workload = await buildWorkload(data.snapshotDir, {
      requests: opts.verify + opts.requests * (opts.concurrency.length + 2) + opts.warmup,
      seed: opts.seed,
    });
    const queries = workload.queries;
    const { probe, timed, scanLoad, paired, warmup } = splitLists(
      queries,
      opts.verify,
      opts.requests,
      opts.concurrency.length,
      opts.warmup,
    );
    const maxC = Math.max(...opts.concurrency);
    const agreement: Record<string, Agreement> = {};

    // 1. The API as a child process, metered through a real standard key.
    const key = await createBenchKey(data.runDir, 100_000_000);
    const balanceBefore = await benchBalance(data.runDir);
    const logFile = path.join(data.runDir, 'server.log');
    opts.log('starting the API server (regdata serve) ...');
    const server = await startApiServer(data.runDir, logFile);
    let apiRuns: LoadRun[];
    let apiScanLoad: ScanLoadRun;
    let apiAnswers: Map<number, Answer>;
    const afterLoad = processMemory(server.pid);
    opts.log(
      `API ready after ${(server.readyMs / 1000).toFixed(1)} s, RSS ${((afterLoad?.rss ?? 0) / 2 ** 30).toFixed(2)} GiB`,
    );
    let afterRun: ReturnType<typeof processMemory>;
    const api = new HttpTarget(
      server.url,
      { authorization: `Bearer ${key}` },
      Math.max(maxC, SCAN_CLIENTS + 1),
    );
    const servingDirs = [data.snapshotDir, path.join(data.runDir, 'serving-cache')];
    let engine: InProcessEngine | null = null;
    let overhead: PairedRun;
    try {
      opts.log(
        `page cache warmed: ${(warmPageCache(servingDirs) / 2 ** 30).toFixed(2)} GiB of serving databases and lookup stores`,
      );
      apiAnswers = await answers(probe, (q) => api.answer(q));
      await warmUp(opts, 'API', warmup, (q) => api.exec(q));
      apiRuns = await timedRuns(
        opts,
        'API',
        timed,
        (q) => api.exec(q),
        () => processCpuSeconds(server.pid),
      );
      apiScanLoad = await scanLoadRun(opts, 'API', scanLoad, (q) => api.exec(q));
      afterRun = processMemory(server.pid);

      // 2. The engine in-process, opened beside the idle server for the overhead run.
      opts.log('opening the engine in-process ...');
      const opened = (engine = await InProcessEngine.open(data.runDir));
      opened.prepare(queries);
      await warmUp(opts, 'engine', warmup, (q) => opened.exec(q));
      overhead = await overheadRun(opts, paired, api, opened);
    } catch (err) {
      engine?.close();
      throw err;
    } finally {
      await api.close();
      await server.stop();
    }
    const balanceAfter = await benchBalance(data.runDir);

    // 3. The engine's own runs, after the server is gone.
    let engineRuns: LoadRun[];
    let engineScanLoad: ScanLoadRun;
    try {
      warmPageCache(servingDirs);
      agreement['API vs engine'] = compare(apiAnswers, await answers(probe, (q) => engine.answer(q)), probe);
      engineRuns = await timedRuns(
        opts,
        'engine',
        timed,
        (q) => engine.exec(q),
        () => {
          const u = process.cpuUsage();
          return (u.user + u.system) / 1e6;
        },
      );
      engineScanLoad = await scanLoadRun(opts, 'engine', scanLoad, (q) => engine.exec(q));
      const { count, samples } = engine.plans;
      opts.log(`engine plans: ${count} searches and counts planned on the posting lists; for example:`);
      for (const s of samples) opts.log(`  ${s}`);
    } finally {
      engine.close();
    }

    // 4. The PostgreSQL peer through the same harness.
    let postgres: BenchResult['postgres'] = null;
    if (opts.peer === 'postgres') {
      const loaded = await ensurePgLoaded({
        url: opts.pgUrl,
        snapshotDir: data.snapshotDir,
        snapshotId: data.snapshotId,
        countries: workload.countries,
        scratchDir: path.join(opts.workDir, 'pg-scratch'),
        log: opts.log,
      });
      const peer = await spawnServer({
        args: ['--import', 'tsx', path.join(BENCH_ROOT, 'postgres', 'peer-server.ts')],
        env: {
          REGDATA_BENCH_PG_URL: opts.pgUrl,
          REGDATA_BENCH_PG_POOL: String(2 * Math.max(maxC, SCAN_CLIENTS + 1)),
        },
        port: await freePort(),
        logFile: path.join(data.runDir, 'peer.log'),
        readyTimeoutMs: 60_000,
      });
      const target = new HttpTarget(peer.url, {}, Math.max(maxC, SCAN_CLIENTS + 1));
      try {
        agreement['API vs PostgreSQL'] = compare(
          apiAnswers,
          await answers(probe, (q) => target.answer(q)),
          probe,
        );
        await warmUp(opts, 'PostgreSQL', warmup, (q) => target.exec(q));
        postgres = {
          version: loaded.version,
          load_seconds: loaded.loadSeconds,
          size_bytes: loaded.sizeBytes,
          reused: loaded.reused,
          runs: await timedRuns(
            opts,
            'PostgreSQL',
            timed,
            (q) => target.exec(q),
            () => null,
          ),
          scan_load: await scanLoadRun(opts, 'PostgreSQL', scanLoad, (q) => target.exec(q)),
        };
      } finally {
        await target.close();
        await peer.stop();
      }
    }
    for (const [k, a] of Object.entries(agreement)) {
      opts.log(`${k}: ${a.checked - a.differing}/${a.checked} answers identical`);
      for (const s of a.samples) opts.log(`  ${s}`);
    }

    const partial: Omit<BenchResult, 'targets'> = {
      run_at: runAt,
      commit,
      dirty_paths: dirty,
      machine: machine(),
      // The world's own scale and seed when its manifest names them (a --data-dir run knows no other).
      scale: worldOf(data.snapshotDir)?.scale ?? (opts.dataDir ? opts.scale : (opts.scale ?? 1)),
      seed: worldOf(data.snapshotDir)?.seed ?? opts.seed,
      snapshot_id: data.snapshotId,
      countries: workload.countries,
      requests: opts.requests,
      warmup: warmup.length,
      concurrency: opts.concurrency,
      max_seconds: opts.maxSeconds,
      api: {
        load_ms: loggedLoadMs(logFile),
        ready_ms: Math.round(server.readyMs),
        rss_after_load_bytes: afterLoad?.rss ?? null,
        rss_peak_bytes: afterRun?.peak ?? null,
        rss_after_run_bytes: afterRun?.rss ?? null,
        credits_spent:
          balanceBefore !== null && balanceAfter !== null
            ? Math.round((balanceBefore - balanceAfter) * 100) / 100
            : null,
        runs: apiRuns,
        scan_load: apiScanLoad,
      },
      engine: { load_ms: Math.round(engine.loadMs), runs: engineRuns, scan_load: engineScanLoad },
      overhead,
      postgres,
      agreement,
    };
    const result: BenchResult = { ...partial, targets: checkTargets(partial) };
    const file = opts.output ? writeResult(result, opts.output) : null;
    finished = true;
    return { result, markdown: markdown(result), file };
  } finally {
    // A failed run keeps its folder: the server and peer logs say why.
    if (finished) fs.rmSync(data.runDir, { recursive: true, force: true });
    else opts.log(`run folder kept for its logs: ${data.runDir}`);
  }
}

/** The scale and seed a synthetic world's manifests record, or null for real data. */
function worldOf(snapshotDir: string): { scale: number; seed: number } | null {
  for (const country of fs.readdirSync(snapshotDir)) {
    const file = path.join(snapshotDir, country, 'manifest.json');
    if (!fs.existsSync(file)) continue;
    const detail = (JSON.parse(fs.readFileSync(file, 'utf8')) as CountryManifest).source_detail;
    const { scale, seed } = detail as { scale?: unknown; seed?: unknown };
    if (typeof scale === 'number' && typeof seed === 'number') return { scale, seed };
  }
  return null;
}
