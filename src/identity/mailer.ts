import { spawn } from 'node:child_process';

/** An e-mail the service sends: verification and password-reset links. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: string;
  send(mail: Mail): Promise<void>;
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
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly onSend: (mail: Mail) => void = () => {},
    private readonly keep = 50,
  ) {}

  async send(mail: Mail): Promise<void> {
    this.entries.unshift({ ...mail, sentAt: new Date().toISOString() });
    // Bounded: the outbox is a window on recent mail, not a store.
    this.entries.length = Math.min(this.entries.length, this.keep);
    this.onSend(mail);
  }

  list(): readonly OutboxEntry[] {
    return this.entries;
  }
}

/**
 * Production mailer through the machine's sendmail (postfix, exim, msmtp all provide one), so the service
 * needs no SMTP client library and no credentials of its own.
 */
export class SendmailMailer implements Mailer {
  readonly kind = 'sendmail';

  constructor(
    private readonly from: string,
    private readonly command = '/usr/sbin/sendmail',
  ) {}

  send(mail: Mail): Promise<void> {
    const header = (s: string) => s.replace(/[\r\n]+/g, ' ');
    const message = [
      `From: ${header(this.from)}`,
      `To: ${header(mail.to)}`,
      `Subject: ${header(mail.subject)}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      mail.text,
      '',
    ].join('\r\n');
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, ['-t', '-i'], { stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`sendmail exited ${code}: ${stderr.slice(0, 200)}`)),
      );
      child.stdin.end(message);
    });
  }
}
