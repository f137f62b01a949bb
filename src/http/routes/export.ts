import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SearchQueryObject } from '../../contract/api-schemas.ts';
import {
  EstimateDataSchema,
  EstimateQuerySchema,
  ExportQueryObject,
  ExportQuerySchema,
} from '../../contract/export-schemas.ts';
import type { Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { HttpExportSink, META_TRAILER } from '../export-sink.ts';
import { restCaller, sendAdmitted } from '../guard.ts';
import { arrayParams } from '../query-params.ts';
import { errorResponses, okResponse } from './responses.ts';

const file = (description: string) => ({
  description,
  schema: z.string().meta({ format: 'binary' }),
});

/** The export and the cost estimate of issue 19 (docs/api-decisions.md): parse, authenticate, the operation. */
export const exportRoutes: FastifyPluginAsyncZod<{ ops: Operations; authenticator: Authenticator }> = async (
  app,
  { ops, authenticator },
) => {
  app.get(
    '/companies/export',
    {
      config: { queryArrays: arrayParams(ExportQueryObject) },
      schema: {
        operationId: 'exportCompanies',
        tags: ['companies'],
        summary:
          'Every company matching the search filters as one CSV, NDJSON or Parquet file (metered per row)',
        description:
          'The search rows of every matching company, sorted like /companies, at most `max_rows`. Before ' +
          'the first byte it reserves min(matching rows, max_rows) at the country row price (402 and ' +
          'nothing runs when the balance cannot cover it); it charges the rows the connection accepted ' +
          'and releases the rest, so a download cut short costs only what was sent (a Parquet row counts ' +
          'once its whole row group of 10,240 rows is sent). The usage `meta` comes after the body: for ' +
          `ndjson as a last line \`{"meta": {...}}\`, for csv and parquet in the HTTP trailer ` +
          `\`${META_TRAILER}\` (JSON). Idempotency-Key works as on search: a repeat streams the same rows ` +
          'again without a second charge.',
        querystring: ExportQuerySchema,
        response: {
          200: {
            description: 'The rows, streamed (chunked); the usage meta follows the body',
            content: {
              'text/csv': file('RFC 4180 with a header row; meta in the regdata-meta trailer'),
              'application/x-ndjson': file('One search row per line, then {"meta": ...}'),
              'application/vnd.apache.parquet': file('A Parquet file; meta in the regdata-meta trailer'),
            },
          },
          ...errorResponses(401, 402, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const caller = await restCaller(authenticator, request);
      const sink = new HttpExportSink(reply);
      try {
        sink.finish(await ops.export(caller, request.query, sink));
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
