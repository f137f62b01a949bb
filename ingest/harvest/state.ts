import fs from 'node:fs';
import path from 'node:path';

/**
 * A harvester's resumable state: a small JSON document rewritten atomically (temp file, then rename) after
 * each checkpoint, so a harvest killed at any moment restarts from its last checkpoint and never reads a
 * half-written state.
 */
export class HarvestState<T extends object> {
  private value: T;

  constructor(
    readonly file: string,
    initial: T,
  ) {
    let loaded: T | null = null;
    try {
      loaded = JSON.parse(fs.readFileSync(file, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new Error(
          `${file}: the harvest state is unreadable (${(err as Error).message}); remove it to start over`,
        );
      }
    }
    this.value = { ...initial, ...(loaded ?? {}) };
  }

  get(): Readonly<T> {
    return this.value;
  }

  save(patch: Partial<T>): void {
    this.value = { ...this.value, ...patch };
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.value, null, 2));
    fs.renameSync(tmp, this.file);
  }
}
