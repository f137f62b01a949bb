import fs from 'node:fs';
import path from 'node:path';
import type { CountryCode } from './countries.ts';
import { SNAPSHOT_FILES } from './data-contract.ts';

/**
 * Where snapshots live on disk and which one is live. `data/current` holds the live snapshot id; it is
 * replaced by writing a temporary file and renaming it over the old one, which POSIX makes atomic, so a
 * reader sees either the old id or the new one and never a half-written pointer.
 */
export class SnapshotStore {
  constructor(readonly dataDir: string) {}

  get snapshotsDir(): string {
    return path.join(this.dataDir, 'snapshots');
  }
  get pointerPath(): string {
    return path.join(this.dataDir, 'current');
  }
  snapshotDir(id: string): string {
    assertSnapshotId(id);
    return path.join(this.snapshotsDir, id);
  }
  countryDir(id: string, country: CountryCode): string {
    return path.join(this.snapshotDir(id), country);
  }
  file(id: string, country: CountryCode, file: keyof typeof SNAPSHOT_FILES): string {
    return path.join(this.countryDir(id, country), SNAPSHOT_FILES[file]);
  }

  /** The live snapshot id, or null when none has been promoted yet. */
  currentId(): string | null {
    try {
      const id = fs.readFileSync(this.pointerPath, 'utf8').trim();
      return id === '' ? null : id;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Atomically makes `id` the live snapshot. */
  promote(id: string): void {
    if (!fs.existsSync(this.snapshotDir(id))) throw new Error(`snapshot ${id} does not exist`);
    const tmp = `${this.pointerPath}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, `${id}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.pointerPath);
  }

  /** Snapshot ids on disk, oldest first (ids sort by creation time by construction). */
  list(): string[] {
    if (!fs.existsSync(this.snapshotsDir)) return [];
    return fs
      .readdirSync(this.snapshotsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && SNAPSHOT_ID.test(d.name))
      .map((d) => d.name)
      .sort();
  }
}

export const SNAPSHOT_ID = /^[0-9]{8}T[0-9]{6}Z(-[a-z0-9-]{1,40})?$/;

/** A new snapshot id: UTC timestamp (sortable) plus an optional label, e.g. 20261121T195600Z-demo. */
export function newSnapshotId(label?: string, now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return label ? `${stamp}-${label}` : stamp;
}

export function assertSnapshotId(id: string): void {
  if (!SNAPSHOT_ID.test(id)) throw new Error(`invalid snapshot id: ${JSON.stringify(id)}`);
}
