import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ChangesQuerySchema, ChangesResponseSchema } from '../../contract/change-schemas.ts';
import type { Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { restCaller, sendMetered } from '../guard.ts';
import { errorResponses, okResponse } from './responses.ts';

/** The change feed of issue 19 (docs/api-decisions.md): parse, authenticate, the operation. */
export const changeRoutes: FastifyPluginAsyncZod<{ ops: Operations; authenticator: Authenticator }> = async (
  app,
  { ops, authenticator },
) => {
  app.get(
    '/changes',
    {
      // Metered: a HEAD would run the GET handler and charge for rows nobody receives (src/http/http-semantics.ts).
      exposeHeadRoute: false,
      schema: {
        operationId: 'listChanges',
        tags: ['companies'],
        summary: 'Companies added, removed or changed since a day or a snapshot (paged; metered per item)',
        description:
          'Send `since` (YYYY-MM-DD: changes recorded on or after that day) or `since_snapshot` (the ' +
          'changes recorded by later snapshots). Oldest first: by day, snapshot, registration code. ' +
          'Reserves page_size items at the country row price and charges the items returned; an empty ' +
          'page is free. A `since` before the kept history is a 422 naming the oldest date available.',
        querystring: ChangesQuerySchema,
        response: {
          200: okResponse('One page of changes with the usage meta of the charge', ChangesResponseSchema),
          ...errorResponses(401, 402, 429, 502, 503),
        },
      },
    },
    async (request, reply) =>
      sendMetered(reply, await ops.changes(await restCaller(authenticator, request), request.query)),
  );
};
