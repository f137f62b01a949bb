import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthResponseSchema, type HealthResponse } from '../../contract/api-schemas.ts';
import type { Engine } from '../../engine/engine.ts';
import type { Authenticator } from '../../wallet/types.ts';
import { isAdminRequest } from '../guard.ts';

/**
 * Spec-external operations endpoint, public so load balancers need no key: the status alone. With an admin
 * key it adds the live snapshot and its age per country (which tells an outsider when data was refreshed).
 */
export const healthRoutes: FastifyPluginAsyncZod<{ engine: Engine; authenticator: Authenticator }> = async (
  app,
  { engine, authenticator },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness (no authentication); the live snapshot for admin keys',
        security: [],
        response: { 200: HealthResponseSchema, 503: HealthResponseSchema },
      },
    },
    async (request, reply) => {
      const snap = engine.snapshot;
      const details = await isAdminRequest(authenticator, request);
      if (!snap) {
        return reply
          .code(503)
          .send(
            details ? { status: 'unavailable', snapshot_id: null, countries: {} } : { status: 'unavailable' },
          );
      }
      if (!details) return { status: 'ok' as const };
      const countries: NonNullable<HealthResponse['countries']> = {};
      const body: HealthResponse = { status: 'ok', snapshot_id: snap.id, countries };
      for (const c of snap.countries) {
        const m = snap.country(c).manifest;
        countries[c] = {
          generated_at: m.generated_at,
          age_seconds: Math.round((Date.now() - Date.parse(m.generated_at)) / 1000),
          companies_for_sale: m.row_counts.companies_for_sale,
        };
      }
      return body;
    },
  );
};
