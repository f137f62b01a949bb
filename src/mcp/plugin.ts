import net from 'node:net';
import {
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRIES, COUNTRY_CODES } from '../contract/countries.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import { frameworkClientDetail } from '../http/error-handler.ts';
import type { ExportLinks } from '../services/export-link.ts';
import type { Caller, Operations } from '../services/operations.ts';
import type { Authenticator } from '../wallet/types.ts';
import type { Watchlists } from '../watchlists/watchlists.ts';
import { McpToolServer } from './mcp-server.ts';
import { refuseMessage } from './message-guard.ts';
import { refusal, type RequestGuardOptions } from './request-guard.ts';
import { buildTools } from './tools/index.ts';
import type { ToolContext } from './tool.ts';
import { SCOPES, type AuthorizationServer } from '../oauth/authorization-server.ts';
import { resourceMetadataUrl } from '../oauth/routes.ts';

export const MCP_PATH = '/mcp';

export interface McpPluginOptions extends RequestGuardOptions {
  /** OAuth sign-in (issue 29): tokens of this authorization server are taken beside API keys. */
  oauth?: { server: AuthorizationServer; origin: (request: FastifyRequest) => string };
  ops: Operations;
  authenticator: Authenticator;
  /** Row prices in credits per country, quoted in the tool descriptions; spec 8.2 defaults when absent. */
  prices?: Readonly<Record<string, number>>;
  /** Watchlists (issue 31), as the REST routes get them; absent: their tools are not listed. */
  watchlists?: Watchlists;
  /** Signs export_companies' download links; they point at `publicUrl` (else the request's local address). */
  exportLinks: { links: ExportLinks; publicUrl: string | null; path: string };
}

/** The origin a link should name: the configured public one, else the address this request came in on. */
function linkOrigin(publicUrl: string | null, request: FastifyRequest): string {
  if (publicUrl) return publicUrl;
  const { localAddress, localPort } = request.socket;
  if (!localAddress || !localPort) return 'http://localhost';
  const host = localAddress.replace(/^::ffff:/, '');
  return `http://${net.isIPv6(host) ? `[${host}]` : host}:${localPort}`;
}

function defaultPrices(): Record<string, number> {
  return Object.fromEntries(COUNTRY_CODES.map((c) => [c, COUNTRIES[c].defaultRowPrice]));
}

/** A JSON-RPC error body without an id, as the transport itself answers HTTP-level failures. */
function rpcError(message: string, code: number = -32000) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** An SDK answer read whole: JSON, never a stream, as nothing here emits before its result. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function read(response: Response): Promise<Answer> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** The request as the SDK's web-standard face takes it; the body goes beside it, parsed by fastify. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers });
}

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, beside the REST routes in the same app, on the SDK's
 * web-standard serving entries. A request of the 2026-07-28 revision (its `_meta` envelope names the
 * version; `server/discover` instead of `initialize`) goes to `createMcpHandler`; a 2025-era request
 * (`initialize`, then calls) to a fresh stateless transport, with plain JSON answers. Both build the same
 * per-request Server bound to the caller (mcp-server.ts). The request is checked first (Origin/Host 403,
 * bearer key 401) by fastify; the SDK's Response is sent back through fastify, so its hooks (request id,
 * security headers) run as on REST. GET (a server-to-client stream) and DELETE (ending a session) have
 * nothing to serve without sessions: 405, as the transport spec allows.
 */
export const mcpRoutes: FastifyPluginAsync<McpPluginOptions> = async (app, opts) => {
  const prices = opts.prices ?? defaultPrices();
  const tools = new McpToolServer(buildTools(prices, opts.watchlists), prices);
  // The caller of each request in flight, for the factory the SDK calls with that request.
  const contexts = new WeakMap<
    Request,
    { ctx: Omit<ToolContext, 'prices'>; logError: (e: unknown) => void }
  >();
  const serverOf = (request: Request | undefined) => {
    const bound = request && contexts.get(request);
    if (!bound) throw new Error('MCP request without a caller');
    return tools.serverFor(bound.ctx, bound.logError);
  };
  const modern = createMcpHandler(({ requestInfo }) => serverOf(requestInfo), {
    legacy: 'reject',
    // The default 'auto' answers plain JSON unless a handler emits a message before its result, which no
    // tool here does; 'json' would say the same and print a warning at every start.
    onerror: (err) => app.log.error({ err }, 'mcp request failed'),
  });
  app.addHook('onClose', async () => modern.close());

  /** A 2025-era request: one Server and transport for it, closed once the answer is read. */
  const legacy = async (request: Request, parsedBody: unknown): Promise<Answer> => {
    const server = serverOf(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await read(await transport.handleRequest(request, { parsedBody }));
    } finally {
      await transport.close();
      await server.close();
    }
  };
  // Failures of fastify's body parsing on /mcp are JSON-RPC errors, as the transport would answer them:
  // a body that is not JSON is a Parse error (-32700). Everything else goes on to the app's handler.
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    const status = err.statusCode ?? 500;
    if (isAppError(err) || err.validation !== undefined || status < 400 || status >= 500) throw err;
    const parse = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY';
    const message = frameworkClientDetail(err, status);
    return reply
      .code(status)
      .send(
        rpcError(parse ? `Parse error: ${message}` : message, parse ? ProtocolErrorCode.ParseError : -32000),
      );
  });

  /**
   * An API key, as on REST; else an access token of the authorization server for this resource. A token
   * without the `mcp:data` scope may use the free tools only.
   */
  const authenticate = async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    try {
      return { principal: await opts.authenticator.authenticate(header), freeOnly: false };
    } catch (err) {
      const token = /^Bearer +(\S+)$/i.exec(header ?? '')?.[1];
      if (!opts.oauth || !token || !isAppError(err) || err.code !== 'unauthorized') throw err;
      const found = await opts.oauth.server.caller(opts.oauth.origin(request), token);
      if (!found) throw new AppError('unauthorized', 'invalid or revoked API key or access token');
      return { principal: found.principal, freeOnly: !found.scopes.includes(SCOPES.data) };
    }
  };

  // Where a client that has no key learns how to sign in (RFC 9728), beside the usual challenge.
  if (opts.oauth) {
    const oauth = opts.oauth;
    app.addHook('onSend', async (request, reply) => {
      if (reply.statusCode !== 401) return;
      const challenge = reply.getHeader('www-authenticate');
      const metadata = `resource_metadata="${resourceMetadataUrl(oauth.origin(request))}"`;
      reply.header(
        'www-authenticate',
        challenge ? `${String(challenge)}, ${metadata}` : `Bearer ${metadata}`,
      );
    });
  }

  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const why = refusal(request, opts);
    if (why) return reply.code(403).send({ detail: why });
  };

  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send(rpcError('method not allowed: this server is stateless; POST only'));

  app.get(MCP_PATH, { schema: { hide: true }, onRequest: guard }, methodNotAllowed);
  app.delete(MCP_PATH, { schema: { hide: true }, onRequest: guard }, methodNotAllowed);

  app.post(MCP_PATH, { schema: { hide: true }, onRequest: guard }, async (request, reply) => {
    // A refused key or token is a 401 with WWW-Authenticate from the app's error handler, as on REST.
    const { principal, freeOnly } = await authenticate(request);
    const caller: Caller = { principal, channel: 'mcp' };

    const refused = refuseMessage(request.body);
    if (refused) return reply.code(refused.status).send(refused.body);

    const logError = (err: unknown) => request.log.error({ err }, 'mcp tool call failed');
    const { links, publicUrl, path } = opts.exportLinks;
    const origin = linkOrigin(publicUrl, request);
    const exportLink = (params: readonly (readonly [string, string])[]) => {
      const signed = links.sign(caller.principal.keyId, params, Date.now());
      return { url: `${origin}${path}?${signed.query}`, expiresAt: signed.expiresAt };
    };
    const web = webRequest(request);
    contexts.set(web, { ctx: { ops: opts.ops, caller, exportLink, freeOnly }, logError });
    const answer = (await isLegacyRequest(web, request.body))
      ? await legacy(web, request.body)
      : await read(await modern.fetch(web, { parsedBody: request.body }));
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
};
