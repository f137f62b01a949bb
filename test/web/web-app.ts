import { Deliverer } from '../../src/webhooks/deliverer.ts';
import { Endpoints } from '../../src/webhooks/endpoints.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { TestWorldSource } from '../../src/services/test-world.ts';
import { Identity } from '../../src/identity/identity.ts';
import { OutboxMailer } from '../../src/identity/mailer.ts';
import { MailWorker, type MailLog } from '../../src/identity/mail-worker.ts';
import { InvoiceProvider } from '../../src/identity/payments.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';

/**
 * The real app with the dashboard on a real snapshot and a real wallet.db in a temp folder; every log line
 * is kept (as text) so tests can look for what must never be logged.
 */
export interface WebTestApp {
  app: FastifyInstance;
  engine: Engine;
  wallet: Wallet;
  /** The app's watchlists (issue 31); null when built without. */
  watchlists: Watchlists | null;
  /** Its webhook endpoints and deliverer (issue 31; loopback receivers allowed); null without watchlists. */
  webhooks: { endpoints: Endpoints; deliverer: Deliverer } | null;
  identity: Identity;
  outbox: OutboxMailer;
  /** Sends the queued mail to the outbox; not started, so a test decides when (linkToken drains it). */
  mail: MailWorker;
  walletPath: string;
  logs: string[];
  close(): Promise<void>;
}

/**
 * `walletUrl`: a wallet of the test's own (a postgres:// URL shared by several apps, as replicas);
 * `testWorld`: the test-mode world test keys read (the caller opens and closes it).
 */
export async function buildWebApp(
  dataDir: string,
  opts: { walletUrl?: string; testWorld?: TestWorldSource; watchlists?: boolean } = {},
): Promise<WebTestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-web-'));
  const walletPath = opts.walletUrl ?? path.join(dir, 'wallet.db');
  const engine = await Engine.open(new SnapshotStore(dataDir), { connections: 2 });
  const wallet = await openWallet({ dbPath: walletPath, sweepIntervalMs: 0 });
  // Every test client comes from 127.0.0.1: the per-client mail throttle (tested over HTTP in
  // test/http/hardening.test.ts) would stop the tenth sign-up of a file.
  const identity = new Identity({ store: wallet.store, mailLimits: { perAddress: 1000 } });
  const outbox = new OutboxMailer();
  const logs: string[] = [];
  const mailLog: MailLog = {
    info: (fields, msg) => logs.push(JSON.stringify({ ...fields, msg })),
    warn: (fields, msg) => logs.push(JSON.stringify({ ...fields, msg })),
    error: (fields, msg) => logs.push(JSON.stringify({ ...fields, msg })),
  };
  const mail = new MailWorker(wallet.store, outbox, {
    maxAttempts: 3,
    retryMs: 0,
    retryMaxMs: 0,
    leaseMs: 60_000,
    pollMs: 60_000,
    log: mailLog,
  });
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const watchlists = opts.watchlists === false ? null : new Watchlists(wallet.store, Date.now);
  // Never started here: a test that delivers runs the deliverer itself.
  const webhooks = watchlists && {
    endpoints: new Endpoints(wallet.store, Date.now, { allowPrivate: true }),
    deliverer: new Deliverer({
      store: wallet.store,
      engine,
      metering: wallet.metering,
      principalOf: (accountId) => wallet.appPrincipal(accountId),
      policy: { allowPrivate: true },
      clock: Date.now,
    }),
  };
  const app = await buildApp({
    engine,
    ...(opts.testWorld && { testWorld: opts.testWorld }),
    wallet,
    ...(watchlists && { watchlists }),
    ...(webhooks && { webhooks }),
    logger: { level: 'trace', stream },
    web: {
      wallet,
      identity,
      mail,
      payments: new InvoiceProvider(),
      publicUrl: null,
      cookieSecure: false,
    },
  });
  await app.ready();
  return {
    app,
    engine,
    wallet,
    watchlists,
    webhooks,
    identity,
    outbox,
    mail,
    walletPath,
    logs,
    async close() {
      await mail.stop();
      await app.close();
      engine.close();
      await identity.close();
      await wallet.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser stand-in over inject: keeps cookies, reads the CSRF token from the last page. */
export class Client {
  cookies = new Map<string, string>();
  csrf = '';

  constructor(private readonly app: FastifyInstance) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies) {
      if (c.maxAge === 0) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const m = /<meta name="csrf-token" content="([^"]+)"/.exec(res.body);
    if (m?.[1]) this.csrf = m[1];
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader, ...headers } }),
    );
  }

  /** A form post; `_csrf` is the current token unless the test overrides or drops it. */
  async post(
    url: string,
    form: Record<string, string>,
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    const body = new URLSearchParams({ ...form, ...(token !== null && { _csrf: token }) }).toString();
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: this.cookieHeader,
          ...opts.headers,
        },
      }),
    );
  }

  async json(
    url: string,
    body?: unknown,
    opts: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    return this.remember(
      await this.app.inject({
        method: body === undefined ? 'GET' : 'POST',
        url,
        ...(body !== undefined && { payload: JSON.stringify(body) }),
        headers: {
          cookie: this.cookieHeader,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(token !== null && { 'x-csrf-token': token }),
        },
      }),
    );
  }
}

/** Sign up, open the e-mailed link, sign in: a client with a live session on a registered account. */
export async function registeredClient(t: WebTestApp, email: string, password: string): Promise<Client> {
  const c = new Client(t.app);
  await c.get('/signup');
  const res = await c.post('/signup', { email, password });
  if (res.statusCode !== 200) throw new Error(`sign-up failed: ${res.statusCode}`);
  await c.get('/verify');
  await c.post('/verify', { token: await linkToken(t, email, 'verify') });
  const signedIn = await c.post('/signin', { email, password });
  if (signedIn.statusCode !== 303) throw new Error(`sign-in failed: ${signedIn.statusCode}`);
  // As a browser following the redirect: the dashboard page carries the session's CSRF token.
  await c.get('/dashboard');
  return c;
}

/**
 * The token of the latest e-mailed link of that kind (it sits in the URL fragment: `#t=`), once the queued
 * mail has been sent to the outbox.
 */
export async function linkToken(
  t: Pick<WebTestApp, 'outbox' | 'mail'>,
  email: string,
  kind: 'verify' | 'reset/confirm',
): Promise<string> {
  await t.mail.drain();
  const mail = t.outbox.list().find((m) => m.to === email && m.text.includes(`/${kind}#t=`));
  const m = /#t=([A-Za-z0-9_-]+)/.exec(mail?.text ?? '');
  if (!m?.[1]) throw new Error(`no ${kind} mail for ${email}`);
  return m[1];
}
