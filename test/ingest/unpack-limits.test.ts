import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { EE_FILES } from '../../ingest/official/ee/files.ts';
import { SourceFileError } from '../../ingest/official/errors.ts';
import { FREE_SPACE_MARGIN_BYTES, UNPACK_LIMIT_DEFAULTS } from '../../ingest/official/input-limits.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { openSources, planSources } from '../../ingest/official/sources.ts';
import { extractGzip, extractZip, freeBytes, listZip, writeZip } from '../../ingest/official/zip.ts';

/*
 * A zip or gzip file from the internet is unpacked into the work folder only within bounds: its member's
 * inflated size (REGDATA_INGEST_MAX_UNZIPPED_BYTES), its compression ratio (REGDATA_INGEST_MAX_UNZIP_RATIO)
 * and the free space there. The bombs here have the real shape: a deflated run of zeros, about 1,000 to 1.
 */

const REAL = fileURLToPath(new URL('../fixtures/real/', import.meta.url));
const MiB = 1 << 20;

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-unpack-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A zip of `bytes` zeros as one member, written by yazl from a stream (the zeros never sit on disk). */
async function zerosZip(name: string, bytes: number, opts: { zip64?: boolean } = {}): Promise<string> {
  const file = path.join(dir, name);
  const zip = new yazl.ZipFile();
  const chunk = Buffer.alloc(MiB);
  async function* zeros() {
    for (let left = bytes; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
  }
  zip.addReadStream(Readable.from(zeros()), 'ettevotja_rekvisiidid__lihtandmed.csv', {
    mtime: new Date(2026, 0, 1),
    ...(opts.zip64 ? { forceZip64Format: true } : {}),
  });
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(file));
  return file;
}

/** The central directory's first record and where its ZIP64 extra field's inflated size sits. */
function zip64SizeOffset(bytes: Buffer): number {
  const cd = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  const nameLength = bytes.readUInt16LE(cd + 28);
  let e = cd + 46 + nameLength;
  const end = e + bytes.readUInt16LE(cd + 30);
  while (e < end) {
    if (bytes.readUInt16LE(e) === 0x0001) return e + 4; // the uncompressed size comes first
    e += 4 + bytes.readUInt16LE(e + 2);
  }
  throw new Error('no ZIP64 extra field');
}

async function refusal(p: Promise<unknown>): Promise<SourceFileError> {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SourceFileError);
  return err as SourceFileError;
}

describe('zip members are unpacked only within the caps', () => {
  it('refuses a zip of zeros that would inflate past the size cap, before writing anything', async () => {
    const zip = await zerosZip('bomb.csv.zip', 48 * MiB);
    expect(fs.statSync(zip).size).toBeLessThan(100_000);
    const out = path.join(dir, 'bomb.csv');
    const err = await refusal(extractZip(zip, out, 'bomb.csv.zip', { maxBytes: 16 * MiB, maxRatio: 1e9 }));
    expect(err.message).toBe(
      'bomb.csv.zip: member ettevotja_rekvisiidid__lihtandmed.csv inflates to 48.0 MiB (50331648 bytes), ' +
        'over the limit of 16.0 MiB (16777216 bytes) (REGDATA_INGEST_MAX_UNZIPPED_BYTES); nothing was unpacked',
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('refuses a compression ratio over the cap (the default: 100)', async () => {
    const zip = await zerosZip('ratio.csv.zip', 4 * MiB);
    const out = path.join(dir, 'ratio.csv');
    const err = await refusal(extractZip(zip, out, 'ratio.csv.zip'));
    const ratio = Math.round((4 * MiB) / (await compressedSize(zip)));
    expect(ratio).toBeGreaterThan(500);
    expect(err.message).toContain(`inflates ${ratio} times`);
    expect(err.message).toContain('over the limit of 100 (REGDATA_INGEST_MAX_UNZIP_RATIO; a zip bomb?)');
    expect(fs.existsSync(out)).toBe(false);
    // The same member within a ratio cap of 2,000 unpacks whole.
    await extractZip(zip, out, 'ratio.csv.zip', { maxBytes: 8 * MiB, maxRatio: 2000 });
    expect(fs.statSync(out).size).toBe(4 * MiB);
  });

  it('refuses a member that does not fit in the free space of the work folder', async () => {
    // A real ZIP64 archive whose directory declares 1 PiB: no disk here has that free.
    const zip = await zerosZip('huge.csv.zip', MiB, { zip64: true });
    const bytes = fs.readFileSync(zip);
    bytes.writeBigUInt64LE(2n ** 50n, zip64SizeOffset(bytes));
    fs.writeFileSync(zip, bytes);
    const out = path.join(dir, 'huge.csv');
    const err = await refusal(extractZip(zip, out, 'huge.csv.zip', { maxBytes: 2 ** 52, maxRatio: 2 ** 52 }));
    expect(err.message).toMatch(
      new RegExp(
        `^huge\\.csv\\.zip: unpacking needs 1048576\\.0 GiB \\(1125899906842624 bytes\\) and ${dir} has .* free`,
      ),
    );
    expect(fs.existsSync(out)).toBe(false);
    expect(freeBytes(dir)).toBeGreaterThan(FREE_SPACE_MARGIN_BYTES);
  });

  it('stops a member that inflates past the size its directory declares, and leaves no file', async () => {
    const zip = await zerosZip('lying.csv.zip', 3 * MiB, { zip64: true });
    const bytes = fs.readFileSync(zip);
    bytes.writeBigUInt64LE(BigInt(MiB), zip64SizeOffset(bytes));
    fs.writeFileSync(zip, bytes);
    const out = path.join(dir, 'lying.csv');
    const err = await refusal(extractZip(zip, out, 'lying.csv.zip', { maxBytes: 8 * MiB, maxRatio: 1e9 }));
    expect(err.message).toMatch(
      /^lying\.csv\.zip: not a readable zip archive: .*(too many bytes|inflates past)/,
    );
    expect(fs.existsSync(out)).toBe(false);
  });
});

async function compressedSize(zip: string): Promise<number> {
  return (await listZip(zip))[0]!.compressedSize;
}

describe('gzip files are unpacked only within the caps', () => {
  const gzipOfZeros = (name: string, bytes: number): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, zlib.gzipSync(Buffer.alloc(bytes)));
    return file;
  };

  it('stops at the size cap and at the ratio cap, removing what was written', async () => {
    const gz = gzipOfZeros('z.csv.gz', 6 * MiB);
    const out = path.join(dir, 'z.csv');
    const bySize = await refusal(extractGzip(gz, out, 'z.csv.gz', { maxBytes: 2 * MiB, maxRatio: 1e9 }));
    expect(bySize.message).toBe(
      'z.csv.gz: inflates past 2.0 MiB (2097152 bytes), the limit (REGDATA_INGEST_MAX_UNZIPPED_BYTES); unpacking stopped there',
    );
    expect(fs.existsSync(out)).toBe(false);
    const byRatio = await refusal(extractGzip(gz, out, 'z.csv.gz'));
    expect(byRatio.message).toMatch(
      /inflates more than 100 times its .* \(REGDATA_INGEST_MAX_UNZIP_RATIO; a gzip bomb\?\)/,
    );
    expect(fs.existsSync(out)).toBe(false);
    await extractGzip(gz, out, 'z.csv.gz', { maxBytes: 8 * MiB, maxRatio: 1e9 });
    expect(fs.statSync(out).size).toBe(6 * MiB);
  });
});

describe('the source folder check and a real-format zip', () => {
  const principal = path.join(REAL, 'EE', 'principal', 'ettevotja_rekvisiidid__lihtandmed.csv');

  it('names a bomb among the folder problems before anything is unpacked', async () => {
    const src = fs.mkdtempSync(path.join(dir, 'src-'));
    fs.renameSync(
      await zerosZip('b.zip', 2 * MiB),
      path.join(src, 'ettevotja_rekvisiidid__lihtandmed.csv.zip'),
    );
    const { problems } = await planSources('EE', src, EE_FILES);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^EE: ettevotja_rekvisiidid__lihtandmed\.csv\.zip member ettevotja_rekvisiidid__lihtandmed\.csv inflates \d+ times .*a zip bomb\?/,
    );
  });

  it('unpacks the real lihtandmed sample zipped as RIK ships it, byte for byte', async () => {
    const src = fs.mkdtempSync(path.join(dir, 'src-'));
    await writeZip(
      path.join(src, 'ettevotja_rekvisiidid__lihtandmed.csv.zip'),
      principal,
      'ettevotja_rekvisiidid__lihtandmed.csv',
    );
    const { plan, problems } = await planSources('EE', src, EE_FILES);
    expect(problems).toEqual([]);
    const sources = await openSources(plan, path.join(src, 'work'), new IngestReport());
    const file = sources.one('lihtandmed')!;
    expect(fs.readFileSync(file)).toEqual(fs.readFileSync(principal));
  });
});

describe('settings', () => {
  it('REGDATA_INGEST_MAX_UNZIPPED_BYTES and REGDATA_INGEST_MAX_UNZIP_RATIO reach the ingest options', () => {
    expect(loadConfig({}).ingest.unpack).toEqual(UNPACK_LIMIT_DEFAULTS);
    expect(UNPACK_LIMIT_DEFAULTS).toEqual({ maxBytes: 32 * 2 ** 30, maxRatio: 100 });
    const config = loadConfig({
      REGDATA_INGEST_MAX_UNZIPPED_BYTES: String(8 * 2 ** 30),
      REGDATA_INGEST_MAX_UNZIP_RATIO: '40',
    });
    expect(config.ingest.unpack).toEqual({ maxBytes: 8 * 2 ** 30, maxRatio: 40 });
    expect(() => loadConfig({ REGDATA_INGEST_MAX_UNZIP_RATIO: 'lots' })).toThrow(
      /REGDATA_INGEST_MAX_UNZIP_RATIO/,
    );
  });
});
