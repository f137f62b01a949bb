import type { FastifyPluginAsync } from 'fastify';
import { authPages } from './auth-pages.ts';
import { CSRF_HEADER, csrfOk, loadContext, type WebContext, type WebPluginOptions } from './context.ts';
import { clientPages } from './client-pages.ts';
import { dashboardPages } from './dashboard-pages.ts';
import { oauthPages } from './oauth-pages.ts';
import { landingPage } from './landing-page.ts';
import { searchPages } from './search.ts';
import { staticAsset } from './static-assets.ts';
import { watchlistPages } from './watchlist-pages.ts';
import { webhookPages } from './webhook-pages.ts';

/**
 * The dashboard: accounts, API keys, balance and usage, plans and top-ups, and the in-app search, as
 * server-rendered pages plus one small script, in the same fastify server as the API. Sessions never grant
 * API access: the REST and MCP routes read only the bearer header.
 */

// The pages load nothing from elsewhere and run no inline script: a stored XSS would have nowhere to go.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export const webPlugin: FastifyPluginAsync<WebPluginOptions> = async (app, deps) => {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16_384 },
    (_request, body, done) => {
      // First value of each field; the forms never repeat one.
      const out: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(body as string)) if (!(k in out)) out[k] = v;
      done(null, out);
    },
  );

  app.decorateRequest('web', null as unknown as WebContext);
  app.addHook('onRequest', async (request, reply) => {
    request.web = await loadContext(deps, request, reply);
    reply.headers(SECURITY_HEADERS);
  });
  app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const body = request.body as Record<string, unknown> | undefined;
    const submitted =
      request.headers[CSRF_HEADER] ?? (body && typeof body === 'object' ? body['_csrf'] : undefined);
    if (!csrfOk(request, submitted)) {
      request.log.info('request refused: CSRF check failed');
      return reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send('CSRF check failed: reload the page and try again.');
    }
  });

  app.get<{ Params: { '*': string }; Querystring: { v?: string } }>('/static/*', async (request, reply) => {
    const asset = staticAsset(request.params['*']);
    if (!asset) return reply.code(404).send({ detail: 'not found' });
    const etag = `"${asset.hash}"`;
    // The hashed URL of this very content never changes; any other spelling is checked each time.
    reply.header(
      'cache-control',
      request.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    reply.header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });

  // Browsers ask for /favicon.ico whatever the page links; one icon answers both.
  app.get('/favicon.ico', async (_request, reply) => reply.redirect('/static/favicon.svg', 301));

  landingPage(app, deps);
  authPages(app, deps);
  dashboardPages(app, deps);
  searchPages(app, deps);
  watchlistPages(app, deps);
  webhookPages(app, deps);
  if (deps.oauth) {
    oauthPages(app, deps, deps.oauth);
    clientPages(app, deps.oauth);
  }
};
