import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ActivitiesQuerySchema,
  CountriesResponseSchema,
  FiltersQuerySchema,
  FiltersResponseSchema,
  LocationsQuerySchema,
  TreeResponseSchema,
} from '../../contract/api-schemas.ts';
import type { Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { restCaller, sendAdmitted } from '../guard.ts';
import { sendStaticJson } from '../static-json.ts';
import { errorResponses, okResponse } from './responses.ts';

/** Free discovery endpoints of spec 4.2: authenticate (401), then the operation (429); nothing is metered. */
export const discoveryRoutes: FastifyPluginAsyncZod<{
  ops: Operations;
  authenticator: Authenticator;
}> = async (app, { ops, authenticator }) => {
  app.get(
    '/countries',
    {
      schema: {
        operationId: 'listCountries',
        tags: ['discovery'],
        summary: 'List the seven countries',
        querystring: z.strictObject({}),
        response: {
          200: okResponse('The seven countries, code and name', CountriesResponseSchema),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(reply, await ops.countries(await restCaller(authenticator, request))),
  );

  app.get(
    '/filters',
    {
      schema: {
        operationId: 'listFilters',
        tags: ['discovery'],
        summary: "A country's search and count filters (the authority on which filters apply)",
        querystring: FiltersQuerySchema,
        response: {
          200: okResponse(
            "The country's filters: parameters, value types, options and ranges",
            FiltersResponseSchema,
          ),
          ...errorResponses(401, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const filters = sendAdmitted(
        reply,
        await ops.filters(await restCaller(authenticator, request), request.query.country),
      );
      return sendStaticJson(reply, filters, FiltersResponseSchema);
    },
  );

  app.get(
    '/activities',
    {
      schema: {
        operationId: 'listActivities',
        tags: ['discovery'],
        summary: 'Activity-code tree (EMTAK, NACE, EVRK, PKD or SNI); leaf codes are sent as industry_codes',
        querystring: ActivitiesQuerySchema,
        response: {
          200: okResponse('The activity tree in the requested language', TreeResponseSchema),
          ...errorResponses(401, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const tree = sendAdmitted(
        reply,
        await ops.activities(await restCaller(authenticator, request), request.query),
      );
      return sendStaticJson(reply, tree, TreeResponseSchema);
    },
  );

  app.get(
    '/locations',
    {
      schema: {
        operationId: 'listLocations',
        tags: ['discovery'],
        summary: 'Location tree (EE, LV, LT, FI, PL); NO and SE have none (400)',
        description:
          "For EE/LV/FI/PL send a node's `codes` as `ehak_kood`; a parent `kood` alone matches only rows " +
          "tagged with exactly that code. For LT send a node's `locations` as `lt_locations`.",
        querystring: LocationsQuerySchema,
        response: {
          200: okResponse(
            'The location tree, pruned to max_depth, or the flat matches of a name search',
            TreeResponseSchema,
          ),
          ...errorResponses(400, 401, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const nodes = sendAdmitted(
        reply,
        await ops.locations(await restCaller(authenticator, request), request.query),
      );
      // Name searches are small and new each time; whole and pruned trees are shared per snapshot.
      return request.query.query === undefined ? sendStaticJson(reply, nodes, TreeResponseSchema) : nodes;
    },
  );
};
