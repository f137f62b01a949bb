import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SearchQuerySchema, type SearchParams } from '../../src/contract/api-schemas.ts';
import { FILTERS } from '../../src/contract/filters.ts';
import {
  buildCountQuery,
  buildPageQuery,
  buildWhere,
  type QueryContext,
} from '../../src/engine/query-builder.ts';
import { tables } from '../../src/engine/tables.ts';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';

const ctx = (country: 'EE' | 'SE' = 'EE'): QueryContext => ({
  tables: tables(country),
  dictionaries: {
    staatus: new Map([
      ['R', 1],
      ['L', 2],
    ]),
    oiguslik_vorm: new Map([['OÜ', 7]]),
    ehak_kood: new Map([['0784', 3]]),
    ehak_nimetus: new Map(),
  },
});

const parse = (q: Record<string, unknown>): SearchParams => SearchQuerySchema.parse(q);

describe('query builder', () => {
  it('returns active companies only unless status is sent', () => {
    expect(buildWhere(parse({ country: 'EE' }), ctx()).sql).toBe('f_active');
    expect(buildWhere(parse({ country: 'EE', status: ['L'] }), ctx())).toEqual({
      sql: '"d_staatus" IN (?)',
      params: [2],
    });
    expect(buildWhere(parse({ country: 'EE', status: ['__all__'] }), ctx()).sql).toBe('true');
  });

  it('turns a dictionary value the snapshot lacks into no match instead of an error', () => {
    expect(buildWhere(parse({ country: 'EE', legal_form: ['XX'] }), ctx()).sql).toBe('f_active AND false');
  });

  it('binds every value and never splices one into the SQL text', () => {
    const evil = "x'); DROP TABLE co_ee; --";
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (s) => {
        const params = parse({ country: 'EE', company_name: [s, evil], person_name: s, industry_codes: [s] });
        const q = buildPageQuery(params, ctx());
        expect(q.sql).not.toContain(evil);
        expect(q.sql.split('?').length - 1).toBe(q.params.length);
        expect(q.params).toContain(evil);
      }),
      { numRuns: 50 },
    );
  });

  it('orders by the integer order column, nulls last, and pages with bound LIMIT/OFFSET', () => {
    const q = buildPageQuery(
      parse({ country: 'EE', sort_by: 'share_capital', sort_dir: 'desc', page: '3', page_size: '20' }),
      ctx(),
    );
    expect(q.sql).toContain('ORDER BY "o_kapital" DESC NULLS LAST, rid DESC LIMIT ? OFFSET ?');
    expect(q.params.slice(-2)).toEqual([20, 40]);
    expect(buildPageQuery(parse({ country: 'EE', sort_by: 'registration_code' }), ctx()).sql).toContain(
      'ORDER BY rid ASC',
    );
  });

  it('counts with the same WHERE as the page', () => {
    const params = parse({ country: 'SE', employees_band: ['0', '2'], se_workplace_kommun: ['0180'] });
    const count = buildCountQuery(params, ctx('SE'));
    const page = buildPageQuery(params, ctx('SE'));
    const where = buildWhere(params, ctx('SE'));
    expect(count.sql.endsWith(`WHERE ${where.sql}`)).toBe(true);
    expect(page.sql).toContain(`WHERE ${where.sql} ORDER BY`);
    expect(count.params).toEqual(where.params);
  });
});

describe('search parameters', () => {
  const issues = (q: Record<string, unknown>) =>
    SearchQuerySchema.safeParse(q).error?.issues.map((i) => ({ path: i.path.join('.'), code: i.code })) ?? [];

  it('folds the deprecated alias into the same filter as the English name', () => {
    expect(parse({ country: 'EE', arinimi: ['abc'] }).filters).toEqual(
      parse({ country: 'EE', company_name: ['abc'] }).filters,
    );
    expect(
      parse({ country: 'EE', kapital_min: '5', share_capital_max: '9' }).filters['share_capital'],
    ).toEqual({
      kind: 'range',
      min: 5,
      max: 9,
    });
  });

  it('rejects both spellings of one parameter', () => {
    expect(issues({ country: 'EE', company_name: ['a'], arinimi: ['b'] })).toEqual([
      { path: 'arinimi', code: 'custom' },
    ]);
  });

  it('rejects, per filter, a country whose /filters does not list it', () => {
    for (const f of FILTERS) {
      const param = f.kind === 'single' ? f.param : f.params[0];
      const value =
        f.valueType === 'boolean'
          ? 'true'
          : f.valueType === 'date'
            ? '2020-01-01'
            : f.valueType === 'string' && f.id !== 'postcode'
              ? 'x'
              : '1';
      for (const country of COUNTRY_CODES) {
        const q = { country, [param]: f.kind === 'single' && f.multi ? [value] : value };
        const expected = f.countries.includes(country) ? [] : [{ path: param, code: 'custom' }];
        expect(issues(q), `${param} for ${country}`).toEqual(expected);
      }
    }
  });

  it('bounds page and page_size and the SE employee band', () => {
    expect(issues({ country: 'EE', page: '0' })).toEqual([{ path: 'page', code: 'too_small' }]);
    expect(issues({ country: 'EE', page_size: '501' })).toEqual([{ path: 'page_size', code: 'too_big' }]);
    expect(issues({ country: 'EE', page_size: '0' })).toEqual([{ path: 'page_size', code: 'too_small' }]);
    expect(issues({ country: 'SE', employees_band: ['17'] })).toEqual([
      { path: 'employees_band.0', code: 'too_big' },
    ]);
    expect(issues({ country: 'EE', has_email: 'yes' })).toEqual([
      { path: 'has_email', code: 'invalid_value' },
    ]);
    expect(issues({ country: 'EE', registered_from: '2020-13-01' })).toEqual([
      { path: 'registered_from', code: 'invalid_format' },
    ]);
  });

  it('rejects unknown parameters and countries', () => {
    expect(issues({ country: 'EE', compnay_name: ['x'] })).toEqual([{ path: '', code: 'unrecognized_keys' }]);
    expect(issues({ country: 'DE' })).toEqual([{ path: 'country', code: 'invalid_value' }]);
  });
});
