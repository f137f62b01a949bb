import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CountryCode } from '../contract/countries.ts';
import { buildServingDatabase } from './serving-build.ts';
import type { ServingThreadData } from './serving-build-thread.ts';

/*
 * The serving builds of several countries at once, each in a worker thread. Half of a build is its lookup
 * store, which better-sqlite3 fills from one JavaScript thread while DuckDB mostly waits: one build at a
 * time kept about 1.5 of the machine's 2 cores busy (docs/data-contract.md, "Publish time at scale 1").
 * Two builds side by side fill the other half. The memory limit given is shared: each of n builds gets
 * 1/n of it, so the process stays within what one build was allowed. Starting a worker costs about half a
 * second (it loads the build's modules afresh), so small inputs are built on the caller's thread, one after
 * the other.
 */

export interface ServingJob {
  dir: string;
  country: CountryCode;
}

export interface ServingPoolOptions {
  /** Builds at once (default 2); 1 builds one after the other, still off the caller's thread. */
  parallel?: number;
  /** DuckDB memory limit shared by the builds running at once (default '6GB'). */
  memoryLimit?: string;
  threads?: number;
  /** Below this many bytes of Parquet input in all, build on the caller's thread (default 256 MiB). */
  minParallelBytes?: number;
  /** A line per finished build. */
  log?: (msg: string) => void;
  /** A line per step of each build (buildServingDatabase's log). */
  steps?: (msg: string) => void;
}

const UNITS: Record<string, number> = {
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** A DuckDB size (`3GB`, `2500MiB`) divided by n, as whole megabytes DuckDB reads back. */
export function shareOfMemory(limit: string, n: number): string {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(limit.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`not a memory size: ${limit}`);
  return `${Math.max(1, Math.floor((Number(m[1]) * unit) / n / 1e6))}MB`;
}

/** What a build reads: its Parquet files' bytes, to start the longest builds first. */
function inputBytes(dir: string): number {
  let total = 0;
  for (const f of fs.readdirSync(dir))
    if (f.endsWith('.parquet')) total += fs.statSync(path.join(dir, f)).size;
  return total;
}

function runThread(data: ServingThreadData, log: (msg: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./serving-build-worker.mjs', import.meta.url), { workerData: data });
    let failed: unknown = null;
    worker.on('message', (m: { log?: string }) => {
      if (typeof m.log === 'string') log(m.log);
    });
    worker.on('error', (err) => (failed = err));
    worker.on('exit', (code) => {
      if (failed) reject(failed instanceof Error ? failed : new Error(String(failed)));
      else if (code !== 0)
        reject(new Error(`${data.country} serving build: worker exited with code ${code}`));
      else resolve();
    });
  });
}

/**
 * Builds every job's serving database and lookup store (buildServingDatabase), the largest inputs first,
 * `parallel` at a time in worker threads (one at a time on this thread when the inputs are small). When
 * one fails, no further build starts; those running finish, and the first failure is thrown.
 */
export async function buildServingDatabases(
  jobs: readonly ServingJob[],
  opts: ServingPoolOptions = {},
): Promise<void> {
  const log = opts.log ?? (() => {});
  const steps = opts.steps ?? (() => {});
  const sized = jobs.map((job) => ({ job, bytes: inputBytes(job.dir) }));
  const inThreads = sized.reduce((s, x) => s + x.bytes, 0) >= (opts.minParallelBytes ?? 256 * 2 ** 20);
  const parallel = inThreads ? Math.max(1, Math.min(opts.parallel ?? 2, jobs.length)) : 1;
  const threads = opts.threads !== undefined ? { threads: opts.threads } : {};
  const build = (job: ServingJob): Promise<unknown> =>
    inThreads
      ? runThread(
          { ...job, opts: { memoryLimit: shareOfMemory(opts.memoryLimit ?? '6GB', parallel), ...threads } },
          steps,
        )
      : buildServingDatabase(job.dir, job.country, {
          ...(opts.memoryLimit !== undefined && { memoryLimit: opts.memoryLimit }),
          ...threads,
          log: steps,
        });
  const queue = sized.sort((a, b) => b.bytes - a.bytes).map((x) => x.job);
  let failure: unknown = null;
  const lane = async () => {
    for (let job = queue.shift(); job && failure === null; job = queue.shift()) {
      const started = Date.now();
      try {
        await build(job);
        log(`${job.country}: serving database built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  if (failure !== null) throw failure;
}
