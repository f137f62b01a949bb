import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSnapshotId, SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { pruneSnapshots, STALE_PARTIAL_MS } from '../../ingest/pipeline/publish.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function storeWith(days: string[]): { store: SnapshotStore; ids: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-prune-'));
  dirs.push(dir);
  const store = new SnapshotStore(dir);
  const ids = days.map((d) => newSnapshotId(undefined, new Date(`${d}T00:00:00Z`)));
  for (const id of ids) fs.mkdirSync(store.snapshotDir(id), { recursive: true });
  return { store, ids };
}

describe('pruneSnapshots', () => {
  it('keeps the newest snapshots and the live one, whatever its age', () => {
    const { store, ids } = storeWith(['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05']);
    store.promote(ids[0]!);
    const removed = pruneSnapshots(store, 3);
    // The newest three (days 3-5) stay, and so does the live day 1; only day 2 goes.
    expect(removed).toEqual([ids[1]]);
    expect(store.list()).toEqual([ids[0], ids[2], ids[3], ids[4]]);
  });

  it('removes partial folders a killed run left behind, but not one a run may still be writing', () => {
    const { store, ids } = storeWith(['2026-01-01']);
    store.promote(ids[0]!);
    const stale = path.join(store.snapshotsDir, '.partial-20260101T000000Z');
    const fresh = path.join(store.snapshotsDir, '.partial-20260102T000000Z');
    fs.mkdirSync(path.join(stale, 'EE'), { recursive: true });
    fs.mkdirSync(path.join(fresh, 'EE'), { recursive: true });
    const now = new Date();
    const old = new Date(now.getTime() - STALE_PARTIAL_MS - 60_000);
    fs.utimesSync(stale, old, old);
    expect(pruneSnapshots(store, 3, now)).toEqual(['.partial-20260101T000000Z']);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(store.currentId()).toBe(ids[0]);
  });

  it('leaves an old staging folder alone while the pull that owns it runs, and removes it once that pull is gone', async () => {
    const { store, ids } = storeWith(['2026-01-01']);
    store.promote(ids[0]!);
    // A real process stands for the pull; its pid is in the folder's name, as `regdata snapshots pull` names it.
    const pull = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const name = `.partial-20260102T000000Z.pull-${pull.pid}`;
    const dir = path.join(store.snapshotsDir, name);
    fs.mkdirSync(path.join(dir, 'EE'), { recursive: true });
    const now = new Date();
    const old = new Date(now.getTime() - STALE_PARTIAL_MS - 60_000);
    fs.utimesSync(dir, old, old);
    try {
      expect(pruneSnapshots(store, 3, now)).toEqual([]);
      expect(fs.existsSync(dir)).toBe(true);
    } finally {
      pull.kill('SIGKILL');
      await once(pull, 'exit');
    }
    expect(pruneSnapshots(store, 3, now)).toEqual([name]);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
