import path from 'node:path';
import { SnapshotStore } from '../contract/snapshot-store.ts';
import { Engine } from '../engine/engine.ts';
import type { EngineOptions } from '../engine/snapshot-loader.ts';

/**
 * Test mode (issue 30 item 6, docs/api-decisions.md "Test mode"): `rgd_test_` keys are answered from a
 * small synthetic world of all seven countries, built by the same generator and publish pipeline as the
 * demo, kept in a store of its own under the data folder. The live snapshot store never sees it (the
 * live store reads `<dataDir>/snapshots` and `<dataDir>/current` only), and it is never promoted,
 * transferred or watched: its seed and scale are fixed, so every server answers a test key alike.
 */
export const TEST_WORLD_DIR = 'test-world';
/** Fixed: a customer's CI asserts on these answers. A new world (another seed or scale) is a documented change. */
export const TEST_WORLD_SEED = 30;
/** About 10,000 companies over the seven countries (EE 360 ... PL 4,800): about 13 s to build on a busy 2-core machine. */
export const TEST_WORLD_SCALE = 0.001;
/** The test world needs one query at a time at most in practice; it should not take the live cores. */
const TEST_ENGINE_DEFAULTS: EngineOptions = { connections: 1, threads: 1 };

export interface TestWorld {
  engine: Engine;
  /**
   * Builds the world when the store holds none this server can load (a first start, or a world of an
   * older release), then serves it; at once when it is loaded. Never throws: a failed build is logged and
   * test keys keep getting 502.
   */
  buildIfMissing(log?: TestWorldLog): Promise<void>;
  close(): void;
}

export interface TestWorldLog {
  info(msg: string): void;
  error(obj: object, msg: string): void;
}

/** The test world's own store: `<dataDir>/test-world`. */
export function testWorldStore(dataDir: string): SnapshotStore {
  return new SnapshotStore(path.join(dataDir, TEST_WORLD_DIR));
}

/**
 * Opens the test world's engine over `<dataDir>/test-world`. The server calls buildIfMissing in the
 * background once its logger exists: live keys are answered at once, and test keys get 502
 * `backend_unavailable` until the build is done.
 */
export async function openTestWorld(dataDir: string, options: EngineOptions = {}): Promise<TestWorld> {
  const store = testWorldStore(dataDir);
  const engine = await Engine.open(store, { ...options, ...TEST_ENGINE_DEFAULTS });
  let closed = false;
  let building: Promise<void> | null = null;
  return {
    engine,
    buildIfMissing(log) {
      if (engine.snapshot) return Promise.resolve();
      building ??= buildInto(store, engine, () => closed, log);
      return building;
    },
    close() {
      closed = true;
      engine.close();
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
    log?.info(`building the test-mode world in ${store.dataDir}`);
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
    log?.info(`test-mode world ${snapshotId} ready`);
  } catch (err) {
    log?.error({ err }, 'the test-mode world could not be built: test keys are answered 502');
  }
}
