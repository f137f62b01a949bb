import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { describe, expect, inject, it } from 'vitest';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { LOOKUP_FILE, LookupStore } from '../../src/engine/lookup-store.ts';
import { servingCacheDir } from '../../src/engine/snapshot-loader.ts';
import { SERVING_FILE, tables } from '../../src/engine/tables.ts';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';

/** Every file of the shared world's snapshot copied, except the published serving databases. */
function copyWithoutServing(): { store: SnapshotStore; id: string; dir: string } {
  const world = new SnapshotStore(inject('testDataDir'));
  const id = world.currentId()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-serving-'));
  const store = new SnapshotStore(dir);
  fs.cpSync(world.snapshotDir(id), store.snapshotDir(id), {
    recursive: true,
    filter: (src) => ![SERVING_FILE, LOOKUP_FILE, 'postings.bin'].includes(path.basename(src)),
  });
  store.promote(id);
  return { store, id, dir };
}

/** The plain answer from the Parquet file, independent of the serving layout. */
async function parquetRow(file: string, code: string) {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const reader = await conn.runAndReadAll(
      `SELECT arinimi, (SELECT count(*) FROM read_parquet($f) WHERE NOT not_for_sale)::INTEGER AS n
       FROM read_parquet($f) WHERE registrikood = $code`,
      { f: file, code },
    );
    return reader.getRowObjectsJson()[0];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe('serving databases', () => {
  it('are published with every country of a snapshot', () => {
    const world = new SnapshotStore(inject('testDataDir'));
    for (const c of COUNTRY_CODES) {
      expect(fs.existsSync(path.join(world.countryDir(world.currentId()!, c), SERVING_FILE))).toBe(true);
    }
  });

  it("put every country's lookup store in the page cache once, and stop when the snapshot closes", async () => {
    const world = new SnapshotStore(inject('testDataDir'));
    const id = world.currentId()!;
    const sizes = COUNTRY_CODES.map((c) => fs.statSync(path.join(world.countryDir(id, c), LOOKUP_FILE)).size);
    const engine = await Engine.open(world, { connections: 1 });
    try {
      const snap = engine.snapshot!;
      // Engine.open started one warming already; this one reads every file to its end again.
      expect(await snap.warmLookups()).toBe(sizes.reduce((a, b) => a + b, 0));
    } finally {
      engine.close();
    }
    const second = await Engine.open(world, { connections: 1 });
    const snap = second.snapshot!;
    second.close();
    // Closed before it began: nothing is read, and nothing fails.
    expect(await snap.warmLookups()).toBe(0);
  });

  it('are built into the data folder, never into the snapshot, when a snapshot has none', async () => {
    const { store, id, dir } = copyWithoutServing();
    try {
      const engine = await Engine.open(store, { connections: 1 });
      try {
        expect(engine.lastLoadError).toBeNull();
        expect(fs.existsSync(path.join(store.countryDir(id, 'LV'), SERVING_FILE))).toBe(false);
        expect(fs.existsSync(path.join(servingCacheDir(store, id), 'LV', SERVING_FILE))).toBe(true);
        const code = (
          await engine.use((s) =>
            s.query('test', `SELECT registrikood FROM ${tables('LV').companies} ORDER BY rid DESC LIMIT 1`),
          )
        )[0]!['registrikood'] as string;
        const served = await engine.use(async (s) => ({
          arinimi: s.lookups('LV').history(code)?.arinimi,
          n: (await s.query('test', `SELECT count(*)::INTEGER AS n FROM ${tables('LV').companies}`))[0]!['n'],
        }));
        expect(served).toEqual(await parquetRow(store.file(id, 'LV', 'companies'), code));
        expect(fs.existsSync(path.join(servingCacheDir(store, id), 'LV', LOOKUP_FILE))).toBe(true);
      } finally {
        engine.close();
      }
      // A second start attaches the cached build instead of building again.
      const cached = path.join(servingCacheDir(store, id), 'EE', SERVING_FILE);
      const before = fs.statSync(cached).mtimeMs;
      const again = await Engine.open(store, { connections: 1 });
      again.close();
      expect(fs.statSync(cached).mtimeMs).toBe(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are rebuilt when the Parquet files changed, so a broken file is never masked', async () => {
    const { store, id, dir } = copyWithoutServing();
    try {
      (await Engine.open(store, { connections: 1 })).close();
      fs.writeFileSync(store.file(id, 'EE', 'companies'), 'not parquet');
      const engine = await Engine.open(store, { connections: 1 });
      engine.close();
      expect(engine.lastLoadError).toBeTruthy();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve a snapshot written under contract 1.1.0, without postcode, with postcode null', async () => {
    const { store, id, dir } = copyWithoutServing();
    try {
      const file = store.file(id, 'EE', 'companies');
      const db = await DuckDBInstance.create(':memory:');
      const conn = await db.connect();
      try {
        await conn.run(
          `COPY (SELECT * EXCLUDE (postcode) FROM read_parquet($f)) TO '${file}.old' (FORMAT parquet)`,
          { f: file },
        );
      } finally {
        conn.closeSync();
        db.closeSync();
      }
      fs.renameSync(`${file}.old`, file);
      const engine = await Engine.open(store, { connections: 1 });
      try {
        expect(engine.lastLoadError).toBeFalsy();
        const rows = await engine.snapshot!.query(
          'test',
          `SELECT count(*)::INTEGER AS n, count(postcode)::INTEGER AS with_postcode FROM ${tables('EE').companies}`,
        );
        expect(Number(rows[0]?.['n'])).toBeGreaterThan(0);
        expect(Number(rows[0]?.['with_postcode'])).toBe(0);
      } finally {
        engine.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lookup stores', () => {
  it('are read under one lasting shared lock, by any number of readers, and never written', () => {
    const world = new SnapshotStore(inject('testDataDir'));
    const file = path.join(world.countryDir(world.currentId()!, 'EE'), LOOKUP_FILE);
    const plain = new Database(file, { readonly: true });
    const code = plain.prepare('SELECT registrikood FROM company LIMIT 1').pluck().get() as string;
    plain.close();
    const a = LookupStore.open(file);
    const b = LookupStore.open(file, 4);
    const writer = new Database(file, { timeout: 0 });
    try {
      expect(a.detail(code)).not.toBeNull();
      expect(b.detail(code)).not.toBeNull();
      // Both readers keep their shared locks after their statements ended, so a writer cannot start.
      expect(() => writer.exec('BEGIN EXCLUSIVE')).toThrow(/locked/);
      expect(a.detail(code)).toEqual(b.detail(code));
    } finally {
      writer.close();
      a.close();
      b.close();
    }
  });
});
