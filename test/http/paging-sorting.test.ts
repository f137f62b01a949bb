import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SORT_FIELDS } from '../../src/contract/api-schemas.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { Oracle } from '../helpers/oracle.ts';

/** Spec 4.3 paging and sorting: bounds, totals, a stable total order across pages, both directions. */

let t: TestApp;
let oracle: Oracle;
beforeAll(async () => {
  t = await buildTestApp(inject('testDataDir'));
  oracle = await Oracle.open(inject('testDataDir'));
});
afterAll(async () => {
  await t?.close();
  oracle?.close();
});

type Item = { registrikood: string };
async function page(query: string): Promise<{
  items: Item[];
  total: number;
  page: number;
  page_size: number;
  sort_by: string;
  sort_dir: string;
}> {
  const res = await t.get(`/api/v1/data/companies?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The column each sort key orders by in companies.parquet (kapital orders by its numeric amount). */
const ORACLE_COLUMN: Record<string, string> = {
  registrikood: 'registrikood',
  arinimi: 'arinimi',
  esmaregistreerimise_kpv: 'esmaregistreerimise_kpv',
  kapital: 'kapital_amount',
  annual_revenue: 'annual_revenue',
  last_quarter_turnover: 'last_quarter_turnover',
  last_quarter_employees_number: 'last_quarter_employees_number',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
};

describe('paging', () => {
  it('defaults to page 1 of 50 sorted by registrikood ascending', async () => {
    const data = await page('country=EE');
    expect(data).toMatchObject({ page: 1, page_size: 50, sort_by: 'registrikood', sort_dir: 'asc' });
    expect(data.items).toHaveLength(Math.min(50, data.total));
  });

  it('accepts page_size 1 and 500 and reports the total of all matches', async () => {
    const expected = await oracle.matching('PL', `staatus = 'R'`);
    const one = await page('country=PL&page_size=1');
    expect(one.items).toHaveLength(1);
    expect(one.total).toBe(expected.count);
    const big = await page('country=PL&page_size=500');
    expect(big.items.map((i) => i.registrikood)).toEqual(expected.codes);
  });

  it('walks every page without overlap or gap, in a stable order, under every sort', async () => {
    for (const sortBy of ['annual_revenue', 'arinimi', 'registered_date']) {
      const all = await page(`country=LV&page_size=500&sort_by=${sortBy}&sort_dir=desc&status=__all__`);
      const walked: string[] = [];
      for (let p = 1; walked.length < Math.min(all.total, 500); p++) {
        const data = await page(
          `country=LV&page_size=37&page=${p}&sort_by=${sortBy}&sort_dir=desc&status=__all__`,
        );
        expect(data.total).toBe(all.total);
        walked.push(...data.items.map((i) => i.registrikood));
      }
      expect(walked.slice(0, all.items.length)).toEqual(all.items.map((i) => i.registrikood));
      expect(new Set(walked).size).toBe(walked.length);
    }
  });

  it('returns an empty page past the end with the true total', async () => {
    const data = await page('country=LT&page=100000&page_size=500');
    expect(data.items).toEqual([]);
    expect(data.total).toBeGreaterThan(0);
  });
});

describe('sorting', () => {
  for (const [sortBy, field] of Object.entries(SORT_FIELDS)) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`sorts by ${sortBy} ${dir}, nulls last, ties broken by registrikood`, async () => {
        const country = ['annual_revenue'].includes(field) ? 'NO' : 'EE';
        const col = ORACLE_COLUMN[field]!;
        const expected = (
          await oracle.rows(
            `SELECT registrikood FROM ${oracle.file(country, 'companies')} WHERE NOT not_for_sale AND staatus = 'R'
             ORDER BY "${col}" ${dir} NULLS LAST, registrikood ${dir} LIMIT 120`,
          )
        ).map((r) => r['registrikood']);
        const data = await page(`country=${country}&sort_by=${sortBy}&sort_dir=${dir}&page_size=60&page=2`);
        expect(data.sort_by).toBe(sortBy);
        expect(data.sort_dir).toBe(dir);
        expect(data.items.map((i) => i.registrikood)).toEqual(expected.slice(60, 120));
      });
    }
  }
});
