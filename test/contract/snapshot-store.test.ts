import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSnapshotId, SnapshotStore } from '../../src/contract/snapshot-store.ts';

const dirs: string[] = [];
const tempStore = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-store-'));
  dirs.push(dir);
  return new SnapshotStore(dir);
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('SnapshotStore', () => {
  it('has no live snapshot until one is promoted, then names it', () => {
    const store = tempStore();
    expect(store.currentId()).toBeNull();
    const id = newSnapshotId('demo', new Date('2026-11-21T10:00:00Z'));
    expect(id).toBe('20261121T100000Z-demo');
    fs.mkdirSync(store.snapshotDir(id), { recursive: true });
    store.promote(id);
    expect(store.currentId()).toBe(id);
    expect(fs.readdirSync(store.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to promote a snapshot that does not exist, leaving the pointer alone', () => {
    const store = tempStore();
    const a = newSnapshotId(undefined, new Date('2026-01-01T00:00:00Z'));
    fs.mkdirSync(store.snapshotDir(a), { recursive: true });
    store.promote(a);
    expect(() => store.promote(newSnapshotId(undefined, new Date('2026-01-02T00:00:00Z')))).toThrow(
      /does not exist/,
    );
    expect(store.currentId()).toBe(a);
  });

  it('lists snapshots oldest first and ignores partial folders and strangers', () => {
    const store = tempStore();
    const ids = ['2026-03-01', '2026-01-01', '2026-02-01'].map((d) =>
      newSnapshotId(undefined, new Date(`${d}T00:00:00Z`)),
    );
    for (const id of ids) fs.mkdirSync(store.snapshotDir(id), { recursive: true });
    fs.mkdirSync(path.join(store.snapshotsDir, `.partial-${ids[0]}`));
    fs.mkdirSync(path.join(store.snapshotsDir, 'notes'));
    expect(store.list()).toEqual([...ids].sort());
  });

  it('rejects snapshot ids that could escape the snapshots folder', () => {
    const store = tempStore();
    expect(() => store.snapshotDir('../etc')).toThrow(/invalid snapshot id/);
    expect(() => store.snapshotDir('20261121T100000Z/../../x')).toThrow(/invalid snapshot id/);
  });
});
