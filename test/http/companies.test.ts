import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { Oracle, absentEeCode } from '../helpers/oracle.ts';

/** Spec 2.3-2.5 and 4.4-4.6: detail, history per country, workplaces and their marketing blocks. */

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

const ALL: readonly CountryCode[] = COUNTRY_CODES;

async function someCode(country: CountryCode, where = 'true'): Promise<string> {
  const code = await oracle.scalar<string>(
    `SELECT registrikood FROM ${oracle.file(country, 'companies')} WHERE NOT not_for_sale AND (${where})
     ORDER BY registrikood LIMIT 1`,
  );
  expect(code, `${country}: a company where ${where}`).toBeTruthy();
  return code;
}

describe('company detail', () => {
  it('returns the row in full with the usage meta, for every country', async () => {
    for (const country of ALL) {
      const code = await someCode(country, `len(people) > 0 OR '${country}' IN ('LT', 'SE')`);
      const res = await t.get(`/api/v1/data/companies/${code}?country=${country}`);
      expect(res.statusCode, res.body).toBe(200);
      const { data, meta } = res.json();
      expect(data.registrikood).toBe(code);
      for (const f of [
        'arinimi',
        'staatus',
        'contacts',
        'registered_domains',
        'emtak',
        'people',
        'latest_metrics',
      ]) {
        expect(data, f).toHaveProperty(f);
      }
      expect(meta).toEqual({
        rows_returned: 1,
        credits_charged: 0,
        credits_reserved: expect.any(Number),
        credit_balance: expect.any(Number),
        data_as_of: oracle.json<CountryManifest>(country, 'manifest').generated_at.slice(0, 10),
        snapshot_id: oracle.json<CountryManifest>(country, 'manifest').snapshot_id,
      });
      // Internal serving columns never leak.
      expect(Object.keys(data).filter((k) => /^(rid|f_|d_|o_|sig_|search_|not_for_sale)/.test(k))).toEqual(
        [],
      );
    }
  });

  it('has no people for SE and LT', async () => {
    for (const country of ['SE', 'LT'] as const) {
      const code = await someCode(country);
      const data = (await t.get(`/api/v1/data/companies/${code}?country=${country}`)).json().data;
      expect(data.people).toEqual([]);
    }
  });

  it('masks Polish person names to initials but keeps legal persons', async () => {
    const code = await someCode('PL', `len(list_filter(people, p -> p.isiku_tyyp = 'F')) > 0`);
    const stored = await oracle.rows(
      `SELECT unnest(people) AS p FROM ${oracle.file('PL', 'companies')} WHERE registrikood = ?`,
      [code],
    );
    const data = (await t.get(`/api/v1/data/companies/${code}?country=PL`)).json().data;
    expect(data.people).toHaveLength(stored.length);
    data.people.forEach((p: { nimi: string; isiku_tyyp: string }, i: number) => {
      const full = (stored[i]!['p'] as { nimi: string }).nimi;
      if (p.isiku_tyyp === 'F') {
        expect(p.nimi).toMatch(/^(\p{Lu}\.)( \p{Lu}\.)*$/u);
        expect(p.nimi).not.toBe(full);
        expect(p.nimi[0]).toBe(full[0]!.toUpperCase());
      } else {
        expect(p.nimi).toBe(full);
      }
    });
  });

  it('never serves a personal ID code field', async () => {
    const code = await someCode('EE', 'len(people) > 0');
    const body = (await t.get(`/api/v1/data/companies/${code}?country=EE`)).body;
    expect(body).not.toMatch(/isikukood|personal_id|pesel|personnummer/i);
  });
});

describe('company history', () => {
  it('is none and free for FI, PL and SE', async () => {
    for (const country of ['FI', 'PL', 'SE'] as const) {
      const code = await someCode(country);
      const res = await t.get(`/api/v1/data/companies/${code}/history?country=${country}`);
      expect(res.statusCode).toBe(200);
      const { data, meta } = res.json();
      expect(data).toMatchObject({ registrikood: code, country, granularity: 'none', periods: [] });
      expect(meta.rows_returned).toBe(0);
      expect(meta.credits_charged).toBe(0);
    }
  });

  it('returns the periods of history.parquet in chronological order with the top-level granularity', async () => {
    const expectedTop: Record<string, string[]> = {
      EE: ['quarterly'],
      LV: ['annual'],
      NO: ['snapshot'],
      LT: ['mixed'],
    };
    for (const [country, tops] of Object.entries(expectedTop) as [CountryCode, string[]][]) {
      const history = oracle.file(country, 'history');
      const code = await oracle.scalar<string>(
        `SELECT registrikood FROM ${history} GROUP BY registrikood ORDER BY count(DISTINCT granularity) DESC, count(*) DESC, registrikood LIMIT 1`,
      );
      const rows = await oracle.rows(
        `SELECT period, granularity, "year", quarter, "month" FROM ${history} WHERE registrikood = ?`,
        [code],
      );
      const res = await t.get(`/api/v1/data/companies/${code}/history?country=${country}`);
      expect(res.statusCode, res.body).toBe(200);
      const { data, meta } = res.json();
      expect(tops).toContain(data.granularity);
      expect(data.periods).toHaveLength(rows.length);
      expect(new Set(data.periods.map((p: { period: string }) => p.period))).toEqual(
        new Set(rows.map((r) => r['period'])),
      );
      // Chronological: by year, then within a year sub-periods before the year's own rows.
      const keys = data.periods.map((p: { year: number; quarter: number; month: number }) => [
        p.year,
        p.quarter === 0 && p.month === 0 ? 1 : 0,
        p.quarter,
        p.month,
      ]);
      const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]);
      expect(keys).toEqual(sorted);
      expect(meta.rows_returned).toBe(1);
    }
  });

  it('is mixed for a Lithuanian company whose rows differ', async () => {
    const history = oracle.file('LT', 'history');
    const code = await oracle.scalar<string>(
      `SELECT registrikood FROM ${history} GROUP BY registrikood HAVING count(DISTINCT granularity) > 1 LIMIT 1`,
    );
    const data = (await t.get(`/api/v1/data/companies/${code}/history?country=LT`)).json().data;
    expect(data.granularity).toBe('mixed');
  });
});

describe('workplaces (SE)', () => {
  interface Workplace {
    cfar_nr: number;
    is_main: boolean;
    visit_address: string | null;
    postal_address: string | null;
    sweref99tm_n: number | null;
    sweref99tm_e: number | null;
    phone: string | null;
    marketing_optout: boolean;
    phone_optout: boolean;
  }

  it('lists active workplaces, main first, with the SCB attribution', async () => {
    const wp = oracle.file('SE', 'workplaces');
    const code = await oracle.scalar<string>(
      `SELECT registrikood FROM ${wp} WHERE is_active GROUP BY registrikood HAVING count(*) > 1 ORDER BY registrikood LIMIT 1`,
    );
    const expected = await oracle.rows(
      `SELECT cfar_nr FROM ${wp} WHERE registrikood = ? AND is_active ORDER BY is_main DESC, cfar_nr`,
      [code],
    );
    const res = await t.get(`/api/v1/data/companies/${code}/workplaces?country=SE`);
    expect(res.statusCode, res.body).toBe(200);
    const { data, meta } = res.json();
    expect(data.registrikood).toBe(code);
    expect(data.workplaces.map((w: Workplace) => w.cfar_nr)).toEqual(expected.map((r) => r['cfar_nr']));
    expect(data.workplaces[0].is_main).toBe(true);
    expect(typeof data.source).toBe('string');
    expect(data.source.length).toBeGreaterThan(0);
    expect(meta.rows_returned).toBe(1);
  });

  it('nulls addresses and coordinates under a postal block, the phone under a telephone block (workplace or company)', async () => {
    const wp = oracle.file('SE', 'workplaces');
    const co = oracle.file('SE', 'companies');
    const rows = await oracle.rows(
      `SELECT w.registrikood, w.cfar_nr, w.marketing_optout OR coalesce(c.marketing_optout, false) AS postal,
              w.phone_optout OR coalesce(c.phone_optout, false) AS tel,
              w.visit_address, w.phone
       FROM ${wp} w JOIN ${co} c USING (registrikood)
       WHERE w.is_active AND NOT c.not_for_sale
       ORDER BY (w.marketing_optout OR c.marketing_optout) DESC, (w.phone_optout OR c.phone_optout) DESC, w.registrikood
       LIMIT 40`,
    );
    let postal = 0;
    let tel = 0;
    for (const r of rows) {
      const data = (await t.get(`/api/v1/data/companies/${r['registrikood']}/workplaces?country=SE`)).json()
        .data;
      const w = (data.workplaces as Workplace[]).find((x) => x.cfar_nr === r['cfar_nr'])!;
      if (r['postal']) {
        postal++;
        expect([w.visit_address, w.postal_address, w.sweref99tm_n, w.sweref99tm_e]).toEqual([
          null,
          null,
          null,
          null,
        ]);
      } else {
        expect(w.visit_address).toBe(r['visit_address']);
      }
      if (r['tel']) {
        tel++;
        expect(w.phone).toBeNull();
      } else {
        expect(w.phone).toBe(r['phone']);
      }
    }
    expect(postal).toBeGreaterThan(0);
    expect(tel).toBeGreaterThan(0);
  });
});

describe('metering through the wallet', () => {
  it('charges only the rows a search returns, at the country price', async () => {
    const { key } = await t.wallet.createKey({
      email: 'payer@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 20,
    });
    const code = await someCode('LV', `staatus = 'R'`);
    const res = await t.get(`/api/v1/data/companies?country=LV&registration_code=${code}&page_size=100`, {
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { data, meta } = res.json();
    expect(data.items).toHaveLength(1);
    expect(meta.rows_returned).toBe(1);
    expect(meta.credits_charged).toBeCloseTo(0.08, 10);
    expect(meta.credit_balance).toBeCloseTo(20 - 0.08, 10);
  });

  it('charges nothing for a 404', async () => {
    const { key } = await t.wallet.createKey({
      email: 'payer404@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 1,
    });
    const res = await t.get(`/api/v1/data/companies/${await absentEeCode(oracle)}?country=EE`, { key });
    expect(res.statusCode).toBe(404);
    const after = await t.get(`/api/v1/data/companies?country=EE&page_size=1`, { key });
    expect(after.json().meta.credit_balance).toBeCloseTo(1 - 0.04, 10);
  });
});
