import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { COUNTRY_CODES, type CountryCode } from './contract/countries.ts';
import { ENGINE_DEFAULTS } from './engine/engine-defaults.ts';
import { UNPACK_LIMIT_DEFAULTS } from '../ingest/official/input-limits.ts';
import { DEFAULT_MAX_LIVE_KEYS } from './wallet/keys.ts';
import { DEFAULT_TEST_RATE_LIMIT } from './wallet/rate-limiter.ts';
import { MAX_EXPORT_RESERVE_ROWS } from './wallet/types.ts';
import { isLoopbackHost } from './http/loopback.ts';
import { DEFAULT_LINK_TTL_SECONDS } from './services/export-link.ts';
import { DEFAULT_MAIL_WORKER } from './identity/mail-worker.ts';

/** `EE=0.04,SE=0.24`: per-country row prices in credits overriding the spec 8.2 defaults. */
const PricesSchema = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const prices: Partial<Record<CountryCode, number>> = {};
    for (const part of text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [cc, value] = part.split('=');
      const price = Number(value);
      if (!cc || !(COUNTRY_CODES as readonly string[]).includes(cc) || !Number.isFinite(price) || price < 0) {
        ctx.addIssue({
          code: 'custom',
          message: `expected CC=price pairs like EE=0.04, got ${JSON.stringify(part)}`,
        });
        return z.NEVER;
      }
      prices[cc as CountryCode] = price;
    }
    return prices;
  });

/** A comma-separated list; blanks dropped. */
const CommaList = z
  .string()
  .default('')
  .transform((text) =>
    text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );

/**
 * Which proxies' X-Forwarded-For/-Proto/-Host are believed, in fastify's trustProxy forms: `true` (any),
 * `false` (none: the socket address is the client), a hop count, or a comma list of IPs/CIDRs.
 */
const TrustProxySchema = z
  .string()
  .default('false')
  .transform((text, ctx): boolean | number | string[] => {
    const t = text.trim();
    if (t === 'true' || t === 'false') return t === 'true';
    if (/^\d+$/.test(t)) return Number(t);
    const list = t
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const bad = list.filter((p) => {
      const [ip, bits, extra] = p.split('/');
      const family = net.isIP(ip ?? '');
      if (!family || extra !== undefined) return true;
      return bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    });
    if (list.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected true, false, a hop count or IP/CIDR list, got ${JSON.stringify(bad[0] ?? t)}`,
      });
      return z.NEVER;
    }
    return list;
  });

/** A DuckDB memory_limit value. */
const MemorySize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'expected a size like 3GB or 2500MiB');

/**
 * The one place that reads the environment. Server and CLI both call loadConfig(), so a key made by the
 * CLI lands in the same wallet.db the server opens when both run with the same environment.
 */
export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    REGDATA_DATA_DIR: z.string().min(1).default('./data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Scale of the demo world `npm start` builds when no snapshot exists yet. */
    REGDATA_DEMO_SCALE: z.coerce.number().positive().max(2).default(0.01),
    REGDATA_DEMO_SEED: z.coerce.number().int().min(0).default(1),
    /**
     * Test mode (issue 30 item 6): serve `rgd_test_` keys from the synthetic test world under
     * <data dir>/test-world, built on a test key's first request. false: test keys are answered 403.
     */
    REGDATA_TEST_MODE: z.stringbool().default(true),
    /**
     * Where the wallet lives: `sqlite:<path>` (the embedded default, wallet.db in the data folder) or
     * `postgres://user:pass@host:5432/db` (PostgreSQL, shared by several API replicas).
     */
    REGDATA_WALLET_URL: z
      .string()
      .regex(
        /^(sqlite:.+|postgres(ql)?:\/\/.+)$/,
        'expected sqlite:<path> or postgres://user@host:port/database',
      )
      .optional(),
    /** The ledger file (the older spelling of REGDATA_WALLET_URL=sqlite:<path>). */
    REGDATA_WALLET_DB: z.string().min(1).optional(),
    /** PostgreSQL connections per process (each replica has its own pool). */
    REGDATA_WALLET_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    REGDATA_PRICES: PricesSchema,
    REGDATA_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
    REGDATA_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(60),
    /** Test keys' own bucket (issue 30 item 6, docs/api-decisions.md "Test mode"). */
    REGDATA_TEST_RATE_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .positive()
      .default(DEFAULT_TEST_RATE_LIMIT.requestsPerMinute),
    REGDATA_TEST_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(DEFAULT_TEST_RATE_LIMIT.burst),
    REGDATA_WALLET_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
    REGDATA_HOLD_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
    /** Live (unrevoked) API keys an account may hold, over every channel that creates keys (issue 33). */
    REGDATA_MAX_LIVE_KEYS: z.coerce.number().int().min(1).max(1000).default(DEFAULT_MAX_LIVE_KEYS),
    /** The largest `max_rows` an export accepts (issue 19); its default max_rows is 100,000. */
    REGDATA_EXPORT_MAX_ROWS: z.coerce.number().int().min(1).max(MAX_EXPORT_RESERVE_ROWS).default(1_000_000),
    /** Where DuckDB writes an export before it is streamed out (the only folder it may write to). */
    REGDATA_EXPORT_DIR: z.string().min(1).optional(),
    /** How long an export's hold may stay pending: the time a slow client may take to read it. */
    REGDATA_EXPORT_HOLD_TIMEOUT_MS: z.coerce.number().int().positive().default(3_600_000),
    /** Exports one API key may run at once in one server process (each holds a file and a connection). */
    REGDATA_EXPORT_MAX_CONCURRENT: z.coerce.number().int().min(1).max(100).default(2),
    /**
     * Signs the download links of the MCP tool export_companies (at least 32 characters; every replica of
     * a deployment needs the same). Unset: a secret of the data folder's own, made on first start.
     */
    REGDATA_EXPORT_LINK_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
    /** How long such a link stays valid. */
    REGDATA_EXPORT_LINK_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(DEFAULT_LINK_TTL_SECONDS),
    /** Browser origins allowed to call /mcp (`https://app.example.com`); empty: no request with an Origin. */
    REGDATA_MCP_ALLOWED_ORIGINS: CommaList,
    /** Host names /mcp answers to (`api.example.com`); empty: any, but only loopback names on loopback. */
    REGDATA_MCP_ALLOWED_HOSTS: CommaList,
    /** How often a running server re-reads the `current` pointer to pick up a promoted snapshot; 0 = never. */
    REGDATA_SNAPSHOT_POLL_MS: z.coerce.number().int().min(0).default(2_000),
    /**
     * Responses held to their zod schema: `every` one, or one in 64 per route (src/http/response-serializer.ts).
     * Default: every in development mode, sampled otherwise.
     */
    REGDATA_RESPONSE_CHECKS: z.enum(['every', 'sampled']).optional(),
    /**
     * Dashboard: the address people open, the only base of e-mailed links (never the request's Host).
     * Required unless HOST is loopback; then links point at the listening address.
     */
    REGDATA_PUBLIC_URL: z.url().optional(),
    /** Session cookies carry Secure (and the __Host- prefix): `auto` = unless loopback over plain http. */
    REGDATA_COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
    /** Development mode (`regdata serve --dev`, `npm start`): allows the outbox mailer, on loopback only. */
    REGDATA_DEV_MODE: z.stringbool().default(false),
    /**
     * How account e-mails leave: smtp (REGDATA_SMTP_URL), sendmail (the machine's MTA), file (one .eml per
     * message in REGDATA_MAIL_DIR) or outbox (development: shown at /dev/outbox). Default: smtp when
     * REGDATA_SMTP_URL is set, else outbox in development mode on loopback, else sendmail.
     */
    REGDATA_MAILER: z.enum(['outbox', 'smtp', 'sendmail', 'file']).optional(),
    /** The SMTP relay: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
    REGDATA_SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'expected smtp://… or smtps://…' }).optional(),
    REGDATA_SENDMAIL_PATH: z.string().min(1).default('/usr/sbin/sendmail'),
    /** REGDATA_MAILER=file: the folder messages are written to (default `outgoing-mail` in the data folder). */
    REGDATA_MAIL_DIR: z.string().min(1).optional(),
    /** The outgoing-mail queue (src/identity/mail-worker.ts): attempts per message, the first included. */
    REGDATA_MAIL_MAX_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(1)
      .max(50)
      .default(DEFAULT_MAIL_WORKER.maxAttempts),
    /** Delay before the first retry, doubled after each failure up to REGDATA_MAIL_RETRY_MAX_MS. */
    REGDATA_MAIL_RETRY_MS: z.coerce.number().int().min(0).default(DEFAULT_MAIL_WORKER.retryMs),
    REGDATA_MAIL_RETRY_MAX_MS: z.coerce.number().int().min(0).default(DEFAULT_MAIL_WORKER.retryMaxMs),
    /** How long a worker holds a message it is sending; one that dies mid-send leaves it to others after it. */
    REGDATA_MAIL_LEASE_MS: z.coerce.number().int().min(10_000).default(DEFAULT_MAIL_WORKER.leaseMs),
    /** How often each server looks for due mail (retries, and mail queued by other replicas). */
    REGDATA_MAIL_POLL_MS: z.coerce.number().int().min(50).default(DEFAULT_MAIL_WORKER.pollMs),
    REGDATA_TRUST_PROXY: TrustProxySchema,
    /** A port of its own for /metrics (on HOST); unset: /metrics on the API port, for admin keys only. */
    REGDATA_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    REGDATA_MAIL_FROM: z.string().min(3).default('regdata <no-reply@localhost>'),
    /** Watchlist webhooks (src/webhooks/): how often each server delivers what is due; 0 = this one never does. */
    REGDATA_WEBHOOKS_POLL_MS: z.coerce.number().int().min(0).default(2_000),
    /**
     * Admit endpoint URLs on loopback, private and link-local addresses, and plain http: for tests and for
     * receivers inside the operator's own network. Off in production: a customer must not reach ours.
     */
    REGDATA_WEBHOOKS_ALLOW_PRIVATE: z.stringbool().default(false),
    /** The deadline of one delivery attempt (connect, send, answer). */
    REGDATA_WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** How long a replica's claim on a delivery lasts: after it, a replica that died is replaced by another. */
    REGDATA_WEBHOOKS_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
    /** DuckDB buffer pool of the serving engine (the attached serving databases are read into it). */
    REGDATA_DUCKDB_MEMORY_LIMIT: MemorySize.default(ENGINE_DEFAULTS.memoryLimit),
    REGDATA_DUCKDB_THREADS: z.coerce.number().int().min(1).max(64).default(ENGINE_DEFAULTS.threads),
    /**
     * DuckDB memory limit of `regdata ingest` (staging, Parquet writing, serving builds). The process peaks
     * above it (Node, the Parquet writer, allocator slack): all seven at scale 1 through the real forms peak at
     * 3.43 GiB with 3GB (docs/ingest.md, "All seven through the real forms at scale 1").
     */
    REGDATA_INGEST_MEMORY_LIMIT: MemorySize.default('3GB'),
    /**
     * `regdata ingest`: countries' serving builds run at once after staging, in worker threads sharing
     * REGDATA_INGEST_MEMORY_LIMIT (src/engine/serving-build-pool.ts); 1 builds one after the other.
     */
    REGDATA_INGEST_SERVING_BUILDS: z.coerce.number().int().min(1).max(8).default(2),
    /**
     * `regdata ingest`: bytes one zip member or `.gz` file may inflate to (default 32 GiB, over six times the
     * largest real member, RIK's 4-5 GB JSON), and how many times its compressed size (default 100; the real
     * downloads inflate 4 to 15 times). ingest/official/input-limits.ts says why.
     */
    REGDATA_INGEST_MAX_UNZIPPED_BYTES: z.coerce
      .number()
      .int()
      .min(1 << 20)
      .default(UNPACK_LIMIT_DEFAULTS.maxBytes),
    REGDATA_INGEST_MAX_UNZIP_RATIO: z.coerce.number().min(2).default(UNPACK_LIMIT_DEFAULTS.maxRatio),
    REGDATA_DUCKDB_CONNECTIONS: z.coerce.number().int().min(1).max(64).default(ENGINE_DEFAULTS.connections),
    /** Threads that plan searches and counts on the posting lists (src/engine/planner-pool.ts); 0: the event loop. */
    REGDATA_PLANNER_THREADS: z.coerce.number().int().min(0).max(64).default(ENGINE_DEFAULTS.plannerThreads),
    /**
     * `idle`: the planner threads run under Linux's SCHED_IDLE, behind the event loop and any other ordinary
     * thread (src/engine/planner-thread.ts); `normal`: the nice value of REGDATA_SCAN_THREAD_NICE only.
     */
    REGDATA_PLANNER_SCHED: z.enum(['idle', 'normal']).default('idle'),
    /**
     * `regdata serve`: the nice value of every thread of the process but the event loop's (DuckDB's scan
     * threads, libuv's pool), so lookups never wait for CPU behind scans (src/runtime/thread-priority.ts,
     * Linux only); 0 leaves the priorities alone.
     */
    REGDATA_SCAN_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(10),
    /** `regdata harvest PL`: the services' addresses (tests point them at loopback fakes), keys and paces. */
    REGDATA_KRS_URL: z.url().default('https://api-krs.ms.gov.pl'),
    REGDATA_KRS_RATE: z.coerce.number().positive().max(50).default(2),
    REGDATA_REGON_URL: z.url().default('https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc'),
    /** The BIR user key (from regon_bir@stat.gov.pl); without it the REGON part of a PL harvest is skipped. */
    REGDATA_REGON_KEY: z.string().min(1).optional(),
    REGDATA_REGON_RATE: z.coerce.number().positive().max(50).default(2),
    REGDATA_CEIDG_URL: z.url().default('https://dane.biznes.gov.pl/api/ceidg/v3'),
    /** The CEIDG bearer token (biznes.gov.pl); without it the CEIDG part of a PL harvest is skipped. */
    REGDATA_CEIDG_TOKEN: z.string().min(1).optional(),
    REGDATA_CEIDG_RATE: z.coerce.number().positive().max(50).default(1),
    /** Attempts per harvest request (the first included) and the first retry delay, doubled each retry. */
    REGDATA_HARVEST_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
    REGDATA_HARVEST_BACKOFF_MS: z.coerce.number().int().min(0).default(2000),
    /**
     * How long a search or count may wait for a free DuckDB connection before it is answered 503 with
     * Retry-After (docs/api-decisions.md); 0 = wait as long as it takes.
     */
    REGDATA_QUERY_MAX_WAIT_MS: z.coerce.number().int().min(0).default(ENGINE_DEFAULTS.maxQueueMs),
    /**
     * SCB Företagsregistret (FDB) client certificate for `regdata harvest SE` (optional: without it the SE
     * harvest fetches the public bulk files only). PEM certificate + key files, or a PKCS#12 file.
     */
    REGDATA_SCB_FDB_CERT: z.string().min(1).optional(),
    REGDATA_SCB_FDB_KEY: z.string().min(1).optional(),
    REGDATA_SCB_FDB_PFX: z.string().min(1).optional(),
    REGDATA_SCB_FDB_PASSPHRASE: z.string().min(1).optional(),
    REGDATA_SCB_FDB_URL: z.url().default('https://privateapi.scb.se/nv0101/v1/sokpavar/'),
    /** Where `regdata harvest SE` finds the two bulk zips (`bolagsverket/…`, `scb/…`); tests use a loopback. */
    REGDATA_SE_BULK_URL: z.url().default('https://vardefulla-datamangder.bolagsverket.se/'),
  })
  .refine((env) => !env.REGDATA_SCB_FDB_CERT === !env.REGDATA_SCB_FDB_KEY, {
    message: 'REGDATA_SCB_FDB_CERT and REGDATA_SCB_FDB_KEY go together',
    path: ['REGDATA_SCB_FDB_KEY'],
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    devMode: env.REGDATA_DEV_MODE,
    trustProxy: env.REGDATA_TRUST_PROXY,
    metricsPort: env.REGDATA_METRICS_PORT ?? null,
    dataDir: path.resolve(env.REGDATA_DATA_DIR),
    logLevel: env.LOG_LEVEL,
    demoScale: env.REGDATA_DEMO_SCALE,
    demoSeed: env.REGDATA_DEMO_SEED,
    testMode: env.REGDATA_TEST_MODE,
    engine: engineSettings(env),
    export: {
      maxRows: env.REGDATA_EXPORT_MAX_ROWS,
      holdTimeoutMs: env.REGDATA_EXPORT_HOLD_TIMEOUT_MS,
      maxConcurrent: env.REGDATA_EXPORT_MAX_CONCURRENT,
      linkSecret: env.REGDATA_EXPORT_LINK_SECRET ?? null,
      linkTtlSeconds: env.REGDATA_EXPORT_LINK_TTL_SECONDS,
    },
    ingest: {
      memoryLimit: env.REGDATA_INGEST_MEMORY_LIMIT,
      servingBuilds: env.REGDATA_INGEST_SERVING_BUILDS,
      unpack: {
        maxBytes: env.REGDATA_INGEST_MAX_UNZIPPED_BYTES,
        maxRatio: env.REGDATA_INGEST_MAX_UNZIP_RATIO,
      },
    },
    harvest: {
      attempts: env.REGDATA_HARVEST_ATTEMPTS,
      backoffMs: env.REGDATA_HARVEST_BACKOFF_MS,
      pl: {
        krs: { url: env.REGDATA_KRS_URL, rate: env.REGDATA_KRS_RATE },
        regon: {
          url: env.REGDATA_REGON_URL,
          key: env.REGDATA_REGON_KEY ?? null,
          rate: env.REGDATA_REGON_RATE,
        },
        ceidg: {
          url: env.REGDATA_CEIDG_URL,
          token: env.REGDATA_CEIDG_TOKEN ?? null,
          rate: env.REGDATA_CEIDG_RATE,
        },
      },
      se: {
        bulkUrl: env.REGDATA_SE_BULK_URL,
        /** SCB FDB: null without a certificate (the SE harvest then fetches the bulk files only). */
        scbFdb:
          env.REGDATA_SCB_FDB_CERT || env.REGDATA_SCB_FDB_PFX
            ? {
                baseUrl: env.REGDATA_SCB_FDB_URL,
                certFile: env.REGDATA_SCB_FDB_CERT ?? null,
                keyFile: env.REGDATA_SCB_FDB_KEY ?? null,
                pfxFile: env.REGDATA_SCB_FDB_PFX ?? null,
                passphrase: env.REGDATA_SCB_FDB_PASSPHRASE ?? null,
              }
            : null,
      },
    },
    snapshotPollMs: env.REGDATA_SNAPSHOT_POLL_MS,
    webhooks: webhookSettings(env),
    responseChecks: env.REGDATA_RESPONSE_CHECKS ?? (env.REGDATA_DEV_MODE ? 'every' : 'sampled'),
    scanThreadNice: env.REGDATA_SCAN_THREAD_NICE,
    wallet: walletLocation(env.REGDATA_WALLET_URL, env.REGDATA_WALLET_DB, env.REGDATA_DATA_DIR, {
      poolSize: env.REGDATA_WALLET_POOL_SIZE,
      prices: env.REGDATA_PRICES,
      ratePerMinute: env.REGDATA_RATE_LIMIT_PER_MINUTE,
      rateBurst: env.REGDATA_RATE_LIMIT_BURST,
      testRatePerMinute: env.REGDATA_TEST_RATE_LIMIT_PER_MINUTE,
      testRateBurst: env.REGDATA_TEST_RATE_LIMIT_BURST,
      sweepIntervalMs: env.REGDATA_WALLET_SWEEP_INTERVAL_MS,
      holdTimeoutMs: env.REGDATA_HOLD_TIMEOUT_MS,
      maxLiveKeys: env.REGDATA_MAX_LIVE_KEYS,
    }),
    mcp: {
      allowedOrigins: env.REGDATA_MCP_ALLOWED_ORIGINS,
      allowedHosts: env.REGDATA_MCP_ALLOWED_HOSTS,
    },
    web: {
      publicUrl: (env.REGDATA_PUBLIC_URL ?? '').replace(/\/+$/, '') || null,
      cookieSecure:
        env.REGDATA_COOKIE_SECURE === 'auto' ? ('auto' as const) : env.REGDATA_COOKIE_SECURE === 'true',
      /** null: not set; serveSettings() decides (smtp with a URL, outbox in development, else sendmail). */
      mailer: env.REGDATA_MAILER ?? null,
      mailFrom: env.REGDATA_MAIL_FROM,
      smtpUrl: env.REGDATA_SMTP_URL ?? null,
      sendmailPath: env.REGDATA_SENDMAIL_PATH,
      mailDir: path.resolve(env.REGDATA_MAIL_DIR ?? path.join(env.REGDATA_DATA_DIR, 'outgoing-mail')),
      mailQueue: {
        maxAttempts: env.REGDATA_MAIL_MAX_ATTEMPTS,
        retryMs: env.REGDATA_MAIL_RETRY_MS,
        retryMaxMs: env.REGDATA_MAIL_RETRY_MAX_MS,
        leaseMs: env.REGDATA_MAIL_LEASE_MS,
        pollMs: env.REGDATA_MAIL_POLL_MS,
      },
    },
  }));

function engineSettings(env: {
  REGDATA_DUCKDB_MEMORY_LIMIT: string;
  REGDATA_DUCKDB_THREADS: number;
  REGDATA_DUCKDB_CONNECTIONS: number;
  REGDATA_PLANNER_THREADS: number;
  REGDATA_PLANNER_SCHED: 'idle' | 'normal';
  REGDATA_QUERY_MAX_WAIT_MS: number;
  REGDATA_EXPORT_DIR?: string | undefined;
}) {
  return {
    memoryLimit: env.REGDATA_DUCKDB_MEMORY_LIMIT,
    threads: env.REGDATA_DUCKDB_THREADS,
    connections: env.REGDATA_DUCKDB_CONNECTIONS,
    plannerThreads: env.REGDATA_PLANNER_THREADS,
    plannerSched: env.REGDATA_PLANNER_SCHED,
    ...(env.REGDATA_QUERY_MAX_WAIT_MS > 0 ? { maxQueueMs: env.REGDATA_QUERY_MAX_WAIT_MS } : {}),
    exportDirectory: exportDir(env.REGDATA_EXPORT_DIR),
  };
}

function webhookSettings(env: {
  REGDATA_WEBHOOKS_POLL_MS: number;
  REGDATA_WEBHOOKS_ALLOW_PRIVATE: boolean;
  REGDATA_WEBHOOKS_TIMEOUT_MS: number;
  REGDATA_WEBHOOKS_LEASE_MS: number;
}) {
  return {
    pollMs: env.REGDATA_WEBHOOKS_POLL_MS,
    allowPrivate: env.REGDATA_WEBHOOKS_ALLOW_PRIVATE,
    timeoutMs: env.REGDATA_WEBHOOKS_TIMEOUT_MS,
    leaseMs: env.REGDATA_WEBHOOKS_LEASE_MS,
  };
}

/**
 * The wallet's URL, and for SQLite its file (null on PostgreSQL). A relative SQLite path is made absolute
 * here, so the server and a CLI started elsewhere with the same environment open the same file.
 */
function walletLocation<T extends object>(
  url: string | undefined,
  legacyPath: string | undefined,
  dataDir: string,
  rest: T,
): T & { url: string; dbPath: string | null } {
  if (url && /^postgres(ql)?:\/\//.test(url)) return { ...rest, url, dbPath: null };
  const file = path.resolve(
    url ? url.slice('sqlite:'.length) : (legacyPath ?? path.join(dataDir, 'wallet.db')),
  );
  return { ...rest, url: `sqlite:${file}`, dbPath: file };
}

export type Config = z.output<typeof ConfigSchema>;

/** The export folder: configured, or one per user in the system's temporary folder. */
function exportDir(configured: string | undefined): string {
  return path.resolve(configured ?? path.join(os.tmpdir(), 'regdata-export'));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return parsed.data;
}

/** What `regdata serve` runs with, once the defaults that depend on HOST and the mode are decided. */
export interface ServeSettings {
  loopback: boolean;
  mailer: 'outbox' | 'smtp' | 'sendmail' | 'file';
  /**
   * The mailer must work for the server to start: outside development mode with REGDATA_PUBLIC_URL set, the
   * only servers whose e-mailed links reach anyone (without it links point at a loopback address).
   */
  mailRequired: boolean;
  /** Secure and __Host- on the dashboard's cookies. */
  cookieSecure: boolean;
}

/**
 * Decides the HOST- and mode-dependent defaults and refuses (ConfigError, every reason at once) a server
 * that would put accounts at risk: e-mailed links without a configured origin, or the development outbox,
 * which shows every link to whoever opens it, anywhere but a development server on loopback.
 */
export function serveSettings(config: Config): ServeSettings {
  const loopback = isLoopbackHost(config.host);
  const mailer =
    config.web.mailer ??
    (config.web.smtpUrl !== null ? 'smtp' : config.devMode && loopback ? 'outbox' : 'sendmail');
  const problems: string[] = [];
  if (!loopback && config.web.publicUrl === null) {
    problems.push(
      `HOST=${config.host} is not a loopback address, so e-mailed links need REGDATA_PUBLIC_URL ` +
        '(the address people open, e.g. https://data.example.com); they are never built from a request',
    );
  }
  if (config.devMode && !loopback) {
    problems.push(
      `development mode (REGDATA_DEV_MODE, serve --dev) runs only on a loopback HOST, not ${config.host}`,
    );
  }
  if (mailer === 'outbox' && !config.devMode) {
    problems.push(
      'REGDATA_MAILER=outbox shows every e-mailed link at /dev/outbox: it needs development mode ' +
        '(REGDATA_DEV_MODE=true or regdata serve --dev); in production set REGDATA_MAILER=smtp or sendmail',
    );
  } else if (mailer === 'outbox' && !loopback) {
    problems.push(
      `REGDATA_MAILER=outbox needs a loopback HOST, not ${config.host}; set REGDATA_MAILER=smtp or sendmail`,
    );
  }
  if (mailer === 'smtp' && config.web.smtpUrl === null) {
    problems.push('REGDATA_MAILER=smtp needs REGDATA_SMTP_URL (smtp://user:pass@host:587 or smtps://…)');
  }
  if (problems.length > 0) throw new ConfigError(`refusing to start: ${problems.join('; ')}`);
  const cookieSecure =
    config.web.cookieSecure === 'auto'
      ? !(loopback && !(config.web.publicUrl ?? '').startsWith('https:'))
      : config.web.cookieSecure;
  return { loopback, mailer, mailRequired: !config.devMode && config.web.publicUrl !== null, cookieSecure };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
