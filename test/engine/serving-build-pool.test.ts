import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { LOOKUP_FILE } from '../../src/engine/lookup-store.ts';
import { POSTINGS_FILE } from '../../src/engine/postings-file.ts';
import { buildServingDatabases, shareOfMemory } from '../../src/engine/serving-build-pool.ts';
import { SERVING_FILE } from '../../src/engine/tables.ts';

const COUNTRIES: CountryCode[] = ['SE', 'EE', 'LT'];
const world = new SnapshotStore(inject('testDataDir'));
const worldId = world.currentId()!;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-pool-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The countries' Parquet files copied into a fresh folder, without their serving files. */
function copyCountries(name: string): { country: CountryCode; dir: string }[] {
  return COUNTRIES.map((country) => {
    const dir = path.join(scratch, name, country);
    fs.cpSync(world.countryDir(worldId, country), dir, {
      recursive: true,
      filter: (src) => ![SERVING_FILE, LOOKUP_FILE, POSTINGS_FILE].includes(path.basename(src)),
    });
    return { country, dir };
  });
}

/** Rows of every table of `a` missing from the same table of `b`, either way (0 when equal). */
async function servingDifference(a: string, b: string): Promise<number> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.run(`ATTACH '${a}' AS a (READ_ONLY)`);
    await conn.run(`ATTACH '${b}' AS b (READ_ONLY)`);
    const tables = (
      await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'a' ORDER BY 1`)
    )
      .getRows()
      .map((r) => String(r[0]));
    expect(tables).toContain('co');
    let diff = 0;
    for (const t of tables) {
      const n = await conn.runAndReadAll(
        `SELECT (SELECT count(*) FROM (FROM a.${t} EXCEPT ALL FROM b.${t}))
              + (SELECT count(*) FROM (FROM b.${t} EXCEPT ALL FROM a.${t}))`,
      );
      diff += Number(n.getRows()[0]![0]);
    }
    return diff;
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/** Rows of the lookup stores' document tables that differ, either way. */
function lookupDifference(a: string, b: string): number {
  const db = new Database(a, { readonly: true });
  try {
    db.prepare('ATTACH ? AS b').run(b);
    let diff = 0;
    for (const t of ['company', 'history', 'workplaces']) {
      const row = db
        .prepare(
          `SELECT (SELECT count(*) FROM (SELECT * FROM main.${t} EXCEPT SELECT * FROM b.${t}))
                + (SELECT count(*) FROM (SELECT * FROM b.${t} EXCEPT SELECT * FROM main.${t})) AS n`,
        )
        .get() as { n: number };
      diff += row.n;
    }
    return diff;
  } finally {
    db.close();
  }
}

describe('serving builds in worker threads', () => {
  it('write the same serving databases and lookup stores as the publish did, two at a time', async () => {
    const jobs = copyCountries('parallel');
    const done: string[] = [];
    const steps: string[] = [];
    await buildServingDatabases(jobs, {
      parallel: 2,
      minParallelBytes: 0,
      memoryLimit: '1GB',
      log: (m) => done.push(m),
      steps: (m) => steps.push(m),
    });
    // One line per country when its build ends; the step lines came from the worker threads.
    expect(done.map((m) => m.slice(0, 2)).sort()).toEqual([...COUNTRIES].sort());
    for (const c of COUNTRIES)
      expect(steps.some((m) => m.startsWith(`${c} serving build: lookup company`))).toBe(true);
    for (const { country, dir } of jobs) {
      const published = world.countryDir(worldId, country);
      expect(await servingDifference(path.join(dir, SERVING_FILE), path.join(published, SERVING_FILE))).toBe(
        0,
      );
      expect(lookupDifference(path.join(dir, LOOKUP_FILE), path.join(published, LOOKUP_FILE))).toBe(0);
      // The posting lists are written in one deterministic order: the same bytes.
      const postings = (folder: string) => fs.readFileSync(path.join(folder, POSTINGS_FILE));
      expect(postings(dir).equals(postings(published))).toBe(true);
      // Nothing left of the build's temporary files.
      expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    }
  });

  it('stop starting builds after one fails, and report that failure', async () => {
    const jobs = copyCountries('broken');
    // The largest input is built first; its companies file loses its closing magic bytes (size unchanged).
    const bytes = (dir: string) =>
      fs
        .readdirSync(dir)
        .reduce((s, f) => s + (f.endsWith('.parquet') ? fs.statSync(path.join(dir, f)).size : 0), 0);
    const broken = jobs.reduce((a, b) => (bytes(b.dir) > bytes(a.dir) ? b : a));
    const file = path.join(broken.dir, 'companies.parquet');
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, 'XXXX', fs.statSync(file).size - 4);
    fs.closeSync(fd);
    const done: string[] = [];
    await expect(
      buildServingDatabases(jobs, { parallel: 1, minParallelBytes: 0, log: (m) => done.push(m) }),
    ).rejects.toThrow(/companies\.parquet/);
    // It ran first, and nothing ran after it.
    expect(done).toEqual([]);
    for (const { dir } of jobs) {
      expect(fs.existsSync(path.join(dir, SERVING_FILE))).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    }
  });

  it('share the memory limit between the builds that run at once', () => {
    expect(shareOfMemory('3GB', 2)).toBe('1500MB');
    expect(shareOfMemory('2500MiB', 2)).toBe('1310MB');
    expect(shareOfMemory('6 gb', 1)).toBe('6000MB');
    expect(() => shareOfMemory('lots', 2)).toThrow(/not a memory size/);
  });
});
