import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CountryCode } from '../contract/countries.ts';
import type {
  Authenticator,
  FreeOperation,
  Metering,
  MeteredOperation,
  MeteredOutcome,
  Principal,
  RateLimiter,
  UsageMeta,
} from '../wallet/types.ts';
import { rateLimitHeaders } from '../wallet/rate-limiter.ts';

/** The wallet parts a route needs: who is calling, may they call now, and the metered run. */
export interface WalletParts {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  metering: Metering;
}

/** Authenticates (401) and rate-limits (429) one request; sets the RateLimit headers on success. */
export function admit(
  wallet: WalletParts,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: MeteredOperation | FreeOperation,
): Principal {
  const principal = wallet.authenticator.authenticate(request.headers.authorization);
  const decision = wallet.rateLimiter.take(principal, operation);
  if (decision) reply.headers(rateLimitHeaders(decision));
  return principal;
}

/**
 * A metered REST call: admit, then reserve / run / settle through the wallet (spec 8). `params` is the
 * validated request, the fingerprint an idempotency key is bound to.
 */
export async function runMeteredRoute<T>(
  wallet: WalletParts,
  request: FastifyRequest,
  reply: FastifyReply,
  call: { operation: MeteredOperation; country: CountryCode; reserveRows: number; params: unknown },
  run: () => Promise<MeteredOutcome<T>>,
): Promise<{ data: T; meta: UsageMeta }> {
  const principal = admit(wallet, request, reply, call.operation);
  const idempotencyKey = request.headers['idempotency-key'];
  const { result, meta } = await wallet.metering.runMetered(
    {
      principal,
      channel: 'rest',
      operation: call.operation,
      country: call.country,
      reserveRows: call.reserveRows,
      ...(typeof idempotencyKey === 'string' && { idempotencyKey }),
      fingerprint: JSON.stringify([call.operation, call.params]),
    },
    run,
  );
  return { data: result, meta };
}
