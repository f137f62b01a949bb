import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../errors/app-error.ts';
import { OPENAPI_EXAMPLES } from './openapi-examples.ts';

/**
 * The OpenAPI 3.1 document (version 1.1.0, spec 9) is generated from the routes' zod schemas; nothing here
 * restates a schema. Two touches the generator cannot infer: a query boolean (`true`/`false` text parsed by
 * zod's stringbool) is documented as `type: boolean`, which is how OpenAPI describes a boolean query
 * parameter, and a deprecated alias is flagged on the parameter itself, not only inside its schema. For
 * client generators (issue 30) the document also declares what no route schema carries: the response
 * headers, the Idempotency-Key header parameter, array serialization and examples (polishDocument).
 */

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';
export const API_VERSION = '1.2.0';

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
  headers?: Record<string, unknown>;
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
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  example?: unknown;
}
type JsonSchema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  deprecated?: boolean;
  description?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
};
type OpenApiDocument = Record<string, unknown> & {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema>; headers?: Record<string, unknown> };
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

const DATA_PREFIX = '/api/v1/data/';
/** The header's name as documented (HTTP names are case-insensitive; fastify writes them in lower case). */
const DATA_AS_OF_HEADER_NAME = 'Data-As-Of';
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The response headers the server sends (src/http/guard.ts, src/http/export-sink.ts, src/http/error-handler.ts,
 * rateLimitHeaders of src/wallet/rate-limiter.ts), declared once and referenced where they are sent.
 * RateLimit follows draft-ietf-httpapi-ratelimit-headers: one structured `RateLimit` and `RateLimit-Policy`,
 * not the older RateLimit-Limit/-Remaining/-Reset triple; an admin key is not rate-limited and gets neither.
 */
const RESPONSE_HEADERS = {
  DataAsOf: {
    description:
      "The day the live snapshot's data for the answer's country was published (ISO date); on every answer " +
      'about one country',
    schema: { type: 'string', format: 'date', examples: ['2026-11-02'] },
  },
  RateLimit: {
    description:
      'Rate-limit state of the key (draft-ietf-httpapi-ratelimit-headers): `r` requests left in the burst, ' +
      '`t` seconds until it is full again. Absent for keys that are not rate-limited (admin).',
    schema: { type: 'string', examples: ['"per-key";r=59;t=1'] },
  },
  RateLimitPolicy: {
    description:
      'The rate-limit policy of the key: a burst of `q` requests refilled over `w` seconds. Absent for keys ' +
      'that are not rate-limited (admin).',
    schema: { type: 'string', examples: ['"per-key";q=60;w=6'] },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 0, examples: [OVERLOADED_RETRY_AFTER_SECONDS] },
  },
} as const;

const IDEMPOTENCY_KEY: OpenApiParameter = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns ' +
    'the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 ' +
    'printable ASCII characters, e.g. a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  example: 'c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11',
};

/** Declares the response headers of one operation, and the Idempotency-Key a metered one accepts. */
function declareHeaders(path: string, op: OpenApiOperation): void {
  const responses = op.responses ?? {};
  if (path.startsWith(DATA_PREFIX)) {
    const ok = responses['200'];
    if (ok) {
      ok.headers = {
        ...(path !== `${DATA_PREFIX}countries` && { [DATA_AS_OF_HEADER_NAME]: ref('DataAsOf') }),
        RateLimit: ref('RateLimit'),
        'RateLimit-Policy': ref('RateLimitPolicy'),
      };
    }
    const limited = responses['429'];
    if (limited) {
      limited.headers = {
        'Retry-After': ref('RetryAfter'),
        RateLimit: ref('RateLimit'),
        'RateLimit-Policy': ref('RateLimitPolicy'),
      };
    }
    // The operations that query the engine (export, /changes) can be turned away while it is full.
    const busy = responses['503'];
    if (busy) busy.headers = { 'Retry-After': ref('RetryAfter') };
    if (responses['402']) op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY];
  }
}

/**
 * What a generator needs of a parameter the zod schema cannot say: a description (a `$ref`'d schema's own,
 * e.g. `country`), how an array is serialized (repeat the parameter: `?status=R&status=L`), and an example.
 */
function describeParameter(p: OpenApiParameter, schemas: Record<string, JsonSchema>): void {
  const target = p.schema?.$ref ? schemas[p.schema.$ref.replace('#/components/schemas/', '')] : p.schema;
  p.description ??= target?.description;
  if (p.schema?.type === 'array') {
    p.style = 'form';
    p.explode = true;
  }
  const example = exampleFor(p.name, p.schema?.type === 'array' ? p.schema.items : target);
  if (example !== undefined && p.example === undefined) {
    p.example = p.schema?.type === 'array' ? [example] : example;
  }
}

function exampleFor(name: string, schema: JsonSchema | undefined): unknown {
  if (schema?.enum) {
    const wanted = OPENAPI_EXAMPLES[name];
    return schema.enum.includes(wanted) ? wanted : schema.enum[0];
  }
  return OPENAPI_EXAMPLES[name];
}

const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);

function isScalar(schema: JsonSchema): boolean {
  if (schema.enum) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.some((t) => t !== undefined && SCALARS.has(t));
}

/** Gives every scalar property an example from OPENAPI_EXAMPLES (nested objects, arrays and unions too). */
function addPropertyExamples(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) addPropertyExamples(v);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const schema = value as JsonSchema;
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (isScalar(prop) && prop['examples'] === undefined && prop['example'] === undefined) {
      const example = exampleFor(name, prop);
      if (example !== undefined) prop['examples'] = [example];
    }
  }
  for (const v of Object.values(schema)) addPropertyExamples(v);
}

/**
 * Flags deprecated parameters, describes any response a route left undescribed (the generator writes
 * "Default Response"), and drops the components the generator emits for both directions of every
 * registered schema when only one direction is used (e.g. `CompanyRowInput`), so the linter sees no dead parts.
 */
function polishDocument(doc: OpenApiDocument): OpenApiDocument {
  const components = (doc.components ??= {});
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) {
        if (p.schema?.deprecated) p.deprecated = true;
        describeParameter(p, components.schemas ?? {});
      }
      declareHeaders(path, op);
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
  components.headers = { ...RESPONSE_HEADERS };
  addPropertyExamples(doc.paths);
  addPropertyExamples(components.schemas);
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
