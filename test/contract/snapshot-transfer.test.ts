import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { publishSnapshot } from '../../ingest/pipeline/publish.ts';
import { stageWorldCountry } from '../../ingest/world/index.ts';
import { snapshotsCommand } from '../../src/cli/commands/snapshots.ts';
import { loadConfig } from '../../src/config.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { parseDataLocation } from '../../src/contract/snapshot-transfer.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/*
 * Issue 18 item 3: `regdata snapshots pull|push` between data folders. A copy is verified on the machine
 * that serves it and only then renamed and promoted; a corrupted or killed copy is never promoted and the
 * old snapshot keeps serving; a server on the destination swaps to a pulled snapshot without a restart.
 * Copies are compared byte for byte with their source by hashing both here (not through snapshot.json).
 */

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));
const HAS_RSYNC = !inject('missingTools').includes('rsync');

let tmp: string;
let worldId: string;
/** A source data folder whose live snapshot (`newId`, EE and LV of another world) is not the world's. */
let source: string;
let newId: string;

async function cli(
  dataDir: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await snapshotsCommand(args, loadConfig({ REGDATA_DATA_DIR: dataDir }));
    return { code, stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** Every file under a folder with its SHA-256, computed here. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else
        out[name] = createHash('sha256')
          .update(fs.readFileSync(path.join(dir, name)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

/** A data folder whose live snapshot is the shared world's, linked in (never written). */
function worldDataDir(name: string): string {
  const dir = path.join(tmp, name);
  const store = new SnapshotStore(dir);
  fs.mkdirSync(store.snapshotsDir, { recursive: true });
  fs.symlinkSync(new SnapshotStore(inject('testDataDir')).snapshotDir(worldId), store.snapshotDir(worldId));
  store.promote(worldId);
  return dir;
}

/** A source folder holding a copy of `newId` with one byte of one file flipped (same size). */
function corruptedSource(file: string): string {
  const dir = path.join(tmp, `corrupt-${path.basename(file)}`);
  const store = new SnapshotStore(dir);
  fs.mkdirSync(store.snapshotsDir, { recursive: true });
  fs.cpSync(new SnapshotStore(source).snapshotDir(newId), store.snapshotDir(newId), { recursive: true });
  const target = path.join(store.snapshotDir(newId), file);
  const bytes = fs.readFileSync(target);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = bytes[at]! ^ 0xff;
  fs.writeFileSync(target, bytes);
  store.promote(newId);
  return dir;
}

/** The snapshot folders of a data folder (linked ones included, which SnapshotStore.list skips). */
const snapshotIds = (dataDir: string) =>
  fs
    .readdirSync(new SnapshotStore(dataDir).snapshotsDir)
    .filter((n) => !n.startsWith('.'))
    .sort();

const stagingFolders = (dataDir: string) =>
  fs.readdirSync(new SnapshotStore(dataDir).snapshotsDir).filter((n) => n.startsWith('.partial-'));

async function companiesForSale(file: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const rows = await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM read_parquet('${file.replaceAll("'", "''")}')
       WHERE staatus = 'R' AND NOT coalesce(not_for_sale, false)`,
    );
    return Number(rows.getRowObjectsJson()[0]!['n']);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-transfer-'));
  worldId = new SnapshotStore(inject('testDataDir')).currentId()!;
  source = worldDataDir('source');
  // EE and LV of another world; the other countries carried over (hard links) from the live world, as a
  // nightly ingest of some countries does.
  const built = await publishSnapshot({
    store: new SnapshotStore(source),
    countries: ['EE', 'LV'],
    label: 'transfer',
    carryOver: true,
    stageCountry: (conn, country, reference) =>
      stageWorldCountry(conn, country, { scale: 0.002, seed: 4242, reference }),
  });
  expect(built.carriedOver.length).toBeGreaterThan(0);
  newId = built.snapshotId;
}, 180_000);

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('data locations', () => {
  it('reads folders, rsync host:path and ssh:// addresses as rsync does', () => {
    expect(parseDataLocation('/srv/regdata/data')).toEqual({ kind: 'dir', path: '/srv/regdata/data' });
    expect(parseDataLocation('./data')).toEqual({ kind: 'dir', path: path.resolve('data') });
    expect(parseDataLocation('api1:/srv/regdata/data')).toEqual({
      kind: 'remote',
      host: 'api1',
      path: '/srv/regdata/data',
      port: null,
    });
    expect(parseDataLocation('ssh://deploy@api2.example.com:2222/srv/regdata/data')).toEqual({
      kind: 'remote',
      host: 'deploy@api2.example.com',
      path: '/srv/regdata/data',
      port: 2222,
    });
    // A colon after a slash is part of a local path, as for rsync.
    expect(parseDataLocation('./a:b').kind).toBe('dir');
  });
});

describe('publish', () => {
  it('records the size and SHA-256 of every file of the snapshot in snapshot.json, derived files too', () => {
    const dir = new SnapshotStore(source).snapshotDir(newId);
    const info = JSON.parse(fs.readFileSync(path.join(dir, 'snapshot.json'), 'utf8')) as {
      files: Record<string, { bytes: number; sha256: string }>;
    };
    const actual = tree(dir);
    delete actual['snapshot.json'];
    expect(Object.keys(info.files).sort()).toEqual(Object.keys(actual).sort());
    for (const [rel, sha] of Object.entries(actual)) {
      expect(info.files[rel]?.sha256, rel).toBe(sha);
      expect(info.files[rel]?.bytes, rel).toBe(fs.statSync(path.join(dir, rel)).size);
    }
    expect(Object.keys(info.files)).toEqual(
      expect.arrayContaining(['EE/serving.duckdb', 'EE/lookup.sqlite', 'EE/postings.bin']),
    );
  });
});

describe('pull and push between two data folders', () => {
  it('pulls the live snapshot byte for byte and makes it live; push carries it on to a third folder', async () => {
    const dest = path.join(tmp, 'empty-dest');
    const r = await cli(dest, ['pull', source]);
    expect(r.code).toBe(0);
    const destStore = new SnapshotStore(dest);
    expect(destStore.currentId()).toBe(newId);
    expect(tree(destStore.snapshotDir(newId))).toEqual(tree(new SnapshotStore(source).snapshotDir(newId)));
    expect(stagingFolders(dest)).toEqual([]);

    const third = path.join(tmp, 'third');
    const p = await cli(dest, ['push', third, '--no-promote']);
    expect(p.code).toBe(0);
    const thirdStore = new SnapshotStore(third);
    expect(snapshotIds(third)).toEqual([newId]);
    expect(thirdStore.currentId()).toBeNull();
    expect(tree(thirdStore.snapshotDir(newId))).toEqual(tree(destStore.snapshotDir(newId)));
  });

  it('pulls a snapshot published before snapshot.json had checksums: contract files verified, derived dropped', async () => {
    const from = path.join(tmp, 'legacy-source');
    const fromStore = new SnapshotStore(from);
    fs.mkdirSync(fromStore.snapshotsDir, { recursive: true });
    fs.cpSync(new SnapshotStore(source).snapshotDir(newId), fromStore.snapshotDir(newId), {
      recursive: true,
    });
    const infoFile = path.join(fromStore.snapshotDir(newId), 'snapshot.json');
    const info = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as Record<string, unknown>;
    delete info['files'];
    fs.writeFileSync(infoFile, JSON.stringify(info));
    fromStore.promote(newId);

    const dest = path.join(tmp, 'legacy-dest');
    const r = await cli(dest, ['pull', from]);
    expect(r.code).toBe(0);
    const copied = tree(new SnapshotStore(dest).snapshotDir(newId));
    const expected = Object.fromEntries(
      Object.entries(tree(fromStore.snapshotDir(newId))).filter(
        ([rel]) => !['serving.duckdb', 'lookup.sqlite', 'postings.bin'].includes(path.basename(rel)),
      ),
    );
    expect(copied).toEqual(expected);

    // The same older snapshot with a damaged Parquet file is refused by its country manifest.
    const target = path.join(fromStore.snapshotDir(newId), 'LV', 'companies.parquet');
    const bytes = fs.readFileSync(target);
    bytes[100] = bytes[100]! ^ 0xff;
    fs.writeFileSync(target, bytes);
    const bad = await cli(path.join(tmp, 'legacy-dest-2'), ['pull', from]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('LV/companies.parquet: SHA-256 mismatch');
  });

  it('pulls a named snapshot that is not the live one, and says so when it is already there', async () => {
    const dest = path.join(tmp, 'named-dest');
    const r = await cli(dest, ['pull', source, '--snapshot', worldId, '--no-promote']);
    expect(r.code).toBe(0);
    expect(snapshotIds(dest)).toEqual([worldId]);
    expect(new SnapshotStore(dest).currentId()).toBeNull();
    const again = await cli(dest, ['pull', source, '--snapshot', worldId]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already in');
    expect(new SnapshotStore(dest).currentId()).toBe(worldId);
  });

  it('answers a usage error (exit 2) for a bad option and a clear failure (exit 1) for a missing snapshot', async () => {
    await expect(cli(tmp, ['pull', source, '--snapshot', '../etc'])).rejects.toThrow(/not a snapshot id/);
    await expect(cli(tmp, ['pull', source, '--keep', '0'])).rejects.toThrow(/--keep/);
    const r = await cli(path.join(tmp, 'missing-dest'), ['pull', source, '--snapshot', '20000101T000000Z']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no snapshot 20000101T000000Z');
  });
});

describe('a server on the destination', () => {
  let dest: string;
  let server: StartedServer;
  let key: string;
  const live = async () => {
    const res = await fetch(`${server.url}/healthz`, { headers: { authorization: `Bearer ${key}` } });
    return ((await res.json()) as { snapshot_id: string }).snapshot_id;
  };
  const count = async () => {
    const res = await fetch(`${server.url}/api/v1/data/count?country=EE`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { count: number }).count;
  };

  beforeAll(async () => {
    dest = worldDataDir('served');
    server = await startServer(
      loadConfig({
        PORT: '0',
        REGDATA_DATA_DIR: dest,
        LOG_LEVEL: 'silent',
        REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
        REGDATA_SNAPSHOT_POLL_MS: '50',
      }),
      { handleSignals: false },
    );
    key = (await server.wallet.createKey({ email: 'transfer@test.local', kind: 'admin' })).key;
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it.each(['EE/companies.parquet', 'EE/serving.duckdb', 'LV/manifest.json'])(
    'refuses a copy with a damaged %s: the file is named, nothing is promoted, the old snapshot serves',
    async (file) => {
      const before = await count();
      const r = await cli(dest, ['pull', corruptedSource(file)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(file);
      expect(r.stderr).toContain('nothing promoted');
      const store = new SnapshotStore(dest);
      expect(store.currentId()).toBe(worldId);
      expect(snapshotIds(dest)).toEqual([worldId]);
      expect(stagingFolders(dest)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await live()).toBe(worldId);
      expect(await count()).toBe(before);
    },
  );

  it('a copy killed with SIGKILL leaves only a hidden staging folder; the next pull clears it', async () => {
    const child = spawn(process.execPath, [BIN, 'snapshots', 'pull', source, '--bwlimit', '64'], {
      env: { ...process.env, REGDATA_DATA_DIR: dest },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        if (stderr.includes('copied ')) resolve();
      });
      child.on('close', () => reject(new Error(`the pull ended before it was killed: ${stderr}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));

    const store = new SnapshotStore(dest);
    expect(stagingFolders(dest)).toEqual([`.partial-${newId}.pull-${child.pid}`]);
    expect(snapshotIds(dest)).toEqual([worldId]);
    expect(store.currentId()).toBe(worldId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await live()).toBe(worldId);

    const r = await cli(dest, ['pull', source, '--no-promote']);
    expect(r.code).toBe(0);
    expect(stagingFolders(dest)).toEqual([]);
    expect(snapshotIds(dest)).toEqual([worldId, newId].sort());
    expect(store.currentId()).toBe(worldId);
  }, 60_000);

  it('swaps to a pulled snapshot without a restart and answers from it', async () => {
    const r = await cli(dest, ['pull', source]);
    expect(r.code).toBe(0);
    for (let i = 0; i < 300 && (await live()) !== newId; i++) await new Promise((res) => setTimeout(res, 50));
    expect(await live()).toBe(newId);
    const store = new SnapshotStore(dest);
    expect(await count()).toBe(await companiesForSale(store.file(newId, 'EE', 'companies')));
  }, 60_000);
});

describe.skipIf(!HAS_RSYNC)('over rsync', () => {
  let fakeSsh: string;

  beforeAll(() => {
    // Stands in for ssh: drops ssh's options and the host and runs the command on this machine, so rsync's
    // remote-shell protocol and the remote step of a push run for real without an ssh server.
    fakeSsh = path.join(tmp, 'fake-ssh');
    fs.writeFileSync(
      fakeSsh,
      [
        '#!/bin/sh',
        'while [ $# -gt 0 ]; do case "$1" in -p|-l|-i|-o) shift 2;; -*) shift;; *) break;; esac; done',
        'shift',
        'exec sh -c "$*"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
  });

  it('pulls a local folder with --rsync, byte for byte', async () => {
    const dest = worldDataDir('rsync-dest');
    const r = await cli(dest, ['pull', source, '--rsync']);
    expect(r.code).toBe(0);
    expect(tree(new SnapshotStore(dest).snapshotDir(newId))).toEqual(
      tree(new SnapshotStore(source).snapshotDir(newId)),
    );
    expect(new SnapshotStore(dest).currentId()).toBe(newId);
  }, 60_000);

  it('pulls from host:/path through the remote shell, reading the remote pointer', async () => {
    const dest = path.join(tmp, 'remote-pull-dest');
    const r = await cli(dest, ['pull', `somehost:${source}`, '--ssh', fakeSsh]);
    expect(r.code).toBe(0);
    expect(new SnapshotStore(dest).currentId()).toBe(newId);
    expect(tree(new SnapshotStore(dest).snapshotDir(newId))).toEqual(
      tree(new SnapshotStore(source).snapshotDir(newId)),
    );
  }, 60_000);

  it('refuses a corrupted remote copy with the file named', async () => {
    const dest = worldDataDir('remote-corrupt-dest');
    const r = await cli(dest, [
      'pull',
      `somehost:${corruptedSource('LV/history.parquet')}`,
      '--ssh',
      fakeSsh,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('LV/history.parquet');
    expect(new SnapshotStore(dest).currentId()).toBe(worldId);
    expect(stagingFolders(dest)).toEqual([]);
  }, 60_000);

  it('pushes to ssh://host/path: copies, then verifies and promotes there with regdata snapshots adopt', async () => {
    const dest = path.join(tmp, 'remote-push-dest');
    const r = await cli(source, [
      'push',
      `ssh://somehost:2222${dest}`,
      '--ssh',
      fakeSsh,
      '--remote-regdata',
      `${process.execPath} ${BIN}`,
    ]);
    expect(r.stderr).toContain('snapshots adopt');
    expect(r.code).toBe(0);
    const store = new SnapshotStore(dest);
    expect(store.currentId()).toBe(newId);
    expect(stagingFolders(dest)).toEqual([]);
    expect(tree(store.snapshotDir(newId))).toEqual(tree(new SnapshotStore(source).snapshotDir(newId)));
  }, 60_000);

  it('a push whose copy does not verify on the remote fails with the file named and promotes nothing', async () => {
    const from = corruptedSource('EE/filters.json');
    const dest = worldDataDir('remote-push-corrupt');
    const r = await cli(from, [
      'push',
      `somehost:${dest}`,
      '--ssh',
      fakeSsh,
      '--remote-regdata',
      `${process.execPath} ${BIN}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('EE/filters.json');
    expect(new SnapshotStore(dest).currentId()).toBe(worldId);
    expect(snapshotIds(dest)).toEqual([worldId]);
    expect(stagingFolders(dest)).toEqual([]);
  }, 60_000);
});
