import net from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerError } from 'smtp-server';

/** A message as the peer received it: the bytes on the wire, parsed by mailparser, and the SMTP envelope. */
export interface ReceivedMail {
  raw: string;
  parsed: ParsedMail;
  from: string;
  to: string[];
}

/**
 * A real SMTP server on loopback (smtp-server, from the nodemailer project) that keeps what it receives,
 * parsed by an independent parser (mailparser). `answer` makes it fail as a relay does: a code (451, 550)
 * refuses each message at the end of DATA, after the client sent it whole; `stop()` closes the port, so a
 * client then meets "connection refused" until `start()` listens on the same port again.
 */
export class SmtpPeer {
  readonly received: ReceivedMail[] = [];
  /** Messages refused at the end of DATA (with the code of `answer`). */
  refused = 0;
  /** null: accept; a code: refuse every message with it, and `answerText` (a spam filter may quote the mail). */
  answer: number | null = null;
  answerText: string | null = null;
  /** A code: refuse the connection at the greeting with it (the start-up check's case). */
  greeting: number | null = null;
  /** True: take a message's DATA and never answer it (a relay that hangs); `stalled` counts them. */
  stall = false;
  stalled = 0;
  private readonly unanswered: (() => void)[] = [];
  private server: SMTPServer | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<SmtpPeer> {
    const peer = new SmtpPeer(await freePort());
    await peer.start();
    return peer;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: the client must not need a certificate.
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_session, callback) => callback(this.greeting ? smtpError(this.greeting) : null),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.stall) {
            this.stalled++;
            this.unanswered.push(() => callback(smtpError(451)));
            return;
          }
          if (this.answer !== null) {
            this.refused++;
            callback(smtpError(this.answer, this.answerText));
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then(
            (parsed) => {
              this.received.push({
                raw,
                parsed,
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              });
              callback(null);
            },
            (err: Error) => callback(err),
          );
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Closes the port: connections are refused until start(). */
  async stop(): Promise<void> {
    for (const answer of this.unanswered.splice(0)) answer();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits (bounded) until `n` messages have arrived; for servers whose worker runs on its own timer. */
  async waitFor(n: number, timeoutMs = 30_000): Promise<ReceivedMail[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > until) throw new Error(`expected ${n} messages, got ${this.received.length}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received;
  }
}

function smtpError(code: number, text: string | null = null): SMTPServerError {
  const err: SMTPServerError = new Error(
    text ?? (code >= 500 ? 'mailbox unavailable (test peer)' : 'try again later (test peer)'),
  );
  err.responseCode = code;
  return err;
}

/** A loopback port nothing listens on (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
