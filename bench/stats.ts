import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { SEARCH_CLASSES, type BenchQuery } from './workload.ts';

/** Latency figures of one group of requests, in milliseconds; throughput in requests per second. */
export interface Figures {
  n: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
  rps: number;
}

/** Groups a request is counted in: overall, its class, the search mix, its country, country x class. */
export function groupsOf(q: BenchQuery): string[] {
  const groups = ['all', `class:${q.cls}`, `country:${q.country}`, `country:${q.country}/class:${q.cls}`];
  if (SEARCH_CLASSES.includes(q.cls)) groups.push('mix:search', `country:${q.country}/mix:search`);
  return groups;
}

/**
 * A percentile as HDR reports it is the highest value of its bucket, which can lie above the largest value
 * recorded (a p99 of 12.351 ms over a max of 12.345 ms); no percentile is above the maximum.
 */
export function pct(h: Histogram, percentile: number): number {
  return Math.min(h.getValueAtPercentile(percentile), h.maxValue);
}

/** An HDR histogram of latencies in microseconds (up to 10 minutes, 3 significant digits). */
export function latencyHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** HDR histograms (microsecond resolution, 3 significant digits) per group. */
export class Recorder {
  private readonly histograms = new Map<string, Histogram>();
  private readonly errors = new Map<string, number>();

  record(q: BenchQuery, micros: number, ok: boolean): void {
    for (const g of groupsOf(q)) {
      let h = this.histograms.get(g);
      if (!h) {
        h = latencyHistogram();
        this.histograms.set(g, h);
      }
      h.recordValue(Math.max(1, Math.round(micros)));
      if (!ok) this.errors.set(g, (this.errors.get(g) ?? 0) + 1);
    }
  }

  /** Figures per group; throughput is each group's requests over the whole run's wall time. */
  figures(wallSeconds: number): Record<string, Figures> {
    const out: Record<string, Figures> = {};
    const ms = (us: number) => Math.round(us) / 1000;
    for (const [g, h] of [...this.histograms].sort(([a], [b]) => a.localeCompare(b))) {
      out[g] = {
        n: h.totalCount,
        errors: this.errors.get(g) ?? 0,
        p50: ms(pct(h, 50)),
        p95: ms(pct(h, 95)),
        p99: ms(pct(h, 99)),
        max: ms(h.maxValue),
        mean: ms(h.mean),
        rps: wallSeconds > 0 ? Math.round((h.totalCount / wallSeconds) * 10) / 10 : 0,
      };
    }
    return out;
  }
}

/**
 * Sends one request and records its time, which it returns (µs); a status other than the expected one is
 * an error (still timed), and the first five errors are kept as samples for the report.
 */
async function timedRequest(
  q: BenchQuery,
  exec: (q: BenchQuery) => Promise<number>,
  recorder: Recorder,
  errorSamples: string[],
): Promise<number> {
  const t0 = performance.now();
  let status: number;
  try {
    status = await exec(q);
  } catch (err) {
    status = -1;
    if (errorSamples.length < 5) errorSamples.push(`#${q.id} ${q.cls} ${q.country}: ${String(err)}`);
  }
  const micros = (performance.now() - t0) * 1000;
  const ok = status === q.expect;
  if (!ok && status !== -1 && errorSamples.length < 5) {
    errorSamples.push(`#${q.id} ${q.cls} ${q.country}: status ${status}, expected ${q.expect}`);
  }
  recorder.record(q, micros, ok);
  return micros;
}

export interface LoadRun {
  concurrency: number;
  /** Requests sent (fewer than the workload when the time cap stopped the run). */
  requests: number;
  wallSeconds: number;
  /** True when the time cap ended the run before the workload did. */
  capped: boolean;
  groups: Record<string, Figures>;
  /** The first few unexpected answers, for the report. */
  errorSamples: string[];
  /**
   * Where the CPU went during the run (Linux): the target's own CPU seconds (the server process, or the
   * harness process for the in-process engine; null for a target whose processes are not ours), and the
   * share of the whole machine's CPU time that was busy (all processes, the load generator included).
   */
  cpu?: { target_seconds: number | null; machine_busy_share: number | null };
}

/**
 * A closed-loop load: `concurrency` workers take the next request of the workload as soon as their previous
 * one is answered, until the workload or the time cap runs out. `exec` returns the answer's status; a status
 * other than the request's expected one counts as an error (and is still timed).
 */
export async function runLoad(
  queries: readonly BenchQuery[],
  concurrency: number,
  maxSeconds: number,
  exec: (q: BenchQuery) => Promise<number>,
): Promise<LoadRun> {
  const recorder = new Recorder();
  const errorSamples: string[] = [];
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  let next = 0;
  let capped = false;
  const worker = async () => {
    while (next < queries.length) {
      if (performance.now() > deadline) {
        capped = true;
        return;
      }
      await timedRequest(queries[next++] as BenchQuery, exec, recorder, errorSamples);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallSeconds = (performance.now() - started) / 1000;
  return {
    concurrency,
    requests: Math.min(next, queries.length),
    wallSeconds: Math.round(wallSeconds * 100) / 100,
    capped,
    groups: recorder.figures(wallSeconds),
    errorSamples,
  };
}

/** The "lookups under scan load" run: one client's lookups while other clients send only heavy searches. */
export interface ScanLoadRun {
  /** Clients sending heavy searches the whole time. */
  scanClients: number;
  /** The lookups (detail, history, and their 404s), sent one at a time by one more client. */
  lookups: LoadRun;
  /** The heavy searches sent meanwhile (each client cycles through the list). */
  scans: LoadRun;
}

/**
 * One client sends `lookups` one after the other while `scanClients` clients send only `heavy` searches,
 * cycling through them, until the lookups are done (or the time cap). What it measures is whether a
 * lookup waits behind scans: the lookups' latencies, with the scan clients' figures beside them.
 */
export async function runUnderScanLoad(
  lookups: readonly BenchQuery[],
  heavy: readonly BenchQuery[],
  scanClients: number,
  maxSeconds: number,
  exec: (q: BenchQuery) => Promise<number>,
): Promise<ScanLoadRun> {
  let done = false;
  let next = 0;
  const scanRecorder = new Recorder();
  const scanErrors: string[] = [];
  const started = performance.now();
  const scanner = async () => {
    while (!done && heavy.length > 0) {
      await timedRequest(heavy[next++ % heavy.length] as BenchQuery, exec, scanRecorder, scanErrors);
      // A search the planner answers from cached posting lists never leaves the microtask queue in
      // process; without a turn of the event loop between requests (a real client's network turn) the
      // scan clients would starve the lookups' timers forever.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const scanning = Promise.all(Array.from({ length: scanClients }, scanner));
  let lookupRun: LoadRun;
  try {
    // Let the scans start before the first lookup, so every lookup meets the load.
    await new Promise((resolve) => setTimeout(resolve, 50));
    lookupRun = await runLoad(lookups, 1, maxSeconds, exec);
  } finally {
    done = true;
    await scanning;
  }
  const wallSeconds = (performance.now() - started) / 1000;
  return {
    scanClients,
    lookups: lookupRun,
    scans: {
      concurrency: scanClients,
      requests: next,
      wallSeconds: Math.round(wallSeconds * 100) / 100,
      capped: lookupRun.capped,
      groups: scanRecorder.figures(wallSeconds),
      errorSamples: scanErrors,
    },
  };
}

/**
 * The overhead run: one request at a time, in blocks of PAIRED_BLOCK requests that each target answers
 * in turn (which goes first alternates), so that both sides of "API minus engine" meet the same machine.
 * Measured in separate phases minutes apart, the difference of the two p50s moved by ±0.1 ms with the
 * host's load while each side's own work stayed the same; alternating every request instead made both
 * sides 0.1-0.2 ms slower, each meeting the caches the other process had just left cold (bench/README.md
 * "What it measures").
 */
export interface PairedRun {
  requests: number;
  wallSeconds: number;
  /** Requests per block. */
  block: number;
  /** Each side's figures over the same requests. */
  first: Record<string, Figures>;
  second: Record<string, Figures>;
  /** The median of the per-request differences (first minus second), in ms, per group. */
  median_difference: Record<string, number>;
  /** Answers of either side with another status than expected (a request failed on both counts twice). */
  errors: number;
  errorSamples: string[];
}

export const PAIRED_BLOCK = 50;

export async function runPaired(
  queries: readonly BenchQuery[],
  maxSeconds: number,
  first: (q: BenchQuery) => Promise<number>,
  second: (q: BenchQuery) => Promise<number>,
  block = PAIRED_BLOCK,
): Promise<PairedRun> {
  const recorders = [new Recorder(), new Recorder()] as const;
  const errorSamples: [string[], string[]] = [[], []];
  const execs = [first, second] as const;
  const micros: [number[], number[]] = [[], []];
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  let requests = 0;
  for (let at = 0, k = 0; at < queries.length && performance.now() <= deadline; at += block, k++) {
    const list = queries.slice(at, at + block);
    for (const side of k % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      for (const [i, q] of list.entries()) {
        micros[side][at + i] = await timedRequest(q, execs[side], recorders[side], errorSamples[side]);
      }
    }
    requests += list.length;
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const differences = new Map<string, number[]>();
  for (const [i, q] of queries.slice(0, requests).entries()) {
    for (const g of groupsOf(q)) {
      let list = differences.get(g);
      if (!list) differences.set(g, (list = []));
      list.push((micros[0][i] as number) - (micros[1][i] as number));
    }
  }
  const median_difference: Record<string, number> = {};
  for (const [g, list] of [...differences].sort(([a], [b]) => a.localeCompare(b))) {
    list.sort((a, b) => a - b);
    const mid = list.length >> 1;
    const m =
      list.length % 2 ? (list[mid] as number) : ((list[mid - 1] as number) + (list[mid] as number)) / 2;
    median_difference[g] = Math.round(m) / 1000;
  }
  const first_ = recorders[0].figures(wallSeconds);
  const second_ = recorders[1].figures(wallSeconds);
  return {
    requests,
    wallSeconds: Math.round(wallSeconds * 100) / 100,
    block,
    first: first_,
    second: second_,
    median_difference,
    errors: (first_['all']?.errors ?? 0) + (second_['all']?.errors ?? 0),
    errorSamples: [...errorSamples[0], ...errorSamples[1]],
  };
}
