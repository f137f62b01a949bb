import fc from 'fast-check';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CountJsonObject,
  CountQueryObject,
  CountQuerySchema,
  FILTER_PARAMS,
  filterIssues,
  refineJsonFilters,
  SORT_FIELDS,
  SearchQueryObject,
  SearchQuerySchema,
  toCountParams,
  toFilterValues,
  type CountParams,
  type FilterInput,
  type FilterValues,
  type SearchParams,
  type SortBy,
} from '../../src/contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { sparseObjectParser } from '../../src/contract/sparse-object.ts';
import type { ValidationIssue } from '../../src/errors/app-error.ts';
import { toValidationIssues } from '../../src/http/error-handler.ts';

/*
 * The search and count query schemas are on every request's path, so they were made cheaper to run (issue
 * 27, overhead). Their behaviour must not change: the same inputs accepted, the same parameters out, the
 * same 422 bodies in the same order. The oracle is the composition as it was before, kept here: the same
 * documented zod objects, refined and transformed by loops over every declared filter parameter.
 */

type RawQuery = Record<string, unknown> & { country: CountryCode };
type Wire = 'query' | 'json';

function referenceIssues(raw: RawQuery, wire: Wire): ValidationIssue[] {
  const listing = (country: string) =>
    wire === 'query' ? `see /filters?country=${country}` : `see list_filters for ${country}`;
  const issues: ValidationIssue[] = [];
  for (const p of FILTER_PARAMS) {
    const sentEnglish = raw[p.english] !== undefined;
    const sentAlias = p.alias !== undefined && raw[p.alias] !== undefined;
    if (sentEnglish && sentAlias) {
      issues.push({
        loc: ['query', p.alias as string],
        param: p.alias as string,
        msg: `both \`${p.english}\` and its deprecated alias \`${p.alias}\` were sent; send one`,
        type: 'duplicate_parameter',
      });
    }
    if ((sentEnglish || sentAlias) && !p.filter.countries.includes(raw.country)) {
      const param = sentEnglish ? p.english : (p.alias as string);
      issues.push({
        loc: ['query', param],
        param,
        msg: `filter \`${param}\` is not available for country ${raw.country} (${listing(raw.country)})`,
        type: 'filter_not_available',
      });
    }
    const check = p.filter.kind === 'single' ? p.filter.checkValue : undefined;
    if (check && (sentEnglish || sentAlias) && p.filter.countries.includes(raw.country)) {
      const param = sentEnglish ? p.english : (p.alias as string);
      const sent = raw[param];
      for (const value of Array.isArray(sent) ? sent : [sent]) {
        const msg = check(String(value), raw.country);
        if (msg) issues.push({ loc: ['query', param], param, msg, type: 'invalid_value' });
      }
    }
  }
  return issues;
}

function referenceFilterValues(raw: RawQuery): FilterValues {
  const out: Record<string, FilterInput> = {};
  for (const p of FILTER_PARAMS) {
    const v = raw[p.english] ?? (p.alias !== undefined ? raw[p.alias] : undefined);
    if (v === undefined) continue;
    const f = p.filter;
    if (f.kind === 'range') {
      const prev = out[f.id];
      const range = prev?.kind === 'range' ? prev : { kind: 'range' as const };
      out[f.id] =
        p.slot === 0 ? { ...range, min: v as number | string } : { ...range, max: v as number | string };
    } else if (Array.isArray(v)) {
      const norm = f.normalize;
      const values = v as (string | number)[];
      out[f.id] = {
        kind: 'list',
        values: norm ? values.map((x) => norm(String(x), raw.country)) : values,
      };
    } else {
      out[f.id] = { kind: 'scalar', value: v as string | number | boolean };
    }
  }
  return out;
}

const referenceRefine = (wire: Wire) => (raw: RawQuery, ctx: z.RefinementCtx) => {
  for (const issue of referenceIssues(raw, wire)) {
    ctx.addIssue({ code: 'custom', message: issue.msg, path: [issue.param], params: { type: issue.type } });
  }
};
const referenceCountParams = (raw: RawQuery): CountParams => ({
  country: raw.country,
  filters: referenceFilterValues(raw),
  ...(typeof raw['updated_since'] === 'string' && { updated_since: raw['updated_since'] }),
});
const referenceSearchParams = (raw: RawQuery): SearchParams => ({
  ...referenceCountParams(raw),
  page: raw['page'] as number,
  page_size: raw['page_size'] as number,
  sort_by: raw['sort_by'] as SortBy,
  sort_dir: raw['sort_dir'] as 'asc' | 'desc',
});

const REFERENCE = {
  search: SearchQueryObject.superRefine(referenceRefine('query')).transform(referenceSearchParams),
  count: CountQueryObject.superRefine(referenceRefine('query')).transform(referenceCountParams),
  json: CountJsonObject.superRefine(referenceRefine('json')).transform(referenceCountParams),
};
const CURRENT = {
  search: SearchQuerySchema,
  count: CountQuerySchema,
  // As the MCP count tool composes it (src/mcp/tools/count-companies.ts).
  json: CountJsonObject.superRefine(refineJsonFilters).transform(toCountParams),
};

// ---------------------------------------------------------------------------------------------------------
// Raw inputs, valid and not: every declared parameter (both spellings), unknown ones, paging, bad values.

const KEYS = [
  ...Object.keys(SearchQueryObject.shape).filter((k) => k !== 'country'),
  'foo',
  'Company_name',
  'toString',
  'constructor',
  '__proto__',
];
/** Values that pass or fail the parameter types: numbers, booleans, dates, codes, postcodes, sort keys. */
const STRINGS = [
  ...['0', '1', '16', '17', '-5', '2.5', '1e3', '0x10', 'NaN', 'Infinity', ' ', ''],
  ...['true', 'false', 'TRUE', '2024-02-29', '2023-02-29', '2024-1-1', '62.01', 'A', 'R', '__all__'],
  ...['OÜ', 'SIA', '10115', 'LV-1010', '61-626', '291 80', '101 1x', 'asc', 'desc', 'company_name'],
  ...['registrikood', 'share_capital', 'EE', 'x'.repeat(201)],
];
const text = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...STRINGS) }, fc.string({ maxLength: 12 }));
const queryValue = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 2, arbitrary: fc.array(text, { maxLength: 4 }) },
);
const jsonScalar = fc.oneof(
  { weight: 3, arbitrary: text },
  fc.integer({ min: -3, max: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.boolean(),
  fc.constant(null),
);
const jsonValue = fc.oneof(
  { weight: 3, arbitrary: jsonScalar },
  { weight: 2, arbitrary: fc.array(jsonScalar, { maxLength: 4 }) },
);
const country = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...COUNTRY_CODES) },
  fc.constantFrom('XX', 'ee', ''),
  fc.constant(undefined),
);
const keys = fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 7 });

/** As fastify's query-string parser builds it: an object without a prototype. */
function rawObject(c: unknown, entries: [string, unknown][]): Record<string, unknown> {
  const raw = Object.create(null) as Record<string, unknown>;
  if (c !== undefined) raw['country'] = c;
  for (const [k, v] of entries) raw[k] = v;
  return raw;
}
const entriesOf = (value: fc.Arbitrary<unknown>) =>
  keys.chain((ks) => fc.tuple(...ks.map((k) => fc.tuple(fc.constant(k), value))));
const queryInput = fc
  .tuple(country, entriesOf(queryValue))
  .map(([c, entries]) => rawObject(c, entries as [string, unknown][]));
const jsonInput = fc
  .tuple(country, entriesOf(jsonValue))
  .map(([c, entries]) => rawObject(c, entries as [string, unknown][]));

const PAGING: [string, fc.Arbitrary<string>][] = [
  ['page', fc.integer({ min: 1, max: 99 }).map(String)],
  ['page_size', fc.integer({ min: 1, max: 500 }).map(String)],
  ['sort_by', fc.constantFrom(...Object.keys(SORT_FIELDS))],
  ['sort_dir', fc.constantFrom('asc', 'desc')],
];
/** Mostly valid queries: filters the country has, values of their type, paging; coercions and defaults run. */
const typedValue = (p: (typeof FILTER_PARAMS)[number]): fc.Arbitrary<string> => {
  switch (p.filter.valueType) {
    case 'string':
      return fc.constantFrom('ab', 'OÜ', '62.01', '10115', 'LV-10', 'x y', '0123');
    case 'number':
      return fc
        .oneof(fc.integer({ min: -1e6, max: 1e9 }), fc.double({ min: -100, max: 100, noNaN: true }))
        .map(String);
    case 'integer':
      return fc.nat(20).map(String);
    case 'boolean':
      return fc.constantFrom('true', 'false');
    case 'date':
      return fc.constantFrom('2020-01-31', '2024-02-29', '1999-12-01');
  }
};
const validQueryInput = (paged: boolean) =>
  fc.constantFrom(...COUNTRY_CODES).chain((c) => {
    const params = FILTER_PARAMS.filter((p) => p.filter.countries.includes(c));
    const entry = fc.constantFrom(...params).chain((p) => {
      const multi = p.filter.kind === 'single' && p.filter.multi;
      const value = multi ? fc.array(typedValue(p), { minLength: 1, maxLength: 3 }) : typedValue(p);
      return fc.tuple(fc.constantFrom(p.english, p.alias ?? p.english), value);
    });
    const paging = fc.constantFrom<[string, fc.Arbitrary<string>]>(...(paged ? PAGING : []), [
      'updated_since',
      fc.constantFrom('2026-01-01', '2026-02-30'),
    ]);
    const pagingEntry = paging.chain(([k, v]) => fc.tuple(fc.constant(k), v));
    return fc
      .tuple(fc.array(entry, { maxLength: 5 }), fc.array(pagingEntry, { maxLength: 3 }))
      .map(([filters, rest]) => rawObject(c, [...filters, ...rest]));
  });

// ---------------------------------------------------------------------------------------------------------

/** Issues as zod reports them, and the 422 body the error handler makes of them (through fastify's adapter). */
function outcome(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  const validate = validatorCompiler({ schema, method: 'GET', url: '/companies' });
  const validation = validate(input) as { error?: unknown[]; value?: unknown };
  return {
    success: result.success,
    data: result.success ? result.data : undefined,
    // Key order is part of what a client sees (the filters object, the body's fields).
    json: result.success ? JSON.stringify(result.data) : undefined,
    issues: result.success ? [] : result.error.issues,
    body: validation.error
      ? toValidationIssues(validation.error as Parameters<typeof toValidationIssues>[0], 'querystring')
      : [],
  };
}

const RUNS = 1500;

describe('search and count query schemas (issue 27, overhead)', () => {
  for (const name of ['search', 'count'] as const) {
    it(`${name}: parses every raw query string as the previous composition did`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(queryInput, validQueryInput(name === 'search')), (input) => {
          const got = outcome(CURRENT[name], input);
          expect(got).toStrictEqual(outcome(REFERENCE[name], input));
          if (got.success) accepted++;
        }),
        { numRuns: RUNS },
      );
      // The draw must reach both outcomes, or the comparison proves little.
      expect(accepted).toBeGreaterThan(RUNS / 5);
      expect(accepted).toBeLessThan(RUNS - RUNS / 5);
    });
  }

  it('count, JSON arguments (MCP): parses every argument object as the previous composition did', () => {
    let accepted = 0;
    fc.assert(
      fc.property(jsonInput, (input) => {
        const got = outcome(CURRENT.json, input);
        expect(got).toStrictEqual(outcome(REFERENCE.json, input));
        if (got.success) accepted++;
      }),
      { numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 20);
  });

  for (const [name, object] of [
    ['search', SearchQueryObject],
    ['count', CountQueryObject],
  ] as const) {
    it(`${name}: the fast path answers every object the runtime accepts, and only those`, () => {
      // A valid query the fast path handed to the runtime would still be answered right, only slower:
      // this is what keeps it fast.
      const fast = sparseObjectParser(object);
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(queryInput, validQueryInput(name === 'search')), (input) => {
          const runtime = object.safeParse(input);
          const got = fast(input);
          if (!runtime.success) {
            expect(got).toBe(z.INVALID);
            return;
          }
          accepted++;
          expect(got).not.toBe(z.INVALID);
          // The same keys in the same order (a key sent as undefined included), the same values.
          expect(Object.entries(got as object)).toStrictEqual(Object.entries(runtime.data));
        }),
        { numRuns: RUNS },
      );
      expect(accepted).toBeGreaterThan(RUNS / 5);
    });
  }

  it('reports issues and folds filters in declaration order whatever order the keys arrive in', () => {
    // zod's output keeps the shape's order; the rules must not depend on it (export and MCP objects extend it).
    const shuffled = fc
      .tuple(fc.constantFrom(...COUNTRY_CODES), entriesOf(jsonValue), fc.boolean())
      .map(([c, entries, reverse]) => {
        const list = entries as [string, unknown][];
        return rawObject(c, reverse ? list.reverse() : list) as RawQuery;
      });
    fc.assert(
      fc.property(shuffled, fc.constantFrom<Wire>('query', 'json'), (raw, wire) => {
        expect(filterIssues(raw, wire)).toStrictEqual(referenceIssues(raw, wire));
        const filters = toFilterValues(raw);
        expect(filters).toStrictEqual(referenceFilterValues(raw));
        expect(JSON.stringify(filters)).toBe(JSON.stringify(referenceFilterValues(raw)));
      }),
      { numRuns: RUNS },
    );
    // Both spellings of two filters, sent in reverse declaration order; LT has neither capital nor postcode.
    const raw = rawObject('LT', [
      ['kapital_min', 5],
      ['share_capital_min', 1],
      ['postcode', ['12']],
      ['staatus', ['R']],
      ['status', ['R']],
    ]) as RawQuery;
    expect(filterIssues(raw).map((i) => [i.param, i.type])).toStrictEqual([
      ['staatus', 'duplicate_parameter'],
      ['kapital_min', 'duplicate_parameter'],
      ['share_capital_min', 'filter_not_available'],
      ['postcode', 'filter_not_available'],
    ]);
  });
});
