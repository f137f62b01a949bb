import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorResponseSchema, SearchQueryObject } from '../../contract/api-schemas.ts';
import {
  EstimateDataSchema,
  EstimateQuerySchema,
  ExportRouteQueryObject,
  ExportRouteQuerySchema,
} from '../../contract/export-schemas.ts';
import { AppError } from '../../errors/app-error.ts';
import type { ExportLinks } from '../../services/export-link.ts';
import type { Caller, Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { HttpExportSink, META_TRAILER } from '../export-sink.ts';
import { restCaller, sendAdmitted } from '../guard.ts';
import { arrayParams } from '../query-params.ts';
import { errorResponses, okResponse } from './responses.ts';

const file = (description: string) => ({
  description,
  schema: z.string().meta({ format: 'binary' }),
});

/**
 * A download through a signed link (the MCP tool export_companies): the link stands in for the
 * Authorization header, so sending both is refused rather than one silently winning. The caller is the
 * key the link names, on the MCP channel that issued it; an Idempotency-Key header works as on REST.
 */
async function linkCaller(
  links: ExportLinks,
  authenticator: Authenticator,
  request: FastifyRequest,
): Promise<Caller> {
  if (request.headers.authorization !== undefined) {
    throw new AppError(
      'bad_request',
      'send either Authorization or a download link (key_id, expires, signature), not both',
    );
  }
  const at = request.url.indexOf('?');
  const entries = [...new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1))];
  const principal = await authenticator.principalOf(links.verify(entries, Date.now()));
  const idempotencyKey = request.headers['idempotency-key'];
  return { principal, channel: 'mcp', ...(typeof idempotencyKey === 'string' && { idempotencyKey }) };
}

/** The export and the cost estimate of issue 19 (docs/api-decisions.md): parse, authenticate, the operation. */
export const exportRoutes: FastifyPluginAsyncZod<{
  ops: Operations;
  authenticator: Authenticator;
  links: ExportLinks;
}> = async (app, { ops, authenticator, links }) => {
  app.get(
    '/companies/export',
    {
      // Metered: a HEAD would run the GET handler and charge for rows nobody receives (src/http/http-semantics.ts).
      exposeHeadRoute: false,
      config: { queryArrays: arrayParams(ExportRouteQueryObject) },
      schema: {
        operationId: 'exportCompanies',
        tags: ['companies'],
        summary:
          'Every company matching the search filters as one CSV, NDJSON or Parquet file (metered per row)',
        description:
          'The search rows of every matching company, sorted like /companies, at most `max_rows`. Before ' +
          'the first byte it reserves min(matching rows, max_rows) at the country row price (402 and ' +
          'nothing runs when the balance cannot cover it); it charges the rows in the bytes the client ' +
          'acknowledged receiving (TCP) and releases the rest, so a download cut short costs only what ' +
          'the client received, at most its unread receive buffer more than it read (a Parquet row counts ' +
          'once its whole row group of 10,240 rows is sent). The usage `meta` comes after the body: for ' +
          `ndjson as a last line \`{"meta": {...}}\`, for csv and parquet in the HTTP trailer ` +
          `\`${META_TRAILER}\` (JSON). Idempotency-Key works as on search: a repeat streams the same rows ` +
          'again without a second charge. A download link from the MCP tool `export_companies` carries ' +
          '`key_id`, `expires` and `signature` and is sent without Authorization; it is metered to the ' +
          'key it names exactly like this call, and any change to it, or its expiry, is a 403.',
        querystring: ExportRouteQuerySchema,
        response: {
          200: {
            description: 'The rows, streamed (chunked); the usage meta follows the body',
            content: {
              'text/csv': file('RFC 4180 with a header row; meta in the regdata-meta trailer'),
              'application/x-ndjson': file('One search row per line, then {"meta": ...}'),
              'application/vnd.apache.parquet': file('A Parquet file; meta in the regdata-meta trailer'),
            },
          },
          ...errorResponses(401, 402, 429, 502, 503),
          400: okResponse('Both an Authorization header and a download link were sent', ErrorResponseSchema),
          403: okResponse(
            'A download link that was changed, has expired, or whose key was revoked; nothing run or charged',
            ErrorResponseSchema,
          ),
        },
      },
    },
    async (request, reply) => {
      const { params, signed } = request.query;
      const caller = signed
        ? await linkCaller(links, authenticator, request)
        : await restCaller(authenticator, request);
      const sink = new HttpExportSink(reply);
      try {
        sink.finish(await ops.export(caller, params, sink));
      } catch (err) {
        if (!sink.hasStarted) throw err;
        request.log.error({ err }, 'export failed after its first byte');
        sink.abort();
      }
      return reply;
    },
  );

  app.get(
    '/estimate',
    {
      config: { queryArrays: arrayParams(SearchQueryObject) },
      schema: {
        operationId: 'estimateCost',
        tags: ['companies'],
        summary: 'What a metered call would reserve now (free, rate-limited)',
        description:
          'Send `operation` and that operation’s own parameters (detail, history and workplaces take the ' +
          'registration code as `registrikood`); they are validated as the call validates them. `rows` ' +
          'and `credits_needed` follow the operation’s reserve rule: page_size for search and changes, ' +
          'min(matching rows, max_rows) for export, 1 for detail, history and workplaces; a waiver ' +
          '(admin key, Unlimited plan, country subscription, trial) makes credits_needed 0.',
        querystring: EstimateQuerySchema,
        response: {
          200: okResponse('The estimate', EstimateDataSchema),
          ...errorResponses(400, 401, 429, 502),
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(reply, await ops.estimate(await restCaller(authenticator, request), request.query)),
  );
};
