import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { CountryCode } from '../../src/contract/countries.ts';
import { DataProblem, SourceFileError } from './errors.ts';
import type { IngestReport } from './report.ts';
import { hasBom, readHead } from './text-file.ts';
import type { Download, OfficialFile } from './types.ts';
import { listZip } from './zip.ts';

export interface DownloadOptions {
  report: IngestReport;
  now: Date;
  /** Attempts per file, the first included. */
  attempts?: number;
  /** First retry delay; it doubles each retry (with jitter). */
  backoffMs?: number;
  /** A request that sends no bytes for this long is aborted and retried. */
  idleTimeoutMs?: number;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** A download that failed after every retry, or whose bytes fail the sanity checks. */
export class DownloadError extends DataProblem {
  override readonly name = 'DownloadError';
  constructor(
    message: string,
    /** Retrying cannot help (HTTP 404, 403): give up at once. */
    readonly permanent = false,
  ) {
    super(message);
  }
}

/** Validators a server gave for a file, kept beside it so the next run can resume or skip it. */
interface FileMeta {
  url: string;
  etag: string | null;
  lastModified: string | null;
  bytes?: number;
  sha256?: string;
  downloadedAt?: string;
}

const USER_AGENT = 'regdata-ingest/0.1 (+nightly open-data ingest)';

class Counter extends Transform {
  bytes = 0;
  constructor(private readonly onBytes: (n: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.onBytes(this.bytes);
    done(null, chunk);
  }
}

function readMeta(file: string): FileMeta | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as FileMeta;
  } catch {
    return null;
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Refuses bytes that cannot be the file: shorter than plausible, an HTML error or challenge page (Sodra sits
 * behind Cloudflare), a zip whose directory does not read, or fewer bytes than the server announced.
 */
async function checkSanity(
  file: OfficialFile,
  dl: Download,
  tmp: string,
  expected: number | null,
): Promise<void> {
  const size = fs.statSync(tmp).size;
  if (expected !== null && size !== expected) {
    throw new DownloadError(`${dl.saveAs}: got ${size} bytes, the server announced ${expected}`);
  }
  if (size < file.minBytes) {
    throw new DownloadError(`${dl.saveAs}: only ${size} bytes (at least ${file.minBytes} expected)`);
  }
  const head = readHead(tmp, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) {
    throw new DownloadError(`${dl.saveAs}: the server sent an HTML page instead of the file`);
  }
  if (dl.saveAs.toLowerCase().endsWith('.zip')) {
    try {
      await listZip(tmp, dl.saveAs);
    } catch (err) {
      throw new DownloadError(`${dl.saveAs}: ${err instanceof SourceFileError ? err.problem : String(err)}`);
    }
  } else if (head.length === 0 && !hasBom(tmp)) {
    throw new DownloadError(`${dl.saveAs}: the file is blank`);
  }
}

/** Total size from `Content-Range: bytes a-b/total` or `Content-Length`. */
function announcedSize(res: Response, offset: number): number | null {
  const range = res.headers.get('content-range');
  const total = range ? /\/(\d+)$/.exec(range)?.[1] : undefined;
  if (total) return Number(total);
  const length = res.headers.get('content-length');
  return length === null ? null : offset + Number(length);
}

/**
 * The request's headers: a Range (with If-Range) that resumes a part left by an earlier attempt of the same
 * URL, or else the validators that let the server answer 304 for a complete earlier copy.
 */
function requestHeaders(
  dl: Download,
  target: string,
  tmp: string,
): { headers: Record<string, string>; offset: number } {
  const metaFile = `${target}.meta.json`;
  const partMetaFile = `${tmp}.meta.json`;
  const headers: Record<string, string> = { ...dl.headers, 'user-agent': USER_AGENT };
  const partMeta = readMeta(partMetaFile);
  const offset = fs.existsSync(tmp) && partMeta?.url === dl.url ? fs.statSync(tmp).size : 0;
  if (offset > 0) {
    headers['range'] = `bytes=${offset}-`;
    // Resume only if the file did not change on the server meanwhile; otherwise the server sends it all.
    const validator = partMeta?.etag ?? partMeta?.lastModified;
    if (validator) headers['if-range'] = validator;
  } else {
    const done = readMeta(metaFile);
    if (fs.existsSync(target) && done?.url === dl.url) {
      if (done.etag) headers['if-none-match'] = done.etag;
      if (done.lastModified) headers['if-modified-since'] = done.lastModified;
    }
  }
  return { headers, offset };
}

/**
 * What an answer's status means: the earlier copy is current (304), a body to save, or an error, thrown:
 * a plain Error is retried, a DownloadError marked permanent is not.
 */
function answerKind(res: Response, dl: Download, offset: number, tmp: string): 'unchanged' | 'body' {
  if (res.status === 304) return 'unchanged';
  if (res.status === 416 && offset > 0) {
    // The part is already whole (or the file shrank): start over rather than guess.
    fs.rmSync(tmp, { force: true });
    throw new Error('range not satisfiable; restarting');
  }
  if (res.status === 429 || res.status >= 500) throw new Error(`HTTP ${res.status}`);
  if (res.status !== 200 && res.status !== 206) {
    throw new DownloadError(`${dl.saveAs}: ${dl.url} answered HTTP ${res.status}`, true);
  }
  if (!res.body) throw new Error('empty response body');
  return 'body';
}

/**
 * Fetches one file into `dir/saveAs`: streamed to `saveAs.part`, resumed with a Range request when a part
 * is left from an earlier attempt or run (and the server's validator still matches), retried with
 * exponential backoff, checked, then renamed into place, so `dir` never holds a half file under the real
 * name. A complete earlier copy is revalidated with If-None-Match / If-Modified-Since and kept on 304.
 */
async function fetchOne(file: OfficialFile, dl: Download, dir: string, opts: DownloadOptions): Promise<void> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const attempts = opts.attempts ?? 5;
  const backoff = opts.backoffMs ?? 2000;
  const target = path.join(dir, dl.saveAs);
  const tmp = `${target}.part`;
  const metaFile = `${target}.meta.json`;
  const partMetaFile = `${tmp}.meta.json`;
  const progress = opts.report.progress;
  let lastError: unknown = null;

  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const delay = backoff * 2 ** (attempt - 2) * (0.75 + Math.random() * 0.5);
      progress.message(`${dl.saveAs}: attempt ${attempt} of ${attempts} in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay);
    }
    const started = performance.now();
    const controller = new AbortController();
    let sink: fs.WriteStream | null = null;
    let idle: NodeJS.Timeout | null = null;
    const arm = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => controller.abort(new Error('no data received')), opts.idleTimeoutMs ?? 60_000);
    };
    try {
      const { headers, offset } = requestHeaders(dl, target, tmp);
      arm();
      const res = await fetchImpl(dl.url, { headers, signal: controller.signal, redirect: 'follow' });
      if (answerKind(res, dl, offset, tmp) === 'unchanged') {
        progress.message(`${dl.saveAs}: unchanged on the server, keeping the copy from the last run`);
        return;
      }
      const append = res.status === 206 && offset > 0;
      const start = append ? offset : 0;
      const expected = announcedSize(res, start);
      const meta: FileMeta = {
        url: dl.url,
        etag: res.headers.get('etag'),
        lastModified: res.headers.get('last-modified'),
      };
      fs.writeFileSync(partMetaFile, JSON.stringify(meta));
      const rangeStart = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '')?.[1];
      if (append && Number(rangeStart) !== offset) {
        // A server that answers 206 from another byte than asked would corrupt the part: start over.
        fs.rmSync(tmp, { force: true });
        throw new Error(`the server resumed at byte ${rangeStart ?? '?'}, not ${offset}`);
      }
      const counter = new Counter((n) => {
        arm();
        progress.fileProgress(dl.saveAs, start + n, expected);
      });
      sink = fs.createWriteStream(tmp, { flags: append ? 'a' : 'w' });
      await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), counter, sink);
      if (idle) clearTimeout(idle);
      await checkSanity(file, dl, tmp, expected);
      const bytes = fs.statSync(tmp).size;
      const sha256 = await sha256Of(tmp);
      fs.renameSync(tmp, target);
      fs.rmSync(partMetaFile, { force: true });
      fs.writeFileSync(
        metaFile,
        JSON.stringify({ ...meta, bytes, sha256, downloadedAt: opts.now.toISOString() } satisfies FileMeta),
      );
      progress.fileFinished(dl.saveAs, bytes, (performance.now() - started) / 1000);
      return;
    } catch (err) {
      if (idle) clearTimeout(idle);
      // The next attempt resumes from the part's size: wait until every byte in flight is on disk.
      const open = sink;
      if (open && !open.closed) await new Promise<void>((resolve) => open.once('close', () => resolve()));
      lastError = err;
      if (err instanceof DownloadError) {
        // Wrong bytes (an error page, a short body) are not resumed from; a 4xx will not heal by retrying.
        fs.rmSync(tmp, { force: true });
        fs.rmSync(partMetaFile, { force: true });
        if (err.permanent) break;
      }
      progress.message(`${dl.saveAs}: ${(err as Error).message}`);
    }
  }
  throw lastError instanceof DownloadError
    ? lastError
    : new DownloadError(
        `${dl.saveAs}: download failed after ${attempts} attempts: ${(lastError as Error).message}`,
      );
}

/**
 * Downloads a country's official files into `dir` (kept between runs, so an interrupted night resumes).
 * A required file that cannot be fetched fails the run (exit 1); an optional one is logged and skipped,
 * and the previous night's copy, if any, is used.
 */
export async function downloadSources(
  country: CountryCode,
  files: readonly OfficialFile[],
  dir: string,
  opts: DownloadOptions,
): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const fetchImpl = opts.fetchImpl ?? fetch;
  const fetchText = async (url: string): Promise<string> => {
    const res = await fetchImpl(url, { headers: { 'user-agent': USER_AGENT } });
    if (!res.ok) throw new DownloadError(`${url} answered HTTP ${res.status}`);
    return res.text();
  };
  for (const file of files) {
    let list: Download[];
    try {
      list = await file.downloads({ now: opts.now, fetchText });
    } catch (err) {
      if (file.required) {
        throw err instanceof DownloadError
          ? err
          : new DownloadError(`${country}: ${file.title}: ${(err as Error).message}`);
      }
      opts.report.progress.message(`${country}: ${file.title}: ${(err as Error).message}; skipped`);
      continue;
    }
    let present = 0;
    let firstError: unknown = null;
    for (const dl of list) {
      try {
        await opts.report.stage(country, `download ${dl.saveAs}`, () => fetchOne(file, dl, dir, opts));
        present++;
      } catch (err) {
        firstError ??= err;
        const kept = fs.existsSync(path.join(dir, dl.saveAs));
        if (kept) present++;
        opts.report.progress.message(
          `${country}: ${(err as Error).message}; ${kept ? 'using the copy from the last run' : 'skipped'}`,
        );
      }
    }
    // One file per year (Sodra, RC) may lack a year at the source (Sodra has no 2024); the entry fails only
    // when nothing of it could be had at all.
    const enough = file.many ? present > 0 : present === list.length;
    if (file.required && !enough) throw firstError ?? new DownloadError(`${country}: no ${file.title}`);
  }
}
