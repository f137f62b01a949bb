import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
 * goes to the log with the request id, never to the client.
 */

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

export function installErrorHandlers(app: FastifyInstance): void {
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
      if (isRateLimitedError(err)) {
        reply.header('Retry-After', String(err.retryAfterSeconds));
        if (err.decision) reply.headers(rateLimitHeaders(err.decision));
      }
      return reply.code(err.status).send({ detail: clientDetail(err) });
    }
    // Fastify's own client errors (bad content type, body too large, ...) keep their status and reason.
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: err.message });
    request.log.error({ err }, 'unhandled error');
    return sendServerError(reply, 500);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ detail: `no route for ${request.method} ${request.url.split('?')[0]}` }),
  );
}
