import { z } from 'zod';
import { CountrySchema } from './api-schemas.ts';

/** Webhook endpoints and their delivery log (issue 31): one schema per request and response. */

const ENDPOINT_ID = 'we_3q2PZ1x0aB9cD8eF';

export const EndpointCreateBodySchema = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Where events are POSTed: an https URL on a public address')
    .meta({ examples: ['https://hooks.example.com/regdata'] }),
});

export const EndpointPathSchema = z.strictObject({
  id: z
    .string()
    .regex(/^we_[A-Za-z0-9_-]{16}$/, `must be an endpoint id, e.g. ${ENDPOINT_ID}`)
    .describe('The endpoint (`id` of a webhook endpoint of this account)')
    .meta({ examples: [ENDPOINT_ID] }),
});

export const DeliveryPathSchema = EndpointPathSchema.extend({
  delivery: z.coerce
    .number()
    .int()
    .min(1)
    .describe('The delivery (`id` of an entry of the delivery log)')
    .meta({ examples: [42] }),
});

export const EndpointSchema = z
  .object({
    id: z.string().meta({ examples: [ENDPOINT_ID] }),
    url: z.string().meta({ examples: ['https://hooks.example.com/regdata'] }),
    created_at: z.string().meta({ examples: ['2026-11-27T10:15:00.000Z'] }),
    disabled_at: z
      .string()
      .nullable()
      .describe('Null while it receives events; when it was switched off after a day of failures')
      .meta({ examples: [null] }),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ examples: [null] }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z
    .string()
    .describe('The signing secret (Standard Webhooks `whsec_...`): shown this once, never again')
    .meta({ examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }),
});

export const EndpointListResponseSchema = z.object({ data: z.object({ items: z.array(EndpointSchema) }) });
export const EndpointResponseSchema = z.object({ data: EndpointSchema });
export const EndpointSecretResponseSchema = z.object({ data: EndpointWithSecretSchema });

export const DeliverySchema = z
  .object({
    id: z
      .number()
      .int()
      .meta({ examples: [42] }),
    event_id: z.string().meta({ examples: ['20261127T030000Z.EE.3f9a0c1d2b4e5f60'] }),
    country: CountrySchema,
    state: z
      .enum(['pending', 'sending', 'waiting', 'delivered', 'failed', 'expired'])
      .describe('`waiting`: held until the balance covers it; `failed`: every attempt failed'),
    attempts: z
      .number()
      .int()
      .meta({ examples: [1] }),
    next_at: z
      .string()
      .nullable()
      .describe('When it is tried next')
      .meta({ examples: [null] }),
    last_status: z
      .number()
      .int()
      .nullable()
      .describe('HTTP status of the last answer')
      .meta({ examples: [200] }),
    last_error: z
      .string()
      .nullable()
      .meta({ examples: [null] }),
    charged: z
      .number()
      .describe('Credits charged for it (an event costs once)')
      .meta({ examples: [0.05] }),
    created_at: z.string().meta({ examples: ['2026-11-27T03:00:05.000Z'] }),
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryLogResponseSchema = z.object({ data: z.object({ items: z.array(DeliverySchema) }) });
export const ReplayResponseSchema = z.object({
  data: z.object({
    replayed: z
      .boolean()
      .describe('Queued to be sent again at once')
      .meta({ examples: [true] }),
  }),
});
