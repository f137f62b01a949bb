import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import type { Engine } from './engine/engine.ts';
import { errorServerOptions, installErrorHandlers } from './http/error-handler.ts';
import { releaseWhenSent, responseSerializer, type ResponseChecks } from './http/response-serializer.ts';
import type { WalletParts } from './http/guard.ts';
import { installHttpSemantics } from './http/http-semantics.ts';
import { installMetrics } from './http/metrics.ts';
import { installOpenApi } from './http/openapi.ts';
import { installQueryNormalisation } from './http/query-params.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { changeRoutes } from './http/routes/changes.ts';
import { companyRoutes } from './http/routes/companies.ts';
import { discoveryRoutes } from './http/routes/discovery.ts';
import { exportRoutes } from './http/routes/export.ts';
import { healthRoutes } from './http/routes/health.ts';
import { ACCOUNT_PREFIX } from './http/routes/account.ts';
import { eventRoutes, watchlistRoutes } from './http/routes/watchlists.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { mcpRoutes } from './mcp/plugin.ts';
import type { RequestGuardOptions } from './mcp/request-guard.ts';
import {
  DEFAULT_LINK_TTL_SECONDS,
  ExportLinks,
  LINK_SECRET_BYTES,
  maskLinkSignature,
} from './services/export-link.ts';
import { Operations, type ExportOptions } from './services/operations.ts';
import type { TestWorldSource } from './services/test-world.ts';
import { AuthorizationServer } from './oauth/authorization-server.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { baseUrl, type WebDeps } from './web/context.ts';
import { webPlugin } from './web/plugin.ts';
import type { Watchlists } from './watchlists/watchlists.ts';
import type { Deliverer } from './webhooks/deliverer.ts';
import type { Endpoints } from './webhooks/endpoints.ts';

export interface AppDeps {
  engine: Engine;
  /** The test-mode world (src/services/test-world.ts) that test keys read; absent: test keys get 502. */
  testWorld?: TestWorldSource;
  /** The wallet parts; `prices` (the row prices in effect) are quoted to MCP agents. */
  wallet: WalletParts & { prices?: Readonly<Record<string, number>> };
  /** Origin/Host checks of /mcp (config.mcp); by default no Origin and, on loopback, loopback names. */
  mcp?: RequestGuardOptions;
  /** Pino options (or false to log nothing); fastify's logger is the service's one logger. */
  logger?: FastifyServerOptions['logger'];
  /** The dashboard and in-app search (src/web); absent = API only. */
  web?: WebDeps;
  /** Proxies whose X-Forwarded-* headers are believed (config.trustProxy, fastify's forms); default none. */
  trustProxy?: boolean | number | string[];
  /**
   * `admin`: /metrics on this app for admin keys (the default); `separate`: not routed here, the caller
   * serves `app.metricsRegistry` on a listener of its own (REGDATA_METRICS_PORT).
   */
  metrics?: 'admin' | 'separate';
  /** The export's max_rows cap and hold timeout (config.export); default DEFAULT_EXPORT_OPTIONS. */
  exports?: ExportOptions;
  /**
   * Signed export links of the MCP tool export_companies: the secret (config or the data folder's own,
   * src/services/export-link.ts), their lifetime, and the public origin they point at (else the address
   * the MCP request came in on). Default: a random secret of this app alone, 15 minutes.
   */
  exportLinks?: { secret: Buffer; ttlSeconds: number; publicUrl: string | null };
  /** How responses are held to their schemas (config.responseChecks); default every response. */
  responseChecks?: ResponseChecks;
  /** Watchlists and the charges of their events (issue 31); absent: neither is routed. */
  watchlists?: Watchlists;
  /** Webhook endpoints and their deliverer (issue 31); absent: not routed. */
  webhooks?: { endpoints: Endpoints; deliverer: Deliverer };
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsRegistry: Registry;
  }
}

export const API_PREFIX = '/api/v1/data';

/** Issue 31: the pull of events beside the data routes, and watchlists and webhooks under the account. */
async function registerWatchlistRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  routeDeps: { prefix: string; ops: Operations; authenticator: AppDeps['wallet']['authenticator'] },
): Promise<void> {
  if (deps.watchlists) {
    await app.register(eventRoutes, routeDeps);
    await app.register(watchlistRoutes, {
      ...routeDeps,
      prefix: ACCOUNT_PREFIX,
      watchlists: deps.watchlists,
    });
  }
  if (deps.webhooks) {
    await app.register(webhookRoutes, { ...routeDeps, prefix: ACCOUNT_PREFIX, ...deps.webhooks });
  }
}
export const REQUEST_ID_HEADER = 'x-request-id';
export const HEALTH_PATH = '/healthz';

/** An incoming request id is kept only if it is short and plain, so it cannot forge log lines or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** What a log line says about a request: fastify's default fields, a link's signature masked. */
function requestLogFields(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: maskLinkSignature(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** fastify takes a hop count at run time but not in its types: as proxy-addr does, trust the first n hops. */
function trustProxyOption(
  value: boolean | number | string[],
): boolean | string[] | ((a: string, i: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

/** The MCP server at /mcp: the same operations as REST, with OAuth sign-in where there are accounts. */
async function registerMcp(
  app: FastifyInstance,
  deps: AppDeps,
  ops: Operations,
  links: ExportLinks,
  oauth: { server: AuthorizationServer; origin: (request: FastifyRequest) => string } | undefined,
): Promise<void> {
  await app.register(mcpRoutes, {
    ...(oauth && { oauth }),
    ops,
    authenticator: deps.wallet.authenticator,
    ...(deps.watchlists && { watchlists: deps.watchlists }),
    ...(deps.wallet.prices && { prices: deps.wallet.prices }),
    exportLinks: {
      links,
      publicUrl: deps.exportLinks?.publicUrl ?? null,
      path: `${API_PREFIX}/companies/export`,
    },
    allowedOrigins: deps.mcp?.allowedOrigins ?? [],
    allowedHosts: deps.mcp?.allowedHosts ?? [],
  });
}

/**
 * Builds the fastify app from its dependencies and never listens (src/server.ts does). The app owns no
 * resource: the engine and the wallet are opened and closed by whoever built them.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const logger = deps.logger ?? { level: 'info' };
  const app = Fastify({
    // A download link's signature is a short-lived credential: it stays out of the logs.
    logger:
      typeof logger === 'object'
        ? { ...logger, serializers: { req: requestLogFields, ...logger.serializers } }
        : logger,
    genReqId: (req) => {
      const incoming = req.headers[REQUEST_ID_HEADER];
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Keep-alive sockets that are idle are closed on shutdown; in-flight requests are allowed to finish.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    ...errorServerOptions,
    trustProxy: trustProxyOption(deps.trustProxy ?? false),
    // One log line per request instead of fastify's two ("incoming request" and "request completed"):
    // at c=1 the synchronous log writes were the largest cost outside the wallet in a CPU profile of
    // trivial metered calls (issue 17); the line below carries the fields of both.
    logController: new LogController({ disableRequestLogging: true }),
    // HEAD wherever GET is (RFC 9110); metered routes opt out, which installHttpSemantics enforces.
    exposeHeadRoutes: true,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer(deps.responseChecks ?? 'every'));
  installHttpSemantics(app);
  installErrorHandlers(app);
  installSecurityHeaders(app);
  installQueryNormalisation(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    // onResponse runs when a response finishes; one the client cut short (an export download left midway)
    // gets its line here instead, with the status that was sent. A response closes once: `on`, not `once`.
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished) return;
      request.log.info(
        { req: request, res: reply, responseTime: reply.elapsedTime },
        'request closed by the client before its response ended',
      );
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  // Graceful shutdown: a keep-alive socket whose request was in flight when close() began would keep the
  // server open after its response; telling the client to close it lets close() finish.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    releaseWhenSent(reply.raw, payload);
    done(null, payload);
  });

  await installOpenApi(app, { publicPrefixes: [API_PREFIX, ACCOUNT_PREFIX, HEALTH_PATH] });
  const registry = installMetrics(
    app,
    deps.engine,
    deps.metrics === 'separate' ? null : deps.wallet.authenticator,
  );
  app.decorate('metricsRegistry', registry);
  // How each new search was planned (LOG_LEVEL=debug): the sets, their sizes and the result's.
  deps.engine.observePlans((country, explain) => app.log.debug({ country, plan: explain }, 'plan'));
  await app.register(healthRoutes, { engine: deps.engine, authenticator: deps.wallet.authenticator });
  const ops = new Operations({
    engine: deps.engine,
    ...(deps.testWorld && { testWorld: deps.testWorld }),
    rateLimiter: deps.wallet.rateLimiter,
    metering: deps.wallet.metering,
    ...(deps.exports && { exports: deps.exports }),
    ...(deps.watchlists && { eventCharges: deps.watchlists }),
  });
  const routeDeps = { prefix: API_PREFIX, ops, authenticator: deps.wallet.authenticator };
  const secret = deps.exportLinks?.secret ?? randomBytes(LINK_SECRET_BYTES);
  const links = new ExportLinks({
    secret,
    ttlSeconds: deps.exportLinks?.ttlSeconds ?? DEFAULT_LINK_TTL_SECONDS,
  });
  await app.register(discoveryRoutes, routeDeps);
  await app.register(companyRoutes, routeDeps);
  await app.register(changeRoutes, routeDeps);
  await app.register(exportRoutes, { ...routeDeps, links });
  await registerWatchlistRoutes(app, deps, routeDeps);
  // MCP clients sign in with OAuth where there are accounts to sign in to (the dashboard); keys work always.
  const oauth = deps.web
    ? {
        server: new AuthorizationServer({
          wallet: deps.web.wallet,
          secret,
          proxy: Boolean(deps.trustProxy),
          loopbackClientDocuments: deps.web.oauthLoopbackClients ?? false,
        }),
        origin: (request: FastifyRequest) => baseUrl(deps.web!, request),
      }
    : undefined;
  if (oauth) await app.register(oauthRoutes, { oauth: oauth.server, origin: oauth.origin });
  if (deps.web) {
    await app.register(webPlugin, {
      ...deps.web,
      ops,
      ...(oauth && { oauth: oauth.server }),
      ...(deps.watchlists && { watchlists: deps.watchlists }),
      ...(deps.webhooks && { webhooks: deps.webhooks }),
    });
  }
  await registerMcp(app, deps, ops, links, oauth);
  return app;
}
