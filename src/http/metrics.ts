import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Engine } from '../engine/engine.ts';
import type { Authenticator } from '../wallet/types.ts';
import { requireAdmin } from './guard.ts';

export const METRICS_PATH = '/metrics';
/** The status label of a response the client closed before it ended (nginx's convention). */
export const CLIENT_CLOSED_STATUS = '499';

/**
 * Prometheus metrics: requests and latency per route and status, DuckDB query time per query kind, and the
 * live snapshot's age per country. One registry per app, so tests can build several apps. The route lists
 * every endpoint with its traffic, so it is not public: with `authenticator` it is served at /metrics for
 * admin keys; without, the caller serves the registry on a listener of its own (metricsListener).
 */
export function installMetrics(
  app: FastifyInstance,
  engine: Engine,
  authenticator: Authenticator | null,
): Registry {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'regdata_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'regdata_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const queries = new Histogram({
    name: 'regdata_db_query_duration_seconds',
    help: 'DuckDB query time by query kind',
    labelNames: ['query'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  new Gauge({
    name: 'regdata_snapshot_age_seconds',
    help: 'Age of the live snapshot per country (since it was generated)',
    labelNames: ['country', 'snapshot_id'],
    registers: [registry],
    collect() {
      this.reset();
      const snap = engine.snapshot;
      if (!snap) return;
      for (const c of snap.countries) {
        const generated = Date.parse(snap.country(c).manifest.generated_at);
        this.set({ country: c, snapshot_id: snap.id }, (Date.now() - generated) / 1000);
      }
    },
  });
  new Gauge({
    name: 'regdata_snapshot_loaded',
    help: '1 when a snapshot is loaded and serving, else 0',
    registers: [registry],
    collect() {
      this.set(engine.snapshot ? 1 : 0);
    },
  });

  // Every search and count reports its 'plan' time.
  const queryChild = childCache((query) => queries.labels({ query }));
  engine.observeQueries((label, seconds) => queryChild(label).observe(seconds));
  const plans = new Counter({
    name: 'regdata_search_plans_total',
    help: 'Searches and counts planned, by path: the posting lists (index) or a DuckDB scan (scan)',
    labelNames: ['country', 'path'] as const,
    registers: [registry],
  });
  const planChild = childCache((key) => {
    const [country, path] = key.split(' ');
    return plans.labels({ country, path });
  });
  engine.observePlans((country, explain) =>
    planChild(`${country} ${explain === null ? 'scan' : 'index'}`).inc(),
  );

  const requestChild = childCache((key) => {
    const [method, status, ...route] = key.split(' ');
    const labels = { method, route: route.join(' '), status };
    return { count: requests.labels(labels), time: latency.labels(labels) };
  });
  const observe = (request: FastifyRequest, status: string, seconds: number) => {
    // The route pattern, not the URL, keeps label cardinality bounded (no codes or query strings).
    const child = requestChild(`${request.method} ${status} ${request.routeOptions.url ?? 'unmatched'}`);
    child.count.inc();
    child.time.observe(seconds);
  };
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, String(reply.statusCode), reply.elapsedTime / 1000);
    done();
  });
  // fastify runs onResponse when a response finishes; one the client cut short (an export download left
  // midway) never does. It is counted with nginx's 499 "client closed request" instead of vanishing.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) observe(request, CLIENT_CLOSED_STATUS, reply.elapsedTime / 1000);
    });
    done();
  });

  if (authenticator) {
    app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
      await requireAdmin(authenticator, request);
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  }
  return registry;
}

/**
 * A metric's children by a plain string key. Given a labels object, prom-client validates and hashes it on
 * every inc and every observe (issue 27: a share of each request's event loop).
 */
function childCache<C>(make: (key: string) => C): (key: string) => C {
  const children = new Map<string, C>();
  return (key) => {
    let child = children.get(key);
    if (!child) {
      child = make(key);
      children.set(key, child);
    }
    return child;
  };
}

/** The /metrics route alone, for a listener of its own (REGDATA_METRICS_PORT) that a firewall keeps private. */
export function metricsApp(registry: Registry): FastifyInstance {
  const app = Fastify({ logger: false, exposeHeadRoutes: true });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });
  app.get(METRICS_PATH, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'not found' }));
  return app;
}
