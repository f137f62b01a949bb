import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { validationError, type ValidationIssue } from '../errors/app-error.ts';

/**
 * Query strings carry arrays as repeated parameters (spec 4.3), and the parser yields a plain string when a
 * repeatable parameter is sent once. This hook runs before zod validation and does only what a query string
 * cannot express: it wraps a single value of an array parameter into an array, and rejects empty values
 * (`?annual_revenue_min=`), which number coercion would otherwise read as 0. Validation then reads a copy
 * of the query without a prototype (see below).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Query parameters whose zod type is an array; set by routes with repeatable parameters. */
    queryArrays?: ReadonlySet<string>;
  }
}

/** Names of the array-typed fields of a zod object (optional/default wrappers unwrapped). */
export function arrayParams(schema: z.ZodObject): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [name, field] of Object.entries(schema.shape)) {
    let t: z.core.$ZodType = field as z.core.$ZodType;
    for (;;) {
      const def = t._zod.def as { type: string; innerType?: z.core.$ZodType };
      if ((def.type === 'optional' || def.type === 'default') && def.innerType) t = def.innerType;
      else break;
    }
    if (t._zod.def.type === 'array') out.add(name);
  }
  return out;
}

export function installQueryNormalisation(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') {
      done();
      return;
    }
    const arrays = request.routeOptions.config.queryArrays;
    const issues: ValidationIssue[] = [];
    // zod reads every key of a route's schema from this object (~60 for search). Fastify's query objects
    // are fast-mode objects whose shape differs with each set of parameters, so those reads miss V8's
    // inline caches; a prototype-less object from Object.create(null) is a dictionary, one shape for all,
    // and halved the parse of a search (issue 27 item 4, docs/data-contract.md). Same keys, same order.
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => v === '')) {
        issues.push({ loc: ['query', name], param: name, msg: 'empty value', type: 'empty_value' });
        continue;
      }
      copy[name] = arrays?.has(name) && !Array.isArray(value) ? [value] : value;
    }
    if (issues.length) {
      done(validationError(issues));
      return;
    }
    request.query = copy;
    done();
  });
}
