import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  fsyncDir,
  listSnapshotFiles,
  SNAPSHOT_INFO_FILE,
  SnapshotVerifyError,
  verifySnapshotFolder,
  type VerifyResult,
} from './snapshot-checksums.ts';
import { assertSnapshotId, SNAPSHOT_ID, SnapshotStore } from './snapshot-store.ts';

/**
 * Copies a snapshot between data folders of different machines: `regdata snapshots pull|push`. A copy goes
 * into a hidden `.partial-<id>.<how>-<pid>` folder beside the snapshots (never listed, never promoted; a
 * killed copy is removed by the next pull or by pruneSnapshots), is verified against the checksums in its
 * snapshot.json on the machine that will serve it, and only then renamed to `<id>` and, if asked,
 * promoted with the usual atomic pointer swap. A server watching that data folder never sees a partial copy.
 */

/** A data folder: on this machine, or on another one reached by rsync over ssh. */
export type DataLocation =
  | { kind: 'dir'; path: string }
  | {
      kind: 'remote';
      /** `[user@]host` as ssh takes it. */
      host: string;
      /** The data folder on that host (absolute, or relative to the login's home). */
      path: string;
      port: number | null;
    };

export class SnapshotTransferError extends Error {
  override readonly name = 'SnapshotTransferError';
}

/**
 * `ssh://[user@]host[:port]/path`, rsync's `[user@]host:path` (a colon before any slash, as rsync reads
 * it), or a local folder.
 */
export function parseDataLocation(spec: string): DataLocation {
  if (spec.startsWith('ssh://')) {
    let url: URL;
    try {
      url = new URL(spec);
    } catch {
      throw new SnapshotTransferError(`not an ssh:// address: ${spec}`);
    }
    if (!url.hostname || url.pathname === '' || url.pathname === '/') {
      throw new SnapshotTransferError(`an ssh:// address needs a host and a path: ${spec}`);
    }
    const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
    return {
      kind: 'remote',
      host: `${user}${url.hostname}`,
      path: decodeURIComponent(url.pathname),
      port: url.port ? Number(url.port) : null,
    };
  }
  const m = /^([^/:]+):(.*)$/.exec(spec);
  if (m) {
    const [, host = '', rest = ''] = m;
    return { kind: 'remote', host, path: rest === '' ? '.' : rest, port: null };
  }
  return { kind: 'dir', path: path.resolve(spec) };
}

export function describeLocation(loc: DataLocation): string {
  if (loc.kind === 'dir') return loc.path;
  return `${loc.host}:${loc.port ? `${loc.port}:` : ''}${loc.path}`;
}

export interface TransferOptions {
  /** Which snapshot (default: the source's live one). */
  snapshotId?: string;
  /** Make the copy live once verified (default true). */
  promote?: boolean;
  /** Bandwidth limit in KiB/s (rsync's --bwlimit; a local copy is paced the same way). */
  bwlimitKiB?: number;
  /** Copy a local folder with rsync too (default: Node's file copy). */
  useRsync?: boolean;
  /** rsync's remote shell (its -e), also used to run the remote step of a push (default `ssh`). */
  ssh?: string;
  /** The rsync program (default `rsync` on PATH). */
  rsync?: string;
  /** How to run regdata on the remote host of a push (default `regdata`). */
  remoteRegdata?: string;
  /** Kept snapshots after a promotion, passed to the remote step of a push (local pruning is the caller's). */
  keep?: number;
  log?: (msg: string) => void;
}

export interface TransferResult {
  snapshotId: string;
  /** False when the destination already had the snapshot. */
  copied: boolean;
  promoted: boolean;
  verify: VerifyResult | null;
}

const snapshotsPath = (dataPath: string) => path.posix.join(dataPath, 'snapshots');

/** Runs a program, its stderr kept for the error message; rejects on a non-zero exit. */
function run(cmd: string[], what: string): Promise<void> {
  const [prog, ...args] = cmd;
  return new Promise((resolve, reject) => {
    const child = spawn(prog!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr = (stderr + c).slice(-4000);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        new SnapshotTransferError(
          err.code === 'ENOENT'
            ? `${prog} is not installed (Debian: apt-get install rsync openssh-client; see docs/deploy.md)`
            : `${what}: ${err.message}`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new SnapshotTransferError(
            `${what} failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}

function sshCommand(opts: TransferOptions, port: number | null): string[] {
  const ssh = (opts.ssh ?? 'ssh').split(/\s+/).filter(Boolean);
  return port ? [...ssh, '-p', String(port)] : ssh;
}

function rsyncBase(opts: TransferOptions, port: number | null): string[] {
  return [
    opts.rsync ?? 'rsync',
    // Recursive, times (so a later --link-dest finds unchanged files), permissions; never symlinks, devices
    // or owners: a snapshot is plain files, and verification refuses anything else.
    '--recursive',
    '--times',
    '--perms',
    '-e',
    sshCommand(opts, port).join(' '),
    ...(opts.bwlimitKiB ? [`--bwlimit=${opts.bwlimitKiB}`] : []),
  ];
}

const rsyncPath = (loc: DataLocation, p: string) => (loc.kind === 'dir' ? p : `${loc.host}:${p}`);

/** The live snapshot id of a data folder, local or remote. */
export async function readCurrentId(loc: DataLocation, opts: TransferOptions = {}): Promise<string> {
  let id: string | null;
  if (loc.kind === 'dir') {
    id = new SnapshotStore(loc.path).currentId();
  } else {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-pointer-'));
    try {
      await run(
        [
          ...rsyncBase(opts, loc.port),
          rsyncPath(loc, path.posix.join(loc.path, 'current')),
          path.join(tmp, 'current'),
        ],
        `reading the current pointer of ${describeLocation(loc)}`,
      );
      id = new SnapshotStore(tmp).currentId();
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  if (id === null) throw new SnapshotTransferError(`${describeLocation(loc)} has no live snapshot`);
  assertSnapshotId(id);
  return id;
}

/** A local copy of a snapshot folder, file by file, paced to `bwlimitKiB` when given. */
async function copyFolder(from: string, to: string, opts: TransferOptions): Promise<void> {
  const files = [...listSnapshotFiles(from), SNAPSHOT_INFO_FILE].filter((rel) =>
    fs.existsSync(path.join(from, rel)),
  );
  const started = Date.now();
  let sent = 0;
  for (const rel of files) {
    const src = path.join(from, rel);
    const dest = path.join(to, rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    if (!opts.bwlimitKiB) {
      await fs.promises.copyFile(src, dest);
    } else {
      const rate = opts.bwlimitKiB * 1024;
      const input = await fs.promises.open(src, 'r');
      const output = await fs.promises.open(dest, 'w');
      try {
        const buf = Buffer.alloc(64 * 1024);
        for (;;) {
          const { bytesRead } = await input.read(buf, 0, buf.length, null);
          if (bytesRead === 0) break;
          await output.write(buf, 0, bytesRead);
          sent += bytesRead;
          const ahead = (sent / rate) * 1000 - (Date.now() - started);
          if (ahead > 0) await sleep(ahead);
        }
      } finally {
        await input.close();
        await output.close();
      }
    }
    // The source's times, so rsync's quick check (size and mtime) sees the copy as the same file later.
    const st = fs.statSync(src);
    fs.utimesSync(dest, st.atime, st.mtime);
    opts.log?.(`copied ${rel}`);
  }
}

const STAGING = /^\.partial-(.+)\.(pull|push)-(\d+)$/;

/**
 * Whether `name` is the staging folder of a pull still running on this machine (its pid is alive). The
 * ingest's clean-up of stale `.partial-*` folders leaves these alone however long the copy takes.
 */
export function isLivePullStaging(name: string): boolean {
  const m = STAGING.exec(name);
  if (!m || m[2] !== 'pull') return false;
  try {
    process.kill(Number(m[3]), 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes the staging folders of pulls whose process is gone (killed mid-copy on this machine). */
function removeDeadStagings(store: SnapshotStore): void {
  if (!fs.existsSync(store.snapshotsDir)) return;
  for (const name of fs.readdirSync(store.snapshotsDir)) {
    if (STAGING.exec(name)?.[2] !== 'pull' || isLivePullStaging(name)) continue;
    fs.rmSync(path.join(store.snapshotsDir, name), { recursive: true, force: true });
  }
}

/**
 * Verifies a staging folder in the local data folder and renames it to its snapshot id; promotes it when
 * asked. On a failed verification the folder is removed and nothing changes. This is the step that must
 * run on the machine that serves the copy (`regdata snapshots adopt`, which a remote push runs over ssh).
 */
export async function adoptStaging(
  store: SnapshotStore,
  stagingName: string,
  opts: { promote?: boolean; log?: (msg: string) => void } = {},
): Promise<{ snapshotId: string; promoted: boolean; verify: VerifyResult }> {
  const m = STAGING.exec(stagingName);
  if (!m) throw new SnapshotTransferError(`not a staging folder name: ${stagingName}`);
  const id = m[1]!;
  if (!SNAPSHOT_ID.test(id)) throw new SnapshotTransferError(`not a staging folder name: ${stagingName}`);
  const staging = path.join(store.snapshotsDir, stagingName);
  if (!fs.existsSync(staging)) throw new SnapshotTransferError(`no staging folder ${staging}`);
  let verify: VerifyResult;
  try {
    verify = await verifySnapshotFolder(staging, id);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    if (err instanceof SnapshotVerifyError) {
      throw new SnapshotTransferError(`snapshot ${id} refused, nothing promoted: ${err.message}`);
    }
    throw err;
  }
  opts.log?.(
    `verified ${verify.files} files (${verify.bytes} bytes) of ${id}` +
      (verify.dropped.length
        ? `; no checksums for ${verify.dropped.join(', ')}: removed, rebuilt on load`
        : ''),
  );
  if (fs.existsSync(store.snapshotDir(id))) {
    // Another pull of the same id finished first; its copy is as good as this one.
    fs.rmSync(staging, { recursive: true, force: true });
  } else {
    fs.renameSync(staging, store.snapshotDir(id));
    fsyncDir(store.snapshotsDir, false);
  }
  const promote = opts.promote ?? true;
  if (promote) store.promote(id);
  return { snapshotId: id, promoted: promote, verify };
}

/** Copies a snapshot from `source` into the local data folder of `store`, verifies it and promotes it. */
export async function pullSnapshot(
  store: SnapshotStore,
  source: DataLocation,
  opts: TransferOptions = {},
): Promise<TransferResult> {
  const id = opts.snapshotId ?? (await readCurrentId(source, opts));
  assertSnapshotId(id);
  const promote = opts.promote ?? true;
  // Not store.list(): a snapshot folder may be a link (a data folder sharing another's snapshots).
  if (fs.existsSync(store.snapshotDir(id))) {
    opts.log?.(`snapshot ${id} is already in ${store.dataDir}; nothing copied`);
    if (promote) store.promote(id);
    return { snapshotId: id, copied: false, promoted: promote, verify: null };
  }
  removeDeadStagings(store);
  fs.mkdirSync(store.snapshotsDir, { recursive: true });
  const stagingName = `.partial-${id}.pull-${process.pid}`;
  const staging = path.join(store.snapshotsDir, stagingName);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging);
  const from = path.posix.join(snapshotsPath(source.path), id);
  try {
    if (source.kind === 'dir' && !opts.useRsync) {
      if (!fs.existsSync(from)) throw new SnapshotTransferError(`no snapshot ${id} in ${source.path}`);
      await copyFolder(fs.realpathSync(from), staging, opts);
    } else {
      const live = store.currentId();
      // Unchanged files (a partial ingest carries most countries over) become hard links to the live copy,
      // which is safe because published files are never modified.
      const linkDest =
        live && fs.existsSync(store.snapshotDir(live))
          ? [`--link-dest=${fs.realpathSync(store.snapshotDir(live))}`]
          : [];
      await run(
        [
          ...rsyncBase(opts, source.kind === 'remote' ? source.port : null),
          ...linkDest,
          `${rsyncPath(source, from)}/`,
          `${staging}/`,
        ],
        `copying snapshot ${id} from ${describeLocation(source)}`,
      );
    }
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    if (err instanceof SnapshotTransferError) throw err;
    // A file system error (no space, permissions, a link in the source): one clear line, nothing promoted.
    throw new SnapshotTransferError(
      `copying snapshot ${id} failed, nothing promoted: ${(err as Error).message}`,
    );
  }
  const adopted = await adoptStaging(store, stagingName, { promote, ...(opts.log && { log: opts.log }) });
  return { snapshotId: id, copied: true, promoted: adopted.promoted, verify: adopted.verify };
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Copies a local snapshot to `dest`. To a folder this machine can write, it is a pull run here on the
 * destination's behalf. To a remote host, rsync copies it into a staging folder there, then
 * `regdata snapshots adopt` runs on that host over ssh, so verification and promotion happen on the
 * machine that serves the copy (docs/deploy.md).
 */
export async function pushSnapshot(
  store: SnapshotStore,
  dest: DataLocation,
  opts: TransferOptions = {},
): Promise<TransferResult> {
  const id = opts.snapshotId ?? store.currentId();
  if (id === null) throw new SnapshotTransferError(`${store.dataDir} has no live snapshot to push`);
  if (!fs.existsSync(store.snapshotDir(id)))
    throw new SnapshotTransferError(`no snapshot ${id} in ${store.dataDir}`);
  const here: DataLocation = { kind: 'dir', path: path.resolve(store.dataDir) };
  if (dest.kind === 'dir') {
    return pullSnapshot(new SnapshotStore(dest.path), here, { ...opts, snapshotId: id });
  }
  const stagingName = `.partial-${id}.push-${process.pid}`;
  const remoteSnapshots = snapshotsPath(dest.path);
  // --mkpath is rsync >= 3.2.3; a first push to a fresh data folder needs the snapshots folder made.
  await run(
    [
      ...rsyncBase(opts, dest.port),
      '--mkpath',
      `${fs.realpathSync(store.snapshotDir(id))}/`,
      `${dest.host}:${path.posix.join(remoteSnapshots, stagingName)}/`,
    ],
    `copying snapshot ${id} to ${describeLocation(dest)}`,
  );
  const remote = [
    opts.remoteRegdata ?? 'regdata',
    'snapshots',
    'adopt',
    shellQuote(dest.path),
    shellQuote(stagingName),
    ...(opts.promote === false ? ['--no-promote'] : []),
    ...(opts.keep !== undefined ? ['--keep', String(opts.keep)] : []),
  ].join(' ');
  opts.log?.(`copied; verifying on ${dest.host}: ${remote}`);
  await run([...sshCommand(opts, dest.port), dest.host, remote], `verifying snapshot ${id} on ${dest.host}`);
  return { snapshotId: id, copied: true, promoted: opts.promote ?? true, verify: null };
}
