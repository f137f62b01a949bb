import path from 'node:path';
import { SnapshotStore } from '../contract/snapshot-store.ts';
import { Engine } from '../engine/engine.ts';
import { AppError } from '../errors/app-error.ts';
import type { EngineOptions } from '../engine/snapshot-loader.ts';

/**
 * Test mode (issue 30 item 6, docs/api-decisions.md "Test mode"): `rgd_test_` keys are answered from a
 * small synthetic world of all seven countries, built by the same generator and publish pipeline as the
 * demo, kept in a store of its own under the data folder. The live snapshot store never sees it (the
 * live store reads `<dataDir>/snapshots` and `<dataDir>/current` only), and it is never promoted,
 * transferred or watched: its seed and scale are fixed, so every server answers a test key alike. It is
 * opened on a test key's first request, and built then if missing: that first request waits for the build.
 */
export const TEST_WORLD_DIR = 'test-world';
/** Fixed: a customer's CI asserts on these answers. A new world (another seed or scale) is a documented change. */
export const TEST_WORLD_SEED = 30;
/** About 10,000 companies over the seven countries (EE 360 ... PL 4,800): about 13 s to build on a busy 2-core machine. */
export const TEST_WORLD_SCALE = 0.001;
/** The test world needs one query at a time at most in practice; it should not take the live cores. */
const TEST_ENGINE_DEFAULTS: EngineOptions = { connections: 1, threads: 1 };

/** What Operations needs of the test world: its engine, serving. */
export interface TestWorldSource {
  engine(): Promise<Engine>;
}

export interface TestWorld extends TestWorldSource {
  /**
   * The world's engine, serving: opened on the first call (a test key's first request), and built first
   * when the store holds no world this release can load (a first start, or a world of an older contract).
   * Concurrent callers share one open and one build; a failed one is logged, rejects as 502
   * `backend_unavailable`, and the next call tries again.
   */
  engine(): Promise<Engine>;
  close(): void;
}

/** The server's logger, pino's argument order (the server passes the adapter its mail worker uses). */
export interface TestWorldLog {
  info(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

/** The test world's own store: `<dataDir>/test-world`. */
export function testWorldStore(dataDir: string): SnapshotStore {
  return new SnapshotStore(path.join(dataDir, TEST_WORLD_DIR));
}

/**
 * The test world of a data folder, opened lazily: a server no test key calls never loads or builds it
 * (nor do the many servers the test suite starts), and the live start-up pays nothing for it.
 */
export function openTestWorld(dataDir: string, options: EngineOptions = {}, log?: TestWorldLog): TestWorld {
  const store = testWorldStore(dataDir);
  let opened: Engine | null = null;
  let pending: Promise<Engine> | null = null;
  let closed = false;
  const open = async (): Promise<Engine> => {
    opened ??= await Engine.open(store, { ...options, ...TEST_ENGINE_DEFAULTS });
    // A retry after a failed build first loads what another process (a replica sharing the folder) built.
    const id = store.currentId();
    if (!opened.snapshot && id !== null) await opened.swap(id).catch(() => null);
    if (!opened.snapshot) await buildInto(store, opened, () => closed, log);
    // Closed while this open or build ran: close() found nothing (or an empty engine) to close.
    if (closed) opened.close();
    if (closed || !opened.snapshot)
      throw new AppError('backend_unavailable', 'the test-mode world is not available');
    return opened;
  };
  return {
    engine() {
      if (closed) return Promise.reject(new AppError('backend_unavailable', 'the server is shutting down'));
      if (opened?.snapshot) return Promise.resolve(opened);
      pending ??= open().finally(() => {
        pending = null;
      });
      return pending;
    },
    close() {
      closed = true;
      opened?.close();
    },
  };
}

async function buildInto(
  store: SnapshotStore,
  engine: Engine,
  closed: () => boolean,
  log: TestWorldLog | undefined,
): Promise<void> {
  try {
    log?.info({ dir: store.dataDir }, 'building the test-mode world');
    // Loaded lazily: the generator and the publish pipeline are not needed when the world exists.
    const { buildWorldSnapshot } = await import('../../ingest/world/index.ts');
    const { snapshotId } = await buildWorldSnapshot({
      dataDir: store.dataDir,
      scale: TEST_WORLD_SCALE,
      seed: TEST_WORLD_SEED,
      label: 'test-world',
      duckdb: { threads: 1 },
    });
    // A server shut down mid-build keeps the world on disk for its next start, and opens nothing more.
    if (closed()) return;
    await engine.swap(snapshotId);
    log?.info({ snapshot_id: snapshotId }, 'test-mode world ready');
  } catch (err) {
    log?.error({ err }, 'the test-mode world could not be built: test keys are answered 502');
  }
}
