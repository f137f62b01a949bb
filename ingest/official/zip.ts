import fs from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { SourceFileError } from './errors.ts';

/**
 * Just enough ZIP for the official downloads (RIK and Sodra ship `.zip` files holding one CSV or JSON):
 * reading the central directory (with ZIP64, since the RIK general-data JSON is 4-5 GB unzipped) and
 * streaming one member through inflate to disk with its CRC checked; and writing a one-member archive for
 * the official-format writers. No dependency, and memory stays bounded whatever the member's size.
 */

export interface ZipEntry {
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32 = 0xffffffff;

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

function damaged(file: string, problem: string): SourceFileError {
  return new SourceFileError(file, null, `not a readable zip archive: ${problem} (a truncated download?)`);
}

export function listZip(file: string): ZipEntry[] {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = readAt(fd, size - tailLength, tailLength);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw damaged(file, 'no end-of-central-directory record');
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === U32 || cdSize === U32 || count === 0xffff) {
      const locatorAt = eocd - 20;
      if (locatorAt < 0 || tail.readUInt32LE(locatorAt) !== ZIP64_LOCATOR)
        throw damaged(file, 'no ZIP64 locator');
      const z64At = Number(tail.readBigUInt64LE(locatorAt + 8));
      const z64 = readAt(fd, z64At, 56);
      if (z64.length < 56 || z64.readUInt32LE(0) !== ZIP64_EOCD) throw damaged(file, 'bad ZIP64 record');
      count = Number(z64.readBigUInt64LE(32));
      cdSize = Number(z64.readBigUInt64LE(40));
      cdOffset = Number(z64.readBigUInt64LE(48));
    }
    if (cdOffset + cdSize > size) throw damaged(file, 'central directory beyond the end of the file');
    const cd = readAt(fd, cdOffset, cdSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw damaged(file, 'bad central directory');
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        name: cd.toString('utf8', p + 46, p + 46 + nameLength),
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
      };
      // ZIP64 extra field: the 64-bit values follow in this order, only for fields saturated at 0xffffffff.
      let e = p + 46 + nameLength;
      const extraEnd = e + extraLength;
      while (e + 4 <= extraEnd) {
        const id = cd.readUInt16LE(e);
        const len = cd.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          if (entry.size === U32) {
            entry.size = Number(cd.readBigUInt64LE(q));
            q += 8;
          }
          if (entry.compressedSize === U32) {
            entry.compressedSize = Number(cd.readBigUInt64LE(q));
            q += 8;
          }
          if (entry.localHeaderOffset === U32) entry.localHeaderOffset = Number(cd.readBigUInt64LE(q));
        }
        e += 4 + len;
      }
      entries.push(entry);
      p = extraEnd + commentLength;
    }
    return entries;
  } finally {
    fs.closeSync(fd);
  }
}

class Crc32 extends Transform {
  crc = 0;
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.crc = zlib.crc32(chunk, this.crc);
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/** Streams the one data member of an official zip (the first entry that is not a folder) to `outFile`. */
export async function extractZip(file: string, outFile: string, display = file): Promise<ZipEntry> {
  const entries = listZip(file).filter((e) => !e.name.endsWith('/'));
  const entry = entries[0];
  if (!entry) throw damaged(display, 'the archive is empty');
  if (entry.method !== 0 && entry.method !== 8) throw damaged(display, `compression method ${entry.method}`);
  const fd = fs.openSync(file, 'r');
  let dataStart: number;
  try {
    const local = readAt(fd, entry.localHeaderOffset, 30);
    if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw damaged(display, 'bad local header');
    dataStart = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    fs.closeSync(fd);
  }
  if (dataStart + entry.compressedSize > fs.statSync(file).size)
    throw damaged(display, 'member data cut short');
  const crc = new Crc32();
  try {
    if (entry.compressedSize === 0) {
      fs.writeFileSync(outFile, '');
    } else {
      const source = fs.createReadStream(file, {
        start: dataStart,
        end: dataStart + entry.compressedSize - 1,
      });
      if (entry.method === 8) {
        await pipeline(source, zlib.createInflateRaw(), crc, fs.createWriteStream(outFile));
      } else {
        await pipeline(source, crc, fs.createWriteStream(outFile));
      }
    }
  } catch (err) {
    throw damaged(display, `inflate failed: ${(err as Error).message}`);
  }
  if (crc.bytes !== entry.size || crc.crc >>> 0 !== entry.crc32 >>> 0) {
    throw damaged(display, `member ${entry.name} fails its size or CRC check`);
  }
  return entry;
}

/**
 * Writes `zipFile` holding `inputFile` as `memberName`, deflated. Streams: the CRC and sizes go into a data
 * descriptor after the data, so nothing is buffered. Members over 4 GiB are refused (no ZIP64 writing).
 */
export async function writeZip(zipFile: string, inputFile: string, memberName: string): Promise<void> {
  const name = Buffer.from(memberName, 'utf8');
  const dosTime = 0;
  const dosDate = (2026 - 1980) << 9; // fixed stamp: the same input gives the same bytes
  const flags = 0x0008 | 0x0800; // data descriptor follows; UTF-8 name
  const local = Buffer.alloc(30);
  local.writeUInt32LE(LOCAL, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(dosTime, 10);
  local.writeUInt16LE(dosDate, 12);
  local.writeUInt16LE(name.length, 26);

  const out = fs.createWriteStream(zipFile);
  const crc = new Crc32();
  let compressed = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  out.write(local);
  out.write(name);
  await pipeline(fs.createReadStream(inputFile), crc, zlib.createDeflateRaw({ level: 6 }), counter, out, {
    end: false,
  });
  if (crc.bytes >= U32 || compressed >= U32) throw new Error(`${inputFile} is too large for a plain zip`);
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc.crc >>> 0, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(crc.bytes, 12);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(CENTRAL, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(dosTime, 12);
  central.writeUInt16LE(dosDate, 14);
  central.writeUInt32LE(crc.crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(crc.bytes, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42);
  const cdOffset = 30 + name.length + compressed + descriptor.length;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(EOCD, 0);
  eocd.writeUInt16LE(1, 8);
  eocd.writeUInt16LE(1, 10);
  eocd.writeUInt32LE(central.length + name.length, 12);
  eocd.writeUInt32LE(cdOffset, 16);
  await new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.write(descriptor);
    out.write(central);
    out.write(name);
    out.end(eocd, () => resolve());
  });
}
