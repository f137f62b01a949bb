import http from 'node:http';
import https from 'node:https';
import { printableExcerpt, quoteInput } from '../../../src/errors/quote-input.ts';
import { DataProblem } from '../../official/errors.ts';

/*
 * SCB's Företagsregistret (FDB) web service, "Sök på var" (registry-formats.md 7.3): HTTPS with a client
 * certificate SCB issues, JSON bodies, JE (legal units) endpoints `api/Je/RaknaForetag` (a count, a bare
 * number) and `api/Je/HamtaForetag` (a JSON array of flat rows, at most 2,000), at most 10 requests per
 * 10 seconds. The base URL, request body shape and operators are those of several public clients of the
 * live service (test/fixtures/real/SE/SOURCES.md).
 */

export const FDB_BASE_URL = 'https://privateapi.scb.se/nv0101/v1/sokpavar/';
/** Rows one HamtaForetag answer returns at most. */
export const FDB_MAX_ROWS = 2000;

/** The client certificate: PEM certificate and key, or a PKCS#12 bundle, with an optional passphrase. */
export interface FdbCredentials {
  cert?: Buffer;
  key?: Buffer;
  pfx?: Buffer;
  passphrase?: string;
  /** Extra trusted CA (PEM), for a test server or a proxy. */
  ca?: Buffer;
}

export interface FdbClientOptions {
  baseUrl?: string;
  credentials?: FdbCredentials;
  /** Requests allowed per window (SCB: 10 per 10 s). */
  requestsPerWindow?: number;
  windowMs?: number;
  /** Attempts per request, the first included. */
  attempts?: number;
  /** First retry delay; doubles each retry. */
  backoffMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** An answer the harvest cannot get past by retrying (wrong certificate, wrong address, a refused query). */
export class FdbError extends DataProblem {
  override readonly name = 'FdbError';
  constructor(
    message: string,
    readonly status: number | null,
    /** SCB's own text (its validator states why a query was refused). */
    readonly reason: string,
  ) {
    super(message);
  }
}

export interface FdbAnswer {
  status: number;
  /** The body exactly as received. */
  body: Buffer;
}

/** A query as the service takes it: variables (`Variabel`, `Operator`, `Varde1`, `Varde2`) and categories. */
export interface FdbQuery {
  Variabler: { Variabel: string; Operator: string; Varde1: string; Varde2: string }[];
  Kategorier: { Kategori: string; Kod: string[] }[];
}

/** The organisation numbers starting with `prefix` (the partition the harvest splits on). */
export function prefixQuery(prefix: string): FdbQuery {
  return {
    Variabler: [{ Variabel: 'OrgNr (10 siffror)', Operator: 'BorjarPa', Varde1: prefix, Varde2: '' }],
    Kategorier: [],
  };
}

/** A sliding window: at most `n` request starts in any `windowMs`. */
class RateLimiter {
  #starts: number[] = [];
  constructor(
    private readonly n: number,
    private readonly windowMs: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}
  async take(): Promise<void> {
    for (;;) {
      const t = this.now();
      this.#starts = this.#starts.filter((s) => s > t - this.windowMs);
      if (this.#starts.length < this.n) {
        this.#starts.push(t);
        return;
      }
      await this.sleep(this.#starts[0]! + this.windowMs - t);
    }
  }
}

export class FdbClient {
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #limiter: RateLimiter;
  readonly #opts: Required<Pick<FdbClientOptions, 'attempts' | 'backoffMs' | 'timeoutMs' | 'sleep'>>;
  /** Requests sent, retries included (for the manifest). */
  requests = 0;

  constructor(opts: FdbClientOptions = {}) {
    this.#base = new URL(opts.baseUrl ?? FDB_BASE_URL);
    const c = opts.credentials ?? {};
    this.#agent =
      this.#base.protocol === 'https:'
        ? new https.Agent({
            keepAlive: true,
            ...(c.cert && { cert: c.cert }),
            ...(c.key && { key: c.key }),
            ...(c.pfx && { pfx: c.pfx }),
            ...(c.passphrase && { passphrase: c.passphrase }),
            ...(c.ca && { ca: c.ca }),
          })
        : new http.Agent({ keepAlive: true });
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.#limiter = new RateLimiter(
      opts.requestsPerWindow ?? 10,
      opts.windowMs ?? 10_000,
      opts.now ?? Date.now,
      sleep,
    );
    this.#opts = {
      attempts: opts.attempts ?? 6,
      backoffMs: opts.backoffMs ?? 5_000,
      timeoutMs: opts.timeoutMs ?? 120_000,
      sleep,
    };
  }

  close(): void {
    this.#agent.destroy();
  }

  /** One POST, no retry: the status and the raw body, or a thrown network error (a dropped connection). */
  #post(endpoint: string, body: unknown): Promise<FdbAnswer & { retryAfter: number | null }> {
    const url = new URL(endpoint, this.#base);
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method: 'POST',
          agent: this.#agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'content-length': payload.length,
          },
          timeout: this.#opts.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('aborted', () => reject(new Error('connection dropped during the answer')));
          res.on('error', reject);
          res.on('end', () => {
            if (!res.complete) return reject(new Error('connection dropped during the answer'));
            const ra = Number(res.headers['retry-after']);
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks),
              retryAfter: Number.isFinite(ra) && ra >= 0 ? ra * 1000 : null,
            });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer in time')));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * POSTs with the rate limit, retrying throttling (429), server errors (5xx) and dropped connections with
   * exponential backoff (or the server's Retry-After). Any other non-200 answer is an FdbError at once.
   */
  async request(endpoint: string, body: unknown): Promise<FdbAnswer> {
    let last = '';
    for (let attempt = 1; attempt <= this.#opts.attempts; attempt++) {
      await this.#limiter.take();
      this.requests++;
      let wait = this.#opts.backoffMs * 2 ** (attempt - 1);
      try {
        const res = await this.#post(endpoint, body);
        if (res.status === 200) return { status: res.status, body: res.body };
        const reason = printableExcerpt(
          res.body.subarray(0, 4096).toString('utf8').replace(/\s+/g, ' ').trim(),
        );
        if (res.status !== 429 && res.status < 500) {
          throw new FdbError(
            `FDB ${endpoint} answered HTTP ${res.status}${reason ? `: ${reason}` : ''}`,
            res.status,
            reason,
          );
        }
        last = `HTTP ${res.status}${reason ? ` (${reason})` : ''}`;
        if (res.retryAfter !== null) wait = Math.max(wait, res.retryAfter);
      } catch (err) {
        if (err instanceof FdbError) throw err;
        last = (err as Error).message;
      }
      if (attempt < this.#opts.attempts) await this.#opts.sleep(wait);
    }
    throw new FdbError(
      `FDB ${endpoint}: no answer after ${this.#opts.attempts} attempts: ${last}`,
      null,
      last,
    );
  }

  /** `RaknaForetag`: how many units the query matches. */
  async count(query: FdbQuery): Promise<number> {
    const res = await this.request('api/Je/RaknaForetag', query);
    const n = Number(JSON.parse(res.body.toString('utf8')));
    if (!Number.isInteger(n) || n < 0) {
      throw new FdbError(
        `FDB RaknaForetag answered ${quoteInput(res.body.subarray(0, 4096).toString('utf8'), 80)}, not a count`,
        200,
        '',
      );
    }
    return n;
  }

  /** `HamtaForetag`: the raw answer (a JSON array of at most 2,000 rows). */
  async fetch(query: FdbQuery): Promise<FdbAnswer> {
    const res = await this.request('api/Je/HamtaForetag', query);
    const text = res.body.toString('utf8').trimStart();
    if (!text.startsWith('[')) {
      throw new FdbError(
        `FDB HamtaForetag answered ${quoteInput(text.slice(0, 4096), 80)}, not a JSON array`,
        200,
        '',
      );
    }
    return res;
  }
}
