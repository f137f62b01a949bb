import type { WalletStore } from '../wallet/store.ts';
import { MailQueue, type ClaimedMail } from './mail-queue.ts';
import type { Mailer } from './mailer.ts';

/** The worker's log lines (pino's methods fit); never given a message's text, which holds a live link. */
export interface MailLog {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export interface MailWorkerOptions {
  /** Attempts per message, the first included; then it is given up and logged as an error. */
  maxAttempts: number;
  /** Delay before the first retry, doubled after each failure up to `retryMaxMs` (with ±20 % jitter). */
  retryMs: number;
  retryMaxMs: number;
  /** How long a claimed message is this worker's; a worker that dies mid-send leaves it to others after it. */
  leaseMs: number;
  /** How often due messages are looked for (retries, and mail queued by other processes). */
  pollMs: number;
  log: MailLog;
  /** Messages claimed at once. */
  batch?: number;
  now?: () => number;
}

export const DEFAULT_MAIL_WORKER = {
  maxAttempts: 8,
  retryMs: 30_000,
  retryMaxMs: 30 * 60_000,
  leaseMs: 5 * 60_000,
  pollMs: 5_000,
} as const;

/** Failed messages are kept this long for the operator (without their body), then pruned. */
const FAILED_KEEP_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const ERROR_CHARS = 300;

/**
 * Sends the queued mail: claims due messages, sends each through the mailer, and deletes it when sent,
 * queues it again with exponential backoff when the mailer failed, or gives it up (marked failed, logged
 * as an error) after `maxAttempts`. One pass runs at a time per worker; `kick()` after queueing makes the
 * next one start at once instead of at the next poll.
 */
export class MailWorker {
  private readonly queue: MailQueue;
  private readonly now: () => number;
  private readonly batch: number;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  private kicked = false;
  private chain: Promise<void> = Promise.resolve();
  private lastPrune = 0;
  /** Aborted by stop(): an SMTP send in flight is cut, and its message released for the next worker. */
  private stopSignal = new AbortController();

  constructor(
    store: WalletStore,
    readonly mailer: Mailer,
    private readonly opts: MailWorkerOptions,
  ) {
    this.queue = new MailQueue(store);
    this.now = opts.now ?? Date.now;
    this.batch = opts.batch ?? 10;
  }

  start(): this {
    if (this.started) return this;
    this.started = true;
    this.stopping = false;
    this.stopSignal = new AbortController();
    this.timer = setInterval(() => this.kick(), this.opts.pollMs);
    this.timer.unref();
    this.kick();
    return this;
  }

  /**
   * A pass soon (coalesced: kicks during a pass make one more); nothing before start(). It begins after the
   * current I/O callbacks, so the page that queued the mail is answered first.
   */
  kick(): void {
    if (!this.started || this.kicked) return;
    this.kicked = true;
    setImmediate(() =>
      this.enqueuePass(() => {
        this.kicked = false;
      }),
    );
  }

  /** Runs passes until no message is due; for the development outbox page and for tests. */
  drain(): Promise<void> {
    return this.enqueuePass();
  }

  /** No new pass starts; a send in flight is cut short and its message, like the rest claimed, released. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopping = true;
    this.stopSignal.abort(new Error('the server is stopping'));
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.chain;
  }

  private enqueuePass(before?: () => void): Promise<void> {
    const run = this.chain.then(async () => {
      before?.();
      try {
        await this.pass();
      } catch (err) {
        // The database went away mid-pass: what was claimed comes back when its lease ends.
        this.opts.log.error({ err: errorText(err) }, 'mail queue pass failed');
      }
    });
    this.chain = run;
    return run;
  }

  private async pass(): Promise<void> {
    const { leaseMs } = this.opts;
    while (!this.stopping) {
      const claimed = await this.queue.claim(this.now(), leaseMs, this.batch);
      if (claimed.length === 0) break;
      for (const mail of claimed) {
        // Stopping: what is not in hand goes back at once, uncounted, for another worker or the next start.
        if (this.stopping) await this.queue.release(mail, this.now());
        else await this.deliver(mail);
      }
    }
    if (!this.stopping && this.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = this.now();
      await this.queue.prune(this.now() - FAILED_KEEP_MS);
    }
  }

  private async deliver(mail: ClaimedMail): Promise<void> {
    const { log, maxAttempts } = this.opts;
    const fields = { mail_id: mail.id, kind: mail.kind, attempt: mail.attempts, mailer: this.mailer.kind };
    if (mail.attempts > maxAttempts) {
      // Its last attempt never reported back (the process stopped mid-send): it may have gone out.
      await this.queue.giveUp(mail, this.now(), 'the last attempt was cut short');
      log.error(fields, 'mail given up: the last attempt was cut short');
      return;
    }
    try {
      // Half the lease at most: a slow relay fails this attempt before another worker may take it over.
      const signal = AbortSignal.any([this.stopSignal.signal, AbortSignal.timeout(this.opts.leaseMs / 2)]);
      await this.mailer.send(
        {
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          messageId: mail.messageId,
          date: new Date(mail.createdAt),
        },
        signal,
      );
    } catch (err) {
      if (this.stopping) {
        await this.queue.release(mail, this.now());
        log.info(fields, 'mail send cut short by shutdown; released for the next worker');
        return;
      }
      const error = errorText(err);
      if (mail.attempts >= maxAttempts) {
        await this.queue.giveUp(mail, this.now(), error);
        log.error({ ...fields, error }, `mail given up after ${mail.attempts} attempts`);
      } else {
        const delayMs = backoffMs(mail.attempts, this.opts.retryMs, this.opts.retryMaxMs);
        await this.queue.retry(mail, this.now() + delayMs, error);
        log.warn({ ...fields, error, retry_in_ms: delayMs }, 'mail not sent; will retry');
      }
      return;
    }
    if (await this.queue.sent(mail)) log.info(fields, 'mail sent');
    else log.warn(fields, 'mail sent after its lease ended: another worker may send it again');
  }
}

/** Exponential backoff from `baseMs`, capped, with ±20 % jitter so retries of many messages spread out. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(plain * (0.8 + 0.4 * Math.random()));
}

/** A failure in one line: nodemailer's code and SMTP answer, never the message (it holds the link). */
function errorText(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; responseCode?: unknown };
  const parts = [
    typeof e.code === 'string' ? e.code : null,
    typeof e.responseCode === 'number' ? String(e.responseCode) : null,
    typeof e.message === 'string' ? e.message : String(err),
  ].filter((p): p is string => p !== null);
  // A relay's answer may quote the message (a spam filter naming the link): a link's token never passes.
  return parts
    .join(' ')
    .replace(/#t=[A-Za-z0-9_-]+/g, '#t=***')
    .replace(/\s+/g, ' ')
    .slice(0, ERROR_CHARS);
}
