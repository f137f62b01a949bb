import fs from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { tables } from '../../src/engine/tables.ts';
import { isAppError } from '../../src/errors/app-error.ts';

/** The refcounted snapshot holder: a swap never cuts a running query short and never leaks the old one. */
describe('engine snapshot holder', () => {
  it('loads the live snapshot into native tables', async () => {
    const store = new SnapshotStore(inject('testDataDir'));
    const engine = await Engine.open(store, { connections: 2 });
    try {
      const snap = engine.snapshot!;
      expect(snap.id).toBe(store.currentId());
      expect(snap.countries.sort()).toEqual(['EE', 'FI', 'LT', 'LV', 'NO', 'PL', 'SE']);
      for (const c of snap.countries) {
        const rows = await engine.use((s) =>
          s.query('test', `SELECT count(*)::INTEGER AS n FROM ${tables(c).companies}`),
        );
        expect(rows[0]!['n']).toBe(snap.country(c).manifest.row_counts.companies_for_sale);
      }
    } finally {
      engine.close();
    }
  });

  it('finishes in-flight requests on the old snapshot after a swap, then closes it', async () => {
    const store = new SnapshotStore(inject('testDataDir'));
    const engine = await Engine.open(store, { connections: 2 });
    try {
      const old = engine.snapshot!;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const inFlight = engine.use(async (snap) => {
        await gate;
        return snap.query('test', `SELECT count(*)::INTEGER AS n FROM ${tables('EE').companies}`);
      });
      const next = await engine.swap(store.currentId()!);
      expect(engine.snapshot).toBe(next);
      expect(old.isClosed).toBe(false);
      expect(old.inFlight).toBe(1);
      release();
      const rows = await inFlight;
      expect(rows[0]!['n']).toBeGreaterThan(0);
      expect(old.isClosed).toBe(true);
      // New requests run on the new snapshot.
      await engine.use(async (snap) => expect(snap).toBe(next));
    } finally {
      engine.close();
    }
  });

  it('is empty, and answers backend_unavailable, when no snapshot is live', async () => {
    const dir = fs.mkdtempSync('/tmp/regdata-engine-empty-');
    const engine = await Engine.open(new SnapshotStore(dir));
    try {
      expect(engine.snapshot).toBeNull();
      expect(engine.lastLoadError).toBeTruthy();
      const err = await engine.use(async () => 1).catch((e: unknown) => e);
      expect(isAppError(err) && err.code).toBe('backend_unavailable');
    } finally {
      engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cannot read files outside the snapshot folder', async () => {
    const engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 1 });
    try {
      const err = await engine
        .use((s) => s.query('test', `SELECT * FROM read_csv('/etc/passwd')`))
        .catch((e: unknown) => e);
      expect(isAppError(err) && err.code).toBe('backend_unavailable');
    } finally {
      engine.close();
    }
  });
});
