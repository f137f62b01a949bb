import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CompanyPathSchema,
  CompanyQuerySchema,
  CountQueryObject,
  CountQuerySchema,
  CountResponseSchema,
  DetailResponseSchema,
  HistoryResponseSchema,
  SearchQueryObject,
  SearchQuerySchema,
  SearchResponseSchema,
  WorkplacesQuerySchema,
  WorkplacesResponseSchema,
} from '../../contract/api-schemas.ts';
import type { Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { restCaller, sendAdmitted, sendMetered } from '../guard.ts';
import { arrayParams } from '../query-params.ts';
import { errorResponses, okResponse } from './responses.ts';

interface CompanyRouteOptions {
  ops: Operations;
  authenticator: Authenticator;
}
type App = Parameters<FastifyPluginAsyncZod<CompanyRouteOptions>>[0];

/** Count (free) and the metered company endpoints of spec 4.3-4.6: parse, authenticate, the operation. */
export const companyRoutes: FastifyPluginAsyncZod<CompanyRouteOptions> = async (app, opts) => {
  searchRoutes(app, opts);
  companyRecordRoutes(app, opts);
};

/** GET /count and GET /companies: the search filters, counted (free) or paged (metered per row). */
function searchRoutes(app: App, { ops, authenticator }: CompanyRouteOptions): void {
  app.get(
    '/count',
    {
      config: { queryArrays: arrayParams(CountQueryObject) },
      schema: {
        operationId: 'countCompanies',
        tags: ['companies'],
        summary: 'Exact count of the companies matching the search filters (free, rate-limited)',
        description:
          'Accepts the same filters as /companies (not paging or sorting). Active companies only unless ' +
          '`status` is sent (`__all__` = every status). Repeat a parameter to send several values.',
        querystring: CountQuerySchema,
        response: {
          200: okResponse('The exact number of matching companies', CountResponseSchema),
          ...errorResponses(401, 429, 502),
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(reply, await ops.count(await restCaller(authenticator, request), request.query)),
  );

  app.get(
    '/companies',
    {
      // Metered: a HEAD would run the GET handler and charge for rows nobody receives (src/http/http-semantics.ts).
      exposeHeadRoute: false,
      config: { queryArrays: arrayParams(SearchQueryObject) },
      schema: {
        operationId: 'searchCompanies',
        tags: ['companies'],
        summary: 'Search companies (paged; metered per returned row)',
        description:
          'Reserves page_size rows at the country price and charges the rows returned. Active companies ' +
          'only unless `status` is sent. A filter the country does not list in /filters is a 422; so is ' +
          'sending both the English and the deprecated Estonian spelling of one parameter.',
        querystring: SearchQuerySchema,
        response: {
          200: okResponse(
            'One page of matching companies with the usage meta of the charge',
            SearchResponseSchema,
          ),
          ...errorResponses(401, 402, 429, 502),
        },
      },
    },
    async (request, reply) =>
      sendMetered(reply, await ops.search(await restCaller(authenticator, request), request.query)),
  );
}

/** One company's detail, history and workplaces: one metered row each. */
function companyRecordRoutes(app: App, { ops, authenticator }: CompanyRouteOptions): void {
  app.get(
    '/companies/:registrikood',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'getCompany',
        tags: ['companies'],
        summary: 'One company in full (metered: one row)',
        params: CompanyPathSchema,
        querystring: CompanyQuerySchema,
        response: {
          200: okResponse('The company in full with the usage meta of the charge', DetailResponseSchema),
          ...errorResponses(400, 401, 402, 404, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const ref = { country: request.query.country, registrikood: request.params.registrikood };
      return sendMetered(reply, await ops.detail(await restCaller(authenticator, request), ref));
    },
  );

  app.get(
    '/companies/:registrikood/history',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'getCompanyHistory',
        tags: ['companies'],
        summary: 'Time series of one company (metered: one row; free when there is no history)',
        params: CompanyPathSchema,
        querystring: CompanyQuerySchema,
        response: {
          200: okResponse(
            "The company's time series with the usage meta of the charge",
            HistoryResponseSchema,
          ),
          ...errorResponses(400, 401, 402, 404, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const ref = { country: request.query.country, registrikood: request.params.registrikood };
      return sendMetered(reply, await ops.history(await restCaller(authenticator, request), ref));
    },
  );

  app.get(
    '/companies/:registrikood/workplaces',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'getCompanyWorkplaces',
        tags: ['companies'],
        summary: 'Active workplaces of a Swedish company, main first (metered: one SE row)',
        params: CompanyPathSchema,
        querystring: WorkplacesQuerySchema,
        response: {
          200: okResponse(
            "The company's active workplaces, main first, with the usage meta of the charge",
            WorkplacesResponseSchema,
          ),
          ...errorResponses(400, 401, 402, 404, 429, 502),
        },
      },
    },
    async (request, reply) => {
      const ref = { country: request.query.country, registrikood: request.params.registrikood };
      return sendMetered(reply, await ops.workplaces(await restCaller(authenticator, request), ref));
    },
  );
}
