import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { pageOfBody } from '../engine/page-arena.ts';
import { stringifyEnvelope } from '../services/raw-items.ts';

/**
 * How responses are held to their zod schema:
 * - `every`: each response is encoded through its schema, and must come out as the same JSON bytes as
 *   the data itself; tests and development run so, which proves that skipping the encode sends the same
 *   bytes.
 * - `sampled`: one response in SAMPLE_EVERY per route is checked that way; the rest are JSON.stringify of
 *   the data. Encoding a result page of 100 rows through zod cost 0.3-1.2 ms on this 2-core machine, more
 *   than the planner spent finding it (issue 27 item 4).
 * Either way a search page's items are written as the JSON text its planner thread made
 * (services/raw-items.ts); a checked response proves those bytes equal the schema's encoding of them.
 */
export type ResponseChecks = 'every' | 'sampled';

export const SAMPLE_EVERY = 64;

/** A schema that turns the data into other bytes than JSON.stringify would: a defect of the route. */
export class ResponseShapeError extends Error {}

type SerializerRoute = Parameters<FastifySerializerCompiler<unknown>>[0];

export function responseSerializer(checks: ResponseChecks): FastifySerializerCompiler<unknown> {
  return (route: SerializerRoute) => {
    const encode = (
      serializerCompiler as FastifySchemaCompiler<unknown> as unknown as FastifySerializerCompiler<unknown>
    )(route);
    let served = 0;
    // A Buffer (a page framed in its arena slot) is a payload fastify sends as it is; its slot is given
    // back once the answer has been written (releaseWhenSent, below).
    return ((data: unknown): string | Buffer => {
      const plain = stringifyEnvelope(data);
      if (checks === 'sampled' && served++ % SAMPLE_EVERY !== 0) return plain;
      // Throws the library's ResponseSerializationError (a 500) when the data breaks the schema.
      const encoded = encode(data);
      if (encoded !== (typeof plain === 'string' ? plain : plain.toString('utf8'))) {
        throw new ResponseShapeError(
          `${route.method} ${route.url}: the response schema changes the data (${String(route.httpStatus)})`,
        );
      }
      return plain;
    }) as (data: unknown) => string;
  };
}

/**
 * A search page framed in its planner thread's arena slot (engine/page-arena.ts) goes back once the socket
 * has taken its last byte. A response that never finishes (the client went away) leaves the slot to the
 * collector, which frees it only when nothing, the socket included, holds the body.
 */
export function releaseWhenSent(res: ServerResponse, payload: unknown): void {
  const page = pageOfBody(payload);
  if (page) res.once('finish', () => page.sent());
}
