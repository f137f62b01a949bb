import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { CountJsonObject, refineJsonFilters, toCountParams } from '../../src/contract/api-schemas.ts';
import type { CountryCode } from '../../src/contract/countries.ts';
import {
  CHANGE_DIFF_TYPE,
  EVENT_COLUMNS,
  SNAPSHOT_FILES,
  columnList,
} from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import type { LoadedSnapshot } from '../../src/engine/loaded-snapshot.ts';
import { buildExportQuery } from '../../src/engine/query-builder.ts';
import { sqlString } from '../../src/engine/serving-build.ts';
import { loadSnapshot } from '../../src/engine/snapshot-loader.ts';
import type { PublishWatchlist } from '../../src/watchlists/watchlists.ts';
import { sqlPath } from './sql.ts';

/**
 * The watchlist events of a publish (issue 31), computed once here and written with the snapshot as
 * `<CC>/events.parquet`, so replicas only deliver them. One event per account and company: a company on
 * three of an account's watchlists is one event listing the three, sent and charged once.
 *
 * - A list of companies: every change of this publish (changes.parquet) to a company on it.
 * - A saved search: evaluated by the engine on the live snapshot and on the new one; a company in only
 *   one is `left` or `entered`, one in both is an event when it changed.
 *
 * Each snapshot carries the events of the last EVENT_RETENTION_DAYS (the live one's plus its own), like
 * the change history, so a replica that pulls a snapshot has every event a client may still ask for.
 */

export const EVENT_RETENTION_DAYS = 30;
export const EVENTS_META_FILE = SNAPSHOT_FILES.eventsMeta;

/** What a publish reads of the watchlists (the wallet's Watchlists, or a test's own). */
export interface WatchlistSource {
  forPublish(countries: readonly CountryCode[]): Promise<PublishWatchlist[]>;
  members(country: CountryCode): AsyncIterable<{ watchlistId: string; registrikood: string }[]>;
}

export interface EventSummary {
  /** Events of this publish. */
  events: number;
  /** The first day the kept events cover. */
  since: string;
  watchlists: number;
}

/** The engine's two views a saved search is evaluated on: the live snapshot (when any) and the new one. */
export interface SearchViews {
  before: LoadedSnapshot | null;
  after: LoadedSnapshot;
  /** A folder both may write their member lists to. */
  scratch: string;
}

/**
 * Opens the two snapshots for saved searches: the new one from its partial folder (it is not in the store
 * yet), the live one as it is. Null when no saved search needs them.
 */
export async function openSearchViews(input: {
  store: SnapshotStore;
  snapshotId: string;
  partialDir: string;
  liveId: string | null;
  memoryLimit: string;
}): Promise<SearchViews> {
  const { store, snapshotId, partialDir } = input;
  const scratch = path.join(partialDir, '.events-tmp');
  fs.mkdirSync(scratch, { recursive: true });
  // The new snapshot's id is valid, but its folder is still the partial one.
  const view = new (class extends SnapshotStore {
    override snapshotDir(id: string): string {
      return id === snapshotId ? partialDir : super.snapshotDir(id);
    }
  })(store.dataDir);
  const opts = {
    memoryLimit: input.memoryLimit,
    connections: 1,
    plannerThreads: 0,
    exportDirectory: scratch,
  };
  const after = await loadSnapshot(view, snapshotId, opts);
  const before = input.liveId ? await loadSnapshot(store, input.liveId, opts) : null;
  return { before, after, scratch };
}

export function closeSearchViews(views: SearchViews | null): void {
  views?.before?.retire();
  views?.after.retire();
  if (views) fs.rmSync(views.scratch, { recursive: true, force: true });
}

/** A saved search's members on one snapshot, written as Parquet (one column, registrikood). */
async function writeMembers(snap: LoadedSnapshot, wl: PublishWatchlist, file: string): Promise<boolean> {
  const parsed = CountJsonObject.superRefine(refineJsonFilters)
    .transform(toCountParams)
    .safeParse({ ...wl.search, country: wl.country });
  if (!parsed.success || !snap.countries.includes(wl.country)) return false;
  const q = buildExportQuery(
    { ...parsed.data, sort_by: 'registrikood', sort_dir: 'asc' },
    snap.context(wl.country),
    ['registrikood'],
    Number.MAX_SAFE_INTEGER,
  );
  await snap.query('events', `COPY (${q.sql}) TO ${sqlString(file)} (FORMAT parquet)`, q.params, 1, false);
  return true;
}

async function loadWatchlists(
  conn: DuckDBConnection,
  watchlists: readonly PublishWatchlist[],
  members: AsyncIterable<{ watchlistId: string; registrikood: string }[]>,
): Promise<void> {
  await conn.run('CREATE OR REPLACE TABLE wl (id VARCHAR, account_id VARCHAR)');
  await conn.run('CREATE OR REPLACE TABLE wl_codes (watchlist_id VARCHAR, registrikood VARCHAR)');
  const wl = await conn.createAppender('wl');
  for (const w of watchlists) {
    wl.appendVarchar(w.id);
    wl.appendVarchar(w.accountId);
    wl.endRow();
  }
  wl.closeSync();
  const codes = await conn.createAppender('wl_codes');
  for await (const page of members) {
    for (const m of page) {
      codes.appendVarchar(m.watchlistId);
      codes.appendVarchar(m.registrikood);
      codes.endRow();
    }
  }
  codes.closeSync();
}

/** The saved searches' members before and after, as tables wl_before and wl_after. */
async function loadSearchMembers(
  conn: DuckDBConnection,
  searches: readonly PublishWatchlist[],
  views: SearchViews | null,
): Promise<void> {
  const empty = (t: string) =>
    conn.run(`CREATE OR REPLACE TABLE ${t} (watchlist_id VARCHAR, registrikood VARCHAR)`);
  await empty('wl_before');
  await empty('wl_after');
  if (!views || searches.length === 0) return;
  for (const [side, snap] of [
    ['before', views.before],
    ['after', views.after],
  ] as const) {
    if (!snap) continue;
    for (const wl of searches) {
      const file = path.join(views.scratch, `${side}-${wl.id}.parquet`);
      // A search the snapshot cannot answer (a filter the country lacks there) has no members there.
      if (!(await writeMembers(snap, wl, file))) continue;
      await conn.run(`INSERT INTO wl_${side} SELECT ?, registrikood FROM read_parquet(${sqlPath(file)})`, [
        wl.id,
      ]);
    }
  }
}

export interface EventInput {
  country: CountryCode;
  snapshotId: string;
  asOf: string;
  /** The new country folder: its changes.parquet is read, events.parquet and events.json written. */
  dir: string;
  /** The live snapshot's country folder, when there is one. */
  previousDir: string | null;
  watchlists: readonly PublishWatchlist[];
  members: AsyncIterable<{ watchlistId: string; registrikood: string }[]>;
  views: SearchViews | null;
}

/** Writes the country's events.parquet: the kept events plus this publish's. */
export async function writeEvents(input: EventInput): Promise<EventSummary> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await instance.connect();
  try {
    await loadWatchlists(conn, input.watchlists, input.members);
    // Without the country in the live snapshot there is no "before": nothing entered or left.
    const views =
      input.previousDir && input.views?.before?.countries.includes(input.country) ? input.views : null;
    await loadSearchMembers(
      conn,
      input.watchlists.filter((w) => w.kind === 'search'),
      views,
    );
    const since = keptSince(input);
    const out = path.join(input.dir, 'events.parquet');
    const previous = input.previousDir ? path.join(input.previousDir, 'events.parquet') : null;
    const kept =
      previous && fs.existsSync(previous)
        ? `SELECT ${columnList(EVENT_COLUMNS)} FROM read_parquet(${sqlPath(previous)}) WHERE as_of >= CAST(? AS DATE)`
        : `SELECT ${columnList(EVENT_COLUMNS)} FROM (${NO_EVENTS}) WHERE CAST(? AS DATE) IS NOT NULL`;
    // The membership of every watchlist in every company this publish touched.
    const changes = path.join(input.dir, 'changes.parquet');
    const fresh = `WITH chg AS (SELECT * FROM read_parquet(${sqlPath(changes)}) WHERE snapshot_id = ?),
      m AS (
        SELECT c.watchlist_id, c.registrikood, 'member' AS membership
        FROM wl_codes c JOIN chg ON chg.registrikood = c.registrikood
        UNION ALL
        SELECT coalesce(a.watchlist_id, b.watchlist_id), coalesce(a.registrikood, b.registrikood),
          CASE WHEN b.registrikood IS NULL THEN 'entered' WHEN a.registrikood IS NULL THEN 'left' ELSE 'member' END
        FROM wl_after a FULL JOIN wl_before b ON a.watchlist_id = b.watchlist_id AND a.registrikood = b.registrikood
        WHERE a.registrikood IS NULL OR b.registrikood IS NULL OR a.registrikood IN (SELECT registrikood FROM chg)
      )
      SELECT ? || '.' || ? || '.' || substr(sha256(w.account_id || ':' || m.registrikood), 1, 16) AS id,
        w.account_id, m.registrikood, any_value(chg.change) AS change,
        coalesce(any_value(chg.fields), []::VARCHAR[]) AS fields,
        coalesce(any_value(chg.diff), []::${CHANGE_DIFF_TYPE}) AS diff,
        list({'id': w.id, 'membership': m.membership} ORDER BY w.id) AS watchlists,
        ? AS snapshot_id, CAST(? AS DATE) AS as_of
      FROM m JOIN wl w ON w.id = m.watchlist_id LEFT JOIN chg ON chg.registrikood = m.registrikood
      GROUP BY w.account_id, m.registrikood`;
    await conn.run(
      `COPY (SELECT * FROM ((${kept}) UNION ALL (${fresh})) ORDER BY id)
       TO ${sqlPath(out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000)`,
      [since, input.snapshotId, input.snapshotId, input.country, input.snapshotId, input.asOf],
    );
    const n = (
      await conn.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlPath(out)}) WHERE snapshot_id = ?`,
        [input.snapshotId],
      )
    ).getRowObjectsJson()[0];
    fs.writeFileSync(path.join(input.dir, EVENTS_META_FILE), `${JSON.stringify({ since })}\n`);
    return { events: Number(n?.['n'] ?? 0), since, watchlists: input.watchlists.length };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const NO_EVENTS = `SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS account_id, NULL::VARCHAR AS registrikood,
  NULL::VARCHAR AS change, []::VARCHAR[] AS fields, []::${CHANGE_DIFF_TYPE} AS diff,
  []::STRUCT(id VARCHAR, membership VARCHAR)[] AS watchlists, NULL::VARCHAR AS snapshot_id, NULL::DATE AS as_of
  WHERE false`;

/** The first day the kept events cover: the live one's start, less what falls out of the window. */
function keptSince(input: EventInput): string {
  const cutoff = new Date(Date.parse(`${input.asOf}T00:00:00Z`) - EVENT_RETENTION_DAYS * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const meta = input.previousDir ? path.join(input.previousDir, EVENTS_META_FILE) : null;
  if (!meta || !fs.existsSync(meta)) return input.asOf;
  const since = (JSON.parse(fs.readFileSync(meta, 'utf8')) as { since: string }).since;
  return since > cutoff ? since : cutoff;
}

/**
 * The events of every country a publish wrote (publish.ts calls it after the serving build): the live
 * snapshot and the new one are opened for saved searches only when a country has one.
 */
export async function writePublishEvents(input: {
  source: WatchlistSource;
  store: SnapshotStore;
  snapshotId: string;
  partialDir: string;
  liveId: string | null;
  countries: readonly CountryCode[];
  asOf: string;
  memoryLimit: string;
  log: (msg: string) => void;
}): Promise<Partial<Record<CountryCode, EventSummary>>> {
  const all = await input.source.forPublish(input.countries);
  const views = all.some((w) => w.kind === 'search') ? await openSearchViews(input) : null;
  const out: Partial<Record<CountryCode, EventSummary>> = {};
  try {
    for (const country of input.countries) {
      const started = Date.now();
      const previousDir = input.liveId ? input.store.countryDir(input.liveId, country) : null;
      out[country] = await writeEvents({
        country,
        snapshotId: input.snapshotId,
        asOf: input.asOf,
        dir: path.join(input.partialDir, country),
        previousDir: previousDir && fs.existsSync(previousDir) ? previousDir : null,
        watchlists: all.filter((w) => w.country === country),
        members: input.source.members(country),
        views,
      });
      input.log(
        `${country}: ${out[country]!.events} watchlist events of ${out[country]!.watchlists} watchlists in ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    closeSearchViews(views);
  }
  return out;
}
