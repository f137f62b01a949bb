import { manager, type App, type Manage } from './account.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  EventsQuerySchema,
  EventsResponseSchema,
  WatchlistCompaniesBodySchema,
  WatchlistCreateBodySchema,
  WatchlistListResponseSchema,
  WatchlistPathSchema,
  WatchlistRemovedResponseSchema,
  WatchlistResponseSchema,
} from '../../contract/watchlist-schemas.ts';
import { registrationCodeString } from '../../contract/api-schemas.ts';
import type { Operations } from '../../services/operations.ts';
import { addToWatchlist, createWatchlist } from '../../services/watchlists.ts';
import type { Authenticator } from '../../wallet/types.ts';
import type { Watchlists } from '../../watchlists/watchlists.ts';
import { restCaller, sendAdmitted, sendMetered } from '../guard.ts';
import { errorResponse, errorResponses, okResponse } from './responses.ts';

/**
 * Watchlists (issue 31, docs/api-decisions.md "Watchlists and events"): account management under
 * /api/v1/account, free, beside the read-only data API; their events are pulled from /api/v1/data/events.
 */

interface Deps {
  ops: Operations;
  authenticator: Authenticator;
  watchlists: Watchlists;
}

const NOT_FOUND = { 404: errorResponse('No watchlist with that id in this account') };
const tags = ['watchlists'];

export const watchlistRoutes: FastifyPluginAsyncZod<Deps> = async (
  app,
  { ops, authenticator, watchlists },
) => {
  const manage = manager(ops, authenticator);
  listAndCreate(app, manage, watchlists);
  oneWatchlist(app, manage, watchlists);
  watchlistCompanies(app, manage, watchlists);
};

/** The watchlists of the account, listed and created */
function listAndCreate(app: App, manage: Manage, watchlists: Watchlists): void {
  app.get(
    '/watchlists',
    {
      schema: {
        operationId: 'listWatchlists',
        tags,
        summary: "The account's watchlists (free)",
        response: {
          200: okResponse('Every watchlist of the account', WatchlistListResponseSchema),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => ({ data: { items: await watchlists.list(a) } })),
      ),
  );

  app.post(
    '/watchlists',
    {
      schema: {
        operationId: 'createWatchlist',
        tags,
        summary: 'Watch companies or a saved search of one country (free)',
        description:
          'Send `companies` (registration codes) or `search` (the filters of /count as JSON). Every publish ' +
          'then makes an event for each watched company it adds, removes or changes, and for each company ' +
          'that enters or leaves a saved search; events cost the row price once (GET /api/v1/data/events).',
        body: WatchlistCreateBodySchema,
        response: {
          201: okResponse('The new watchlist', WatchlistResponseSchema),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) => {
      const answer = await manage(request, async (a) => {
        const created = await createWatchlist(watchlists, a, request.body);
        return { data: await watchlists.get(a, created.id) };
      });
      reply.code(201);
      return sendAdmitted(reply, answer);
    },
  );
}

/** One watchlist, read and deleted */
function oneWatchlist(app: App, manage: Manage, watchlists: Watchlists): void {
  app.get(
    '/watchlists/:id',
    {
      schema: {
        operationId: 'getWatchlist',
        tags,
        summary: 'One watchlist with its companies (free)',
        params: WatchlistPathSchema,
        response: {
          200: okResponse('The watchlist', WatchlistResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => ({ data: await watchlists.get(a, request.params.id) })),
      ),
  );

  app.delete(
    '/watchlists/:id',
    {
      schema: {
        operationId: 'deleteWatchlist',
        tags,
        summary: 'Stop watching: the watchlist and its companies are deleted (free)',
        params: WatchlistPathSchema,
        response: { 204: z.null().describe('Deleted; no body'), ...errorResponses(401, 429), ...NOT_FOUND },
      },
    },
    async (request, reply) => {
      sendAdmitted(reply, await manage(request, (a) => watchlists.remove(a, request.params.id)));
      return reply.code(204).send(null);
    },
  );
}

/** The companies of a list, added and removed */
function watchlistCompanies(app: App, manage: Manage, watchlists: Watchlists): void {
  app.post(
    '/watchlists/:id/companies',
    {
      schema: {
        operationId: 'addWatchlistCompanies',
        tags,
        summary: 'Add companies to a list (free; those already on it stay once)',
        params: WatchlistPathSchema,
        body: WatchlistCompaniesBodySchema,
        response: {
          200: okResponse('The watchlist', WatchlistResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => {
          await addToWatchlist(watchlists, a, request.params.id, request.body.companies);
          return { data: await watchlists.get(a, request.params.id) };
        }),
      ),
  );

  app.delete(
    '/watchlists/:id/companies/:registrikood',
    {
      schema: {
        operationId: 'removeWatchlistCompany',
        tags,
        summary: 'Take a company off a list (free)',
        params: WatchlistPathSchema.extend({
          registrikood: registrationCodeString()
            .min(1)
            .describe('The company to take off the list')
            .meta({ examples: ['10000018'] }),
        }),
        response: {
          200: okResponse(
            'How many were removed (0 when it was not on the list)',
            WatchlistRemovedResponseSchema,
          ),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => ({
          data: {
            removed: await watchlists.removeCompanies(a, request.params.id, [request.params.registrikood]),
          },
        })),
      ),
  );
}

/** The pull of events, beside /changes under the data prefix. */
export const eventRoutes: FastifyPluginAsyncZod<{ ops: Operations; authenticator: Authenticator }> = async (
  app,
  { ops, authenticator },
) => {
  app.get(
    '/events',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'listEvents',
        tags: ['watchlists'],
        summary: "The account's watchlist events after a cursor (paged; each event charged once)",
        description:
          'Oldest first. Send the last `id` you have as `after` (or `next_after` of the previous page). ' +
          'Reserves page_size events at the country row price and charges each event the account was ' +
          'never charged for; a page read again, or an event a webhook delivered, is free. A cursor older ' +
          'than the kept events (30 days) is a 422 naming the oldest event kept.',
        querystring: EventsQuerySchema,
        response: {
          200: okResponse('One page of events with the usage meta of the charge', EventsResponseSchema),
          ...errorResponses(401, 402, 429, 502, 503),
        },
      },
    },
    async (request, reply) =>
      sendMetered(reply, await ops.events(await restCaller(authenticator, request), request.query)),
  );
};
