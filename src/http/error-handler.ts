import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  RouteOptions,
} from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  isAppError,
  OVERLOADED_RETRY_AFTER_SECONDS,
  type AppError,
  type ValidationIssue,
} from '../errors/app-error.ts';
import { isRateLimitedError } from '../wallet/errors.ts';
import { rateLimitHeaders } from '../wallet/rate-limiter.ts';

/**
 * The one error handler (spec part 7). Every body is `{detail: string}`, except 422 whose `detail` is the
 * array of validation issues. 5xx bodies are fixed texts: the cause (DuckDB message, SQL, file path, stack)
 * goes to the log with the request id, never to the client. Errors the framework and Node's HTTP parser
 * raise before a route runs (bad URL, over-long path parameter, malformed request line, oversized headers,
 * unparsable body) get the same shape with a fixed text: never a framework code, never the client's input.
 */

/** As src/app.ts names it (importing it from there would be circular). */
const REQUEST_ID_HEADER_NAME = 'x-request-id';

const LOCATION: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header' };

interface ZodIssueLike {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Zod issues as spec 7 validation errors: one element per offending parameter, named as sent. */
export function toValidationIssues(
  validation: ZodIssueLike[],
  context: string | undefined,
): ValidationIssue[] {
  const where = LOCATION[context ?? ''] ?? context ?? 'query';
  const issues: ValidationIssue[] = [];
  for (const v of validation) {
    const path = v.instancePath.split('/').filter(Boolean);
    if (v.keyword === 'unrecognized_keys' && Array.isArray(v.params?.['keys'])) {
      for (const key of v.params['keys'] as string[]) {
        issues.push({ loc: [where, key], param: key, msg: 'unknown parameter', type: 'unknown_parameter' });
      }
      continue;
    }
    const customType = (v.params?.['params'] as { type?: unknown } | undefined)?.type;
    issues.push({
      loc: [where, ...path.map((p) => (/^\d+$/.test(p) ? Number(p) : p))],
      param: path[0] ?? '',
      msg: v.message ?? 'invalid value',
      type: typeof customType === 'string' ? customType : v.keyword,
    });
  }
  return issues;
}

const SERVER_ERROR_DETAIL: Record<number, string> = {
  502: 'data backend temporarily unavailable; safe to retry; nothing was charged',
  503: 'the service is busy; retry after the seconds in Retry-After; nothing was charged',
  500: 'internal server error',
};

/**
 * RFC 6750 3: a 401 names the scheme; with a key that was sent but refused, also why. Every `unauthorized`
 * that reaches the error handler comes from an API key (REST or MCP): the dashboard answers its own
 * sign-in failures with a page.
 */
export function wwwAuthenticate(request: FastifyRequest): string {
  return request.headers.authorization === undefined
    ? 'Bearer realm="regdata"'
    : 'Bearer realm="regdata", error="invalid_token"';
}

function sendServerError(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send({ detail: SERVER_ERROR_DETAIL[status] ?? 'internal server error' });
}

/**
 * The `detail` a client is shown for an AppError, whatever the channel (REST body, MCP tool error): the
 * issue list of a 422, a fixed text for a 5xx, the error's own safe message otherwise.
 */
export function clientDetail(err: AppError): string | ValidationIssue[] {
  if (err.status >= 500) return SERVER_ERROR_DETAIL[err.status] ?? 'internal server error';
  if (err.code === 'validation_failed') return err.issues;
  return err.message;
}

/**
 * Fixed texts for the framework's own client errors, by error code; anything else gets the status's
 * reason phrase. Fastify's messages can quote the request (a URL, a header), so they are never sent.
 */
const FRAMEWORK_DETAIL: Record<string, string> = {
  FST_ERR_BAD_URL: 'the request path is not a valid URL (bad percent-encoding)',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is longer than 100 characters',
  FST_ERR_CTP_INVALID_JSON_BODY: 'the request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty but its content type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'the request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the request body does not match its Content-Length',
  FST_ERR_CTP_INVALID_TYPE: 'the Content-Type header is not valid',
};

export function frameworkClientDetail(err: { code?: string }, status: number): string {
  return (
    (err.code !== undefined ? FRAMEWORK_DETAIL[err.code] : undefined) ??
    (STATUS_CODES[status] ?? 'bad request').toLowerCase()
  );
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (400) or a path parameter over the router's
 * 100 characters (414). Fastify's own answer echoes the path with its error code.
 */
function onFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = err.statusCode ?? 400;
  request.log.info({ code: err.code }, 'request rejected by the router');
  void reply
    .code(status)
    .header(REQUEST_ID_HEADER_NAME, request.id)
    .send({ detail: frameworkClientDetail(err, status) });
}

/**
 * Node's HTTP parser rejects a request before fastify sees it (a malformed request line or method, headers
 * over the size limit, a timeout); fastify's default handler answers those with its own body shape.
 */
function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431
      ? 'request headers are too large'
      : status === 408
        ? 'the request took too long to arrive'
        : 'malformed HTTP request';
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** The fastify constructor options that route the framework's early errors to the one error shape. */
export const errorServerOptions = {
  frameworkErrors: onFrameworkError,
  clientErrorHandler: onClientError,
} satisfies Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'>;

/** A route's path as a matcher of concrete paths: `:param` is one segment, `*` the rest. */
function routeMatcher(url: string): RegExp {
  const pattern = url
    .split('/')
    .map((seg) => {
      if (seg === '*') return '.*';
      if (seg.startsWith(':')) return '[^/]+';
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${pattern}/?$`);
}

/**
 * The methods each path answers, collected as routes are added, so that a request to a known path with
 * another method is a 405 with `Allow` (RFC 9110 15.5.6) rather than a 404.
 */
class AllowedMethods {
  private readonly routes: { match: RegExp; methods: string[] }[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    this.routes.push({ match: routeMatcher(route.url), methods: methods.map((m) => m.toUpperCase()) });
  }

  for(path: string): string[] {
    const allowed = new Set<string>();
    for (const r of this.routes) if (r.match.test(path)) for (const m of r.methods) allowed.add(m);
    return [...allowed].sort();
  }
}

export function installErrorHandlers(app: FastifyInstance): void {
  const allowed = new AllowedMethods();
  app.addHook('onRoute', (route) => allowed.add(route));

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const detail = toValidationIssues(err.validation, err.validationContext);
      request.log.info({ detail }, 'request rejected: validation failed');
      return reply.code(422).send({ detail });
    }
    if (isAppError(err)) {
      // An overloaded engine is a load condition, not a fault: a warning, not an error per request.
      if (err.code === 'overloaded') request.log.warn(`request turned away: ${err.code}`);
      else if (err.status >= 500) request.log.error({ err, cause: err.cause }, `request failed: ${err.code}`);
      if (err.code === 'overloaded') reply.header('Retry-After', String(OVERLOADED_RETRY_AFTER_SECONDS));
      if (err.code === 'unauthorized') reply.header('www-authenticate', wwwAuthenticate(request));
      if (isRateLimitedError(err)) {
        reply.header('Retry-After', String(err.retryAfterSeconds));
        if (err.decision) reply.headers(rateLimitHeaders(err.decision));
      }
      return reply.code(err.status).send({ detail: clientDetail(err) });
    }
    // Fastify's own client errors (bad content type, body too large, ...) keep their status, with a fixed text.
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      request.log.info({ code: err.code }, 'request rejected');
      return reply.code(status).send({ detail: frameworkClientDetail(err, status) });
    }
    request.log.error({ err }, 'unhandled error');
    return sendServerError(reply, 500);
  });

  app.setNotFoundHandler((request, reply) => {
    const methods = allowed.for(request.url.split('?')[0] ?? '/');
    if (methods.length > 0) {
      return reply
        .code(405)
        .header('allow', methods.join(', '))
        .send({ detail: `method not allowed here; allowed: ${methods.join(', ')}` });
    }
    return reply.code(404).send({ detail: 'no such route; the API is described at /api/v1/openapi.json' });
  });
}
