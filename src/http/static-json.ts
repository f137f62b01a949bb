import type { FastifyReply } from 'fastify';
import type { z } from 'zod';

/**
 * Responses that are the same object for every request of a snapshot (filters.json, the activity and
 * location trees; the EE location tree is ~400 KB) are validated against their schema and serialised once,
 * then sent as the cached text: re-encoding a static tree cost ~60 ms per request. Keyed weakly by the
 * object, so a retired snapshot's texts go with it.
 */
const texts = new WeakMap<object, string>();

export function sendStaticJson(reply: FastifyReply, value: object, schema: z.ZodType): FastifyReply {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(schema.encode(value));
    texts.set(value, text);
  }
  // A string body with a JSON content type is sent as is: fastify does not serialise it again.
  return reply.type('application/json; charset=utf-8').send(text);
}
