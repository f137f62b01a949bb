import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Admitted, Operations } from '../../services/operations.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { restCaller } from '../guard.ts';

/**
 * What the account routes of issue 31 share (watchlists.ts, webhooks.ts): their prefix, beside the
 * read-only data API, and how a free account call is authenticated, rate-limited and recorded.
 */
export const ACCOUNT_PREFIX = '/api/v1/account';

/** The app inside a route plugin, with its zod type provider. */
export type App = Parameters<FastifyPluginAsyncZod>[0];

/** Authenticates, rate-limits and records a free account call, then runs it for the caller's account. */
export type Manage = <T>(
  request: Parameters<typeof restCaller>[1],
  run: (accountId: string) => Promise<T>,
) => Promise<Admitted<T>>;

export function manager(ops: Operations, authenticator: Authenticator): Manage {
  return async (request, run) => {
    const caller = await restCaller(authenticator, request);
    return ops.manageWatchlists(caller, () => run(caller.principal.accountId));
  };
}
