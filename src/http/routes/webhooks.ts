import { manager, type App, type Manage } from './account.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DeliveryLogResponseSchema,
  DeliveryPathSchema,
  EndpointCreateBodySchema,
  EndpointListResponseSchema,
  EndpointPathSchema,
  EndpointResponseSchema,
  EndpointSecretResponseSchema,
  ReplayResponseSchema,
} from '../../contract/webhook-schemas.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import type { Deliverer } from '../../webhooks/deliverer.ts';
import type { Endpoints } from '../../webhooks/endpoints.ts';
import { sendAdmitted } from '../guard.ts';
import { errorResponse, errorResponses, okResponse } from './responses.ts';

/**
 * Webhook endpoints of the account (issue 31, docs/api-decisions.md "Webhooks"): free account
 * management under /api/v1/account, like watchlists. Deliveries themselves are metered per event.
 */
interface Deps {
  ops: Operations;
  authenticator: Authenticator;
  endpoints: Endpoints;
  deliverer: Deliverer;
}

type Parts = Pick<Deps, 'endpoints' | 'deliverer'>;

const NOT_FOUND = { 404: errorResponse('No webhook endpoint (or delivery) with that id in this account') };
const tags = ['watchlists'];

export const webhookRoutes: FastifyPluginAsyncZod<Deps> = async (
  app,
  { ops, authenticator, endpoints, deliverer },
) => {
  const manage = manager(ops, authenticator);
  endpointList(app, manage, { endpoints, deliverer });
  endpointSettings(app, manage, { endpoints, deliverer });
  deliveryLog(app, manage, { endpoints, deliverer });
};

/** Endpoints listed, made and deleted */
function endpointList(app: App, manage: Manage, { endpoints }: Parts): void {
  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: "The account's webhook endpoints (free)",
        response: {
          200: okResponse('Every endpoint', EndpointListResponseSchema),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(reply, await manage(request, async (a) => ({ data: { items: await endpoints.list(a) } }))),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Receive watchlist events at a URL, signed per Standard Webhooks (free)',
        description:
          'Every event of a publish after this moment is POSTed to the URL with `webhook-id`, ' +
          '`webhook-timestamp` and `webhook-signature` headers. Any 2xx acknowledges it; anything else is ' +
          'retried for about 27 hours. The secret is in this answer only.',
        body: EndpointCreateBodySchema,
        response: {
          201: okResponse('The endpoint and its secret (shown once)', EndpointSecretResponseSchema),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) => {
      const answer = await manage(request, async (a) => ({
        data: await endpoints.create(a, request.body.url),
      }));
      reply.code(201);
      return sendAdmitted(reply, answer);
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Stop sending to an endpoint; its queued deliveries are dropped, unbilled (free)',
        params: EndpointPathSchema,
        response: { 204: z.null().describe('Deleted; no body'), ...errorResponses(401, 429), ...NOT_FOUND },
      },
    },
    async (request, reply) => {
      sendAdmitted(reply, await manage(request, (a) => endpoints.remove(a, request.params.id)));
      return reply.code(204).send(null);
    },
  );
}

/** An endpoint's secret rotated, and the endpoint switched back on */
function endpointSettings(app: App, manage: Manage, { endpoints }: Parts): void {
  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new secret; the previous one also signs for 24 hours (free)',
        params: EndpointPathSchema,
        response: {
          200: okResponse('The endpoint and its new secret (shown once)', EndpointSecretResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => ({ data: await endpoints.rotate(a, request.params.id) })),
      ),
  );

  app.post(
    '/webhooks/:id/enable',
    {
      schema: {
        operationId: 'enableWebhookEndpoint',
        tags,
        summary: 'Switch an endpoint back on after it was switched off for failing (free)',
        params: EndpointPathSchema,
        response: {
          200: okResponse('The endpoint', EndpointResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => ({ data: await endpoints.enable(a, request.params.id) })),
      ),
  );
}

/** The delivery log and replays */
function deliveryLog(app: App, manage: Manage, { endpoints, deliverer }: Parts): void {
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log of an endpoint, newest first: state, attempts, answers, credits (free)',
        params: EndpointPathSchema,
        response: {
          200: okResponse('The last 100 deliveries', DeliveryLogResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => {
          await endpoints.row(a, request.params.id);
          return { data: { items: await deliverer.log(a, request.params.id) } };
        }),
      ),
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery/replay',
    {
      schema: {
        operationId: 'replayWebhookDelivery',
        tags,
        summary: 'Send a delivery again now (free; the event is charged once, however often it is sent)',
        params: DeliveryPathSchema,
        response: {
          200: okResponse('Queued again', ReplayResponseSchema),
          ...errorResponses(401, 429),
          ...NOT_FOUND,
        },
      },
    },
    async (request, reply) =>
      sendAdmitted(
        reply,
        await manage(request, async (a) => {
          await endpoints.row(a, request.params.id);
          const replayed = await deliverer.replay(a, request.params.id, request.params.delivery);
          if (!replayed)
            throw new AppError('not_found', `no delivery ${request.params.delivery} of this endpoint`);
          return { data: { replayed } };
        }),
      ),
  );
}
