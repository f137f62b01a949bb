import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthResponseSchema, type HealthResponse } from '../../contract/api-schemas.ts';
import type { Engine } from '../../engine/engine.ts';

/** Spec-external operations endpoint: no auth; the live snapshot and its age per country. */
export const healthRoutes: FastifyPluginAsyncZod<{ engine: Engine }> = async (app, { engine }) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        tags: ['operations'],
        summary: 'Liveness and the live snapshot (no authentication)',
        security: [],
        response: { 200: HealthResponseSchema, 503: HealthResponseSchema },
      },
    },
    async (_request, reply) => {
      const snap = engine.snapshot;
      if (!snap) {
        return reply.code(503).send({ status: 'unavailable', snapshot_id: null, countries: {} });
      }
      const body: HealthResponse = { status: 'ok', snapshot_id: snap.id, countries: {} };
      for (const c of snap.countries) {
        const m = snap.country(c).manifest;
        body.countries[c] = {
          generated_at: m.generated_at,
          age_seconds: Math.round((Date.now() - Date.parse(m.generated_at)) / 1000),
          companies_for_sale: m.row_counts.companies_for_sale,
        };
      }
      return body;
    },
  );
};
