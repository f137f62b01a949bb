import net from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRIES, COUNTRY_CODES } from '../contract/countries.ts';
import { isAppError } from '../errors/app-error.ts';
import { frameworkClientDetail } from '../http/error-handler.ts';
import type { ExportLinks } from '../services/export-link.ts';
import type { Caller, Operations } from '../services/operations.ts';
import type { Authenticator } from '../wallet/types.ts';
import { McpToolServer } from './mcp-server.ts';
import { refuseMessage } from './message-guard.ts';
import { refusal, type RequestGuardOptions } from './request-guard.ts';
import { buildTools } from './tools/index.ts';

export const MCP_PATH = '/mcp';

export interface McpPluginOptions extends RequestGuardOptions {
  ops: Operations;
  authenticator: Authenticator;
  /** Row prices in credits per country, quoted in the tool descriptions; spec 8.2 defaults when absent. */
  prices?: Readonly<Record<string, number>>;
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

/**
 * `POST /mcp`: the MCP Streamable HTTP transport in stateless mode, beside the REST routes in the same app.
 * The request is checked (Origin/Host 403, bearer key 401) by fastify, then handed raw to the SDK
 * transport with the body fastify already parsed. GET (a server-to-client stream) and DELETE (ending a
 * session) have nothing to serve without sessions: 405, as the transport spec allows.
 */
export const mcpRoutes: FastifyPluginAsync<McpPluginOptions> = async (app, opts) => {
  const prices = opts.prices ?? defaultPrices();
  const tools = new McpToolServer(buildTools(prices), prices);

  // Failures of fastify's body parsing on /mcp are JSON-RPC errors, as the transport would answer them:
  // a body that is not JSON is a Parse error (-32700). Everything else goes on to the app's handler.
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    const status = err.statusCode ?? 500;
    if (isAppError(err) || err.validation !== undefined || status < 400 || status >= 500) throw err;
    const parse = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY';
    const message = frameworkClientDetail(err, status);
    return reply
      .code(status)
      .send(rpcError(parse ? `Parse error: ${message}` : message, parse ? ErrorCode.ParseError : -32000));
  });

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
    // A refused key is a 401 with WWW-Authenticate from the app's error handler, as on REST.
    const caller: Caller = {
      principal: await opts.authenticator.authenticate(request.headers.authorization),
      channel: 'mcp',
    };

    const refused = refuseMessage(request.body);
    if (refused) return reply.code(refused.status).send(refused.body);

    // From here the SDK writes the response; fastify's onSend hooks no longer run, so copy the request id.
    reply.hijack();
    const res = reply.raw;
    res.setHeader('x-request-id', request.id);
    const logError = (err: unknown) => request.log.error({ err }, 'mcp tool call failed');
    const { links, publicUrl, path } = opts.exportLinks;
    const origin = linkOrigin(publicUrl, request);
    const exportLink = (params: readonly (readonly [string, string])[]) => {
      const signed = links.sign(caller.principal.keyId, params, Date.now());
      return { url: `${origin}${path}?${signed.query}`, expiresAt: signed.expiresAt };
    };
    const server = tools.serverFor({ ops: opts.ops, caller, exportLink }, logError);
    // No sessions, and plain JSON answers: nothing here streams, and nothing is kept after the response.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, res, request.body);
    } catch (err) {
      request.log.error({ err }, 'mcp request failed');
      if (!res.headersSent) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify(rpcError('internal server error')));
      }
    }
  });
};
