import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { CONTRACT_VERSION, SNAPSHOT_FILES, type CountryManifest } from '../../src/contract/data-contract.ts';
import { newSnapshotId, type SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { isLivePullStaging } from '../../src/contract/snapshot-transfer.ts';
import {
  computeSnapshotChecksums,
  manifestChecksums,
  SNAPSHOT_INFO_FILE,
  type SnapshotChecksums,
} from '../../src/contract/snapshot-checksums.ts';
import { loadReference } from '../reference/index.ts';
import type { CountryReference } from '../reference/types.ts';
import { auditCountry } from './audit.ts';
import { writePublishEvents, type WatchlistSource } from './events.ts';
import { STAGE_TABLES, writeCountry } from './write-country.ts';
import { RELEASE_FREED_MEMORY } from '../../src/engine/batch-sql.ts';
import { servingFingerprint } from '../../src/engine/serving-build.ts';
import { buildServingDatabases } from '../../src/engine/serving-build-pool.ts';
import { SERVING_FILES, servingFilesCurrent } from '../../src/engine/serving-files.ts';
import { servingCacheDir } from '../../src/engine/snapshot-loader.ts';

export interface StageResult {
  source: string;
  sourceDetail: Record<string, unknown>;
}

/** A country adapter: leaves stage_companies / stage_history / stage_workplaces in the connection. */
export type StageCountry = (
  conn: DuckDBConnection,
  country: CountryCode,
  reference: CountryReference,
) => Promise<StageResult>;

export interface PublishOptions {
  store: SnapshotStore;
  countries: readonly CountryCode[];
  stageCountry: StageCountry;
  label?: string;
  /** Make the new snapshot live once it passes the audit (default true). */
  promote?: boolean;
  /** Countries not staged are hard-linked from the live snapshot, so a partial ingest still serves all. */
  carryOver?: boolean;
  /** How many snapshots to keep on disk after promotion (the live one is always kept). */
  keep?: number;
  log?: (msg: string) => void;
  now?: () => Date;
  duckdb?: { memoryLimit?: string; threads?: number };
  /** Serving builds at once, sharing `duckdb.memoryLimit` (default 2; serving-build-pool.ts). */
  servingBuilds?: number;
  /**
   * The watchlists whose events this publish computes (issue 31; the wallet's, see events.ts). Absent: no
   * events.parquet is written, and the event feed of the written countries is empty.
   */
  watchlists?: WatchlistSource;
}

export interface PublishResult {
  snapshotId: string;
  manifests: CountryManifest[];
  carriedOver: CountryCode[];
}

export interface SnapshotInfo {
  snapshot_id: string;
  contract_version: string;
  created_at: string;
  countries: CountryCode[];
  /**
   * Size and SHA-256 of every file in the snapshot (derived serving files too), by relative path: what
   * `regdata snapshots pull|push` verifies a copy against. Absent in snapshots published before it.
   */
  files?: SnapshotChecksums;
}

/**
 * Write-audit-publish. The snapshot is written into a hidden `.partial-<id>` folder, every country is
 * audited, and only then is the folder renamed into place and (optionally) the `current` pointer swapped.
 * A crash at any point leaves at most a stray partial folder, never a half snapshot that could be promoted.
 */
export async function publishSnapshot(opts: PublishOptions): Promise<PublishResult> {
  const { store } = opts;
  const now = opts.now ?? (() => new Date());
  const snapshotId = newSnapshotId(opts.label, now());
  const p: Publish = {
    opts,
    store,
    log: opts.log ?? (() => {}),
    now,
    snapshotId,
    partialDir: path.join(store.snapshotsDir, `.partial-${snapshotId}`),
    liveAtStart: store.currentId(),
    memoryLimit: opts.duckdb?.memoryLimit ?? '6GB',
  };
  fs.mkdirSync(p.partialDir, { recursive: true });
  let manifests: CountryManifest[];
  let carried: CarriedOver;
  try {
    manifests = await writeCountries(p);
    carried = await carryOver(p);
    await buildServing(p, carried.toBuild);
    if (opts.watchlists) {
      await writePublishEvents({
        source: opts.watchlists,
        store,
        snapshotId,
        partialDir: p.partialDir,
        liveId: p.liveAtStart,
        countries: opts.countries,
        asOf: now().toISOString().slice(0, 10),
        memoryLimit: p.memoryLimit,
        log: p.log,
      });
    }
  } catch (err) {
    fs.rmSync(p.partialDir, { recursive: true, force: true });
    throw err;
  }
  await writeSnapshotInfo(p, carried);
  fs.renameSync(p.partialDir, store.snapshotDir(snapshotId));
  if (opts.promote ?? true) {
    store.promote(snapshotId);
    pruneSnapshots(store, opts.keep ?? 3);
  }
  return { snapshotId, manifests, carriedOver: carried.countries };
}

/** One publish: its options, where it writes, and the snapshot that was live when it started. */
interface Publish {
  opts: PublishOptions;
  store: SnapshotStore;
  log: (msg: string) => void;
  now: () => Date;
  snapshotId: string;
  partialDir: string;
  liveAtStart: string | null;
  memoryLimit: string;
}

/** Stages, writes and audits every country, one after the other, in one DuckDB instance. */
async function writeCountries(p: Publish): Promise<CountryManifest[]> {
  const { opts, log } = p;
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: p.memoryLimit,
    threads: String(opts.duckdb?.threads ?? 2),
    temp_directory: path.join(p.partialDir, '.duckdb-tmp'),
    // Adapters build list columns (people, activities) in file order and rely on DuckDB keeping it.
    preserve_insertion_order: 'true',
    ...RELEASE_FREED_MEMORY,
  });
  const conn = await instance.connect();
  const manifests: CountryManifest[] = [];
  try {
    for (const country of opts.countries) {
      const started = Date.now();
      const reference = loadReference(country);
      const staged = await opts.stageCountry(conn, country, reference);
      log(`${country}: staged in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const dir = path.join(p.partialDir, country);
      const manifest = await writeCountry(conn, {
        dir,
        snapshotId: p.snapshotId,
        country,
        reference,
        source: staged.source,
        sourceDetail: staged.sourceDetail,
        now: p.now(),
        ...(p.liveAtStart ? { previous: p.store.countryDir(p.liveAtStart, country) } : {}),
      });
      for (const t of Object.values(STAGE_TABLES)) {
        await conn.run(`DROP TABLE IF EXISTS ${t}`);
        await conn.run(`DROP VIEW IF EXISTS ${t}`);
      }
      await auditCountry(conn, dir, country, reference);
      manifests.push(manifest);
      log(
        `${country}: ${manifest.row_counts.companies} companies (${manifest.row_counts.companies_for_sale} for sale), ` +
          `${manifest.row_counts.history} history rows, ${manifest.row_counts.workplaces} workplaces, ` +
          `written and audited in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  fs.rmSync(path.join(p.partialDir, '.duckdb-tmp'), { recursive: true, force: true });
  return manifests;
}

/**
 * The engine's serving database of each written country, and of each carried-over one whose serving files
 * were not current (carryOver), built once here so that a server attaches it in seconds instead of
 * building it at load (src/engine/serving-build.ts). Built after the staging instance is closed, so the
 * two never hold memory at once; the builds run side by side and share its limit.
 */
async function buildServing(p: Publish, carried: readonly CountryCode[]): Promise<void> {
  const { opts } = p;
  await buildServingDatabases(
    [...opts.countries, ...carried].map((country) => ({ dir: path.join(p.partialDir, country), country })),
    {
      parallel: opts.servingBuilds ?? 2,
      memoryLimit: p.memoryLimit,
      ...(opts.duckdb?.threads !== undefined && { threads: opts.duckdb.threads }),
      log: p.log,
    },
  );
}

/** The countries a publish carried over, and those of them that get serving files of their own. */
interface CarriedOver {
  /** The live snapshot they came from. */
  from: string | null;
  countries: CountryCode[];
  /** Serving files to build in the new folder (buildServing). */
  toBuild: CountryCode[];
  /** Serving files that are not the live snapshot's: built here, or linked from the engine's cache. */
  renewed: CountryCode[];
}

/**
 * Countries not written are hard-linked from the live snapshot (carryOver), so a partial ingest serves all.
 * A published snapshot carries current serving files for every country, so that no server builds them at
 * load: a country whose files are not current (published before a serving layout change, or without them;
 * the loader's own test, attachIfCurrent) gets new ones in the new folder: linked from the engine's cache
 * of the live snapshot when a server already built them there, otherwise built with the written countries.
 * Its old serving files are not linked, so the new ones are new files and a file the older snapshots
 * share is never written.
 */
async function carryOver(p: Publish): Promise<CarriedOver> {
  const liveId = p.store.currentId();
  const out: CarriedOver = { from: liveId, countries: [], toBuild: [], renewed: [] };
  if (!p.opts.carryOver || !liveId) return out;
  for (const country of COUNTRY_CODES) {
    if (p.opts.countries.includes(country)) continue;
    const from = p.store.countryDir(liveId, country);
    if (!fs.existsSync(from)) continue;
    const to = path.join(p.partialDir, country);
    fs.mkdirSync(to);
    // The fingerprint is the same in both folders: the same manifest and Parquet files. A folder without a
    // manifest is no country the engine serves, and is carried over as it is.
    const served = fs.existsSync(path.join(from, SNAPSHOT_FILES.manifest));
    const fingerprint = served ? servingFingerprint(from) : '';
    const current = !served || (await servingFilesCurrent(from, fingerprint));
    // Hard links: the carried-over files are immutable, so sharing inodes costs no space and no copy time.
    // Serving files that are not current are left behind, with any leftovers of a build beside them.
    for (const f of fs.readdirSync(from)) {
      if (current || !SERVING_FILES.some((s) => f.startsWith(s))) {
        fs.linkSync(path.join(from, f), path.join(to, f));
      }
    }
    out.countries.push(country);
    if (current) continue;
    out.renewed.push(country);
    const cached = path.join(servingCacheDir(p.store, liveId), country);
    const started = performance.now();
    if (await servingFilesCurrent(cached, fingerprint)) {
      // A cache file is never written after its build either (built under a temporary name, renamed).
      for (const f of SERVING_FILES) linkOrCopy(path.join(cached, f), path.join(to, f));
      p.log(
        `${country}: carried over with the serving files the engine built for ${liveId} ` +
          `(checked and linked in ${(performance.now() - started).toFixed(0)} ms)`,
      );
    } else {
      out.toBuild.push(country);
      p.log(`${country}: carried over; its serving files are not current and are built anew`);
    }
  }
  return out;
}

/**
 * A hard link, or a copy where the cache is on another file system (EXDEV) or is the server's files that
 * the publishing user may not link (EPERM under fs.protected_hardlinks).
 */
function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM') throw err;
    fs.copyFileSync(from, to);
  }
}

/**
 * snapshot.json with every file's checksum. Contract files were hashed into their manifests as they were
 * written, and carried-over files (the same inodes) in the live snapshot's snapshot.json: only the rest is
 * read again here.
 */
async function writeSnapshotInfo(p: Publish, carried: CarriedOver): Promise<void> {
  const known: SnapshotChecksums = { ...manifestChecksums(p.partialDir) };
  const liveId = carried.from;
  if (carried.countries.length > 0 && liveId) {
    let liveFiles: SnapshotChecksums = {};
    try {
      liveFiles = readSnapshotInfo(p.store, liveId).files ?? {};
    } catch {
      // A live snapshot without a readable snapshot.json: its carried-over files are simply hashed again.
    }
    for (const [rel, sum] of Object.entries(liveFiles)) {
      const [country = '', name = ''] = rel.split('/');
      const is = (list: readonly string[]) => list.includes(country);
      // Renewed serving files are not the live ones, though a size may well be the same.
      const renewed = is(carried.renewed) && SERVING_FILES.some((f) => name.startsWith(f));
      if (is(carried.countries) && !renewed) known[rel] = sum;
    }
  }
  const info: SnapshotInfo = {
    snapshot_id: p.snapshotId,
    contract_version: CONTRACT_VERSION,
    created_at: p.now().toISOString(),
    countries: COUNTRY_CODES.filter((c) => fs.existsSync(path.join(p.partialDir, c))),
    files: await computeSnapshotChecksums(p.partialDir, known),
  };
  fs.writeFileSync(path.join(p.partialDir, SNAPSHOT_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
}

/**
 * A partial folder untouched this long belongs to a killed run: a national-scale publish writes into its
 * folder every few minutes, so a live one is never this old.
 */
export const STALE_PARTIAL_MS = 60 * 60 * 1000;

/**
 * Keeps the newest `keep` snapshots plus the live one; removes older ones and the `.partial-*` folders
 * killed runs left behind. Returns the snapshot ids and partial folder names removed.
 */
export function pruneSnapshots(store: SnapshotStore, keep: number, now: Date = new Date()): string[] {
  const live = store.currentId();
  const ids = store.list();
  const doomed = ids.slice(0, Math.max(0, ids.length - keep)).filter((id) => id !== live);
  for (const id of doomed) fs.rmSync(store.snapshotDir(id), { recursive: true, force: true });
  const stale = fs.existsSync(store.snapshotsDir)
    ? fs
        .readdirSync(store.snapshotsDir)
        .filter((name) => name.startsWith('.partial-') && !isLivePullStaging(name))
        .filter((name) => {
          const dir = path.join(store.snapshotsDir, name);
          return now.getTime() - fs.statSync(dir).mtimeMs > STALE_PARTIAL_MS;
        })
    : [];
  for (const name of stale) fs.rmSync(path.join(store.snapshotsDir, name), { recursive: true, force: true });
  return [...doomed, ...stale];
}

export function readSnapshotInfo(store: SnapshotStore, id: string): SnapshotInfo {
  return JSON.parse(
    fs.readFileSync(path.join(store.snapshotDir(id), 'snapshot.json'), 'utf8'),
  ) as SnapshotInfo;
}
