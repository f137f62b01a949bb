import { Deliverer } from './webhooks/deliverer.ts';
import { Endpoints } from './webhooks/endpoints.ts';
import { DEFAULT_SEND_LIMITS } from './webhooks/send.ts';
import { Watchlists } from './watchlists/watchlists.ts';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from './app.ts';
import { serveSettings, type Config } from './config.ts';
import { SnapshotStore } from './contract/snapshot-store.ts';
import { Engine } from './engine/engine.ts';
import type { EngineOptions } from './engine/snapshot-loader.ts';
import { SnapshotWatcher } from './engine/snapshot-watcher.ts';
import { ThreadPriority } from './runtime/thread-priority.ts';
import { metricsApp } from './http/metrics.ts';
import { removeStaleExports } from './services/export.ts';
import { linkSecret } from './services/export-link.ts';
import { openTestWorld } from './services/test-world.ts';
import { walletOptions } from './wallet/from-config.ts';
import { webDeps } from './web/from-config.ts';
import { checkMailer, mailerFromConfig } from './identity/from-config.ts';
import type { MailLog } from './identity/mail-worker.ts';
import { openWallet, type Wallet } from './wallet/wallet.ts';

/** Log output buffered while stdout does not take it, before lines are dropped rather than memory grown. */
const LOG_BUFFER_MAX = 64 * 1024 * 1024;
/** Lines are written in batches of about this many bytes, */
const LOG_BATCH_BYTES = 8 * 1024;
/** and at least this often. */
const LOG_FLUSH_MS = 1_000;

/**
 * The server's log destination (issue 27). A synchronous write of the one line per request cost a detail
 * at c=1 about 0.1 ms (an interleaved A/B on the scale-1 world), and an asynchronous write of each line
 * still cost a thread-pool hand-off as dear as the write; so lines are written in batches, off the event
 * loop, and at least every LOG_FLUSH_MS. pino flushes what is buffered when the process exits, a crash
 * included; a SIGKILL may lose the last second of lines. A reader of stdout that stops reading no longer
 * stops the API: past LOG_BUFFER_MAX bytes of backlog, lines are dropped.
 */
function serverLogStream(): pino.DestinationStream {
  const stream = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    maxLength: LOG_BUFFER_MAX,
  });
  setInterval(() => stream.flush(), LOG_FLUSH_MS).unref();
  return stream;
}

export interface StartedServer {
  app: FastifyInstance;
  engine: Engine;
  wallet: Wallet;
  /** Follows the `current` pointer; `check()` swaps to a newly promoted snapshot at once. */
  snapshots: SnapshotWatcher;
  /** The bound address, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The /metrics listener's address when REGDATA_METRICS_PORT is set, else null (/metrics on `url`). */
  metricsUrl: string | null;
  /** Stops accepting connections, lets in-flight requests finish, then closes the engine and the wallet. */
  close(): Promise<void>;
}

/** How often new threads (a hot-swapped snapshot's DuckDB instance) are given the scan priority. */
const THREAD_PRIORITY_INTERVAL_MS = 5_000;

export interface StartServerOptions {
  engine?: EngineOptions;
  /** Install SIGINT/SIGTERM handlers that shut down gracefully (default true). */
  handleSignals?: boolean;
}

/**
 * The process side of the service: opens the live snapshot and the wallet (config.wallet), builds the app,
 * listens, and shuts down gracefully. `regdata serve` calls this. A missing or broken snapshot does not stop
 * the server: data endpoints answer 502 and /healthz 503 until a snapshot can be loaded.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<StartedServer> {
  // First, before anything is opened: a configuration that would expose accounts is refused outright, and
  // so is a production server whose mailer cannot deliver (the sign-up and reset links would never leave).
  const settings = serveSettings(config);
  const mailLog: MailLog = {
    info: (fields, msg) => app.log.info(fields, msg),
    warn: (fields, msg) => app.log.warn(fields, msg),
    error: (fields, msg) => app.log.error(fields, msg),
  };
  // The log says a message is waiting; the link (a secret) stays out of the log.
  const mailer = mailerFromConfig(config, settings, (mail) =>
    app.log.info(`mail to ${mail.to}: ${mail.subject} (see /dev/outbox)`),
  );
  const mailProblem = await checkMailer(mailer, settings);
  const store = new SnapshotStore(config.dataDir);
  const engine = await Engine.open(store, { ...config.engine, ...options.engine });
  const testWorld = config.testMode
    ? openTestWorld(config.dataDir, { ...config.engine, ...options.engine }, mailLog)
    : null;
  const staleExports = removeStaleExports(engine.exportDirectory, config.export.holdTimeoutMs);
  const wallet = await openWallet(
    walletOptions(config, { onStoreWarning: (message) => app.log.warn(message) }),
  );
  const web = webDeps(config, settings, wallet, mailer, mailLog);
  const policy = { allowPrivate: config.webhooks.allowPrivate };
  const endpoints = new Endpoints(wallet.store, Date.now, policy);
  const deliverer = new Deliverer({
    store: wallet.store,
    engine,
    metering: wallet.metering,
    principalOf: (accountId) => wallet.appPrincipal(accountId),
    policy,
    clock: Date.now,
    limits: { ...DEFAULT_SEND_LIMITS, timeoutMs: config.webhooks.timeoutMs },
    // Longer than an attempt can take, so a live replica never loses its claim mid-delivery.
    leaseMs: Math.max(config.webhooks.leaseMs, config.webhooks.timeoutMs + 5_000),
  });
  const app = await buildApp({
    engine,
    ...(testWorld && { testWorld }),
    wallet,
    mcp: config.mcp,
    web: web.deps,
    logger: { level: config.logLevel, stream: serverLogStream() },
    trustProxy: config.trustProxy,
    metrics: config.metricsPort === null ? 'admin' : 'separate',
    exports: config.export,
    responseChecks: config.responseChecks,
    watchlists: new Watchlists(wallet.store, Date.now),
    webhooks: { endpoints, deliverer },
    exportLinks: {
      secret: linkSecret(config.export.linkSecret, config.dataDir),
      ttlSeconds: config.export.linkTtlSeconds,
      publicUrl: config.web.publicUrl,
    },
  });
  const metrics = config.metricsPort === null ? null : metricsApp(app.metricsRegistry);
  logStartup(app, engine, mailProblem, staleExports);
  // Promotions by the nightly ingest or the CLI are picked up without a restart (SIGHUP: look now).
  const snapshots = new SnapshotWatcher(engine, { pollMs: config.snapshotPollMs, log: app.log }).start();

  // After the load, so DuckDB's and libuv's threads exist; the timer catches a new snapshot's threads.
  const priority = new ThreadPriority(config.scanThreadNice, (err) =>
    app.log.warn({ err }, 'could not lower a scan thread'),
  ).start(THREAD_PRIORITY_INTERVAL_MS);

  const onHangup = () => void snapshots.check();
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      process.off('SIGHUP', onHangup);
      priority.stop();
      // fastify.close() stops listening, answers new requests on open sockets with 503 and waits for
      // in-flight requests; only then are the data backend and the ledger closed under them.
      await snapshots.stop();
      await deliverer.stop();
      await metrics?.close();
      await app.close();
      engine.close();
      testWorld?.close();
      await web.close();
      await wallet.close();
    })();
    return closing;
  };

  try {
    await app.listen({ port: config.port, host: config.host });
    if (metrics) await metrics.listen({ port: config.metricsPort ?? 0, host: config.host });
    // Sends what is queued, this process's and (after a restart or on other replicas) anyone's.
    web.deps.mail.start();
    if (config.webhooks.pollMs > 0) {
      deliverer.start(config.webhooks.pollMs, (err) => app.log.error({ err }, 'webhook delivery failed'));
    }
  } catch (err) {
    await close();
    throw err;
  }

  if (options.handleSignals ?? true) handleSignals(app, close, onHangup);

  const urlOf = (server: FastifyInstance, port: number) => {
    const address = server.server.address();
    return typeof address === 'object' && address
      ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
      : `http://${config.host}:${port}`;
  };
  const url = urlOf(app, config.port);
  const metricsUrl = metrics ? urlOf(metrics, config.metricsPort ?? 0) : null;
  if (settings.mailer === 'outbox') {
    app.log.warn(`development mode: e-mails are not sent but shown at ${url}/dev/outbox`);
  }
  return { app, engine, wallet, snapshots, url, metricsUrl, close };
}

/** What the start found: a mailer that cannot deliver yet, export folders removed, the snapshot or its error. */
function logStartup(
  app: FastifyInstance,
  engine: Engine,
  mailProblem: string | null,
  staleExports: readonly string[],
): void {
  if (mailProblem) {
    app.log.warn(`${mailProblem}: account e-mails wait in the queue until it works`);
  }
  if (staleExports.length > 0) {
    app.log.info({ folders: staleExports }, 'removed export folders left by processes that are gone');
  }
  const snap = engine.snapshot;
  if (snap) {
    app.log.info(
      { snapshot_id: snap.id, countries: snap.countries, load_ms: Math.round(snap.loadMs) },
      'snapshot loaded',
    );
  } else {
    app.log.error({ err: engine.lastLoadError }, 'no snapshot loaded: data endpoints answer 502');
  }
}

/** SIGINT and SIGTERM shut down gracefully; SIGHUP looks for a newly promoted snapshot at once. */
function handleSignals(app: FastifyInstance, close: () => Promise<void>, onHangup: () => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    close().then(
      () => app.log.info('shut down'),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.on('SIGHUP', onHangup);
}
