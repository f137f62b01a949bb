import { beforeAll, describe, expect, it } from 'vitest';
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import {
  COMPANY_COLUMNS,
  CONTACT_KINDS,
  CONTACT_SOURCES,
  HISTORY_COLUMNS,
  STATUS_CODES,
  WORKPLACE_COLUMNS,
  type ColumnSpec,
} from '../../src/contract/data-contract.ts';
import { isValidNip, isValidRegon } from '../../src/contract/registration-codes.ts';
import { loadReference } from '../../ingest/reference/index.ts';
import { SWEDEN_SWEREF_BOUNDS } from '../../ingest/world/geo.ts';
import { WORLD_DATE } from '../../ingest/world/profiles/index.ts';
import { num, stageAll, str, type Row, type StagedCountry } from './world-fixture.ts';

let world: Map<CountryCode, StagedCountry>;

beforeAll(async () => {
  world = await stageAll();
});

const each = (fn: (s: StagedCountry) => void) => () => {
  for (const c of COUNTRY_CODES) {
    const s = world.get(c);
    if (!s) throw new Error(`${c} was not staged`);
    fn(s);
  }
};

const list = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row | null =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : null;
const normType = (t: string): string => t.replaceAll('"', '').replace(/\s+/g, ' ').toUpperCase();

describe('stage tables', () => {
  const check = (
    s: StagedCountry,
    table: 'companies' | 'history' | 'workplaces',
    columns: readonly ColumnSpec[],
  ) => {
    const types = s.types[table];
    if (!types) throw new Error(`${s.country}: stage_${table} is missing`);
    for (const c of columns) {
      expect(types.get(c.name), `${s.country} stage_${table}.${c.name}`).toBeDefined();
      expect(normType(types.get(c.name) ?? ''), `${s.country} stage_${table}.${c.name}`).toBe(
        normType(c.type),
      );
    }
  };

  it(
    'have every contract column with the contract type',
    each((s) => {
      check(s, 'companies', COMPANY_COLUMNS);
      if (COUNTRIES[s.country].hasHistory) check(s, 'history', HISTORY_COLUMNS);
      else expect(s.types.history, `${s.country} has no series`).toBeNull();
      if (s.country === 'SE') check(s, 'workplaces', WORKPLACE_COLUMNS);
      else expect(s.types.workplaces).toBeNull();
    }),
  );

  it(
    'fills every country at its scale',
    each((s) => {
      expect(s.companies.length).toBeGreaterThanOrEqual(20);
      if (COUNTRIES[s.country].hasHistory) expect(s.history.length).toBeGreaterThan(0);
    }),
  );
});

describe('registration codes', () => {
  it(
    "pass the register's own rule (checked by registration-codes.ts, not the SQL) and are unique",
    each((s) => {
      const rule = COUNTRIES[s.country].registrationCode;
      const seen = new Set<string>();
      for (const r of s.companies) {
        const code = str(r['registrikood']);
        if (s.country === 'SE' && r['is_sole_trader'] === true) {
          expect(code, 'SE sole traders carry no code').toBe('');
          continue;
        }
        expect(rule.isValid(code), `${s.country} ${code}`).toBe(true);
        expect(seen.has(code), `${s.country} duplicate ${code}`).toBe(false);
        seen.add(code);
      }
    }),
  );

  it('follow the per-form number ranges (EE, LV, SE)', () => {
    const first = (c: string): string => c.slice(0, 1);
    const ee: Record<string, string> = {
      OÜ: '1',
      AS: '1',
      FIE: '1',
      TÜ: '1',
      UÜ: '1',
      TÜH: '1',
      MTÜ: '8',
      KÜ: '8',
      SA: '9',
    };
    for (const r of world.get('EE')?.companies ?? []) {
      expect(first(str(r['registrikood'])), str(r['oiguslik_vorm'])).toBe(ee[str(r['oiguslik_vorm'])]);
    }
    for (const r of world.get('LV')?.companies ?? []) {
      const other = ['BDR', 'NOD'].includes(str(r['oiguslik_vorm']));
      expect(first(str(r['registrikood']))).toBe(other ? '5' : '4');
    }
    const se: Record<string, string> = {
      '49': '5',
      '41': '5',
      '42': '5',
      '43': '5',
      '31': '9',
      '51': '7',
      '53': '7',
      '54': '7',
    };
    for (const r of world.get('SE')?.companies ?? []) {
      const form = str(r['oiguslik_vorm']);
      const expected =
        se[form] ?? (['61', '62', '63', '71', '72'].includes(form) ? '8' : form === '10' ? '' : null);
      if (expected !== null) expect(first(str(r['registrikood'])), form).toBe(expected);
    }
  });

  it('give every PL unit a valid, unique REGON and NIP, and KRS entities their KRS number', () => {
    const krsForms = new Set(['117', '116', '118', '120', '121', '115', '148', '155', '140']);
    const regons = new Set<string>();
    const nips = new Set<string>();
    for (const r of world.get('PL')?.companies ?? []) {
      const regon = str(r['pl_regon']);
      const nip = str(r['pl_nip']);
      expect(isValidRegon(regon), regon).toBe(true);
      expect(isValidNip(nip), nip).toBe(true);
      expect(regons.has(regon) || nips.has(nip)).toBe(false);
      regons.add(regon);
      nips.add(nip);
      const code = str(r['registrikood']);
      if (krsForms.has(str(r['oiguslik_vorm']))) expect(code).toMatch(/^\d{10}$/);
      else expect(code).toBe(regon);
    }
  });

  it('build VAT numbers per country and leave them blank for sole traders', () => {
    const eeKmkr = (v: string): boolean => {
      const d = [...v.slice(2)].map(Number);
      const w = [3, 7, 1, 3, 7, 1, 3, 7, 1];
      return /^EE10\d{7}$/.test(v) && d.reduce((s, x, i) => s + x * (w[i] ?? 0), 0) % 10 === 0;
    };
    const ltPvm = (v: string): boolean => {
      if (!/^LT\d{7}1\d$/.test(v)) return false;
      const d = [...v.slice(2)].map(Number);
      const sum = (w: number[]) => d.slice(0, 8).reduce((s, x, i) => s + x * (w[i] ?? 0), 0) % 11;
      let check = sum([1, 2, 3, 4, 5, 6, 7, 8]);
      if (check === 10) check = sum([3, 4, 5, 6, 7, 8, 9, 1]);
      return (check === 10 ? 0 : check) === d[8];
    };
    const expected: Record<CountryCode, (r: Row) => (v: string) => boolean> = {
      EE: () => eeKmkr,
      LV: (r) => (v) => v === `LV${str(r['registrikood'])}`,
      LT: () => ltPvm,
      NO: (r) => (v) => v === `NO${str(r['registrikood'])}MVA`,
      FI: (r) => (v) => v === `FI${str(r['registrikood']).replace('-', '')}`,
      PL: (r) => (v) => v === `PL${str(r['pl_nip'])}`,
      SE: (r) => (v) => v === `SE${str(r['registrikood'])}01`,
    };
    for (const c of COUNTRY_CODES) {
      let seen = 0;
      for (const r of world.get(c)?.companies ?? []) {
        const vat = c === 'EE' ? r['kmkr_nr'] : r['vat_number'];
        if (r['is_sole_trader'] === true) expect(vat, `${c} sole trader`).toBeNull();
        if (vat === null) continue;
        expect(r['vat_active'], `${c} ${str(vat)}`).toBe(true);
        expect(expected[c](r)(str(vat)), `${c} ${str(vat)}`).toBe(true);
        seen++;
      }
      expect(seen, `${c} has VAT payers`).toBeGreaterThan(0);
    }
  });
});

describe('reference codes', () => {
  it(
    'use only leaf activity codes, exactly one main activity, listed first',
    each((s) => {
      const leaves = new Set(loadReference(s.country).activityLeaves.map((l) => l.kood));
      for (const r of s.companies) {
        const acts = list(r['emtak']);
        expect(acts.length).toBeGreaterThan(0);
        expect(acts[0]?.['is_main']).toBe(true);
        expect(acts.filter((a) => a['is_main'] === true)).toHaveLength(1);
        expect(new Set(acts.map((a) => str(a['kood']))).size).toBe(acts.length);
        for (const a of acts) expect(leaves.has(str(a['kood'])), `${s.country} ${str(a['kood'])}`).toBe(true);
      }
    }),
  );

  it(
    'place companies on location leaves (LT by name only)',
    each((s) => {
      const leaves = loadReference(s.country).locationLeaves;
      const codes = new Set(leaves.map((l) => l.kood));
      const names = new Set(leaves.map((l) => l.name));
      for (const r of s.companies) {
        if (s.country === 'LT') {
          expect(r['ehak_kood']).toBeNull();
          expect(names.has(str(r['ehak_nimetus'])), str(r['ehak_nimetus'])).toBe(true);
        } else {
          expect(codes.has(str(r['ehak_kood'])), `${s.country} ${str(r['ehak_kood'])}`).toBe(true);
        }
        expect(str(r['aadress_text'])).not.toBe('');
        expect(str(r['asukoht'])).not.toBe('');
      }
    }),
  );

  it('cluster companies in the capital', () => {
    const share = (c: CountryCode, match: (r: Row) => boolean): number => {
      const rows = world.get(c)?.companies ?? [];
      return rows.filter(match).length / rows.length;
    };
    expect(share('EE', (r) => str(r['aadress_text']).includes('Tallinn'))).toBeGreaterThan(0.3);
    expect(share('LV', (r) => r['ehak_nimetus'] === 'Rīga')).toBeGreaterThan(0.3);
    expect(share('LT', (r) => r['ehak_nimetus'] === 'Vilniaus m. sav.')).toBeGreaterThan(0.25);
  });
});

describe('statuses and sizes', () => {
  it(
    "use the contract's normalised codes and keep the register's own text",
    each((s) => {
      for (const r of s.companies) {
        expect(Object.keys(STATUS_CODES)).toContain(str(r['staatus']));
        expect(str(r['staatus_tekstina'])).not.toBe('');
        expect(str(r['oiguslik_vorm_tekstina'])).not.toBe('');
        expect(str(r['esmaregistreerimise_kpv']) <= WORLD_DATE).toBe(true);
      }
    }),
  );

  it('have roughly the real active shares', () => {
    const active = (c: CountryCode): number => {
      const rows = world.get(c)?.companies ?? [];
      return rows.filter((r) => r['staatus'] === 'R').length / rows.length;
    };
    expect(active('EE')).toBeGreaterThan(0.76);
    expect(active('EE')).toBeLessThan(0.9);
    expect(active('LV')).toBeGreaterThan(0.38);
    expect(active('LV')).toBeLessThan(0.53);
    expect(active('FI')).toBeGreaterThan(0.34);
    expect(active('FI')).toBeLessThan(0.47);
  });

  it('write capital as text with numeric twins in the national currency', () => {
    const currency: Partial<Record<CountryCode, string>> = { EE: 'EUR', LV: 'EUR', NO: 'NOK', PL: 'PLN' };
    for (const [c, cur] of Object.entries(currency) as [CountryCode, string][]) {
      const withCapital = (world.get(c)?.companies ?? []).filter((r) => r['kapital'] !== null);
      expect(withCapital.length, c).toBeGreaterThan(0);
      for (const r of withCapital) {
        expect(r['kapital_currency']).toBe(cur);
        const [amount, unit] = str(r['kapital']).split(' ');
        expect(unit).toBe(cur);
        expect(Number(amount)).toBeCloseTo(num(r['kapital_amount']) ?? NaN, 2);
      }
    }
  });

  it('has heavy-tailed money with losses and negative equity in the annual figures', () => {
    for (const c of ['EE', 'NO', 'LV'] as const) {
      const rows = (world.get(c)?.companies ?? []).filter((r) => r['annual_revenue'] !== null);
      expect(rows.length, c).toBeGreaterThan(0);
      expect(rows.every((r) => r['annual_report_year'] !== null)).toBe(true);
      expect(
        rows.some((r) => (num(r['annual_net_profit']) ?? 0) < 0),
        c,
      ).toBe(true);
      const revenue = rows.map((r) => num(r['annual_revenue']) ?? 0).sort((a, b) => a - b);
      const median = revenue[Math.floor(revenue.length / 2)] ?? 0;
      expect(revenue.at(-1) ?? 0, c).toBeGreaterThan(20 * median);
    }
    const ee = (world.get('EE')?.companies ?? []).filter((r) => r['annual_equity'] !== null);
    expect(ee.some((r) => (num(r['annual_equity']) ?? 0) < 0)).toBe(true);
    for (const c of ['LT', 'FI', 'PL', 'SE'] as const) {
      expect(
        (world.get(c)?.companies ?? []).every((r) => r['annual_revenue'] === null),
        c,
      ).toBe(true);
    }
  });
});

describe('names, people and contacts', () => {
  const folded = (s: string): string =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();

  it(
    'derive search_name and search_people from the names',
    each((s) => {
      for (const r of s.companies) {
        expect(r['search_name']).toBe(folded(str(r['arinimi'])));
        const people = list(r['people']);
        expect(r['search_people']).toBe(
          people.length === 0 ? null : folded(people.map((p) => str(p['nimi'])).join(' | ')),
        );
      }
    }),
  );

  it('name people where registers publish them: none in LT and SE, PL boards but no sole-trader owners', () => {
    for (const c of ['LT', 'SE'] as const) {
      expect(
        (world.get(c)?.companies ?? []).every((r) => list(r['people']).length === 0),
        c,
      ).toBe(true);
    }
    for (const c of ['EE', 'LV', 'NO', 'FI', 'PL'] as const) {
      expect(
        (world.get(c)?.companies ?? []).some((r) => list(r['people']).length > 0),
        c,
      ).toBe(true);
    }
    const pl = world.get('PL')?.companies ?? [];
    expect(pl.filter((r) => r['is_sole_trader'] === true).every((r) => list(r['people']).length === 0)).toBe(
      true,
    );
    expect(pl.filter((r) => r['oiguslik_vorm'] === '117').some((r) => list(r['people']).length > 0)).toBe(
      true,
    );
    for (const r of pl.flatMap((x) => list(x['people']))) {
      expect(str(r['nimi'])).toMatch(/^\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+$/u);
      expect(r['isiku_tyyp']).toBe('F');
    }
  });

  it('writes names with the legal form where the registers do, with national letters', () => {
    const all = (c: CountryCode) => (world.get(c)?.companies ?? []).map((r) => str(r['arinimi']));
    expect(all('EE').some((n) => n.endsWith(' OÜ'))).toBe(true);
    expect(all('LV').some((n) => /^SIA ".+"$/.test(n))).toBe(true);
    expect(all('LT').some((n) => /^UAB ".+"$/.test(n))).toBe(true);
    expect(all('NO').some((n) => n.endsWith(' AS'))).toBe(true);
    expect(all('FI').some((n) => n.endsWith(' Oy'))).toBe(true);
    expect(all('PL').some((n) => n.endsWith(' sp. z o.o.'))).toBe(true);
    expect(all('SE').some((n) => n.endsWith(' AB'))).toBe(true);
    const text = COUNTRY_CODES.map((c) => all(c).join(' ')).join(' ');
    for (const ch of ['Õ', 'ä', 'ü', 'š', 'ā', 'ņ', 'ė', 'ų', 'ø', 'å', 'ö', 'ł', 'ż', 'ś']) {
      expect(text.toLowerCase(), ch).toContain(ch.toLowerCase());
    }
  });

  it(
    'list contacts of the known kinds and sources, and registered domains only in EE and FI',
    each((s) => {
      const sources = new Set<unknown>([null, ...CONTACT_SOURCES]);
      for (const r of s.companies) {
        for (const k of list(r['contacts'])) {
          expect(CONTACT_KINDS as readonly string[]).toContain(str(k['liik']));
          expect(sources.has(k['source']), `${s.country} ${str(k['source'])}`).toBe(true);
          if (s.country === 'PL') expect(str(k['source'])).toMatch(/^pl_|^own_site$/);
          if (k['liik'] === 'TEL' || k['liik'] === 'MOB') {
            const prefix = {
              EE: '+372 ',
              LV: '+371 ',
              LT: '+370 ',
              NO: '+47 ',
              FI: '+358 ',
              PL: '+48 ',
              SE: '+46 ',
            }[s.country];
            expect(str(k['sisu']).startsWith(prefix)).toBe(true);
          }
        }
        const domains = list(r['registered_domains']);
        if (s.country !== 'EE' && s.country !== 'FI') expect(domains).toHaveLength(0);
      }
      expect(s.companies.some((r) => list(r['contacts']).length > 0)).toBe(true);
    }),
  );
});

describe('sole traders', () => {
  it('are held but not sold in SE and PL, and sold elsewhere', () => {
    for (const c of COUNTRY_CODES) {
      const rows = world.get(c)?.companies ?? [];
      for (const r of rows) {
        const sole = r['is_sole_trader'] === true;
        expect(r['not_for_sale'], `${c} ${str(r['registrikood'])}`).toBe(sole && (c === 'SE' || c === 'PL'));
      }
    }
    const sole = (c: CountryCode, form: string) =>
      (world.get(c)?.companies ?? [])
        .filter((r) => r['oiguslik_vorm'] === form)
        .every((r) => r['is_sole_trader'] === true);
    expect(sole('EE', 'FIE')).toBe(true);
    expect(sole('NO', 'ENK')).toBe(true);
    expect(sole('SE', '10')).toBe(true);
    expect(sole('PL', '099')).toBe(true);
  });
});

describe('no personal ID codes anywhere', () => {
  // Shapes of the national personal codes: EE isikukood (11 digits, first 3-6, a birth date), NO
  // fødselsnummer (11 digits starting with a date), SE personnummer (10 or 12 digits with a date, an
  // optional - or +), LV personas kods (DDMMYY-NNNNN).
  const date = '(0[1-9]|1[0-2])(0[1-9]|[12]\\d|3[01])';
  const shapes = [
    new RegExp(`(?<!\\d)[3-6]\\d\\d${date}\\d{4}(?!\\d)`),
    new RegExp(`(?<!\\d)(0[1-9]|[12]\\d|3[01])(0[1-9]|1[0-2])\\d{7}(?!\\d)`),
    new RegExp(`(?<!\\d)(19|20)?\\d\\d${date}[-+]?\\d{4}(?!\\d)`),
    new RegExp(`(?<!\\d)(0[1-9]|[12]\\d|3[01])(0[1-9]|1[0-2])\\d\\d-\\d{5}(?!\\d)`),
  ];
  // Organisation numbers are not personal codes; they are checked for their own shape above.
  const codeColumns = new Set(['registrikood', 'vat_number', 'kmkr_nr', 'pl_regon', 'pl_nip']);
  const strings = (v: unknown, out: string[]): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
    else if (obj(v)) Object.values(v as Row).forEach((x) => strings(x, out));
  };

  it(
    'in any text of companies, history or workplaces',
    each((s) => {
      for (const r of [...s.companies, ...s.history, ...s.workplaces]) {
        const found: string[] = [];
        for (const [k, v] of Object.entries(r)) if (!codeColumns.has(k)) strings(v, found);
        // One pass per row over all its texts; the separator keeps texts from running into each other.
        const text = found.join('\u0001');
        for (const shape of shapes) {
          const m = shape.exec(text);
          expect(m, `${s.country}: "${m?.[0] ?? ''}" in ${JSON.stringify(r).slice(0, 200)}`).toBeNull();
        }
      }
    }),
  );
});

describe('history (spec 2.4)', () => {
  const lastDay = (y: number, m: number): string => {
    const d = new Date(Date.UTC(y, m, 0));
    return d.toISOString().slice(0, 10);
  };

  it("follows each country's coverage and period labels", () => {
    for (const r of world.get('EE')?.history ?? []) {
      const [y, q] = [Number(r['year']), Number(r['quarter'])];
      expect(r['granularity']).toBe('quarterly');
      expect(r['period']).toBe(`${y}-Q${q}`);
      expect(r['month']).toBe(0);
      expect(y * 4 + q).toBeGreaterThanOrEqual(2025 * 4 + 1);
      expect(y * 4 + q).toBeLessThanOrEqual(2026 * 4 + 3);
      expect(r['as_of']).toBe(lastDay(y, q * 3));
    }
    for (const r of world.get('LV')?.history ?? []) {
      const y = Number(r['year']);
      expect([r['granularity'], r['period'], r['quarter'], r['month']]).toEqual(['annual', String(y), 0, 0]);
      expect(y).toBeGreaterThanOrEqual(2006);
      expect(y).toBeLessThanOrEqual(2025);
      expect(r['as_of']).toBe(`${y}-12-31`);
    }
    const lt = world.get('LT')?.history ?? [];
    for (const r of lt) {
      const [y, m] = [Number(r['year']), Number(r['month'])];
      expect(r['quarter']).toBe(0);
      if (r['granularity'] === 'monthly') {
        expect([2021, 2022, 2023, 2025]).toContain(y);
        expect(r['period']).toBe(`${y}-${String(m).padStart(2, '0')}`);
        expect(r['as_of']).toBe(lastDay(y, m));
        expect(r['employees']).not.toBeNull();
        expect(r['turnover']).toBeNull();
      } else if (r['granularity'] === 'annual') {
        expect([r['period'], m]).toEqual([String(y), 0]);
        expect(y).toBeGreaterThanOrEqual(2015);
        expect(y).toBeLessThanOrEqual(2025);
        const asOf = str(r['as_of']);
        expect(asOf.slice(0, 4)).toBe(String(y));
        expect(asOf).toBe(lastDay(y, Number(asOf.slice(5, 7))));
      } else {
        expect([r['granularity'], r['period'], y, m]).toEqual(['year_to_date', '2026', 2026, 0]);
        expect(r['state_taxes']).not.toBeNull();
      }
    }
    expect(new Set(lt.map((r) => r['granularity']))).toEqual(new Set(['monthly', 'annual', 'year_to_date']));
    expect(lt.some((r) => r['granularity'] === 'annual' && !str(r['as_of']).endsWith('-12-31'))).toBe(true);
    const no = world.get('NO')?.history ?? [];
    expect(new Set(no.map((r) => r['registrikood'])).size).toBe(no.length);
    for (const r of no) {
      expect([r['granularity'], r['period'], r['quarter'], r['month']]).toEqual([
        'snapshot',
        String(r['year']),
        0,
        0,
      ]);
      expect(num(r['employees'])).toBeGreaterThanOrEqual(0);
    }
    // Some units carry a registered 0 (BRREG's `0` beside harRegistrertAntallAnsatte false, issue 28).
    expect(no.some((r) => num(r['employees']) === 0)).toBe(true);
  });

  it(
    'belongs to known companies, and not every company has one',
    each((s) => {
      if (!COUNTRIES[s.country].hasHistory) return;
      const codes = new Set(s.companies.map((r) => r['registrikood']));
      for (const h of s.history) expect(codes.has(h['registrikood'])).toBe(true);
      const withHistory = new Set(s.history.map((h) => h['registrikood']));
      expect(withHistory.size).toBeLessThan(s.companies.length);
    }),
  );

  it(
    'agrees with latest_metrics and the last_quarter_* columns (recomputed here)',
    each((s) => {
      if (!COUNTRIES[s.country].hasHistory) {
        for (const r of s.companies) expect(r['latest_metrics']).toBeNull();
        return;
      }
      const byCode = new Map<string, Row[]>();
      for (const h of s.history)
        byCode.set(str(h['registrikood']), [...(byCode.get(str(h['registrikood'])) ?? []), h]);
      const newest = (rows: Row[]): Row | null =>
        rows.reduce<Row | null>((best, r) => {
          if (!best) return r;
          const key = (x: Row) => [
            str(x['as_of']),
            Number(x['year']),
            Number(x['quarter']),
            Number(x['month']),
          ];
          const [a, b] = [key(r), key(best)];
          for (let i = 0; i < a.length; i++) {
            if (a[i]! > b[i]!) return r;
            if (a[i]! < b[i]!) return best;
          }
          return best;
        }, null);
      const period = (r: Row | null) =>
        r ? { year: r['year'], quarter: r['quarter'], month: r['month'], as_of: r['as_of'] } : null;
      const close = (a: unknown, b: number | null, what: string) => {
        if (b === null) expect(a, what).toBeNull();
        else expect(Math.abs((num(a) ?? NaN) - b), what).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(b)));
      };
      for (const c of s.companies) {
        const code = str(c['registrikood']);
        const rows = byCode.get(code) ?? [];
        const tp = newest(rows.filter((r) => r['turnover'] !== null));
        const ep = newest(rows.filter((r) => r['employees'] !== null));
        const lm = obj(c['latest_metrics']);
        if (!tp && !ep) {
          expect(lm, code).toBeNull();
          expect(c['last_quarter_turnover']).toBeNull();
          continue;
        }
        expect(lm, code).not.toBeNull();
        expect(lm?.['turnover_period'], code).toEqual(period(tp));
        expect(lm?.['employees_period'], code).toEqual(period(ep));
        const top = !ep || (tp && str(tp['as_of']) >= str(ep['as_of'])) ? tp : ep;
        expect([lm?.['year'], lm?.['quarter'], lm?.['month']], code).toEqual([
          top?.['year'],
          top?.['quarter'],
          top?.['month'],
        ]);
        close(c['last_quarter_turnover'], tp ? num(tp['turnover']) : null, `${code} turnover`);
        close(c['last_quarter_employees_number'], ep ? num(ep['employees']) : null, `${code} employees`);
        const qidx = (r: Row) => Number(r['year']) * 4 + Number(r['quarter']);
        let sum4: number | null = null;
        let prev: Row | undefined;
        if (tp?.['granularity'] === 'quarterly') {
          sum4 = rows
            .filter(
              (r) =>
                r['granularity'] === 'quarterly' &&
                qidx(r) >= qidx(tp) - 3 &&
                qidx(r) <= qidx(tp) &&
                r['turnover'] !== null,
            )
            .reduce((a, r) => a + (num(r['turnover']) ?? 0), 0);
          prev = rows.find((r) => r['granularity'] === 'quarterly' && qidx(r) === qidx(tp) - 1);
        } else if (tp?.['granularity'] === 'annual') {
          sum4 = num(tp['turnover']);
          prev = rows.find(
            (r) => r['granularity'] === 'annual' && Number(r['year']) === Number(tp['year']) - 1,
          );
        }
        close(c['last_4_quarters_turnover_sum'], sum4, `${code} sum4`);
        const p = prev ? num(prev['turnover']) : null;
        const t = tp ? num(tp['turnover']) : null;
        close(
          c['last_quarter_turnover_growth_pct'],
          p !== null && p !== 0 && t !== null ? ((t - p) / Math.abs(p)) * 100 : null,
          `${code} growth`,
        );
      }
    }),
  );

  it('gives LV its annual report figures from the latest annual row', () => {
    for (const c of world.get('LV')?.companies ?? []) {
      const lm = obj(c['latest_metrics']);
      const tp = obj(lm?.['turnover_period']);
      expect(c['annual_report_year']).toBe(tp ? tp['year'] : null);
      expect(c['annual_revenue']).toBe(tp ? c['last_quarter_turnover'] : null);
    }
  });
});

describe('Sweden', () => {
  const se = () => world.get('SE') as StagedCountry;

  it('carries SCB size bands, blocks and the labelled register block naming SCB', () => {
    for (const r of se().companies) {
      const band = num(r['se_employees_band']) ?? -1;
      expect(band).toBeGreaterThanOrEqual(0);
      expect(band).toBeLessThanOrEqual(16);
      expect(typeof r['marketing_optout']).toBe('boolean');
      expect(typeof r['phone_optout']).toBe('boolean');
      const reg = obj(r['se_register']);
      expect(str(reg?.['source'])).toContain('Statistics Sweden (SCB)');
      // SCB's owner-category code table is unknown: a label, and no invented code (docs/world.md).
      const owner = obj(reg?.['owner_category']);
      expect(owner?.['code']).toBeNull();
      expect(str(owner?.['label'])).not.toBe('');
      for (const unknown of ['export_import', 'sme_class']) {
        const labelled = obj(reg?.[unknown]);
        if (labelled) expect(labelled['code']).toBeNull();
      }
      const turnover = obj(reg?.['turnover_class']);
      if (turnover) expect(Number(turnover['code'])).toBe(num(r['se_turnover_band']));
    }
    for (const c of COUNTRY_CODES.filter((x) => x !== 'SE')) {
      expect(
        (world.get(c)?.companies ?? []).every(
          (r) => r['se_register'] === null && r['se_employees_band'] === null,
        ),
      ).toBe(true);
    }
  });

  it('has workplaces with unique CFAR numbers, exactly one main per company, inside Sweden', () => {
    const w = se().workplaces;
    expect(w.length).toBeGreaterThan(0);
    const companies = new Map(se().companies.map((r) => [str(r['registrikood']), r]));
    const kommuner = new Set(loadReference('SE').locationLeaves.map((l) => l.kood));
    expect(new Set(w.map((r) => r['cfar_nr'])).size).toBe(w.length);
    const mains = new Map<string, number>();
    for (const r of w) {
      const code = str(r['registrikood']);
      expect(code).not.toBe('');
      expect(companies.get(code)?.['is_sole_trader']).toBe(false);
      expect(String(r['cfar_nr'])).toMatch(/^\d{8}$/);
      expect(kommuner.has(str(r['kommun_code']))).toBe(true);
      if (r['is_main'] === true) mains.set(code, (mains.get(code) ?? 0) + 1);
      const n = num(r['sweref99tm_n']) ?? 0;
      const e = num(r['sweref99tm_e']) ?? 0;
      expect(n).toBeGreaterThanOrEqual(SWEDEN_SWEREF_BOUNDS.minN);
      expect(n).toBeLessThanOrEqual(SWEDEN_SWEREF_BOUNDS.maxN);
      expect(e).toBeGreaterThanOrEqual(SWEDEN_SWEREF_BOUNDS.minE);
      expect(e).toBeLessThanOrEqual(SWEDEN_SWEREF_BOUNDS.maxE);
      expect(num(r['employees_band_code'])).toBeLessThanOrEqual(16);
    }
    for (const code of new Set(w.map((r) => str(r['registrikood'])))) expect(mains.get(code), code).toBe(1);
    expect(w.some((r) => r['is_active'] === false)).toBe(true);
    expect(w.some((r) => r['marketing_optout'] === true)).toBe(true);
  });
});
