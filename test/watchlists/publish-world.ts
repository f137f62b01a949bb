import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { publishSnapshot } from '../../ingest/pipeline/publish.ts';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { loadConfig } from '../../src/config.ts';
import type { Engine } from '../../src/engine/engine.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import type { Watchlists } from '../../src/watchlists/watchlists.ts';
import type { WatchlistSource } from '../../ingest/pipeline/events.ts';

/**
 * A copy of the test world that a test can publish into: EE republished from the live files with SQL
 * edits, its watchlist events computed by the real publish from the test's own wallet, then served.
 */
export interface PublishWorld {
  tmp: string;
  dataDir: string;
  store: SnapshotStore;
  /** The day the test world was generated; publishes are made the day after. */
  worldDay: string;
  /** Sellable EE registration codes of the live snapshot, in code order. */
  codes: string[];
  /** Publishes EE with `edits` (SQL on stage_companies), computing events from `watchlists`, and swaps. */
  publishEE(engine: Engine, watchlists: Watchlists, edits: string[]): Promise<string>;
  /** The real server on this copy, on a socket, with EE at `eePrice` credits a row. */
  serve(eePrice: number, env?: Record<string, string>): Promise<StartedServer>;
  remove(): void;
}

/**
 * Publishes EE from `base` (a copy of a live snapshot's companies and history) with `edits` (SQL on
 * stage_companies), computing the events of `watchlists` when given; the new snapshot is promoted.
 */
export async function publishEdited(input: {
  store: SnapshotStore;
  base: { companies: string; history: string };
  label: string;
  at: Date;
  edits: readonly string[];
  watchlists?: WatchlistSource;
}): Promise<string> {
  const result = await publishSnapshot({
    store: input.store,
    countries: ['EE'],
    carryOver: true,
    label: input.label,
    now: () => input.at,
    ...(input.watchlists && { watchlists: input.watchlists }),
    stageCountry: async (c) => {
      await c.run(
        `CREATE OR REPLACE TABLE stage_companies AS SELECT * FROM read_parquet(${sqlPath(input.base.companies)})`,
      );
      for (const sql of input.edits) await c.run(sql);
      await c.run(
        `CREATE OR REPLACE TABLE stage_history AS SELECT * FROM read_parquet(${sqlPath(input.base.history)})
         WHERE registrikood IN (SELECT registrikood FROM stage_companies)`,
      );
      return { source: 'test-edits', sourceDetail: {} };
    },
  });
  return result.snapshotId;
}

/** A copy of the test world in a temp folder of its own, and the day the world was generated. */
export function copyWorld(testDataDir: string, prefix: string) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `regdata-test-${prefix}-`));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(testDataDir, dataDir, { recursive: true });
  const store = new SnapshotStore(dataDir);
  const live = store.currentId()!;
  const worldDay = (
    JSON.parse(fs.readFileSync(store.file(live, 'EE', 'manifest'), 'utf8')) as CountryManifest
  ).generated_at.slice(0, 10);
  return { tmp, dataDir, store, live, worldDay };
}

/**
 * Copies of a snapshot's EE companies and history into `dir`, to publish from: a snapshot's own files are
 * pruned once newer snapshots are published.
 */
export function copyBase(store: SnapshotStore, snapshotId: string, dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  const base = { companies: path.join(dir, 'companies.parquet'), history: path.join(dir, 'history.parquet') };
  fs.copyFileSync(store.file(snapshotId, 'EE', 'companies'), base.companies);
  fs.copyFileSync(store.file(snapshotId, 'EE', 'history'), base.history);
  return base;
}

export async function publishWorld(testDataDir: string, prefix: string, nCodes = 4): Promise<PublishWorld> {
  const { tmp, dataDir, store, live, worldDay } = copyWorld(testDataDir, prefix);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const codes = (
    await conn.runAndReadAll(
      `SELECT registrikood FROM read_parquet(${sqlPath(store.file(live, 'EE', 'companies'))})
       WHERE NOT not_for_sale ORDER BY 1 LIMIT ${nCodes}`,
    )
  )
    .getRowObjectsJson()
    .map((r) => String(r['registrikood']));
  conn.closeSync();
  db.closeSync();

  let n = 0;
  async function publishEE(engine: Engine, watchlists: Watchlists, edits: string[]): Promise<string> {
    const base = copyBase(store, store.currentId()!, path.join(tmp, `base-${++n}`));
    const snapshotId = await publishEdited({
      store,
      base,
      label: prefix,
      at: new Date(Date.parse(`${worldDay}T03:00:00Z`) + n * 86_400_000),
      watchlists,
      edits,
    });
    await engine.swap(snapshotId);
    return snapshotId;
  }

  const serve = (eePrice: number, env: Record<string, string> = {}) =>
    startServer(
      loadConfig({
        PORT: '0',
        REGDATA_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
        REGDATA_PRICES: `EE=${eePrice}`,
        // Deliveries are driven by test/webhooks; these servers only manage endpoints.
        REGDATA_WEBHOOKS_POLL_MS: '0',
        ...env,
      }),
      { handleSignals: false, engine: { connections: 2 } },
    );

  return {
    ...{ tmp, dataDir, store, worldDay, codes, publishEE, serve },
    remove: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}
