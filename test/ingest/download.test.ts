import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { downloadSources, DownloadError } from '../../ingest/official/download.ts';
import { dateKey, fixed, scraped } from '../../ingest/official/links.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import type { OfficialFile } from '../../ingest/official/types.ts';
import { writeZip } from '../../ingest/official/zip.ts';

/*
 * Downloads against a local HTTP server on 127.0.0.1 (tests never reach the real registers): streaming to a
 * .part file, a connection dropped mid-body resumed with Range/If-Range, 5xx retried with backoff, a 404
 * given up at once, an HTML error page and a short body refused, 304 revalidation on the next night, and
 * dated links scraped from a landing page.
 */

const BODY = Buffer.from('regcode;name\n'.concat('40003000001;SIA "X"\n'.repeat(20_000)));
const ETAG = `"${createHash('sha1').update(BODY).digest('hex')}"`;
let server: http.Server;
let base: string;
let tmp: string;
let zipBytes: Buffer;
const hits = new Map<string, number>();
const ranges: string[] = [];

function count(url: string): number {
  const n = (hits.get(url) ?? 0) + 1;
  hits.set(url, n);
  return n;
}

/** Serves BODY with ETag and Range support, like data.gov.lv's and RIK's servers. */
function serveBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer,
  dropFirst: boolean,
): void {
  const n = count(req.url ?? '');
  if (req.headers['if-none-match'] === ETAG) {
    res.writeHead(304).end();
    return;
  }
  const range = /^bytes=(\d+)-$/.exec(req.headers['range'] ?? '');
  if (range && req.headers['if-range'] === ETAG) {
    ranges.push(req.headers['range'] ?? '');
    const start = Number(range[1]);
    res.writeHead(206, {
      'content-length': String(body.length - start),
      'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      etag: ETAG,
    });
    res.end(body.subarray(start));
    return;
  }
  res.writeHead(200, { 'content-length': String(body.length), etag: ETAG });
  if (dropFirst && n === 1) {
    // Half the body, then the server hangs up (FIN after the bytes, so they arrive): a flaky night.
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.end());
    return;
  }
  res.end(body);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-download-'));
  const src = path.join(tmp, 'member.csv');
  fs.writeFileSync(src, BODY);
  await writeZip(path.join(tmp, 'x.zip'), src, 'member.csv');
  zipBytes = fs.readFileSync(path.join(tmp, 'x.zip'));
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/drops.csv') return serveBody(req, res, BODY, true);
    if (url === '/steady.csv') return serveBody(req, res, BODY, false);
    if (url === '/flaky.csv') {
      if (count(url) <= 2) return void res.writeHead(503).end('busy');
      return void res.writeHead(200, { 'content-length': String(BODY.length) }).end(BODY);
    }
    if (url === '/missing.csv') return void (count(url), res.writeHead(404).end('not found'));
    if (url === '/challenge.csv') {
      count(url);
      const page = Buffer.from(
        `<!DOCTYPE html><html><title>Just a moment...</title>${' '.repeat(200_000)}</html>`,
      );
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    }
    if (url === '/short.csv') {
      count(url);
      res.writeHead(200, { 'content-length': String(BODY.length) });
      res.write(BODY.subarray(0, 1000), () => res.socket?.end());
      return;
    }
    if (url === '/landing') {
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<a href="/files/1.aruannete_yldandmed_kuni_31012026.zip">old</a>
         <a href='files/1.aruannete_yldandmed_kuni_30102026_0.zip'>new</a>
         <a href="/files/other.zip">other</a>`,
      );
    }
    if (url.startsWith('/files/')) return void res.writeHead(200).end(zipBytes);
    if (url === '/negotiated.zip') {
      // Like PRH's bulk: the zip only to a client that asks for it, JSON otherwise.
      if (req.headers['accept'] === 'application/zip') return void res.writeHead(200).end(zipBytes);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"error":"accept"}');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  hits.clear();
  ranges.length = 0;
});

const file = (name: string, over: Partial<OfficialFile> = {}): OfficialFile =>
  ({
    key: name,
    title: name,
    match: new RegExp(`^${name.replace('.', '\\.')}$`),
    required: true,
    downloads: fixed(`${base}/${name}`, name),
    minBytes: 1000,
    ...(over.required === false ? { adds: name } : {}),
    ...over,
  }) as OfficialFile;

const opts = (report = new IngestReport()) => ({
  report,
  now: new Date('2026-11-01T00:00:00Z'),
  attempts: 4,
  backoffMs: 1,
  idleTimeoutMs: 5000,
  sleep: async () => {},
});

describe('downloads', () => {
  it('resumes the part an interrupted run left, with Range and If-Range, and names the file only when whole', async () => {
    const dir = path.join(tmp, 'resume');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'steady.csv.part'), BODY.subarray(0, 100_000));
    fs.writeFileSync(
      path.join(dir, 'steady.csv.part.meta.json'),
      JSON.stringify({ url: `${base}/steady.csv`, etag: ETAG, lastModified: null }),
    );
    await downloadSources('LV', [file('steady.csv')], dir, opts());
    expect(ranges).toEqual(['bytes=100000-']);
    expect(fs.readFileSync(path.join(dir, 'steady.csv')).equals(BODY)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['steady.csv', 'steady.csv.meta.json']);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'steady.csv.meta.json'), 'utf8')) as {
      sha256: string;
      bytes: number;
    };
    expect(meta).toMatchObject({
      bytes: BODY.length,
      sha256: createHash('sha256').update(BODY).digest('hex'),
    });
  });

  it("sends a file's own request headers (PRH's bulk needs Accept: application/zip)", async () => {
    const dir = path.join(tmp, 'negotiated');
    const negotiated = file('negotiated.zip', {
      downloads: fixed(`${base}/negotiated.zip`, 'negotiated.zip', { accept: 'application/zip' }),
    });
    await downloadSources('FI', [negotiated], dir, opts());
    expect(fs.readFileSync(path.join(dir, 'negotiated.zip')).equals(zipBytes)).toBe(true);
  });

  it('retries a connection dropped mid-body (resuming what arrived) until the file is whole', async () => {
    const dir = path.join(tmp, 'drops');
    await downloadSources('LV', [file('drops.csv')], dir, opts());
    expect(hits.get('/drops.csv')).toBeGreaterThanOrEqual(2);
    expect(fs.readFileSync(path.join(dir, 'drops.csv')).equals(BODY)).toBe(true);
  });

  it('revalidates the next night: a 304 keeps the copy without a transfer', async () => {
    const dir = path.join(tmp, 'revalidate');
    await downloadSources('LV', [file('steady.csv')], dir, opts());
    const report = new IngestReport();
    const messages: string[] = [];
    const quiet = { ...report.progress, message: (m: string) => messages.push(m) };
    await downloadSources('LV', [file('steady.csv')], dir, opts(new IngestReport(quiet)));
    expect(hits.get('/steady.csv')).toBe(2);
    expect(messages.join('\n')).toMatch(/unchanged on the server/);
  });

  it('retries 5xx answers with backoff until the file comes', async () => {
    const dir = path.join(tmp, 'flaky');
    await downloadSources('LV', [file('flaky.csv')], dir, opts());
    expect(hits.get('/flaky.csv')).toBe(3);
    expect(fs.statSync(path.join(dir, 'flaky.csv')).size).toBe(BODY.length);
  });

  it('gives up on a 404 at once and fails the run for a required file', async () => {
    const err = await downloadSources('LV', [file('missing.csv')], path.join(tmp, 'missing'), opts()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as Error).message).toMatch(/answered HTTP 404/);
    expect(hits.get('/missing.csv')).toBe(1);
  });

  it('skips an optional file that cannot be had', async () => {
    const dir = path.join(tmp, 'optional');
    await downloadSources('LV', [file('missing.csv', { required: false })], dir, opts());
    expect(fs.existsSync(path.join(dir, 'missing.csv'))).toBe(false);
  });

  it('refuses an HTML challenge page and a body shorter than announced', async () => {
    const html = await downloadSources('LT', [file('challenge.csv')], path.join(tmp, 'html'), opts()).catch(
      (e: unknown) => e,
    );
    expect((html as Error).message).toMatch(/an HTML page instead of the file/);
    expect(fs.existsSync(path.join(tmp, 'html', 'challenge.csv'))).toBe(false);
    const short = await downloadSources('LT', [file('short.csv')], path.join(tmp, 'short'), opts()).catch(
      (e: unknown) => e,
    );
    expect(short).toBeInstanceOf(DownloadError);
    expect(hits.get('/short.csv')).toBe(4);
  });

  it('finds dated links on a landing page and takes the newest', async () => {
    const reports: OfficialFile = file('reports', {
      match: /^1\.aruannete_yldandmed_kuni_\d{8}(_\d+)?\.zip$/,
      downloads: scraped(`${base}/landing`, /^1\.aruannete_yldandmed_kuni_\d{8}(_\d+)?\.zip$/, (names) =>
        [...names].sort((a, b) => (dateKey(a) < dateKey(b) ? -1 : 1)).slice(-1),
      ),
    });
    const dir = path.join(tmp, 'scraped');
    await downloadSources('EE', [reports], dir, opts());
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.zip'))).toEqual([
      '1.aruannete_yldandmed_kuni_30102026_0.zip',
    ]);
  });
});
