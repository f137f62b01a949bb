import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import type { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { loadSnapshot } from '../../src/engine/snapshot-loader.ts';
import { SERVING_LAYOUT_VERSION } from '../../src/engine/tables.ts';
import { readSnapshotInfo } from '../../ingest/pipeline/publish.ts';
import { copyBase, copyWorld, publishEdited } from '../watchlists/publish-world.ts';

/*
 * A country an ingest carries over gets current serving files at publish, in the new snapshot folder
 * itself, so no server builds them at load. The test world is published, LV's serving files are made
 * those of an older serving layout (or removed), and EE alone is published again. The stamps are read back with
 * DuckDB, SQLite and the postings file's own tail, not with the code under test.
 *
 * A layout bump changes SERVING_LAYOUT_VERSION in the code, so every file built before it carries a
 * lower version than the code's; lowering the version stamped in the three files (each in a new file,
 * renamed into place, in this test's own copy of the world) leaves exactly that state: the same
 * Parquet files, serving files whose stamp is not the code's. Serving files that are missing altogether
 * are the other case the loader rebuilds, and must be rebuilt at publish the same way.
 */

const SERVING = ['serving.duckdb', 'lookup.sqlite', 'postings.bin'] as const;
const TAIL = 4 + 'RGDPOST1'.length;

interface Stamp {
  layoutVersion: number;
  fingerprint: string;
}

async function duckdbStamp(file: string, update?: string): Promise<Stamp> {
  const db = await DuckDBInstance.create(file, update ? {} : { access_mode: 'READ_ONLY' });
  const conn = await db.connect();
  try {
    if (update) {
      await conn.run(update);
      await conn.run('CHECKPOINT');
    }
    const r = (
      await conn.runAndReadAll('SELECT layout_version, fingerprint FROM meta')
    ).getRowObjectsJson()[0]!;
    return { layoutVersion: Number(r['layout_version']), fingerprint: String(r['fingerprint']) };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

function sqliteStamp(file: string, update?: string): Stamp {
  const db = new Database(file, { readonly: !update });
  try {
    if (update) db.prepare(update).run();
    const r = db.prepare('SELECT layout_version, fingerprint FROM meta').get() as {
      layout_version: number;
      fingerprint: string;
    };
    return { layoutVersion: r.layout_version, fingerprint: r.fingerprint };
  } finally {
    db.close();
  }
}

/** postings.bin: data, a JSON header, the header's length (uint32 LE) and an 8-byte magic. */
function postingsHeader(bytes: Buffer): { header: Record<string, unknown>; start: number } {
  const length = bytes.readUInt32LE(bytes.length - TAIL);
  const start = bytes.length - TAIL - length;
  return {
    header: JSON.parse(bytes.toString('utf8', start, start + length)) as Record<string, unknown>,
    start,
  };
}

/** The layout version and fingerprint each of the three files of `dir` carries. */
async function stamps(dir: string): Promise<Stamp[]> {
  const { header } = postingsHeader(fs.readFileSync(path.join(dir, 'postings.bin')));
  return [
    await duckdbStamp(path.join(dir, 'serving.duckdb')),
    sqliteStamp(path.join(dir, 'lookup.sqlite')),
    { layoutVersion: Number(header['layoutVersion']), fingerprint: String(header['fingerprint']) },
  ];
}

/** Stamps the three files of `dir` one layout older, each written as a new file and renamed into place. */
async function stampOlderLayout(dir: string): Promise<void> {
  const older = SERVING_LAYOUT_VERSION - 1;
  const fresh = (name: string) => {
    const tmp = path.join(dir, `${name}.older`);
    fs.copyFileSync(path.join(dir, name), tmp);
    return tmp;
  };
  const duck = fresh('serving.duckdb');
  await duckdbStamp(duck, `UPDATE meta SET layout_version = ${older}`);
  const lite = fresh('lookup.sqlite');
  sqliteStamp(lite, `UPDATE meta SET layout_version = ${older}`);
  const bytes = fs.readFileSync(path.join(dir, 'postings.bin'));
  const { header, start } = postingsHeader(bytes);
  const json = Buffer.from(JSON.stringify({ ...header, layoutVersion: older }));
  const tail = Buffer.alloc(TAIL);
  tail.writeUInt32LE(json.length, 0);
  tail.write('RGDPOST1', 4, 'latin1');
  fs.writeFileSync(
    path.join(dir, 'postings.bin.older'),
    Buffer.concat([bytes.subarray(0, start), json, tail]),
  );
  for (const name of SERVING) fs.renameSync(path.join(dir, `${name}.older`), path.join(dir, name));
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const ino = (file: string) => fs.statSync(file).ino;

const worlds: (() => void)[] = [];
afterEach(() => {
  for (const remove of worlds.splice(0)) remove();
});

/**
 * A copy of the test world whose live LV has serving files of the previous layout, or none (`missing`: a
 * snapshot copied in without them, as `regdata snapshots pull` leaves one published before snapshot.json
 * had their checksums).
 */
async function worldWithStaleLv(how: 'older layout' | 'missing' = 'older layout') {
  const world = copyWorld(inject('testDataDir'), 'serving-carry-over');
  worlds.push(() => fs.rmSync(world.tmp, { recursive: true, force: true }));
  const lv = world.store.countryDir(world.live, 'LV');
  const lvFingerprint = (await stamps(lv))[0]!.fingerprint;
  if (how === 'missing') {
    for (const name of SERVING) fs.rmSync(path.join(lv, name));
  } else {
    await stampOlderLayout(lv);
    expect((await stamps(lv)).map((s) => s.layoutVersion)).toEqual(
      SERVING.map(() => SERVING_LAYOUT_VERSION - 1),
    );
  }
  return { ...world, lvFingerprint };
}

/** Publishes EE alone from the live snapshot's own files; the other countries are carried over. */
async function publishEEOnly(store: SnapshotStore, tmp: string, at: Date): Promise<string> {
  const base = copyBase(store, store.currentId()!, path.join(tmp, 'base'));
  return publishEdited({ store, base, label: 'ee-only', at, edits: [] });
}

/** Loads the snapshot as a server does and lets it go again; returns its countries. */
async function load(store: SnapshotStore, id: string): Promise<string[]> {
  const snap = await loadSnapshot(store, id, { threads: 1, connections: 1, plannerThreads: 0 });
  const countries = snap.countries;
  snap.retire();
  return countries;
}

function expectSnapshotJsonMatches(store: SnapshotStore, id: string, country: CountryCode): void {
  const files = readSnapshotInfo(store, id).files!;
  for (const name of SERVING) {
    const file = path.join(store.countryDir(id, country), name);
    expect(files[`${country}/${name}`]).toEqual({ bytes: fs.statSync(file).size, sha256: sha256(file) });
  }
}

describe('publish: carried-over countries get current serving files', () => {
  it.each(['older layout', 'missing'] as const)(
    'builds them (%s) into the new snapshot folder, never over the older snapshot files, so loading builds nothing',
    async (how) => {
      const { store, live, tmp, worldDay, lvFingerprint } = await worldWithStaleLv(how);
      const liveLv = store.countryDir(live, 'LV');
      const liveNo = store.countryDir(live, 'NO');
      const id = await publishEEOnly(store, tmp, new Date(`${worldDay}T03:00:00Z`));
      const lv = store.countryDir(id, 'LV');

      // In the snapshot folder itself: this layout, built from the same Parquet files as before.
      expect(await stamps(lv)).toEqual(
        SERVING.map(() => ({ layoutVersion: SERVING_LAYOUT_VERSION, fingerprint: lvFingerprint })),
      );
      // The Parquet files are still the live snapshot's (hard links); the serving files are new files, and
      // the live snapshot's are as they were.
      expect(ino(path.join(lv, 'companies.parquet'))).toBe(ino(path.join(liveLv, 'companies.parquet')));
      if (how === 'older layout') {
        for (const name of SERVING) expect(ino(path.join(lv, name))).not.toBe(ino(path.join(liveLv, name)));
        expect((await stamps(liveLv)).map((s) => s.layoutVersion)).toEqual(
          SERVING.map(() => SERVING_LAYOUT_VERSION - 1),
        );
      } else {
        for (const name of SERVING) expect(fs.existsSync(path.join(liveLv, name))).toBe(false);
      }
      // A carried-over country whose files were current is linked as before, serving files included.
      for (const name of SERVING)
        expect(ino(path.join(store.countryDir(id, 'NO'), name))).toBe(ino(path.join(liveNo, name)));
      // snapshot.json has the new files' checksums, not the live snapshot's.
      expectSnapshotJsonMatches(store, id, 'LV');

      expect(await load(store, id)).toContain('LV');
      expect(fs.existsSync(path.join(store.dataDir, 'serving-cache', id, 'LV'))).toBe(false);
    },
  );

  it("takes the engine's current build of the live snapshot from serving-cache instead of building again", async () => {
    const { store, live, tmp, worldDay, lvFingerprint } = await worldWithStaleLv();
    // A server loads the live snapshot and builds LV into its cache, as it does for an older snapshot.
    await load(store, live);
    const cached = path.join(store.dataDir, 'serving-cache', live, 'LV');
    expect(await stamps(cached)).toEqual(
      SERVING.map(() => ({ layoutVersion: SERVING_LAYOUT_VERSION, fingerprint: lvFingerprint })),
    );
    const id = await publishEEOnly(store, tmp, new Date(`${worldDay}T03:00:00Z`));
    const lv = store.countryDir(id, 'LV');

    for (const name of SERVING) expect(ino(path.join(lv, name))).toBe(ino(path.join(cached, name)));
    expectSnapshotJsonMatches(store, id, 'LV');
    expect(await load(store, id)).toContain('LV');
    expect(fs.existsSync(path.join(store.dataDir, 'serving-cache', id, 'LV'))).toBe(false);
  });
});
