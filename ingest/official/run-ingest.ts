import type { WatchlistSource } from '../pipeline/events.ts';
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import type { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { publishSnapshot, type PublishResult } from '../pipeline/publish.ts';
import { queryRows, quoteIdent } from '../pipeline/sql.ts';
import type { CountryReference } from '../reference/types.ts';
import { ADAPTERS } from './adapters.ts';
import { downloadSources, type DownloadOptions } from './download.ts';
import { DataProblem, InputFolderError, NothingSellableError, RowCountDropError } from './errors.ts';
import type { UnpackLimits } from './input-limits.ts';
import type { IngestReport } from './report.ts';
import { openSources, planSources, REQUIRE_NONE, type RequireSpec, type SourcePlan } from './sources.ts';
import { createStageContext } from './stage-context.ts';
import type { CountryAdapter } from './types.ts';

export const DEFAULT_MAX_DROP_PCT = 10;

export interface IngestOptions {
  store: SnapshotStore;
  countries: readonly CountryCode[];
  /** Read the official files from this folder (per-country subfolders `EE/`, `LV/`... or the files directly). */
  from?: string;
  /** Without `from`: where downloads are kept between runs (resumable); default `<data>/downloads`. */
  downloadDir?: string;
  download?: Omit<DownloadOptions, 'report' | 'now'>;
  label?: string;
  promote?: boolean;
  /** Accept a country with no company for sale, or one that lost more than the drop guard allows. */
  allowDrop?: boolean;
  maxDropPct?: number;
  /** Enrichment files that must be present (`--require`); by default only the principal file is. */
  require?: RequireSpec;
  keep?: number;
  report: IngestReport;
  now?: () => Date;
  duckdb?: { memoryLimit?: string; threads?: number };
  /** Caps on unpacking a `.zip` or `.gz` (REGDATA_INGEST_MAX_UNZIPPED_BYTES, _MAX_UNZIP_RATIO). */
  unpack?: UnpackLimits;
  /** Serving builds at once (publishSnapshot's servingBuilds). */
  servingBuilds?: number;
  adapters?: Partial<Record<CountryCode, CountryAdapter>>;
  /** The watchlists whose events the publish computes (issue 31); absent: none. */
  watchlists?: WatchlistSource;
}

/** Another ingest holds the data folder. */
export class IngestLockedError extends DataProblem {
  override readonly name = 'IngestLockedError';
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One ingest at a time per data folder: a nightly run that overlaps a slow previous one would otherwise
 * stage twice the data. The lock names its pid, so a lock left by a killed run is taken over.
 */
function acquireLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = path.join(dataDir, '.ingest.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && pidAlive(holder)) {
        throw new IngestLockedError(`another ingest (pid ${holder}) is running on ${dataDir}`);
      }
      fs.rmSync(lock, { force: true });
    }
  }
  throw new IngestLockedError(`could not take ${lock}`);
}

/** Scratch folders of killed runs (`.ingest-work-<pid>`) are removed when their process is gone. */
function removeStaleWorkDirs(dataDir: string): void {
  for (const name of fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : []) {
    const m = /^\.ingest-work-(\d+)$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) {
      fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    }
  }
}

/** Companies for sale per country in the live snapshot: the drop guard's baseline. */
function liveCompanyCounts(store: SnapshotStore): Map<CountryCode, number> {
  const counts = new Map<CountryCode, number>();
  const live = store.currentId();
  if (!live) return counts;
  for (const country of COUNTRY_CODES) {
    const file = store.file(live, country, 'manifest');
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as CountryManifest;
    counts.set(country, manifest.row_counts.companies_for_sale ?? manifest.row_counts.companies);
  }
  return counts;
}

async function countStaged(conn: DuckDBConnection, table: string, where = 'true'): Promise<number> {
  return Number(
    (await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM ${table} WHERE ${where}`))[0]?.['n'] ?? 0,
  );
}

/**
 * Drops every table an adapter made except the stage tables: the pipeline drops only those, and the raw
 * tables of one country would otherwise hold memory while the next one is read.
 */
async function dropScratchTables(conn: DuckDBConnection): Promise<void> {
  const tables = await queryRows(
    conn,
    `SELECT table_name, temporary FROM duckdb_tables() WHERE table_name NOT IN ('stage_companies', 'stage_history', 'stage_workplaces')`,
  );
  for (const t of tables) {
    await conn.run(
      `DROP TABLE IF EXISTS ${t['temporary'] ? 'temp.' : ''}${quoteIdent(String(t['table_name']))}`,
    );
  }
}

function sourceDirFor(base: string, country: CountryCode, single: boolean): string {
  const sub = path.join(base, country);
  if (fs.existsSync(sub) && fs.statSync(sub).isDirectory()) return sub;
  // One country from a flat folder (the files themselves) is fine; several need a folder each.
  return single ? base : sub;
}

/** Downloads (or finds in `opts.from`) every country's files: the folder each country is read from. */
async function fetchSources(
  opts: IngestOptions,
  adapters: Partial<Record<CountryCode, CountryAdapter>>,
  runStarted: Date,
): Promise<Map<CountryCode, string>> {
  const sourceDirs = new Map<CountryCode, string>();
  for (const country of opts.countries) {
    const adapter = adapters[country];
    if (!adapter) throw new Error(`no ingest adapter for ${country}`);
    if (opts.from) {
      sourceDirs.set(country, sourceDirFor(opts.from, country, opts.countries.length === 1));
    } else {
      const dir = path.join(opts.downloadDir ?? path.join(opts.store.dataDir, 'downloads'), country);
      await downloadSources(country, adapter.files, dir, {
        ...opts.download,
        report: opts.report,
        now: runStarted,
      });
      sourceDirs.set(country, dir);
    }
  }
  return sourceDirs;
}

/** Every country's folder is checked before the first one is staged, so one run names every problem. */
async function planAll(
  opts: IngestOptions,
  adapters: Partial<Record<CountryCode, CountryAdapter>>,
  sourceDirs: Map<CountryCode, string>,
): Promise<Map<CountryCode, SourcePlan>> {
  const plans = new Map<CountryCode, SourcePlan>();
  const problems: string[] = [];
  for (const [country, dir] of sourceDirs) {
    const { plan, problems: found } = await planSources(
      country,
      dir,
      adapters[country]!.files,
      opts.require ?? REQUIRE_NONE,
      opts.unpack,
    );
    plans.set(country, plan);
    problems.push(...found);
    for (const file of plan.missing) {
      opts.report.missingFile({ country, key: file.key, title: file.title, adds: file.adds ?? file.title });
    }
  }
  if (problems.length) throw new InputFolderError(problems);
  return plans;
}

/** What staging a country needs besides the connection: the run's plans, baselines and scratch root. */
interface StageRun {
  opts: IngestOptions;
  adapters: Partial<Record<CountryCode, CountryAdapter>>;
  plans: Map<CountryCode, SourcePlan>;
  liveCounts: Map<CountryCode, number>;
  workRoot: string;
  runStarted: Date;
}

/** DuckDB tracks query progress only with the progress bar on; printing stays off (we draw our own). */
async function probeProgress(conn: DuckDBConnection, report: IngestReport): Promise<void> {
  await conn.run('SET enable_progress_bar = true');
  await conn.run('SET enable_progress_bar_print = false');
  report.setProbe(() => {
    const p = conn.progress.percentage;
    return p >= 0 ? p / 100 : null;
  });
}

/**
 * Counts what the adapter staged and applies the guards: a non-empty input that sells nothing is a
 * reading problem (a renamed column, every row rejected on a join), never a register that emptied
 * overnight, and promoting it would blank the country; a fall beyond the drop guard is refused too.
 */
async function checkStaged(
  conn: DuckDBConnection,
  country: CountryCode,
  run: StageRun,
): Promise<{ companies: number; history: number }> {
  const companies = await countStaged(conn, 'stage_companies');
  const forSale = await countStaged(conn, 'stage_companies', 'NOT not_for_sale');
  const history = await countStaged(conn, 'stage_history');
  await dropScratchTables(conn);
  const { allowDrop } = run.opts;
  const maxDropPct = run.opts.maxDropPct ?? DEFAULT_MAX_DROP_PCT;
  if (forSale === 0 && !allowDrop) throw new NothingSellableError(country, companies);
  const live = run.liveCounts.get(country);
  if (live && !allowDrop && forSale < live * (1 - maxDropPct / 100)) {
    throw new RowCountDropError(country, live, forSale, maxDropPct);
  }
  return { companies, history };
}

/** The pipeline's stageCountry: opens the country's files, runs its adapter, checks and reports. */
async function stageOfficialCountry(
  conn: DuckDBConnection,
  country: CountryCode,
  reference: CountryReference,
  run: StageRun,
): Promise<{ source: string; sourceDetail: Record<string, unknown> }> {
  const { report } = run.opts;
  const adapter = run.adapters[country];
  const plan = run.plans.get(country);
  if (!adapter || !plan) throw new Error(`no ingest adapter for ${country}`);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  await probeProgress(conn, report);
  const workDir = path.join(run.workRoot, country);
  try {
    const sources = await openSources(plan, workDir, report, run.opts.unpack);
    const result = await adapter.stage(
      createStageContext({ conn, country, sources, reference, report, now: run.runStarted, workDir }),
    );
    const counts = await checkStaged(conn, country, run);
    report.country({ country, ...counts, seconds: seconds(), status: 'staged' });
    return {
      source: 'official-files',
      sourceDetail: {
        ...result.sourceDetail,
        ...report.detailFor(country),
        from: run.opts.from ? path.resolve(plan.dir) : 'download',
      },
    };
  } catch (err) {
    report.country({ country, companies: 0, history: 0, seconds: seconds(), status: 'failed' });
    throw err;
  } finally {
    report.setProbe(null);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * The nightly ingest: official files (downloaded, or from a folder) → country adapters → stage tables →
 * write-audit-publish. Countries not ingested are carried over from the live snapshot, so the new one is
 * complete. A country whose file is broken, whose rows fall by more than the drop guard allows, or whose
 * audit fails aborts the whole run before anything is promoted.
 */
export async function runIngest(opts: IngestOptions): Promise<PublishResult> {
  const { store, report } = opts;
  const now = opts.now ?? (() => new Date());
  const adapters = opts.adapters ?? ADAPTERS;
  const release = acquireLock(store.dataDir);
  removeStaleWorkDirs(store.dataDir);
  const workRoot = path.join(store.dataDir, `.ingest-work-${process.pid}`);
  const liveCounts = liveCompanyCounts(store);
  const runStarted = now();
  try {
    const sourceDirs = await fetchSources(opts, adapters, runStarted);
    const plans = await planAll(opts, adapters, sourceDirs);
    const run: StageRun = { opts, adapters, plans, liveCounts, workRoot, runStarted };
    const result = await publishSnapshot({
      store,
      countries: opts.countries,
      stageCountry: (conn, country, reference) => stageOfficialCountry(conn, country, reference, run),
      label: opts.label ?? 'ingest',
      promote: opts.promote ?? true,
      carryOver: true,
      keep: opts.keep ?? 3,
      log: (msg) => report.progress.message(msg),
      now,
      duckdb: { memoryLimit: opts.duckdb?.memoryLimit ?? '3GB', threads: opts.duckdb?.threads ?? 2 },
      ...(opts.servingBuilds !== undefined && { servingBuilds: opts.servingBuilds }),
      ...(opts.watchlists && { watchlists: opts.watchlists }),
    });
    for (const m of result.manifests) {
      report.country({
        country: m.country,
        companies: m.row_counts.companies,
        history: m.row_counts.history,
        seconds: report.countries.get(m.country)?.seconds ?? 0,
        status: 'written',
      });
    }
    return result;
  } finally {
    fs.rmSync(workRoot, { recursive: true, force: true });
    release();
  }
}
