import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { SourceFileError } from './errors.ts';
import {
  FREE_SPACE_MARGIN_BYTES,
  RATIO_FLOOR_BYTES,
  UNPACK_LIMIT_DEFAULTS,
  type UnpackLimits,
} from './input-limits.ts';

/**
 * The official downloads' zips (RIK, Sodra, PRH and Bolagsverket ship `.zip` files holding one CSV or JSON),
 * read with yauzl (ZIP64 included: RIK's general-data JSON is 4-5 GB unzipped) and written with yazl for the
 * official-format writers. What yauzl leaves to its user is done here: the member's CRC is checked, and an
 * archive is refused before anything is written when its member would inflate past the caps of
 * input-limits.ts or past the free space of the work folder. While inflating, no byte beyond the member's
 * declared size is written (yauzl's own size check, and a cap of ours behind it).
 */

export interface ZipEntry {
  name: string;
  crc32: number;
  compressedSize: number;
  /** Inflated size, as the central directory declares it (and extraction enforces). */
  size: number;
}

const UNITS = [
  [2 ** 30, 'GiB'],
  [2 ** 20, 'MiB'],
  [2 ** 10, 'KiB'],
] as const;

/** `5.0 GiB (5368709120 bytes)`: the unit for reading, the exact count for checking. */
export function describeBytes(n: number): string {
  const unit = UNITS.find(([size]) => n >= size);
  return unit ? `${(n / unit[0]).toFixed(1)} ${unit[1]} (${n} bytes)` : `${n} bytes`;
}

function damaged(file: string, problem: string): SourceFileError {
  return new SourceFileError(
    file,
    null,
    `not a readable zip archive: ${problem} (a truncated or damaged download?)`,
  );
}

/** Refuses a member over the size or ratio cap: judged on sizes alone, before a byte is inflated. */
export function checkInflatedSize(
  display: string,
  what: string,
  sizes: { compressed: number; inflated: number },
  limits: UnpackLimits,
): void {
  if (sizes.inflated > limits.maxBytes) {
    throw new SourceFileError(
      display,
      null,
      `${what} inflates to ${describeBytes(sizes.inflated)}, over the limit of ${describeBytes(limits.maxBytes)} ` +
        '(REGDATA_INGEST_MAX_UNZIPPED_BYTES); nothing was unpacked',
    );
  }
  if (sizes.inflated > RATIO_FLOOR_BYTES && sizes.inflated > limits.maxRatio * sizes.compressed) {
    const ratio = Math.round(sizes.inflated / Math.max(1, sizes.compressed));
    throw new SourceFileError(
      display,
      null,
      `${what} inflates ${ratio} times (${describeBytes(sizes.compressed)} to ${describeBytes(sizes.inflated)}), ` +
        `over the limit of ${limits.maxRatio} (REGDATA_INGEST_MAX_UNZIP_RATIO; a zip bomb?); nothing was unpacked`,
    );
  }
}

/** Bytes the file system of `dir` can still take for an unprivileged writer. */
export function freeBytes(dir: string): number {
  const st = fs.statfsSync(dir);
  return st.bavail * st.bsize;
}

/** Refuses to unpack `bytes` into `dir` unless they fit with FREE_SPACE_MARGIN_BYTES to spare. */
export function checkFreeSpace(display: string, dir: string, bytes: number): void {
  const free = freeBytes(dir);
  if (bytes + FREE_SPACE_MARGIN_BYTES > free) {
    throw new SourceFileError(
      display,
      null,
      `unpacking needs ${describeBytes(bytes)} and ${dir} has ${describeBytes(free)} free ` +
        `(${describeBytes(FREE_SPACE_MARGIN_BYTES)} are kept free); nothing was unpacked`,
    );
  }
}

/**
 * Passes at most `limit` bytes through and fails the stream on the first chunk that would go past it, so
 * the writer behind never receives a byte over the limit.
 */
export class ByteCap extends Transform {
  bytes = 0;
  constructor(
    private readonly limit: number,
    private readonly overLimit: () => Error,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.bytes + chunk.length > this.limit) {
      done(this.overLimit());
      return;
    }
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

class Crc32 extends Transform {
  crc = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.crc = zlib.crc32(chunk, this.crc);
    done(null, chunk);
  }
}

async function openZip(file: string, display: string): Promise<yauzl.ZipFile> {
  try {
    // autoClose off: the member is opened after the directory has been read to its end.
    return await yauzl.openPromise(file, { autoClose: false, validateEntrySizes: true });
  } catch (err) {
    throw damaged(display, (err as Error).message);
  }
}

async function readEntries(zip: yauzl.ZipFile, display: string): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (err) {
    throw damaged(display, (err as Error).message);
  }
  return entries;
}

const toZipEntry = (e: yauzl.Entry): ZipEntry => ({
  name: e.fileName,
  crc32: e.crc32,
  compressedSize: e.compressedSize,
  size: e.uncompressedSize,
});

/** The archive's entries (folders included) from its central directory; a damaged archive is refused. */
export async function listZip(file: string, display = file): Promise<ZipEntry[]> {
  const zip = await openZip(file, display);
  try {
    return (await readEntries(zip, display)).map(toZipEntry);
  } finally {
    zip.close();
  }
}

const isFolder = (name: string): boolean => name.endsWith('/');

/** The one data member of an official zip (the first entry that is not a folder), or null for an empty one. */
export async function zipDataMember(file: string, display = file): Promise<ZipEntry | null> {
  return (await listZip(file, display)).find((e) => !isFolder(e.name)) ?? null;
}

/**
 * Streams `source` through `transforms` into `outFile`. On failure `outFile` is removed; a refusal of ours
 * (a SourceFileError from a ByteCap) is thrown as it is, any other error as `failed(its message)`.
 */
async function unpackInto(
  outFile: string,
  source: () => Promise<Readable>,
  transforms: readonly Transform[],
  failed: (message: string) => Error,
): Promise<void> {
  try {
    await pipeline([await source(), ...transforms, fs.createWriteStream(outFile)]);
  } catch (err) {
    fs.rmSync(outFile, { force: true });
    if (err instanceof SourceFileError) throw err;
    throw failed((err as Error).message);
  }
}

/**
 * Streams the data member of an official zip to `outFile`, after checking it against `limits` and the free
 * space of `outFile`'s folder; its CRC is checked at the end. On any failure `outFile` is removed.
 */
export async function extractZip(
  file: string,
  outFile: string,
  display = file,
  limits: UnpackLimits = UNPACK_LIMIT_DEFAULTS,
): Promise<ZipEntry> {
  const zip = await openZip(file, display);
  try {
    const entry = (await readEntries(zip, display)).find((e) => !isFolder(e.fileName));
    if (!entry) throw damaged(display, 'the archive is empty');
    const what = `member ${entry.fileName}`;
    checkInflatedSize(
      display,
      what,
      { compressed: entry.compressedSize, inflated: entry.uncompressedSize },
      limits,
    );
    checkFreeSpace(display, path.dirname(outFile), entry.uncompressedSize);
    const crc = new Crc32();
    const cap = new ByteCap(entry.uncompressedSize, () =>
      damaged(display, `${what} inflates past its declared ${describeBytes(entry.uncompressedSize)}`),
    );
    await unpackInto(
      outFile,
      () => zip.openReadStreamPromise(entry),
      [cap, crc],
      (message) => damaged(display, `inflating ${what} failed: ${message}`),
    );
    if (crc.crc >>> 0 !== entry.crc32 >>> 0) {
      fs.rmSync(outFile, { force: true });
      throw damaged(display, `${what} fails its CRC check`);
    }
    return toZipEntry(entry);
  } finally {
    zip.close();
  }
}

/**
 * Decompresses a `.gz` file to `outFile`. A gzip stream does not say its size (its trailer keeps it modulo
 * 4 GiB), so the bound is set before the first byte from the caps and the free space of `outFile`'s folder,
 * and inflating stops at it; `outFile` is removed on any failure.
 */
export async function extractGzip(
  file: string,
  outFile: string,
  display = file,
  limits: UnpackLimits = UNPACK_LIMIT_DEFAULTS,
): Promise<void> {
  const compressed = fs.statSync(file).size;
  const dir = path.dirname(outFile);
  const byRatio = Math.max(RATIO_FLOOR_BYTES, limits.maxRatio * compressed);
  const byDisk = freeBytes(dir) - FREE_SPACE_MARGIN_BYTES;
  if (byDisk < compressed) checkFreeSpace(display, dir, compressed);
  const budget = Math.min(limits.maxBytes, byRatio, byDisk);
  const cap = new ByteCap(budget, () => {
    if (budget === limits.maxBytes) {
      return new SourceFileError(
        display,
        null,
        `inflates past ${describeBytes(budget)}, the limit (REGDATA_INGEST_MAX_UNZIPPED_BYTES); unpacking stopped there`,
      );
    }
    if (budget === byRatio) {
      return new SourceFileError(
        display,
        null,
        `inflates more than ${limits.maxRatio} times its ${describeBytes(compressed)} ` +
          '(REGDATA_INGEST_MAX_UNZIP_RATIO; a gzip bomb?); unpacking stopped there',
      );
    }
    return new SourceFileError(
      display,
      null,
      `inflates past the free space of ${dir} (${describeBytes(FREE_SPACE_MARGIN_BYTES)} are kept free); unpacking stopped there`,
    );
  });
  await unpackInto(
    outFile,
    async () => fs.createReadStream(file),
    [zlib.createGunzip(), cap],
    (message) =>
      new SourceFileError(display, null, `not a readable gzip file: ${message} (a truncated download?)`),
  );
}

/** A fixed modification time: the same input gives the same archive bytes. */
const FIXED_MTIME = new Date(2026, 0, 1);

/** Writes `zipFile` holding `inputFile` as `memberName`, deflated, streamed (ZIP64 when the sizes need it). */
export async function writeZip(zipFile: string, inputFile: string, memberName: string): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addFile(inputFile, memberName, { mtime: FIXED_MTIME, compressionLevel: 6 });
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(zipFile));
}
