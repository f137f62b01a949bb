import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
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
    return (data: unknown): string => {
      const plain = stringifyEnvelope(data);
      if (checks === 'sampled' && served++ % SAMPLE_EVERY !== 0) return plain;
      // Throws the library's ResponseSerializationError (a 500) when the data breaks the schema.
      const encoded = encode(data);
      if (encoded !== plain) {
        throw new ResponseShapeError(
          `${route.method} ${route.url}: the response schema changes the data (${String(route.httpStatus)})`,
        );
      }
      return plain;
    };
  };
}
