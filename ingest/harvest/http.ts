import { setTimeout as delay } from 'node:timers/promises';

/** One answer as received: the status, the headers and the body bytes, untouched. */
export interface HttpAnswer {
  url: string;
  status: number;
  headers: Headers;
  body: Buffer;
  /** When the answer arrived (ISO 8601, UTC). */
  at: string;
}

export interface HttpOptions {
  /** Requests per second at most (a polite pace; the services publish no bulk access). */
  ratePerSecond: number;
  /** Attempts per request, the first included. */
  attempts?: number;
  /** First retry delay; it doubles each retry (with jitter). A 429's Retry-After wins when longer. */
  backoffMs?: number;
  /** A request that has not finished in this time is aborted and retried. */
  timeoutMs?: number;
  userAgent?: string;
  sleep?: (ms: number) => Promise<void>;
  /** Called before each retry, for progress lines. */
  onRetry?: (url: string, attempt: number, reason: string, waitMs: number) => void;
}

/** A request that failed after every retry (the network, 429 or 5xx each time). */
export class HarvestHttpError extends Error {
  override readonly name = 'HarvestHttpError';
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const USER_AGENT = 'regdata-harvest/0.1 (+nightly register harvest; polite rate)';

/** Seconds or an HTTP date, as Retry-After may be written; null when absent or unreadable. */
function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, when - now);
}

/**
 * The HTTP side of every harvester: one request at a time at most `ratePerSecond`, retried with exponential
 * backoff on network errors, timeouts, 429 and 5xx. Any other status (200, 204, 404, 400 ...) is an answer
 * the caller judges: for a register sweep a 404 is data (a gap), not a failure.
 */
export class HarvestHttp {
  private nextSlot = 0;
  readonly requests = { sent: 0, retried: 0 };
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: HttpOptions) {
    if (!(opts.ratePerSecond > 0)) throw new Error('ratePerSecond must be positive');
    this.sleep = opts.sleep ?? ((ms) => delay(ms));
  }

  /** Waits for the next request slot: requests are spaced 1/rate seconds apart, retries included. */
  private async pace(): Promise<void> {
    const now = Date.now();
    const wait = this.nextSlot - now;
    this.nextSlot = Math.max(now, this.nextSlot) + 1000 / this.opts.ratePerSecond;
    if (wait > 0) await this.sleep(wait);
  }

  async request(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) {
    const attempts = this.opts.attempts ?? 6;
    const backoff = this.opts.backoffMs ?? 2000;
    let last = '';
    let lastStatus: number | null = null;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.pace();
      this.requests.sent++;
      let wait = backoff * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
      try {
        const res = await fetch(url, {
          method: init.method ?? 'GET',
          headers: { 'user-agent': this.opts.userAgent ?? USER_AGENT, ...init.headers },
          ...(init.body !== undefined ? { body: init.body } : {}),
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000),
          redirect: 'follow',
        });
        // Reading the body can fail too (a connection dropped mid-answer): that is retried like the rest.
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 429 && res.status < 500) {
          return {
            url,
            status: res.status,
            headers: res.headers,
            body,
            at: new Date().toISOString(),
          } as HttpAnswer;
        }
        last = `HTTP ${res.status}`;
        lastStatus = res.status;
        const after = retryAfterMs(res.headers.get('retry-after'), Date.now());
        if (after !== null) wait = Math.max(wait, after);
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        last = cause?.code ?? cause?.message ?? (err as Error).message;
        lastStatus = null;
      }
      if (attempt < attempts) {
        this.requests.retried++;
        this.opts.onRetry?.(url, attempt + 1, last, wait);
        await this.sleep(wait);
      }
    }
    throw new HarvestHttpError(`${url}: ${last} after ${attempts} attempts`, url, lastStatus);
  }
}
