import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Admitted, Caller, Metered } from '../services/operations.ts';
import type { Authenticator, Metering, RateLimiter } from '../wallet/types.ts';
import { rateLimitHeaders } from '../wallet/rate-limiter.ts';

/** The live snapshot's day for the answer's country, on every answer about one country (docs/api-decisions.md). */
export const DATA_AS_OF_HEADER = 'data-as-of';
/** The wallet parts a route needs: who is calling, may they call now, and the metered run. */
export interface WalletParts {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  metering: Metering;
}

/** Authenticates a REST request (401): the caller every operation of src/services/operations.ts takes. */
export async function restCaller(authenticator: Authenticator, request: FastifyRequest): Promise<Caller> {
  const principal = await authenticator.authenticate(request.headers.authorization);
  const idempotencyKey = request.headers['idempotency-key'];
  // No conditional spread on a request's path: spreads there gave V8 a new hidden class per object
  // (operations.ts withFreshness).
  const caller: Caller = { principal, channel: 'rest' };
  if (typeof idempotencyKey === 'string') caller.idempotencyKey = idempotencyKey;
  return caller;
}

/** Operator endpoints (/metrics, the details of /healthz): an admin key, else 401 (no key) or 403. */
export async function requireAdmin(authenticator: Authenticator, request: FastifyRequest): Promise<void> {
  if ((await authenticator.authenticate(request.headers.authorization)).kind !== 'admin') {
    throw new AppError('forbidden', 'this endpoint needs an admin key');
  }
}

/** Whether the request carries a valid admin key; never throws (for endpoints public in a short form). */
export async function isAdminRequest(
  authenticator: Authenticator,
  request: FastifyRequest,
): Promise<boolean> {
  if (request.headers.authorization === undefined) return false;
  try {
    return (await authenticator.authenticate(request.headers.authorization)).kind === 'admin';
  } catch {
    return false;
  }
}

/** Sets the RateLimit headers of an admitted call and returns its REST body. */
export function sendAdmitted<T>(reply: FastifyReply, answer: Admitted<T>): T {
  if (answer.rate) reply.headers(rateLimitHeaders(answer.rate));
  if (answer.fresh) reply.header(DATA_AS_OF_HEADER, answer.fresh.data_as_of);
  return answer.data;
}

/** A metered call's REST envelope: `{data, meta}` (spec 2.8), with the RateLimit headers set. */
export function sendMetered<T>(
  reply: FastifyReply,
  answer: Metered<T>,
): { data: T; meta: Metered<T>['meta'] } {
  return { data: sendAdmitted(reply, answer), meta: answer.meta };
}
