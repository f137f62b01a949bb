import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueMail, MailQueue, type QueueMail } from '../../src/identity/mail-queue.ts';
import { MailWorker, type MailLog, type MailWorkerOptions } from '../../src/identity/mail-worker.ts';
import { FileMailer, SendmailMailer, SmtpMailer, type Mailer } from '../../src/identity/mailer.ts';
import type { WalletStore } from '../../src/wallet/store.ts';
import { PostgresStore } from '../../src/wallet/store-postgres.ts';
import { openSqliteStore } from '../../src/wallet/store-sqlite.ts';
import { freshPgLocation, WALLET_BACKENDS, type Backend } from '../wallet/backends.ts';
import { freePort, SmtpPeer } from './smtp-peer.ts';

/**
 * The outgoing-mail queue and its worker on both wallet backends, sending through nodemailer to a real SMTP
 * server on loopback that parses what arrives with an independent parser (mailparser). Time is a clock the
 * tests move, so retries and leases fall due without waiting.
 */

const FROM = 'regdata <no-reply@regdata.example>';
const TOKEN = 'tOkEn_SeCrEt_0123456789abcdefghijklmnopqrstu';

/** A message with a non-ASCII subject and body, and a link whose token must never reach a log. */
function message(to: string, subject = 'Kinnitage e-posti aadress – regdata ✓ Žaliasis'): QueueMail {
  return {
    kind: 'verify',
    to,
    subject,
    text: `Tere, Jüri! Open https://regdata.example/verify#t=${TOKEN}\n\nŁódź, Göteborg, Ærøskøbing.`,
  };
}

class Clock {
  ms = Date.UTC(2026, 2, 1, 10, 0, 0);
  readonly now = (): number => this.ms;
}

class Lines implements MailLog {
  readonly lines: { level: string; fields: object; msg: string }[] = [];
  info(fields: object, msg: string): void {
    this.lines.push({ level: 'info', fields, msg });
  }
  warn(fields: object, msg: string): void {
    this.lines.push({ level: 'warn', fields, msg });
  }
  error(fields: object, msg: string): void {
    this.lines.push({ level: 'error', fields, msg });
  }
  text(): string {
    return JSON.stringify(this.lines);
  }
  of(level: string): string[] {
    return this.lines.filter((l) => l.level === level).map((l) => l.msg);
  }
}

interface QueueRow {
  id: number;
  state: string;
  attempts: number;
  next_at: number;
  body: string;
  message_id: string;
  created_at: number;
  last_error: string | null;
}

describe.each(WALLET_BACKENDS)('the mail queue on %s', (backend: Backend) => {
  let peer: SmtpPeer;
  const stores: WalletStore[] = [];
  const dirs: string[] = [];
  const workers: MailWorker[] = [];
  let clock: Clock;
  let log: Lines;

  beforeAll(async () => {
    peer = await SmtpPeer.start();
  });
  afterAll(async () => {
    await peer.stop();
  });
  beforeEach(() => {
    clock = new Clock();
    log = new Lines();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      await w.stop();
      w.mailer.close();
    }
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    peer.received.length = 0;
    peer.refused = 0;
    peer.answer = null;
    peer.answerText = null;
    peer.stall = false;
    peer.stalled = 0;
    await peer.stop();
    await peer.start();
  });

  /** A fresh wallet database of this backend; `location` opens more stores on the same one (replicas). */
  async function freshLocation(): Promise<string> {
    if (backend === 'postgres') return freshPgLocation();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-mailq-'));
    dirs.push(dir);
    return path.join(dir, 'wallet.db');
  }
  async function openStore(location: string): Promise<WalletStore> {
    const store = backend === 'postgres' ? await PostgresStore.open(location) : openSqliteStore(location);
    stores.push(store);
    return store;
  }
  function worker(store: WalletStore, opts: Partial<MailWorkerOptions> = {}, mailer?: Mailer): MailWorker {
    const w = new MailWorker(store, mailer ?? new SmtpMailer(peer.url, FROM), {
      maxAttempts: 5,
      retryMs: 1_000,
      retryMaxMs: 60_000,
      leaseMs: 60_000,
      pollMs: 60_000,
      log,
      now: clock.now,
      ...opts,
    });
    workers.push(w);
    return w;
  }
  const rows = (store: WalletStore) =>
    store.all<QueueRow>(
      'SELECT id, state, attempts, next_at, body, message_id, created_at, last_error FROM mail_queue ORDER BY id',
    );
  const enqueue = (store: WalletStore, mail: QueueMail) => store.tx((q) => enqueueMail(q, mail, clock.ms));

  it('sends a queued message as MIME: an RFC 2047 subject, the Date and Message-ID of its queueing, the text intact', async () => {
    const store = await openStore(await freshLocation());
    await enqueue(store, message('juri@test.local'));
    const [queued] = await rows(store);
    await worker(store).drain();

    expect(peer.received).toHaveLength(1);
    const got = peer.received[0]!;
    const m = message('juri@test.local');
    expect(got.to).toEqual(['juri@test.local']);
    expect(got.from).toBe('no-reply@regdata.example');
    // On the wire: an encoded word (RFC 2047), not raw UTF-8 in the header.
    const subjectLines = /^Subject:.*(\r\n[ \t].*)*/m.exec(got.raw)![0];
    expect(subjectLines).toMatch(/=\?UTF-8\?[QB]\?/i);
    expect(subjectLines).not.toMatch(/[^\x20-\x7e\r\n\t]/);
    // Decoded by mailparser, an independent parser: the same subject and text.
    expect(got.parsed.subject).toBe(m.subject);
    expect(got.parsed.text?.trimEnd()).toBe(m.text);
    // The Date of its queueing (RFC 5322 has whole seconds) and a Message-ID in the sender's domain.
    expect(got.parsed.date?.getTime()).toBe(Math.floor(queued!.created_at / 1000) * 1000);
    expect(got.parsed.messageId).toBe(`<${queued!.message_id}@regdata.example>`);
    expect(got.raw).toMatch(/^Date: Sun, 01 Mar 2026 10:00:00 \+0000$/m);
    expect(got.raw).toMatch(/^Auto-Submitted: auto-generated$/m);
    expect(got.raw).toMatch(/^Content-Type: text\/plain; charset=utf-8$/im);
    // Sent: the row is gone, and the link in its body with it; the log names the message, not its content.
    expect(await rows(store)).toEqual([]);
    expect(log.of('info')).toEqual(['mail sent']);
    expect(log.text()).not.toContain(TOKEN);
    expect(log.text()).not.toContain('juri@test.local');
  });

  it('retries a 4xx answer with doubling delays and delivers once the relay accepts again', async () => {
    const store = await openStore(await freshLocation());
    const w = worker(store, { retryMs: 10_000 });
    await enqueue(store, message('retry@test.local'));
    peer.answer = 451;

    await w.drain();
    let [row] = await rows(store);
    expect(row).toMatchObject({ state: 'queued', attempts: 1 });
    expect(row!.last_error).toMatch(/451/);
    // The first retry after 10 s ± 20 % (jitter).
    expect(row!.next_at - clock.ms).toBeGreaterThanOrEqual(8_000);
    expect(row!.next_at - clock.ms).toBeLessThanOrEqual(12_000);
    // Not due yet: another pass leaves it alone.
    await w.drain();
    expect(peer.refused).toBe(1);

    clock.ms = row!.next_at;
    await w.drain();
    [row] = await rows(store);
    expect(row).toMatchObject({ state: 'queued', attempts: 2 });
    // Doubled: 20 s ± 20 %.
    expect(row!.next_at - clock.ms).toBeGreaterThanOrEqual(16_000);
    expect(row!.next_at - clock.ms).toBeLessThanOrEqual(24_000);

    peer.answer = null;
    clock.ms = row!.next_at;
    await w.drain();
    expect(peer.refused).toBe(2);
    expect(peer.received.map((r) => r.to)).toEqual([['retry@test.local']]);
    expect(await rows(store)).toEqual([]);
    expect(log.of('warn')).toEqual(['mail not sent; will retry', 'mail not sent; will retry']);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('gives a 5xx-refused message up after its last attempt: kept without its body, logged as an error', async () => {
    const store = await openStore(await freshLocation());
    await enqueue(store, message('gone@test.local'));
    peer.answer = 550;
    // As a spam filter might: the refusal quotes the link.
    peer.answerText = `rejected: suspicious link https://regdata.example/verify#t=${TOKEN}`;
    // No delay between attempts: one drain spends them all.
    await worker(store, { maxAttempts: 3, retryMs: 0 }).drain();

    expect(peer.refused).toBe(3);
    expect(peer.received).toHaveLength(0);
    const [row] = await rows(store);
    expect(row).toMatchObject({ state: 'failed', attempts: 3, body: '' });
    expect(row!.last_error).toMatch(
      /550 rejected: suspicious link https:\/\/regdata\.example\/verify#t=\*\*\*/,
    );
    expect(log.of('error')).toEqual(['mail given up after 3 attempts']);
    expect(log.text()).toContain('#t=***');
    expect(log.text()).not.toContain(TOKEN);
    // Given up for good: later passes do not try again.
    clock.ms += 86_400_000;
    await workers[0]!.drain();
    expect(peer.refused).toBe(3);
  });

  it('waits while the relay refuses connections, and delivers once it listens again', async () => {
    const store = await openStore(await freshLocation());
    const w = worker(store);
    await enqueue(store, message('later@test.local'));
    await peer.stop();

    await w.drain();
    const [row] = await rows(store);
    expect(row).toMatchObject({ state: 'queued', attempts: 1 });
    expect(row!.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);

    await peer.start();
    clock.ms = row!.next_at;
    await w.drain();
    expect(peer.received.map((r) => r.to)).toEqual([['later@test.local']]);
    expect(await rows(store)).toEqual([]);
  });

  it('takes over a message whose worker died mid-send once its lease ends, and the dead one cannot settle it', async () => {
    const store = await openStore(await freshLocation());
    await enqueue(store, message('crash@test.local'));
    // A worker claims it and dies before sending (as a process killed mid-send would).
    const [dead] = await new MailQueue(store).claim(clock.ms, 60_000, 10);
    expect(dead).toMatchObject({ to: 'crash@test.local', attempts: 1 });

    const w = worker(store, { leaseMs: 60_000 });
    await w.drain();
    expect(peer.received).toHaveLength(0);
    clock.ms += 59_999;
    await w.drain();
    expect(peer.received).toHaveLength(0);

    clock.ms += 1;
    await w.drain();
    expect(peer.received).toHaveLength(1);
    expect(await rows(store)).toEqual([]);
    expect(log.lines.find((l) => l.msg === 'mail sent')?.fields).toMatchObject({ attempt: 2 });
    // The dead worker's late report changes nothing.
    expect(await new MailQueue(store).sent(dead!)).toBe(false);
    expect(await new MailQueue(store).retry(dead!, clock.ms, 'late')).toBe(false);
  });

  it('cuts a send in flight short when the worker stops, and releases its message uncounted', async () => {
    const store = await openStore(await freshLocation());
    const w = worker(store).start();
    await enqueue(store, message('hung@test.local'));
    peer.stall = true;
    w.kick();
    for (let i = 0; peer.stalled === 0; i++) {
      if (i > 1_500) throw new Error('the relay never got the message');
      await new Promise((r) => setTimeout(r, 20));
    }
    // The relay never answers; stop() does not wait for its timeouts.
    await w.stop();
    expect(await rows(store)).toMatchObject([{ state: 'queued', attempts: 0, next_at: clock.ms }]);
    expect(log.of('info')).toEqual(['mail send cut short by shutdown; released for the next worker']);
    expect(peer.received).toHaveLength(0);
  });

  it('gives up a message whose last attempt was cut short, instead of sending it again and again', async () => {
    const store = await openStore(await freshLocation());
    await enqueue(store, message('twice@test.local'));
    const queue = new MailQueue(store);
    // Two workers in turn claim it and die mid-send, the second on the last allowed attempt.
    await queue.claim(clock.ms, 1_000, 10);
    clock.ms += 1_000;
    await queue.claim(clock.ms, 1_000, 10);
    clock.ms += 1_000;
    await worker(store, { maxAttempts: 2 }).drain();
    expect(peer.received).toHaveLength(0);
    expect((await rows(store))[0]).toMatchObject({ state: 'failed', attempts: 3, body: '' });
    expect(log.of('error')).toEqual(['mail given up: the last attempt was cut short']);
  });

  it('sends each message once when four workers (replicas) drain the same queue at once', async () => {
    const location = await freshLocation();
    const first = await openStore(location);
    const n = 40;
    for (let i = 0; i < n; i++) await enqueue(first, message(`m${i}@test.local`, `message ${i}`));
    const replicas = [first, ...(await Promise.all([1, 2, 3].map(() => openStore(location))))];
    await Promise.all(replicas.map((s) => worker(s, { batch: 3 }).drain()));

    expect(peer.received).toHaveLength(n);
    const ids = peer.received.map((r) => r.parsed.messageId);
    expect(new Set(ids).size).toBe(n);
    expect(new Set(peer.received.map((r) => r.to[0])).size).toBe(n);
    expect(await rows(first)).toEqual([]);
  });

  it('writes whole .eml files with the file mailer, the same MIME message SMTP would carry', async () => {
    const store = await openStore(await freshLocation());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-mail-files-'));
    dirs.push(dir);
    const folder = path.join(dir, 'out');
    const mailer = new FileMailer(folder, FROM);
    await mailer.check();
    await enqueue(store, message('file@test.local'));
    await worker(store, {}, mailer).drain();

    const files = fs.readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const parsed = await simpleParser(fs.readFileSync(path.join(folder, files[0]!)));
    expect(parsed.subject).toBe(message('x').subject);
    expect(parsed.text?.trimEnd()).toBe(message('x').text);
    expect(parsed.messageId).toMatch(/^<[0-9a-f-]{36}@regdata\.example>$/);
  });
});

describe('the start-up check of each mailer', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await SmtpPeer.start();
  });
  afterAll(async () => {
    await peer.stop();
  });

  it('SMTP: passes when the relay greets, fails when it refuses the connection or answers 421', async () => {
    await expect(new SmtpMailer(peer.url, FROM).check()).resolves.toBeUndefined();
    const closed = `smtp://127.0.0.1:${await freePort()}`;
    await expect(new SmtpMailer(closed, FROM).check()).rejects.toThrow(/ECONNREFUSED/);
    peer.greeting = 421;
    try {
      await expect(new SmtpMailer(peer.url, FROM).check()).rejects.toThrow(/421/);
    } finally {
      peer.greeting = null;
    }
  });

  it('sendmail: fails for a missing program and a file that is not executable', async () => {
    await expect(new SendmailMailer('/nonexistent/sendmail', FROM).check()).rejects.toThrow(
      /\/nonexistent\/sendmail does not exist/,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-sendmail-'));
    try {
      const file = path.join(dir, 'sendmail');
      fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
      await expect(new SendmailMailer(file, FROM).check()).rejects.toThrow(/is not executable/);
      fs.chmodSync(file, 0o755);
      await expect(new SendmailMailer(file, FROM).check()).resolves.toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('file: fails when the folder cannot be made or written', async () => {
    await expect(new FileMailer('/dev/null/mail', FROM).check()).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
