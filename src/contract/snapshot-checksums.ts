import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { COUNTRY_CODES, type CountryCode } from './countries.ts';
import type { CountryManifest } from './data-contract.ts';

/**
 * The checksums of a whole snapshot folder, kept in its snapshot.json (`files`): every file, the derived
 * serving files and the country manifests included, by path relative to the snapshot folder with `/`.
 * The country manifests cover only the contract files; a copy to another machine must also be able to
 * trust serving.duckdb and lookup.sqlite (an unverified damaged serving file would be attached and served),
 * hence this list. snapshot.json itself is the one file not in it.
 */
export type SnapshotChecksums = Record<string, { bytes: number; sha256: string }>;

export const SNAPSHOT_INFO_FILE = 'snapshot.json';

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Every file under `dir` (relative, `/`-separated, sorted), snapshot.json excepted. A symlink or any other
 * non-regular entry is refused: a snapshot is plain files, and a link could point a copy outside it.
 */
export function listSnapshotFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else if (entry.isFile()) {
        if (name !== SNAPSHOT_INFO_FILE) files.push(name);
      } else throw new Error(`${name} is not a regular file`);
    }
  };
  walk('');
  return files.sort();
}

/**
 * Checksums every file of a snapshot folder. `known` entries (a country manifest's contract files, or a
 * carried-over country's entries in the live snapshot) are taken as they are when the size still matches,
 * so a publish hashes only what it has not hashed already.
 */
export async function computeSnapshotChecksums(
  dir: string,
  known: SnapshotChecksums = {},
): Promise<SnapshotChecksums> {
  const out: SnapshotChecksums = {};
  for (const rel of listSnapshotFiles(dir)) {
    const file = path.join(dir, rel);
    const bytes = fs.statSync(file).size;
    const k = known[rel];
    out[rel] = k && k.bytes === bytes ? k : { bytes, sha256: await sha256File(file) };
  }
  return out;
}

/** The contract files' checksums from the country manifests of a snapshot folder, keyed as above. */
export function manifestChecksums(dir: string): SnapshotChecksums {
  const out: SnapshotChecksums = {};
  for (const country of COUNTRY_CODES) {
    const manifest = readManifest(dir, country);
    if (!manifest) continue;
    for (const [name, sum] of Object.entries(manifest.files)) out[`${country}/${name}`] = sum;
  }
  return out;
}

function readManifest(dir: string, country: CountryCode): CountryManifest | null {
  const file = path.join(dir, country, 'manifest.json');
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as CountryManifest;
  } catch (err) {
    throw new Error(`${country}/manifest.json: unreadable (${(err as Error).message})`);
  }
}

/** A snapshot copy that does not match its checksums; the message names the file. */
export class SnapshotVerifyError extends Error {
  override readonly name = 'SnapshotVerifyError';
}

/**
 * Files derived from the contract files (src/engine/serving-build.ts). A snapshot published before
 * snapshot.json carried checksums has none for them, so a verified copy drops them and the engine rebuilds
 * them from the verified Parquet files.
 */
const DERIVED_FILES = new Set(['serving.duckdb', 'lookup.sqlite', 'postings.bin']);

export interface VerifyResult {
  snapshotId: string;
  files: number;
  bytes: number;
  /** Derived files without checksums (an older snapshot) that were removed from the copy. */
  dropped: string[];
}

/**
 * Verifies a copied snapshot folder before it may be promoted: snapshot.json names `expectedId`; every file
 * is listed in its checksums with the same size and SHA-256 (and agrees with its country manifest); no
 * listed file is missing and no unlisted file is present. Each file is fsynced as it is read, so a
 * promoted copy is on disk, not only in the page cache. Throws SnapshotVerifyError naming the first bad
 * file.
 */
export async function verifySnapshotFolder(dir: string, expectedId: string): Promise<VerifyResult> {
  let info: { snapshot_id?: unknown; files?: SnapshotChecksums };
  try {
    info = JSON.parse(fs.readFileSync(path.join(dir, SNAPSHOT_INFO_FILE), 'utf8')) as typeof info;
  } catch (err) {
    throw new SnapshotVerifyError(`${SNAPSHOT_INFO_FILE}: missing or unreadable (${(err as Error).message})`);
  }
  if (info.snapshot_id !== expectedId) {
    throw new SnapshotVerifyError(
      `${SNAPSHOT_INFO_FILE}: names snapshot ${JSON.stringify(info.snapshot_id)}, expected ${expectedId}`,
    );
  }
  let present: string[];
  try {
    present = listSnapshotFiles(dir);
  } catch (err) {
    throw new SnapshotVerifyError((err as Error).message);
  }

  const dropped: string[] = [];
  let expected: SnapshotChecksums;
  if (info.files) {
    expected = info.files;
  } else {
    // An older snapshot: only the contract files carry checksums (in the country manifests, which can only
    // be checked by reading them); the derived files are rebuilt from the verified Parquet, not trusted.
    expected = readManifestChecksums(dir);
    for (const rel of present) {
      const base = rel.split('/').pop()!;
      if (DERIVED_FILES.has(base)) {
        fs.rmSync(path.join(dir, rel), { force: true });
        dropped.push(rel);
      } else if (base === 'manifest.json') {
        fsyncFile(path.join(dir, rel));
      }
    }
    present = present.filter((rel) => !dropped.includes(rel) && !rel.endsWith('/manifest.json'));
  }

  const unlisted = present.filter((rel) => !(rel in expected));
  if (unlisted.length > 0) throw new SnapshotVerifyError(`${unlisted[0]}: not in the snapshot's checksums`);
  let bytes = 0;
  for (const [rel, sum] of Object.entries(expected)) {
    const file = path.join(dir, rel);
    if (!fs.existsSync(file)) throw new SnapshotVerifyError(`${rel}: missing from the copy`);
    fsyncFile(file);
    const size = fs.statSync(file).size;
    if (size !== sum.bytes) {
      throw new SnapshotVerifyError(`${rel}: ${size} bytes, its checksum entry says ${sum.bytes}`);
    }
    const actual = await sha256File(file);
    if (actual !== sum.sha256) {
      throw new SnapshotVerifyError(`${rel}: SHA-256 mismatch (expected ${sum.sha256}, got ${actual})`);
    }
    bytes += size;
  }
  if (info.files) {
    // The manifests are verified bytes by now; they must also agree with the list the copy was checked by.
    for (const [rel, sum] of Object.entries(readManifestChecksums(dir))) {
      if (expected[rel]?.sha256 !== sum.sha256) {
        throw new SnapshotVerifyError(
          `${rel}: snapshot.json and ${rel.split('/')[0]}/manifest.json disagree`,
        );
      }
    }
  }
  fsyncDir(dir);
  return { snapshotId: expectedId, files: Object.keys(expected).length, bytes, dropped };
}

/** manifestChecksums, with a manifest that cannot be read named in the error. */
function readManifestChecksums(dir: string): SnapshotChecksums {
  let sums: SnapshotChecksums;
  try {
    sums = manifestChecksums(dir);
  } catch (err) {
    throw new SnapshotVerifyError((err as Error).message);
  }
  if (Object.keys(sums).length === 0) throw new SnapshotVerifyError('no country manifest in the copy');
  return sums;
}

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Flushes a folder's entries (and, when `recursive`, its subfolders'), so renamed or created files survive a
 * power cut.
 */
export function fsyncDir(dir: string, recursive = true): void {
  if (recursive) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) fsyncDir(path.join(dir, entry.name));
    }
  }
  fsyncFile(dir);
}
