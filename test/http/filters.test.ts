import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { FILTERS, filterParamNames } from '../../src/contract/filters.ts';
import { buildTestApp, qs, type TestApp } from '../helpers/app.ts';
import { Oracle } from '../helpers/oracle.ts';

/**
 * One test per filter and per deprecated alias (spec 4.3): the API's count, its search total and its first
 * page of codes must equal a plain DuckDB query over the snapshot's Parquet files, written independently here.
 * Values are picked from the data so every case matches something.
 */

type QueryValue = string | number | boolean | (string | number)[];
interface FilterCase {
  /** The query parameters beyond country. */
  query: Record<string, QueryValue>;
  /** Oracle predicate over companies.parquet columns (active-only is added unless `statusFree`). */
  where: string;
  params?: DuckDBValue[];
  statusFree?: boolean;
  /** Some picks can legitimately match nothing at tiny scale (e.g. the parent-code rule). */
  allowEmpty?: boolean;
}

let t: TestApp;
let oracle: Oracle;

beforeAll(async () => {
  const dataDir = inject('testDataDir');
  t = await buildTestApp(dataDir);
  oracle = await Oracle.open(dataDir);
});
afterAll(async () => {
  await t?.close();
  oracle?.close();
});

const ACTIVE = `staatus = 'R'`;

async function pick<T = string>(country: CountryCode, sql: string): Promise<T> {
  const v = await oracle.scalar<T>(sql.replaceAll('$companies', oracle.file(country, 'companies')));
  if (v === undefined || v === null) throw new Error(`no value to test with: ${sql}`);
  return v;
}

/** A median-ish value of a numeric column among active for-sale rows, for range bounds. */
const median = (country: CountryCode, column: string) =>
  pick<number>(
    country,
    `SELECT quantile_disc(${column}, 0.5) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE} AND ${column} IS NOT NULL`,
  );

async function check(country: CountryCode, c: FilterCase): Promise<void> {
  const where = c.statusFree ? c.where : `${ACTIVE} AND (${c.where})`;
  const expected = await oracle.matching(country, where, c.params ?? []);
  if (!c.allowEmpty) expect(expected.count, 'the picked value should match something').toBeGreaterThan(0);

  const query = qs({ country, ...c.query });
  const count = await t.get(`/api/v1/data/count?${query}`);
  expect(count.statusCode, count.body).toBe(200);
  expect(count.json()).toEqual({ country, count: expected.count, count_mode: 'exact' });

  const search = await t.get(`/api/v1/data/companies?${query}&page_size=500`);
  expect(search.statusCode, search.body).toBe(200);
  const data = search.json().data as { total: number; items: { registrikood: string }[] };
  expect(data.total).toBe(expected.count);
  expect(data.items.map((i) => i.registrikood)).toEqual(expected.codes);
}

/** The same case under the deprecated Estonian spelling must give the same answer. */
function aliased(query: Record<string, QueryValue>): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(query)) {
    const names = FILTERS.flatMap(filterParamNames).find((n) => n.param === k);
    out[names?.alias ?? k] = v;
  }
  return out;
}

const ALL: readonly CountryCode[] = COUNTRY_CODES;

/** Filter id -> the cases that test it. Every filter of filters.ts must appear (checked below). */
const CASES: Record<string, { country: CountryCode; build: () => Promise<FilterCase> }[]> = {
  company_name: [
    {
      country: 'EE',
      build: async () => {
        // A 3-letter piece from the middle of a real name, sent upper-cased: partial and case-insensitive.
        const name = await pick(
          'EE',
          `SELECT search_name FROM $companies WHERE NOT not_for_sale AND ${ACTIVE} AND length(search_name) > 8 ORDER BY registrikood LIMIT 1`,
        );
        const piece = name.slice(2, 5);
        return {
          query: { company_name: [piece.toUpperCase()] },
          where: `contains(lower(strip_accents(arinimi)), ?)`,
          params: [piece],
        };
      },
    },
    {
      country: 'PL',
      build: async () => {
        // Several values match any of them.
        const [a, b] = await Promise.all([
          pick(
            'PL',
            `SELECT search_name FROM $companies WHERE NOT not_for_sale AND ${ACTIVE} ORDER BY registrikood LIMIT 1`,
          ),
          pick(
            'PL',
            `SELECT search_name FROM $companies WHERE NOT not_for_sale AND ${ACTIVE} ORDER BY registrikood DESC LIMIT 1`,
          ),
        ]);
        return {
          query: { company_name: [a.slice(0, 6), b.slice(-6)] },
          where: `contains(lower(strip_accents(arinimi)), ?) OR contains(lower(strip_accents(arinimi)), ?)`,
          params: [a.slice(0, 6), b.slice(-6)],
        };
      },
    },
  ],
  registration_code: [
    {
      country: 'NO',
      build: async () => {
        const code = await pick(
          'NO',
          `SELECT registrikood FROM $companies WHERE NOT not_for_sale AND ${ACTIVE} LIMIT 1 OFFSET 7`,
        );
        return { query: { registration_code: code }, where: `registrikood = ?`, params: [code] };
      },
    },
  ],
  industry_codes: [
    {
      country: 'LV',
      build: async () => {
        const codes = await oracle.rows(
          `SELECT e.kood AS k, count(*) AS n FROM (SELECT unnest(emtak) AS e FROM ${oracle.file('LV', 'companies')} WHERE NOT not_for_sale AND ${ACTIVE}) GROUP BY 1 ORDER BY n DESC, k LIMIT 2`,
        );
        const ks = codes.map((r) => String(r['k']));
        return {
          query: { industry_codes: ks },
          where: `len(list_filter(emtak, e -> e.kood = ? OR e.kood = ?)) > 0`,
          params: ks,
        };
      },
    },
    ...(['NO', 'SE', 'PL', 'EE', 'LV'] as const).map((country) => ({
      country,
      build: async (): Promise<FilterCase> => {
        // A saved query in the retired edition (SN2007, SNI 2007, PKD 2007, EMTAK 2008, NACE Rev. 2): the code is mapped forward onto the
        // leaf it names today and matches the companies carrying that leaf, not nothing.
        const forward = oracle.json<{ forward: Record<string, string> }>(country, 'activities').forward;
        const leaves = await oracle.rows(
          `SELECT e.kood AS k, count(*) AS n FROM (SELECT unnest(emtak) AS e FROM ${oracle.file(country, 'companies')}
           WHERE NOT not_for_sale AND ${ACTIVE}) GROUP BY 1 ORDER BY n DESC, k`,
        );
        const old = leaves
          .map((r) => String(r['k']))
          .flatMap((k) => Object.keys(forward).filter((o) => forward[o] === k))[0];
        if (old === undefined) throw new Error(`${country}: no retired code maps onto a leaf in use`);
        const today = forward[old] ?? '';
        expect(old).not.toBe(today);
        return {
          query: { industry_codes: [old] },
          where: `len(list_filter(emtak, e -> e.kood = ?)) > 0`,
          params: [today],
        };
      },
    })),
  ],
  legal_form: [
    {
      country: 'FI',
      build: async () => {
        const form = await pick(
          'FI',
          `SELECT mode(oiguslik_vorm) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return { query: { legal_form: [form] }, where: `oiguslik_vorm = ?`, params: [form] };
      },
    },
  ],
  status: [
    {
      country: 'EE',
      build: async () => {
        const s = await pick(
          'EE',
          `SELECT mode(staatus) FROM $companies WHERE NOT not_for_sale AND staatus <> 'R'`,
        );
        return { query: { status: [s] }, where: `staatus = ?`, params: [s], statusFree: true };
      },
    },
    {
      country: 'LT',
      build: async () => ({ query: { status: ['__all__'] }, where: 'true', statusFree: true }),
    },
    {
      country: 'SE',
      build: async () => ({
        query: { status: ['R', 'K'] },
        where: `staatus IN ('R', 'K')`,
        statusFree: true,
      }),
    },
  ],
  share_capital: [
    {
      country: 'EE',
      build: async () => {
        const m = await median('EE', 'kapital_amount');
        return {
          query: { share_capital_min: m, share_capital_max: m * 10 },
          where: `kapital_amount BETWEEN ? AND ?`,
          params: [m, m * 10],
        };
      },
    },
  ],
  registered: [
    {
      country: 'LT',
      build: async () => {
        const d = await pick(
          'LT',
          `SELECT quantile_disc(esmaregistreerimise_kpv, 0.5)::VARCHAR FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return {
          query: { registered_from: d, registered_to: '2099-12-31' },
          where: `esmaregistreerimise_kpv >= ?::DATE AND esmaregistreerimise_kpv <= DATE '2099-12-31'`,
          params: [d],
        };
      },
    },
  ],
  location: [
    {
      country: 'NO',
      build: async () => {
        const town = await pick(
          'NO',
          `SELECT mode(ehak_nimetus) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        const piece = town.slice(0, 4);
        return {
          query: { location: piece.toUpperCase() },
          where: `contains(lower(strip_accents(coalesce(ehak_nimetus, '') || ' ' || coalesce(aadress_text, ''))), lower(strip_accents(?)))`,
          params: [piece],
        };
      },
    },
  ],
  ehak_kood: [
    {
      country: 'EE',
      build: async () => {
        // A county node: send its `codes` array (the node and all descendants).
        const tree = oracle.json<{ tree: TreeNode[] }>('EE', 'locations').tree;
        const codes = tree[0]!.codes!;
        return {
          query: { ehak_kood: codes },
          where: `list_contains(?::VARCHAR[], ehak_kood)`,
          params: [listValue(codes)],
        };
      },
    },
    {
      country: 'PL',
      build: async () => {
        // A parent code alone matches only rows tagged with exactly that code (spec 4.2).
        const tree = oracle.json<{ tree: TreeNode[] }>('PL', 'locations').tree;
        const parent = tree[0]!.kood;
        return { query: { ehak_kood: [parent] }, where: `ehak_kood = ?`, params: [parent], allowEmpty: true };
      },
    },
  ],
  lt_locations: [
    {
      country: 'LT',
      build: async () => {
        const tree = oracle.json<{ tree: TreeNode[] }>('LT', 'locations').tree;
        const node = tree.find((n) => (n.locations?.length ?? 0) > 0)!;
        return {
          query: { lt_locations: node.locations! },
          where: `list_contains(?::VARCHAR[], ehak_nimetus)`,
          params: [listValue(node.locations!)],
        };
      },
    },
  ],
  postcode: [
    {
      country: 'EE',
      build: async () => {
        // The two most common two-digit starts, sent together: any of them.
        const [a, b] = (
          await oracle.rows(
            `SELECT left(postcode, 2) AS p FROM ${oracle.file('EE', 'companies')}
             WHERE NOT not_for_sale AND ${ACTIVE} AND postcode IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 2`,
          )
        ).map((r) => String(r['p']));
        return {
          query: { postcode: [a!, b!] },
          where: `starts_with(postcode, ?) OR starts_with(postcode, ?)`,
          params: [a!, b!],
        };
      },
    },
    {
      country: 'LV',
      // The LV- prefix as Latvians write it; the oracle compares the served text.
      build: async () => {
        const p = await pick(
          'LV',
          `SELECT min(postcode) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        const sent = p.slice(0, 5);
        return { query: { postcode: [sent] }, where: `starts_with(postcode, ?)`, params: [sent] };
      },
    },
    {
      country: 'SE',
      // A whole postcode without its space, and the oracle on the served `ddd dd`.
      build: async () => {
        const p = await pick(
          'SE',
          `SELECT max(postcode) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return { query: { postcode: [p.replace(' ', '')] }, where: `postcode = ?`, params: [p] };
      },
    },
    {
      country: 'PL',
      // Three digits across the dash: `00-9` written `009`.
      build: async () => {
        const p = await pick(
          'PL',
          `SELECT min(postcode) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return {
          query: { postcode: [p.slice(0, 2) + p.slice(3, 4)] },
          where: `starts_with(postcode, ?)`,
          params: [p.slice(0, 4)],
        };
      },
    },
    {
      country: 'NO',
      build: async () => {
        const p = await pick(
          'NO',
          `SELECT min(postcode) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return {
          query: { postcode: [p.slice(0, 3)] },
          where: `starts_with(postcode, ?)`,
          params: [p.slice(0, 3)],
        };
      },
    },
    {
      country: 'FI',
      build: async () => {
        const p = await pick(
          'FI',
          `SELECT max(postcode) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return {
          query: { postcode: [p.slice(0, 2)] },
          where: `starts_with(postcode, ?)`,
          params: [p.slice(0, 2)],
        };
      },
    },
  ],
  vat_active: [
    { country: 'EE', build: async () => ({ query: { vat_active: true }, where: `vat_active` }) },
    { country: 'PL', build: async () => ({ query: { vat_active: false }, where: `vat_active = false` }) },
  ],
  has_email: [
    {
      country: 'EE',
      build: async () => ({
        query: { has_email: true },
        where: `len(list_filter(contacts, c -> c.liik = 'EMAIL')) > 0`,
      }),
    },
    {
      country: 'NO',
      build: async () => ({
        query: { has_email: false },
        where: `len(list_filter(contacts, c -> c.liik = 'EMAIL')) = 0`,
      }),
    },
  ],
  has_website: [
    {
      country: 'FI',
      build: async () => ({
        query: { has_website: true },
        where: `len(list_filter(contacts, c -> c.liik = 'WWW')) > 0`,
      }),
    },
  ],
  has_phone: [
    {
      country: 'LV',
      build: async () => ({
        query: { has_phone: true },
        where: `len(list_filter(contacts, c -> c.liik = 'TEL' OR c.liik = 'MOB')) > 0`,
      }),
    },
  ],
  has_contact: [
    { country: 'SE', build: async () => ({ query: { has_contact: true }, where: `len(contacts) > 0` }) },
    { country: 'LT', build: async () => ({ query: { has_contact: false }, where: `len(contacts) = 0` }) },
  ],
  has_domain: [
    {
      country: 'FI',
      build: async () => ({ query: { has_domain: true }, where: `len(registered_domains) > 0` }),
    },
    {
      country: 'EE',
      build: async () => ({ query: { has_domain: false }, where: `len(registered_domains) = 0` }),
    },
  ],
  has_tax_debt: [
    { country: 'EE', build: async () => ({ query: { has_tax_debt: true }, where: `has_tax_debt` }) },
    { country: 'EE', build: async () => ({ query: { has_tax_debt: false }, where: `NOT has_tax_debt` }) },
  ],
  exclude_marketing_optout: [
    {
      country: 'SE',
      build: async () => ({
        query: { exclude_marketing_optout: true },
        where: `marketing_optout IS DISTINCT FROM true`,
      }),
    },
    { country: 'SE', build: async () => ({ query: { exclude_marketing_optout: false }, where: `true` }) },
  ],
  exclude_phone_optout: [
    {
      country: 'SE',
      build: async () => ({
        query: { exclude_phone_optout: true },
        where: `phone_optout IS DISTINCT FROM true`,
      }),
    },
  ],
  employees_band: [
    {
      country: 'SE',
      // 0 = unknown (a NULL band is unknown too), never "0 employees", which is band 1.
      build: async () => ({
        query: { employees_band: [0] },
        where: `se_employees_band = 0 OR se_employees_band IS NULL`,
      }),
    },
    {
      country: 'SE',
      build: async () => ({ query: { employees_band: [1, 2] }, where: `se_employees_band IN (1, 2)` }),
    },
  ],
  turnover_band: [
    {
      country: 'SE',
      build: async () => {
        const b = await pick<number>(
          'SE',
          `SELECT mode(se_turnover_band) FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}`,
        );
        return { query: { turnover_band: [b] }, where: `se_turnover_band = ?`, params: [b] };
      },
    },
  ],
  annual_revenue: [
    {
      country: 'NO',
      build: async () => {
        const m = await median('NO', 'annual_revenue');
        return { query: { annual_revenue_min: m }, where: `annual_revenue >= ?`, params: [m] };
      },
    },
  ],
  annual_net_profit: [
    {
      country: 'EE',
      // Spec 4.3: min 0 = profitable only.
      build: async () => ({ query: { annual_net_profit_min: 0 }, where: `annual_net_profit >= 0` }),
    },
    {
      country: 'LV',
      build: async () => ({ query: { annual_net_profit_max: -1 }, where: `annual_net_profit <= -1` }),
    },
  ],
  annual_equity: [
    {
      country: 'LV',
      build: async () => {
        const m = await median('LV', 'annual_equity');
        return { query: { annual_equity_max: m }, where: `annual_equity <= ?`, params: [m] };
      },
    },
  ],
  annual_total_assets: [
    {
      country: 'EE',
      build: async () => {
        const m = await median('EE', 'annual_total_assets');
        return {
          query: { annual_total_assets_min: m / 2, annual_total_assets_max: m * 2 },
          where: `annual_total_assets BETWEEN ? AND ?`,
          params: [m / 2, m * 2],
        };
      },
    },
  ],
  last_quarter_turnover: [
    {
      country: 'EE',
      build: async () => {
        const m = await median('EE', 'last_quarter_turnover');
        return { query: { last_quarter_turnover_min: m }, where: `last_quarter_turnover >= ?`, params: [m] };
      },
    },
  ],
  last_4_quarters_turnover_sum: [
    {
      country: 'LT',
      build: async () => {
        const m = await median('LT', 'last_4_quarters_turnover_sum');
        return {
          query: { last_4_quarters_turnover_sum_max: m },
          where: `last_4_quarters_turnover_sum <= ?`,
          params: [m],
        };
      },
    },
  ],
  last_quarter_employees: [
    {
      country: 'NO',
      build: async () => ({
        query: { last_quarter_employees_min: 5, last_quarter_employees_max: 50 },
        where: `last_quarter_employees_number BETWEEN 5 AND 50`,
      }),
    },
  ],
  last_quarter_turnover_growth_pct: [
    {
      country: 'LV',
      build: async () => ({
        query: { last_quarter_turnover_growth_pct_min: 0 },
        where: `last_quarter_turnover_growth_pct >= 0`,
      }),
    },
    {
      country: 'EE',
      build: async () => ({
        query: { last_quarter_turnover_growth_pct_max: -10 },
        where: `last_quarter_turnover_growth_pct <= -10`,
      }),
    },
  ],
  person_name: [
    {
      country: 'FI',
      build: async () => {
        const person = await pick(
          'FI',
          `SELECT p.nimi FROM (SELECT unnest(people) AS p FROM $companies WHERE NOT not_for_sale AND ${ACTIVE}) WHERE p.isiku_tyyp = 'F' LIMIT 1`,
        );
        const surname = person.split(' ').at(-1)!;
        return {
          query: { person_name: surname.toUpperCase() },
          where: `len(list_filter(people, p -> contains(lower(strip_accents(p.nimi)), lower(strip_accents(?))))) > 0`,
          params: [surname],
        };
      },
    },
  ],
  annual_report_filed: [
    {
      country: 'PL',
      build: async () => ({ query: { annual_report_filed: true }, where: `annual_report_filed` }),
    },
  ],
  annual_report_audited: [
    {
      country: 'PL',
      build: async () => ({
        query: { annual_report_audited: false },
        where: `annual_report_audited = false`,
      }),
    },
  ],
  se_workplace_kommun: [
    {
      country: 'SE',
      build: async () => {
        const k = await pick(
          'SE',
          `SELECT mode(kommun_code) FROM ${oracle.file('SE', 'workplaces')} WHERE is_active`,
        );
        return {
          query: { se_workplace_kommun: [k] },
          where: `registrikood IN (SELECT registrikood FROM ${oracle.file('SE', 'workplaces')} WHERE is_active AND kommun_code = ?)`,
          params: [k],
        };
      },
    },
  ],
};

describe('every search/count filter matches an independent query over the Parquet files', () => {
  it('has cases for every declared filter', async () => {
    expect(Object.keys(CASES).sort()).toEqual(FILTERS.map((f) => f.id).sort());
  });

  for (const f of FILTERS) {
    const cases = CASES[f.id] ?? [];
    cases.forEach(({ country, build }, i) => {
      it(`${f.id} (${country}, case ${i + 1})`, async () => {
        await check(country, await build());
      });
    });
    const alias = filterParamNames(f).some((n) => n.alias);
    const first = cases[0];
    if (alias && first) {
      it(`${f.id} under its deprecated Estonian alias (${first.country})`, async () => {
        const c = await first.build();
        await check(first.country, { ...c, query: aliased(c.query) });
      });
    }
  }

  it('combines filters with AND (count equals search total)', async () => {
    await check('EE', {
      query: { has_email: true, vat_active: true, annual_revenue_min: 1 },
      where: `len(list_filter(contacts, c -> c.liik = 'EMAIL')) > 0 AND vat_active AND annual_revenue >= 1`,
    });
  });

  it('matches names accent-insensitively', async () => {
    const accented = await oracle.rows(
      `SELECT arinimi FROM ${oracle.file('EE', 'companies')} WHERE NOT not_for_sale AND ${ACTIVE} AND regexp_matches(arinimi, '[õäöüÕÄÖÜ]') LIMIT 1`,
    );
    const name = String(accented[0]?.['arinimi'] ?? '');
    const word = name.split(' ').find((w) => /[õäöüÕÄÖÜ]/.test(w)) ?? '';
    expect(word).not.toBe('');
    const plain = word.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
    const res = await t.get(`/api/v1/data/companies?${qs({ country: 'EE', company_name: plain })}`);
    const names = (res.json().data.items as { arinimi: string }[]).map((i) => i.arinimi);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase()).toContain(plain);
  });

  it('lists in /filters exactly the parameters search and count accept, per country', async () => {
    for (const country of ALL) {
      const res = await t.get(`/api/v1/data/filters?country=${country}`);
      expect(res.statusCode).toBe(200);
      const listed = (res.json().filters as Record<string, string | null>[]).flatMap((s) =>
        [s['param'], s['param_min'], s['param_max'], s['param_from'], s['param_to']].filter(
          (p): p is string => !!p,
        ),
      );
      const declared = FILTERS.filter((f) => f.countries.includes(country)).flatMap((f) =>
        filterParamNames(f).map((n) => n.param),
      );
      expect(listed.sort()).toEqual(declared.sort());
      for (const f of FILTERS.filter((x) => !x.countries.includes(country))) {
        const p = filterParamNames(f)[0]!.param;
        const r = await t.get(`/api/v1/data/count?country=${country}&${p}=1`);
        expect(r.statusCode, `${p} for ${country}`).toBe(422);
      }
    }
  });
});
