import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_PREFIX, type AuthorizationServer } from './authorization-server.ts';

export interface OAuthRoutesOptions {
  oauth: AuthorizationServer;
  /** The issuer origin of a request: the configured public URL, else the loopback address it came in on. */
  origin: (request: FastifyRequest) => string;
}

const PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';

/**
 * The authorization server's own endpoints, handed raw to oidc-provider before fastify reads a body (the
 * token and registration endpoints parse their own), and the metadata documents MCP clients discover:
 * RFC 8414 authorization-server metadata (the same document as OpenID discovery) and RFC 9728 protected
 * resource metadata for /mcp. The sign-in and consent pages are the dashboard's (src/web/oauth-pages.ts).
 */
export const oauthRoutes: FastifyPluginAsync<OAuthRoutesOptions> = async (app, opts) => {
  const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
    const handle = opts.oauth.handler(opts.origin(request));
    // RFC 8414's path serves the OpenID discovery document, which carries every field it asks for.
    if (request.url.startsWith('/.well-known/oauth-authorization-server')) {
      request.raw.url = '/.well-known/openid-configuration';
    }
    reply.hijack();
    void handle(request.raw, reply.raw);
  };
  const provided = { onRequest: handOver, schema: { hide: true } };
  const notHere = async () => {
    throw new Error('handled by the authorization server');
  };
  app.all(`${OAUTH_PREFIX}/*`, provided, notHere);
  app.get('/.well-known/openid-configuration', provided, notHere);
  app.get('/.well-known/oauth-authorization-server', provided, notHere);
  app.get('/.well-known/oauth-authorization-server/*', provided, notHere);

  const metadata = async (request: FastifyRequest) => opts.oauth.resourceMetadata(opts.origin(request));
  app.get(PROTECTED_RESOURCE, { schema: { hide: true } }, metadata);
  app.get(`${PROTECTED_RESOURCE}/mcp`, { schema: { hide: true } }, metadata);
};

export function resourceMetadataUrl(origin: string): string {
  return `${origin}${PROTECTED_RESOURCE}/mcp`;
}
