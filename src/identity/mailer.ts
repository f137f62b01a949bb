import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { redactUrl } from '../wallet/store.ts';

/** An e-mail the service sends: verification and password-reset links. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * A message as the queue hands it to a mailer: the Message-ID and Date are fixed when it is queued, so every
 * attempt carries the same ones (a receiver can drop the duplicate of a delivery that was retried).
 */
export interface OutgoingMail extends Mail {
  /** The unique local part of the Message-ID; the mailer adds the sender's domain. */
  messageId: string;
  date: Date;
}

export type MailerKind = 'outbox' | 'smtp' | 'sendmail' | 'file';

export interface Mailer {
  readonly kind: MailerKind;
  /** Where it delivers, for messages and logs (never a password). */
  readonly target: string;
  /** `signal` cancels an SMTP send in flight (nodemailer: the other transports honour it only before). */
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves when the mailer can deliver (SMTP: it connects, greets and logs in; sendmail: the program is
   * executable; file: the folder is writable), else rejects with the reason. `regdata serve` runs it at
   * start-up.
   */
  check(): Promise<void>;
  close(): void;
}

export interface OutboxEntry extends Mail {
  sentAt: string;
}

/**
 * Development mailer: keeps the last messages in memory for the /dev/outbox page and logs that one was
 * sent. Nothing leaves the machine, so a newcomer can sign up without an SMTP server. Never for production:
 * the outbox page shows every link to whoever opens it.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';
  readonly target = '/dev/outbox';
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly onSend: (mail: Mail) => void = () => {},
    private readonly keep = 50,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    this.entries.unshift({
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      sentAt: new Date().toISOString(),
    });
    // Bounded: the outbox is a window on recent mail, not a store.
    this.entries.length = Math.min(this.entries.length, this.keep);
    this.onSend(mail);
  }

  async check(): Promise<void> {}

  close(): void {}

  list(): readonly OutboxEntry[] {
    return this.entries;
  }
}

/**
 * SMTP timeouts well under the queue's lease (REGDATA_MAIL_LEASE_MS), so a hung server fails the attempt
 * long before another worker may take the message over; nodemailer's defaults (2 and 10 minutes) are not.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000 };

/** Plain text bodies only: no message may name a file or a URL for nodemailer to read into it. */
const NO_CONTENT_FETCH = { disableFileAccess: true, disableUrlAccess: true };

type Transport = ReturnType<typeof nodemailer.createTransport>;

/**
 * Every real mailer sends through nodemailer: it writes the MIME message (quoted-printable UTF-8 body,
 * RFC 2047 encoded headers, Date, Message-ID) and speaks SMTP or pipes to sendmail.
 */
abstract class NodemailerMailer implements Mailer {
  abstract readonly kind: MailerKind;
  private readonly domain: string;

  constructor(
    private readonly from: string,
    readonly target: string,
    protected readonly transport: Transport,
  ) {
    // The Message-ID's right part: the sender's domain, as RFC 5322 suggests.
    this.domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  }

  async send(mail: OutgoingMail, signal?: AbortSignal): Promise<void> {
    await this.deliver(
      await this.transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        date: mail.date,
        messageId: `<${mail.messageId}@${this.domain}>`,
        // RFC 3834: an automatic message, so auto-responders do not answer it.
        headers: { 'Auto-Submitted': 'auto-generated' },
        signal,
      }),
    );
  }

  /** What to do with the transport's result; only the file mailer keeps it. */
  protected async deliver(_info: unknown): Promise<void> {}

  abstract check(): Promise<void>;

  close(): void {
    this.transport.close();
  }
}

/** SMTP submission to a relay (REGDATA_SMTP_URL: `smtp://user:pass@host:587`, STARTTLS when offered, or `smtps://`). */
export class SmtpMailer extends NodemailerMailer {
  readonly kind = 'smtp';

  constructor(url: string, from: string) {
    super(from, redactUrl(url), nodemailer.createTransport({ url, ...SMTP_TIMEOUTS, ...NO_CONTENT_FETCH }));
  }

  async check(): Promise<void> {
    await this.transport.verify();
  }
}

/** The machine's MTA (postfix, exim, msmtp all provide a sendmail program). */
export class SendmailMailer extends NodemailerMailer {
  readonly kind = 'sendmail';

  constructor(
    private readonly command: string,
    from: string,
  ) {
    super(from, command, nodemailer.createTransport({ sendmail: true, path: command, ...NO_CONTENT_FETCH }));
  }

  async check(): Promise<void> {
    const stat = await fs.promises.stat(this.command).catch(() => null);
    if (!stat?.isFile()) throw new Error(`${this.command} does not exist`);
    await fs.promises.access(this.command, fs.constants.X_OK).catch(() => {
      throw new Error(`${this.command} is not executable`);
    });
  }
}

/**
 * Writes each message, as sent over SMTP, to `<folder>/<date>-<id>.eml` (whole files only: written under a
 * temporary name, then renamed), for a relay that picks them up, for staging, and for tests.
 */
export class FileMailer extends NodemailerMailer {
  readonly kind = 'file';

  constructor(
    private readonly folder: string,
    from: string,
  ) {
    const transport = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: 'windows',
      ...NO_CONTENT_FETCH,
    });
    super(from, folder, transport);
  }

  protected override async deliver(info: unknown): Promise<void> {
    const message = (info as { message: Buffer }).message;
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID()}.eml`;
    await writeWhole(path.join(this.folder, name), message);
  }

  async check(): Promise<void> {
    await fs.promises.mkdir(this.folder, { recursive: true });
    // A real write, not access(): root passes access() on a read-only file system.
    const probe = path.join(this.folder, `.probe-${process.pid}-${crypto.randomUUID()}`);
    await fs.promises.writeFile(probe, '');
    await fs.promises.rm(probe, { force: true });
  }
}

async function writeWhole(file: string, data: Buffer): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  await fs.promises.writeFile(temp, data, { flag: 'wx' });
  await fs.promises.rename(temp, file);
}
