import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Identity } from '../../src/identity/identity.ts';
import { HttpClient, startRealServer, startRefusal, type RealServer } from '../http/helpers/real-server.ts';
import { freePort, SmtpPeer } from '../identity/smtp-peer.ts';
import { freshPgLocation, WALLET_BACKENDS, type Backend } from '../wallet/backends.ts';

/**
 * Issue 33 item 2 over real HTTP against the real server (startServer, configured through the environment
 * as `regdata serve`), on both wallet backends. A mailer that is missing or failing used to turn the sign-up
 * and reset forms into 500s (JSON on an HTML form), while a reset for an unknown address answered 200: the
 * difference told who has an account. Mail is now queued in the wallet's database: the forms answer the
 * same page whatever the address and whatever the mailer, and the mail goes out once the mailer works.
 */
const world = inject('testDataDir');
const PASSWORD = 'correct horse battery';

/** A page with the address it names and its CSRF token blanked: what must be equal between two answers. */
function shape(body: string, email: string, csrf: string): string {
  return body.replaceAll(email, '<email>').replaceAll(csrf, '<csrf>');
}

/** A verified account, made as the dashboard makes one (sign-up, then the link). */
async function verifiedAccount(server: RealServer, email: string): Promise<void> {
  const identity = new Identity({ store: server.wallet.store });
  const { verifyToken } = await identity.signUp(email, PASSWORD, '192.0.2.1');
  await identity.verifyEmail(verifyToken!);
}

/** Waits (bounded) for a condition a server's own timers make true. */
async function until(cond: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function walletEnv(backend: Backend): Promise<Record<string, string>> {
  return backend === 'postgres' ? { REGDATA_WALLET_URL: await freshPgLocation() } : {};
}

describe.each(WALLET_BACKENDS)('a missing mailer changes nothing a visitor sees, on %s', (backend) => {
  let server: RealServer;
  beforeAll(async () => {
    // A loopback server without REGDATA_PUBLIC_URL or development mode: its links reach no one, so it
    // starts with a mailer that does not work (and says so in its log).
    server = await startRealServer(world, {
      ...(await walletEnv(backend)),
      REGDATA_MAILER: 'sendmail',
      REGDATA_SENDMAIL_PATH: '/nonexistent/sendmail',
    });
    await verifiedAccount(server, 'known@test.local');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers a sign-up with the same page, 200, for a new address and one with an account', async () => {
    const c = new HttpClient(server.url);
    await c.get('/signup');
    const fresh = await c.post('/signup', { email: 'new@test.local', password: PASSWORD });
    const known = await c.post('/signup', { email: 'known@test.local', password: PASSWORD });
    for (const res of [fresh, known]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Check your e-mail');
    }
    expect(shape(known.body, 'known@test.local', c.csrf)).toBe(shape(fresh.body, 'new@test.local', c.csrf));
  });

  it('answers a reset with the same page, 200, for a known and an unknown address', async () => {
    const c = new HttpClient(server.url);
    await c.get('/reset');
    const known = await c.post('/reset', { email: 'known@test.local' });
    const unknown = await c.post('/reset', { email: 'nobody@test.local' });
    for (const res of [known, unknown]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('a reset link is on its way');
    }
    // The page does not name the address, so the two answers are equal byte for byte.
    expect(known.body).toBe(unknown.body);
  });
});

describe.each(WALLET_BACKENDS)(
  'mail queued while the relay is down goes out when it is back, on %s',
  (backend) => {
    let server: RealServer;
    let peer: SmtpPeer;
    beforeAll(async () => {
      peer = await SmtpPeer.start();
      await peer.stop();
      server = await startRealServer(world, {
        ...(await walletEnv(backend)),
        REGDATA_MAILER: 'smtp',
        REGDATA_SMTP_URL: peer.url,
        REGDATA_MAIL_POLL_MS: '100',
        REGDATA_MAIL_RETRY_MS: '100',
        REGDATA_MAIL_RETRY_MAX_MS: '300',
        REGDATA_MAIL_MAX_ATTEMPTS: '50',
      });
      await verifiedAccount(server, 'known@test.local');
      // The set-up's own verification mail is not part of what the test counts.
      await server.wallet.store.run('DELETE FROM mail_queue');
    });
    afterAll(async () => {
      await server?.stop();
      await peer?.stop();
    });

    it('answers 200 while the relay refuses connections, then delivers every message, and the links work', async () => {
      const c = new HttpClient(server.url);
      await c.get('/signup');
      const signUps = [
        await c.post('/signup', { email: 'late@test.local', password: PASSWORD }),
        await c.post('/signup', { email: 'known@test.local', password: PASSWORD }),
      ];
      await c.get('/reset');
      const resets = [
        await c.post('/reset', { email: 'known@test.local' }),
        await c.post('/reset', { email: 'nobody@test.local' }),
      ];
      expect([...signUps, ...resets].map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(resets[0]!.body).toBe(resets[1]!.body);

      // The worker has tried and failed (connection refused): the messages wait in the queue.
      const store = server.wallet.store;
      const count = async (where: string) =>
        Number((await store.get<{ n: number }>(`SELECT count(*) AS n FROM mail_queue ${where}`))?.n);
      await until(async () => (await count('WHERE attempts > 0')) === 3);
      expect(peer.received).toHaveLength(0);

      await peer.start();
      const got = await peer.waitFor(3);
      // A link, "you already have an account", and the reset link; nothing for the unknown address.
      expect(got.map((m) => [m.to[0], m.parsed.subject]).sort()).toEqual([
        ['known@test.local', 'Reset your regdata password'],
        ['known@test.local', 'Your regdata account'],
        ['late@test.local', 'Verify your e-mail address for regdata'],
      ]);
      // Each deleted once its relay said 250 (a moment after the peer counted it).
      await until(async () => (await count('')) === 0);

      // The verification link that waited in the queue completes the registration.
      const verify = got.find((m) => m.to[0] === 'late@test.local')!;
      const token = /\/verify#t=([A-Za-z0-9_-]+)/.exec(verify.parsed.text ?? '')![1]!;
      expect(verify.parsed.text).toContain(`${server.url}/verify#t=`);
      await c.get('/verify');
      expect((await c.post('/verify', { token })).status).toBe(200);
      expect((await server.wallet.balance({ email: 'late@test.local' })).balance).toBe(30);
    });
  },
);

describe('regdata serve checks its mailer at start-up', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await SmtpPeer.start();
  });
  afterAll(async () => {
    await peer?.stop();
  });

  /** A production server: not in development mode, with a public address its links point at. */
  const production = { REGDATA_PUBLIC_URL: 'https://regdata.example' };

  const refusal = (env: Record<string, string>): Promise<string> => startRefusal(world, env);

  it('refuses to start in production when the SMTP relay does not answer, without showing its password', async () => {
    const port = await freePort();
    const message = await refusal({
      ...production,
      REGDATA_MAILER: 'smtp',
      REGDATA_SMTP_URL: `smtp://mailer:hunter2-secret@127.0.0.1:${port}`,
    });
    expect(message).toMatch(
      new RegExp(
        `^refusing to start: the smtp mailer \\(smtp://mailer:\\*\\*\\*@127\\.0\\.0\\.1:${port}/?\\) does not work: .*ECONNREFUSED`,
      ),
    );
    expect(message).toContain('would wait in the queue and never be sent');
    expect(message).not.toContain('hunter2-secret');
  });

  it('refuses to start in production with a missing sendmail or an unwritable mail folder', async () => {
    expect(
      await refusal({
        ...production,
        REGDATA_MAILER: 'sendmail',
        REGDATA_SENDMAIL_PATH: '/nonexistent/sendmail',
      }),
    ).toMatch(
      /^refusing to start: the sendmail mailer \(\/nonexistent\/sendmail\) does not work: .* does not exist/,
    );
    expect(
      await refusal({ ...production, REGDATA_MAILER: 'file', REGDATA_MAIL_DIR: '/dev/null/mail' }),
    ).toMatch(/^refusing to start: the file mailer \(\/dev\/null\/mail\) does not work/);
  });

  it('starts in production with a relay that answers, and sends a sign-up mail through it', async () => {
    const server = await startRealServer(world, {
      ...production,
      REGDATA_MAILER: 'smtp',
      REGDATA_SMTP_URL: peer.url,
      REGDATA_MAIL_FROM: 'regdata <no-reply@regdata.example>',
    });
    try {
      const c = new HttpClient(server.url);
      await c.get('/signup');
      expect((await c.post('/signup', { email: 'prod@test.local', password: PASSWORD })).status).toBe(200);
      const [mail] = await peer.waitFor(1);
      expect(mail!.to).toEqual(['prod@test.local']);
      expect(mail!.parsed.text).toMatch(/https:\/\/regdata\.example\/verify#t=[A-Za-z0-9_-]{43}/);
      expect(mail!.parsed.messageId).toMatch(/@regdata\.example>$/);
    } finally {
      await server.stop();
    }
  });

  it('`regdata serve` exits 2 with the reason on one line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-serve-mail-'));
    try {
      const run = promisify(execFile)(process.execPath, [path.resolve('bin/regdata.mjs'), 'serve'], {
        env: {
          ...process.env,
          ...production,
          PORT: '0',
          REGDATA_DATA_DIR: dataDir,
          REGDATA_MAILER: 'sendmail',
          REGDATA_SENDMAIL_PATH: '/nonexistent/sendmail',
        },
      });
      const err = (await run.then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; stderr: string } | null;
      expect(err?.code).toBe(2);
      expect(err?.stderr).toMatch(
        /refusing to start: the sendmail mailer \(\/nonexistent\/sendmail\) does not work/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
