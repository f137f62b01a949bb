import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { SnapshotStore } from '../../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../../src/server.ts';

/**
 * The real server (startServer, as `regdata serve` runs it) on a socket, with its own data folder (the
 * shared world's snapshot linked in, a fresh wallet.db), and a raw HTTP client that can send any Host or
 * X-Forwarded-For, as an attacker or a proxy would.
 */
export function linkedDataDir(worldDir: string): string {
  const world = new SnapshotStore(worldDir);
  const id = world.currentId()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-real-'));
  const store = new SnapshotStore(dir);
  fs.mkdirSync(store.snapshotsDir);
  fs.symlinkSync(world.snapshotDir(id), store.snapshotDir(id));
  store.promote(id);
  return dir;
}

export interface RealServer extends StartedServer {
  dataDir: string;
  stop(): Promise<void>;
}

/** Environment as `regdata serve` reads it; the test-only defaults (port 0, silent, no sweeper) first. */
export async function startRealServer(worldDir: string, env: Record<string, string>): Promise<RealServer> {
  const dataDir = linkedDataDir(worldDir);
  const config = loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    ...env,
  });
  try {
    const server = await startServer(config, { handleSignals: false, engine: { connections: 2 } });
    return {
      ...server,
      dataDir,
      async stop() {
        await server.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Starts a server that must be refused: its error message, or 'started' (the server is stopped again). */
export async function startRefusal(worldDir: string, env: Record<string, string>): Promise<string> {
  return startRealServer(worldDir, env).then(
    async (s) => {
      await s.stop();
      return 'started';
    },
    (err: Error) => err.message,
  );
}

/** The real server with an admin key (never charged, never rate-limited) for the calls of a test. */
export async function startRealServerWithAdmin(
  worldDir: string,
  env: Record<string, string> = {},
): Promise<RealServer & { adminKey: string }> {
  const server = await startRealServer(worldDir, env);
  return {
    ...server,
    adminKey: (await server.wallet.createKey({ email: 'admin@test.local', kind: 'admin' })).key,
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request with exactly the headers given (Host included, when given). */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * Raw bytes over a socket and the raw answer, for requests no HTTP client will send (an invalid method,
 * headers over the server's limit); the server answers those and closes the socket.
 */
export function rawSocketRequest(
  url: string,
  bytes: string,
): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may reset the socket while the rest of an oversized request is still being written.
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}

/** A browser stand-in over real HTTP: keeps cookies, reads the CSRF token from the last page. */
export class HttpClient {
  cookies = new Map<string, string>();
  csrf = '';
  lastSetCookies: string[] = [];

  constructor(
    private readonly base: string,
    /** Sent with every request (e.g. an X-Forwarded-For a trusted proxy adds). */
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  private headers(more: Record<string, string>): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { ...this.extraHeaders, ...(cookie && { cookie }), ...more };
  }

  private remember(res: RawResponse): RawResponse {
    const set = res.headers['set-cookie'] ?? [];
    this.lastSetCookies = set;
    for (const c of set) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (/;\s*Max-Age=0(;|$)/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
    const m = /<meta name="csrf-token" content="([^"]+)"/.exec(res.body);
    if (m?.[1]) this.csrf = m[1];
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return this.remember(await rawRequest(`${this.base}${url}`, { headers: this.headers(headers) }));
  }

  async post(
    url: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    const body = new URLSearchParams({ ...form, _csrf: this.csrf }).toString();
    return this.remember(
      await rawRequest(`${this.base}${url}`, {
        method: 'POST',
        body,
        headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded', ...headers }),
      }),
    );
  }
}

/** The outbox page's mails as plain text (the page escapes them; the links are what a test needs). */
export async function outboxLinks(base: string): Promise<string[]> {
  const res = await rawRequest(`${base}/dev/outbox`);
  if (res.status !== 200) throw new Error(`outbox answered ${res.status}`);
  return [...res.body.matchAll(/<a href="([^"]+#t=[A-Za-z0-9_-]+)"/g)].map((m) =>
    m[1]!.replace(/&amp;/g, '&'),
  );
}

export function tokenOf(link: string): string {
  return /#t=([A-Za-z0-9_-]+)/.exec(link)![1]!;
}
