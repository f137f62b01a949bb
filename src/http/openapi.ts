import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { z } from 'zod';

/**
 * The OpenAPI 3.1 document (version 1.1.0, spec 9) is generated from the routes' zod schemas; nothing here
 * restates a schema. Two touches the generator cannot infer: a query boolean (`true`/`false` text parsed by
 * zod's stringbool) is documented as `type: boolean`, which is how OpenAPI describes a boolean query
 * parameter, and a deprecated alias is flagged on the parameter itself, not only inside its schema.
 */

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';
export const API_VERSION = '1.1.0';

type OverrideCtx = { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> };

function isQueryBoolean(schema: z.core.$ZodType): boolean {
  const def = schema._zod.def as { type: string; in?: z.core.$ZodType; out?: z.core.$ZodType };
  return def.type === 'pipe' && def.in?._zod.def.type === 'string' && def.out?._zod.def.type === 'boolean';
}

/** A bound zod adds to every `.int()` (the safe-integer range), which states nothing about the API. */
export function isSafeIntegerBound(value: unknown): boolean {
  return typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER;
}

const zodToJsonConfig = {
  override(ctx: OverrideCtx) {
    if (isQueryBoolean(ctx.zodSchema)) {
      for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
      ctx.jsonSchema['type'] = 'boolean';
    }
    // zod writes ±(2^53-1) bounds on every integer: a limit of the JSON number, not of the API.
    for (const bound of ['minimum', 'maximum'] as const) {
      if (isSafeIntegerBound(ctx.jsonSchema[bound])) delete ctx.jsonSchema[bound];
    }
    // As the library's default override does: drop the empty branches zod emits for unrepresentable parts.
    const anyOf = ctx.jsonSchema['anyOf'];
    if (Array.isArray(anyOf))
      ctx.jsonSchema['anyOf'] = anyOf.filter((s) => Object.keys(s as object).length > 0);
  },
};

interface OpenApiResponse {
  description?: string;
  content?: Record<string, { schema: unknown }>;
}
interface OpenApiOperation {
  summary?: string;
  parameters?: OpenApiParameter[];
  responses?: Record<string, OpenApiResponse>;
}
interface OpenApiParameter {
  in: string;
  name: string;
  schema?: { deprecated?: boolean };
  deprecated?: boolean;
}
type OpenApiDocument = Record<string, unknown> & {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
};

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.add(v.replace('#/components/schemas/', ''));
      else collectRefs(v, into);
    }
  }
}

/**
 * Flags deprecated parameters, describes any response a route left undescribed (the generator writes
 * "Default Response"), and drops the components the generator emits for both directions of every
 * registered schema when only one direction is used (e.g. `CompanyRowInput`), so the linter sees no dead parts.
 */
function polishDocument(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) if (p.schema?.deprecated) p.deprecated = true;
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.description !== 'Default Response') continue;
        response.description =
          status.startsWith('2') && op.summary ? op.summary : (STATUS_CODES[status] ?? status);
      }
      // Every route can refuse a malformed request (bad URL, headers too large) with the one error shape;
      // an operation that documents no other client error says so.
      const responses = (op.responses ??= {});
      if (
        !Object.keys(responses).some((status) => status.startsWith('4')) &&
        doc.components?.schemas?.['Error']
      ) {
        responses['4XX'] = {
          description: 'Malformed request (bad URL, request headers too large)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
  }
  const schemas = doc.components?.schemas;
  if (schemas) {
    const used = new Set<string>();
    collectRefs(doc.paths, used);
    // Follow references between components until no new one appears.
    for (let size = -1; size !== used.size;) {
      size = used.size;
      for (const name of [...used]) collectRefs(schemas[name], used);
    }
    for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  }
  return doc;
}

/** The paths of the public API: under these prefixes, or equal to one of them. */
export interface OpenApiOptions {
  publicPrefixes: readonly string[];
}

export async function installOpenApi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  const transformObject = createJsonSchemaTransformObject({ zodToJsonConfig });
  const transformRoute = createJsonSchemaTransform({ zodToJsonConfig });
  const isPublic = (url: string) => opts.publicPrefixes.some((p) => url === p || url.startsWith(`${p}/`));
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'regdata: company register data API',
        version: API_VERSION,
        description:
          'Official company-register data of EE, LV, LT, NO, FI, PL and SE. Search, detail, history and ' +
          'workplaces are metered per returned row; countries, filters, activities, locations and count are free.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-regdata' },
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key' } },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'discovery', description: 'Free: countries, filters, activity and location trees' },
        { name: 'companies', description: 'Count (free), search, detail, history and workplaces (metered)' },
        { name: 'operations', description: 'Service health' },
      ],
    },
    transform: (route) =>
      isPublic(route.url)
        ? transformRoute(route)
        : { schema: { ...route.schema, hide: true }, url: route.url },
    transformObject: (documentObject) => polishDocument(transformObject(documentObject) as OpenApiDocument),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    // The UI fetches `./json` beside itself; that is answered with the one public document's address, so
    // /docs renders exactly what /api/v1/openapi.json serves and there is no second copy to drift.
    uiHooks: {
      onRequest: async (request, reply) => {
        const path = request.url.split('?')[0];
        if (path === `${DOCS_PATH}/json` || path === `${DOCS_PATH}/yaml`) {
          return reply.redirect(OPENAPI_PATH, 302);
        }
      },
    },
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
