import type { FastifyInstance, RouteOptions } from 'fastify';
import { AppError } from '../errors/app-error.ts';

/**
 * RFC 9112 3.2: a request with more than one Host is a 400. Node keeps the first and drops the rest, while
 * a proxy in front may have routed by another one, so the two would disagree on which site was asked.
 */
function hostCount(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}

/** Whether a route documents a 402: it reserves credits, so running it for a HEAD would charge. */
function isMetered(route: RouteOptions): boolean {
  const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
  return response !== undefined && '402' in response;
}

/**
 * HEAD is answered wherever GET is (RFC 9110 9.3.2; the app sets exposeHeadRoutes), except on metered
 * routes: fastify answers HEAD by running the GET handler, which there would charge for rows nobody
 * receives. A metered GET route must opt out itself (`exposeHeadRoute: false`); one that does not stops
 * the app from starting, so a new metered route cannot forget it.
 */
export function installHttpSemantics(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET') && isMetered(route) && route.exposeHeadRoute !== false) {
      throw new Error(`metered route GET ${route.url} must set exposeHeadRoute: false`);
    }
  });
  // Callback-style hooks here and in the other per-request hooks: an async hook costs a promise and a
  // microtask turn on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (hostCount(request.raw.rawHeaders) > 1) {
      done(new AppError('bad_request', 'the request has more than one Host header'));
      return;
    }
    done();
  });
}
