import type { z } from 'zod';
import { ErrorResponseSchema, ValidationErrorResponseSchema } from '../../contract/api-schemas.ts';

/** Spec 7 error responses, documented per route with the condition the spec gives for each status. */
const ERRORS = {
  400: 'Malformed registration code, or a country without a location tree',
  401: 'Missing or invalid API key',
  402: 'Insufficient wallet credits; nothing was run',
  404: 'No company with that code in the country; nothing charged',
  429: 'Rate limit exceeded; slow down and retry',
  502: 'Data backend temporarily unavailable; safe to retry; nothing charged',
  503: 'The service is busy (the query engine is full); retry after the seconds in Retry-After; nothing charged',
} as const;

const json = (description: string, schema: z.ZodType) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A success response documented with what it holds (fastify-swagger says "Default Response" otherwise). */
export function okResponse(description: string, schema: z.ZodType) {
  return json(description, schema);
}

export function errorResponses(...codes: (keyof typeof ERRORS)[]) {
  const out: Record<number, ReturnType<typeof json>> = {
    422: json(
      'Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged',
      ValidationErrorResponseSchema,
    ),
  };
  for (const c of codes) out[c] = json(ERRORS[c], ErrorResponseSchema);
  return out;
}

/** An error response whose condition differs from the spec's wording for data routes (account routes). */
export function errorResponse(description: string) {
  return json(description, ErrorResponseSchema);
}
