import fs from 'node:fs';
import { BITMAP_ALIGNMENT, RoaringBitmap32 } from './bitmaps.ts';

/**
 * The postings file of one country (`postings.bin`, beside the serving database and the lookup store,
 * written by the same build): a data section of aligned blobs (serialized bitmaps and typed arrays),
 * then a JSON header that says where each blob is, then the header's length and a magic number. Written
 * front to back in one pass, so the builder never holds the whole file; read back in one read into one
 * aligned buffer, whose blobs are used in place.
 */
export const POSTINGS_FILE = 'postings.bin';
const MAGIC = 'RGDPOST1';
const TAIL_BYTES = 4 + MAGIC.length;

/** A blob of the data section: byte offset and length. */
export type Ref = readonly [offset: number, length: number];

export interface OrderedHeader {
  /** Rows with a non-null value. */
  count: number;
  /** Rids in (value, rid) order: the sort order of the column, nulls left out. */
  rids: Ref;
  /** Int32 rank of every rid (index rid), -1 where the value is null; empty when every value is. */
  rank: Ref;
  /** Float64 values in rank order (dates as days since 1970-01-01); null for an order-only column. */
  values: Ref | null;
  /** Bitmaps of consecutive rank ranges of `bucketSize` ranks each. */
  buckets: Ref[];
  bucketSize: number;
}

export interface TextHeader {
  /** Every piece of one to three code points of the folded texts, and their bitmaps, in the same order. */
  grams: string[];
  refs: Ref[];
  /** The folded texts, UTF-8, one after the other in rid order, and Uint32 offsets (index rid, rid + 1). */
  texts: Ref;
  offsets: Ref;
  /** Bitmap of the rids whose text is not null. */
  present: Ref;
}

export interface PostingsHeader {
  layoutVersion: number;
  fingerprint: string;
  /** Rids run from 1 to rows. */
  rows: number;
  /** `values` indexes (filter-index.ts valuesKey) to value to bitmap. */
  values: Record<string, Record<string, Ref>>;
  ordered: Record<string, OrderedHeader>;
  text: Record<string, TextHeader>;
  /** Per day a snapshot published (days since 1970-01-01), the rids it added or changed. */
  changes: { day: number; ref: Ref }[];
}

export type HeaderBody = Omit<PostingsHeader, 'layoutVersion' | 'fingerprint'>;

export class PostingsWriter {
  private readonly fd: number;
  private offset = 0;
  private static readonly PAD = Buffer.alloc(BITMAP_ALIGNMENT);

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'w');
  }

  /** Appends a blob at the next aligned offset. */
  add(bytes: Uint8Array): Ref {
    const pad = (BITMAP_ALIGNMENT - (this.offset % BITMAP_ALIGNMENT)) % BITMAP_ALIGNMENT;
    if (pad) this.write(PostingsWriter.PAD.subarray(0, pad));
    const at = this.offset;
    this.write(bytes);
    return [at, bytes.byteLength];
  }

  array(a: Uint32Array | Int32Array | Float64Array): Ref {
    return this.add(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }

  finish(header: PostingsHeader): void {
    const json = Buffer.from(JSON.stringify(header));
    this.write(json);
    const tail = Buffer.alloc(TAIL_BYTES);
    tail.writeUInt32LE(json.byteLength, 0);
    tail.write(MAGIC, 4, 'latin1');
    this.write(tail);
    fs.closeSync(this.fd);
  }

  abort(): void {
    fs.closeSync(this.fd);
    fs.rmSync(this.file, { force: true });
  }

  private write(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.byteLength) done += fs.writeSync(this.fd, bytes, done);
    this.offset += bytes.byteLength;
  }
}

function readHeader(fd: number, size: number, file: string): PostingsHeader {
  const tail = Buffer.alloc(TAIL_BYTES);
  if (size < TAIL_BYTES || fs.readSync(fd, tail, 0, TAIL_BYTES, size - TAIL_BYTES) !== TAIL_BYTES) {
    throw new Error(`${file} is not a postings file`);
  }
  if (tail.toString('latin1', 4) !== MAGIC) throw new Error(`${file} is not a postings file`);
  const length = tail.readUInt32LE(0);
  const json = Buffer.alloc(length);
  if (fs.readSync(fd, json, 0, length, size - TAIL_BYTES - length) !== length) {
    throw new Error(`${file} ended early`);
  }
  return JSON.parse(json.toString('utf8')) as PostingsHeader;
}

/**
 * The whole file in one aligned buffer over shared memory, and its header: the planner's threads
 * (planner-pool.ts) map the same bytes, so the lists are in memory once however many threads plan.
 */
export function readPostings(file: string): { buffer: Buffer; header: PostingsHeader } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const header = readHeader(fd, size, file);
    const buffer = RoaringBitmap32.bufferAlignedAllocSharedUnsafe(size, BITMAP_ALIGNMENT);
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, buffer, done, Math.min(size - done, 1 << 30), done);
      if (n === 0) throw new Error(`${file} ended early`);
      done += n;
    }
    return { buffer: Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength), header };
  } finally {
    fs.closeSync(fd);
  }
}

/** Only the header's version and fingerprint, without reading the data; null when unreadable. */
export function readPostingsMeta(file: string): { layoutVersion: number; fingerprint: string } | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const header = readHeader(fd, fs.fstatSync(fd).size, file);
    return { layoutVersion: header.layoutVersion, fingerprint: header.fingerprint };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
