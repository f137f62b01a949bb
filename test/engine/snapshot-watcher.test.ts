import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWorldSnapshot } from '../../ingest/world/index.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { SnapshotWatcher } from '../../src/engine/snapshot-watcher.ts';

/*
 * The watcher's fast path alone (no polling timer): a promote in the data folder swaps the engine, again
 * and again, and the watch is on the pointer file, so the other files of the folder wake nothing.
 */
describe('snapshot watcher, on fs events alone', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-watch-'));
  const store = new SnapshotStore(dataDir);
  let worldId: string;
  let otherId: string;

  beforeAll(async () => {
    const world = new SnapshotStore(inject('testDataDir'));
    worldId = world.currentId()!;
    fs.mkdirSync(store.snapshotsDir, { recursive: true });
    fs.symlinkSync(world.snapshotDir(worldId), store.snapshotDir(worldId));
    otherId = (
      await buildWorldSnapshot({
        dataDir,
        scale: 0.002,
        seed: 77,
        countries: ['EE'],
        label: 'watch-b',
        promote: false,
      })
    ).snapshotId;
  }, 120_000);

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** The inodes this process's inotify instances watch (Linux: /proc/self/fdinfo). */
  function watchedInodes(): number[] {
    const inodes: number[] = [];
    for (const fd of fs.readdirSync('/proc/self/fd')) {
      let target = '';
      try {
        target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== 'anon_inode:inotify') continue;
      for (const m of fs
        .readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .matchAll(/inotify wd:\S+ ino:([0-9a-f]+)/g)) {
        inodes.push(parseInt(m[1]!, 16));
      }
    }
    return inodes;
  }

  async function until(engine: Engine, id: string): Promise<void> {
    for (let i = 0; i < 1500 && engine.snapshot?.id !== id; i++) await new Promise((r) => setTimeout(r, 20));
    expect(engine.snapshot?.id).toBe(id);
  }

  it('follows the pointer from before the first promote through every later one, watching the pointer file', async () => {
    const engine = await Engine.open(store, { connections: 1 });
    expect(engine.snapshot).toBeNull();
    const watcher = new SnapshotWatcher(engine, { pollMs: 0 }).start();
    try {
      store.promote(worldId);
      await until(engine, worldId);
      store.promote(otherId);
      await until(engine, otherId);
      store.promote(worldId);
      await until(engine, worldId);

      // What the process watches: the pointer file that is there now, not the folder, whose other files
      // (the wallet's WAL, written on every paid call) would each wake the event loop.
      await new Promise((r) => setTimeout(r, 100));
      const watched = watchedInodes();
      expect(watched).toContain(fs.statSync(store.pointerPath).ino);
      expect(watched).not.toContain(fs.statSync(dataDir).ino);

      store.promote(otherId);
      await until(engine, otherId);
    } finally {
      await watcher.stop();
      engine.close();
    }
  }, 120_000);
});
