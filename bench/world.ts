import fs from 'node:fs';
import path from 'node:path';
import { SnapshotStore } from '../src/contract/snapshot-store.ts';

export interface BenchData {
  /** The folder holding the snapshot (reused read-only). */
  sourceDir: string;
  snapshotId: string;
  snapshotDir: string;
  /** This run's own data folder: the snapshot linked in, a fresh wallet, the server log. */
  runDir: string;
}

/**
 * Makes or reuses the snapshot. `--data-dir` names an existing data folder (e.g. the shared scale-1 world);
 * otherwise the world of that scale and seed is built once under .tmp/bench/worlds and reused after.
 */
export async function prepareData(opts: {
  dataDir?: string | undefined;
  scale: number;
  seed: number;
  workDir: string;
  log: (line: string) => void;
}): Promise<BenchData> {
  const sourceDir = path.resolve(
    opts.dataDir ?? path.join(opts.workDir, 'worlds', `scale-${opts.scale}-seed-${opts.seed}`),
  );
  const source = new SnapshotStore(sourceDir);
  if (source.currentId() === null) {
    if (opts.dataDir) throw new Error(`no live snapshot in ${sourceDir}`);
    opts.log(`building the scale-${opts.scale} world (seed ${opts.seed}) in ${sourceDir} ...`);
    const { buildWorldSnapshot } = await import('../ingest/world/index.ts');
    fs.mkdirSync(sourceDir, { recursive: true });
    await buildWorldSnapshot({ dataDir: sourceDir, scale: opts.scale, seed: opts.seed, label: 'bench' });
  }
  const snapshotId = source.currentId() as string;
  const snapshotDir = source.snapshotDir(snapshotId);

  // A wallet and a log of its own per run; the snapshot is linked, never copied or written.
  const runDir = fs.mkdtempSync(path.join(opts.workDir, 'run-'));
  const store = new SnapshotStore(runDir);
  fs.mkdirSync(store.snapshotsDir, { recursive: true });
  fs.symlinkSync(snapshotDir, store.snapshotDir(snapshotId));
  store.promote(snapshotId);
  return { sourceDir, snapshotId, snapshotDir, runDir };
}
