import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CountQuerySchema, SearchQuerySchema, type TreeNode } from '../../src/contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { countDims, countLookup, countSets } from '../../src/engine/precomputed-counts.ts';
import { countCompanies, searchCompanies } from '../../src/services/companies.ts';
import { Oracle } from '../helpers/oracle.ts';

/**
 * Precomputed counts (issue 17, lever 4) stay exact: every count the `counts` table answers equals an
 * independent DuckDB query over the Parquet files, written here from the data contract (not from the
 * serving columns), and the number of rows of the search with the same filters, paged to the end.
 */

type Raw = Record<string, unknown>;

/** The oracle predicate of each dimension's parameter value, over companies.parquet columns. */
const ORACLE: Record<string, (v: unknown) => { sql: string; params: (string | number | boolean)[] }> = {
  legal_form: (v) => inList('oiguslik_vorm', v as string[]),
  ehak_kood: (v) => inList('ehak_kood', v as string[]),
  lt_locations: (v) => inList('ehak_nimetus', v as string[]),
  employees_band: (v) => inList('coalesce(se_employees_band, 0)', v as number[]),
  turnover_band: (v) => inList('se_turnover_band', v as number[]),
  vat_active: (v) => ({ sql: 'vat_active = ?', params: [v === 'true'] }),
  has_email: (v) => hasContact(`x.liik = 'EMAIL'`, v),
  has_website: (v) => hasContact(`x.liik = 'WWW'`, v),
  has_phone: (v) => hasContact(`x.liik IN ('TEL', 'MOB')`, v),
  has_contact: (v) => ({ sql: '(len(contacts) > 0) = ?', params: [v === 'true'] }),
  has_domain: (v) => ({ sql: '(len(registered_domains) > 0) = ?', params: [v === 'true'] }),
  has_tax_debt: (v) => ({ sql: 'has_tax_debt = ?', params: [v === 'true'] }),
  annual_report_filed: (v) => ({ sql: 'annual_report_filed = ?', params: [v === 'true'] }),
  annual_report_audited: (v) => ({ sql: 'annual_report_audited = ?', params: [v === 'true'] }),
  exclude_marketing_optout: (v) => ({
    sql: v === 'true' ? 'marketing_optout IS NOT TRUE' : 'true',
    params: [],
  }),
  exclude_phone_optout: (v) => ({ sql: v === 'true' ? 'phone_optout IS NOT TRUE' : 'true', params: [] }),
};

function inList(column: string, values: (string | number)[]) {
  return { sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: values };
}
function hasContact(match: string, v: unknown) {
  return { sql: `(len(list_filter(contacts, x -> ${match})) > 0) = ?`, params: [v === 'true'] };
}

/** Values a client could send for each dimension, drawn from the snapshot (plus some it lacks). */
interface Domain {
  values: Record<string, fc.Arbitrary<Raw>>;
  statuses: string[];
}

let engine: Engine;
let oracle: Oracle;
const domains = {} as Record<CountryCode, Domain>;

async function distinct(country: CountryCode, expr: string): Promise<string[]> {
  const rows = await oracle.rows(
    `SELECT DISTINCT (${expr})::VARCHAR AS v FROM ${oracle.file(country, 'companies')}
     WHERE NOT not_for_sale AND ${expr} IS NOT NULL ORDER BY 1`,
  );
  return rows.map((r) => String(r['v']));
}

const treeValues = (tree: TreeNode[], pick: (n: TreeNode) => string[] | undefined): string[][] => {
  const out: string[][] = [];
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      const v = pick(n);
      if (v?.length) out.push(v);
      walk(n.children);
    }
  };
  walk(tree);
  return out;
};

beforeAll(async () => {
  const dataDir = inject('testDataDir');
  engine = await Engine.open(new SnapshotStore(dataDir), { connections: 2 });
  oracle = await Oracle.open(dataDir);
  for (const country of COUNTRY_CODES) {
    const bool = fc.constantFrom('true', 'false');
    const forms = await distinct(country, 'oiguslik_vorm');
    const dates = await distinct(country, 'esmaregistreerimise_kpv');
    const tree = oracle.json<{ tree: TreeNode[] | null }>(country, 'locations').tree ?? [];
    const values: Record<string, fc.Arbitrary<Raw>> = {};
    for (const dim of countDims(country)) {
      const id = dim.filter;
      if (id === 'legal_form') {
        values[id] = fc
          .subarray([...forms, 'NO-SUCH-FORM'], { minLength: 1, maxLength: 3 })
          .map((v) => ({ legal_form: v }));
      } else if (id === 'ehak_kood' || id === 'lt_locations') {
        const nodes = treeValues(tree, (n) => (id === 'lt_locations' ? n.locations : n.codes));
        values[id] = fc.constantFrom(...nodes).map((v) => ({ [id]: v }));
      } else if (id === 'registered') {
        const date = fc.constantFrom(...dates, '1900-01-01', '2100-12-31');
        values[id] = fc
          .tuple(fc.option(date, { nil: undefined }), fc.option(date, { nil: undefined }))
          .filter(([a, b]) => a !== undefined || b !== undefined)
          .map(([a, b]) => ({
            ...(a !== undefined && { registered_from: a }),
            ...(b !== undefined && { registered_to: b }),
          }));
      } else if (id === 'employees_band') {
        values[id] = fc
          .uniqueArray(fc.integer({ min: 0, max: 16 }), { minLength: 1, maxLength: 4 })
          .map((v) => ({ employees_band: v.map(String) }));
      } else if (id === 'turnover_band') {
        const bands = (await distinct(country, 'se_turnover_band')).map(Number);
        values[id] = fc
          .subarray([...bands, 99], { minLength: 1, maxLength: 3 })
          .map((v) => ({ turnover_band: v.map(String) }));
      } else {
        values[id] = bool.map((v) => ({ [id]: v }));
      }
    }
    domains[country] = { values, statuses: await distinct(country, 'staatus') };
  }
}, 120_000);
afterAll(() => {
  engine.close();
  oracle.close();
});

/** A request of at most two precomputed dimensions, with or without `status`. */
const requestArb = fc.constantFrom(...COUNTRY_CODES).chain((country) => {
  const sets = countSets(country).filter((s) => s.length > 0);
  const d = domains[country];
  return fc
    .record({
      country: fc.constant(country),
      set: fc.constantFrom(...sets).map((s) => s.map((x) => x.filter)),
      status: fc.option(
        fc.oneof(fc.constant(['__all__']), fc.subarray([...d.statuses, 'X'], { minLength: 1, maxLength: 3 })),
        { nil: undefined },
      ),
    })
    .chain(({ country, set, status }) =>
      fc.tuple(...set.map((id) => d.values[id]!)).map((parts) => ({
        country,
        set,
        raw: { country, ...Object.assign({}, ...parts), ...(status && { status }) } as Raw,
      })),
    );
});

async function oracleCount(country: CountryCode, raw: Raw): Promise<number> {
  const where: string[] = [];
  const params: (string | number | boolean)[] = [];
  const status = raw['status'] as string[] | undefined;
  if (status === undefined) where.push(`staatus = 'R'`);
  else if (!status.includes('__all__')) {
    const p = inList('staatus', status);
    where.push(p.sql);
    params.push(...p.params);
  }
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'registered_from') {
      where.push('esmaregistreerimise_kpv >= ?::DATE');
      params.push(v as string);
    } else if (k === 'registered_to') {
      where.push('esmaregistreerimise_kpv <= ?::DATE');
      params.push(v as string);
    } else if (ORACLE[k]) {
      const p = ORACLE[k](k === 'employees_band' || k === 'turnover_band' ? (v as string[]).map(Number) : v);
      where.push(p.sql);
      params.push(...p.params);
    }
  }
  return (await oracle.matching(country, where.join(' AND ') || 'true', params, 0)).count;
}

describe('precomputed counts', () => {
  it('answer every one- and two-filter count of their dimensions exactly as the Parquet files do', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ country, raw }) => {
        const params = CountQuerySchema.parse(raw);
        const lookup = countLookup(params, engine.snapshot!.context(country).dictionaries);
        // The table answers the request (0 when a value the snapshot lacks makes it empty).
        expect(lookup).not.toBeNull();
        const answered = engine.snapshot!.precomputedCount(params);
        const { count } = await countCompanies(engine, params);
        expect({ raw, count }).toEqual({ raw, count: await oracleCount(country, raw) });
        expect(answered).toBe(count);
      }),
      { numRuns: 300, seed: 17 },
    );
  }, 240_000);

  it("equal the number of rows of the same search paged to its end, and the search's total", async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ raw }) => {
        const { count } = await countCompanies(engine, CountQuerySchema.parse(raw));
        const seen = new Set<string>();
        let total = -1;
        for (let page = 1; ; page++) {
          const data = await searchCompanies(
            engine,
            SearchQuerySchema.parse({ ...raw, page_size: 500, page }),
          );
          total = data.total;
          for (const item of data.items) seen.add(item.registrikood);
          if (data.items.length < 500) break;
        }
        expect({ raw, rows: seen.size, total }).toEqual({ raw, rows: count, total: count });
      }),
      { numRuns: 40, seed: 23 },
    );
  }, 240_000);

  it('leave everything else to DuckDB: a third dimension, a range other than the date, the date in a pair', () => {
    const dictionaries = engine.snapshot!.context('EE').dictionaries;
    const parse = (raw: Raw) => CountQuerySchema.parse({ country: 'EE', ...raw });
    expect(
      countLookup(parse({ has_email: 'true', has_phone: 'true', vat_active: 'true' }), dictionaries),
    ).toBeNull();
    expect(countLookup(parse({ annual_revenue_min: '1000' }), dictionaries)).toBeNull();
    expect(countLookup(parse({ company_name: ['ehitus'] }), dictionaries)).toBeNull();
    expect(countLookup(parse({ registered_from: '2020-01-01', has_email: 'true' }), dictionaries)).toBeNull();
    expect(countLookup(parse({ has_email: 'true' }), dictionaries)).toMatchObject({ set: 'has_email' });
  });
});
