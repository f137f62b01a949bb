import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COUNTRIES } from '../../src/contract/countries.ts';
import { csvText, errorText, formats, reportCurrency } from '../../src/web/static/js/format.js';
import { chartPoints } from '../../src/web/static/js/search/detail.js';
import { fieldWording } from '../../src/web/static/js/search/filters.js';
import { fold, matchItems, optionItems, treeItems } from '../../src/web/static/js/search/pickers.js';
import { cellText } from '../../src/web/static/js/search/results.js';
import {
  ariaSort,
  atPage,
  countTexts,
  initialState,
  isSet,
  loosenChoices,
  pageButtons,
  paramsOf,
  placeNames,
  placeOf,
  rowsCost,
  sortedBy,
  type Field,
} from '../../src/web/static/js/search/state.js';

/**
 * The dashboard script's pure parts (issue 32 item 3), imported from the very files the browser loads and
 * run under Node: formatting, the search's state transitions, the wording of the count and the cost of the
 * neighbouring pages. Expected values are written out or computed here another way (the spec's price
 * table in cents, pages enumerated row by row), never by calling the code under test again.
 */

/** Spec 8.2 row prices in hundredths of a credit, so the expected costs are integer sums. */
const SPEC_PRICE_CENTS = { EE: 4, FI: 4, PL: 4, LV: 8, LT: 8, NO: 10, SE: 24 } as const;
const cents = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
const NBSP = '\u00a0';

const en = formats('en-US');
const de = formats('de-DE');

describe('format.js', () => {
  it('writes credits, counts, prices and money in the reader locale', () => {
    expect([en.credits(1234.5), de.credits(1234.5), en.credits('0.4'), de.credits(0)]).toEqual([
      '1,234.50',
      '1.234,50',
      '0.40',
      '0,00',
    ]);
    expect([en.count(1234567), de.count(1234567), de.count(2.25)]).toEqual(['1,234,567', '1.234.567', '2,3']);
    expect([en.price(0.04), de.price(0.24), en.price(0.000125)]).toEqual(['0.04', '0,24', '0.000125']);
    expect([de.money(6652, 'EUR'), en.money(6652, 'NOK'), en.money(-12.6, 'EUR')]).toEqual([
      `6.652${NBSP}€`,
      `NOK${NBSP}6,652`,
      '-€13',
    ]);
  });

  it('names a metrics period as people write it', () => {
    expect([
      en.period({ year: 2026, quarter: 1 }),
      en.period({ year: 2026, month: 3 }),
      de.period({ year: 2026, month: 3 }),
      en.period({ year: 2025 }),
      en.period({ year: 2025, quarter: 0, month: 0 }),
      en.period(null),
      en.period({}),
    ]).toEqual(['2026 Q1', 'March 2026', 'März 2026', '2025', '2025', '', '']);
  });

  it('reports annual figures in the currency of the country profile: NOK for Norway, EUR for the annual-report countries in the euro (spec 2.2)', () => {
    expect([COUNTRIES.EE, COUNTRIES.LV, COUNTRIES.NO].map(reportCurrency)).toEqual(['EUR', 'EUR', 'NOK']);
    expect(reportCurrency(undefined)).toBe('EUR');
  });

  it('says why a call failed: the issues of a 422, the detail, or the status', () => {
    const issues = [
      { param: 'page_size', msg: 'at most 500' },
      { param: 'country', msg: 'unknown country' },
    ];
    expect(errorText(422, { detail: issues })).toBe('page_size: at most 500; country: unknown country');
    expect(errorText(402, { detail: 'insufficient credits' })).toBe('insufficient credits');
    expect([errorText(502, {}), errorText(500, null), errorText(422, { detail: [] })]).toEqual([
      'HTTP 502',
      'HTTP 500',
      'HTTP 422',
    ]);
  });

  it('writes CSV with every column, every cell quoted, and no formula a spreadsheet would run', () => {
    const text = csvText([
      { registrikood: '10000018', arinimi: '=HYPERLINK("x")', employees: 3 },
      { registrikood: '10000026', arinimi: 'Say "hi" OÜ', tags: ['a', 'b'], employees: null },
      { arinimi: '+372 5555', note: '-1', mail: '@x' },
    ]);
    expect(text).toBe(
      [
        '"registrikood","arinimi","employees","tags","note","mail"',
        `"10000018","'=HYPERLINK(""x"")","3","","",""`,
        `"10000026","Say ""hi"" OÜ","","[""a"",""b""]","",""`,
        `"","'+372 5555","","","'-1","'@x"`,
      ].join('\r\n'),
    );
  });
});

describe('search state', () => {
  it('sorts ascending first, turns a second click on the same column around, and starts at page 1', () => {
    const s0 = initialState();
    expect(s0).toEqual({ page: 1, sort_by: 'registrikood', sort_dir: 'asc' });
    const s1 = atPage(s0, 4);
    expect(s1).toEqual({ page: 4, sort_by: 'registrikood', sort_dir: 'asc' });
    expect(sortedBy(s1, 'registrikood')).toEqual({ page: 1, sort_by: 'registrikood', sort_dir: 'desc' });
    expect(sortedBy(s1, 'company_name')).toEqual({ page: 1, sort_by: 'company_name', sort_dir: 'asc' });
    const desc = { page: 2, sort_by: 'company_name', sort_dir: 'desc' } as const;
    expect(sortedBy(desc, 'company_name')).toEqual({ page: 1, sort_by: 'company_name', sort_dir: 'asc' });
    expect([ariaSort(desc, 'company_name'), ariaSort(s0, 'registrikood'), ariaSort(s0, null)]).toEqual([
      'descending',
      'ascending',
      null,
    ]);
    // Transitions make new states; the old one is what the page showed and stays as it was.
    expect(s1.page).toBe(4);
  });

  it('sends only the filters that are set, and can leave one out for a what-if count', () => {
    const field = (get: Field['get']): Field => ({ label: 'x', get, clear: () => {} });
    const name = field(() => [['name', 'bygg']]);
    const empty = field(() => [['vat_active', '']]);
    const codes = field(() => [['industry_codes', ['41', '41.2']]]);
    const none = field(() => [['status', []]]);
    const range = field(() => [
      ['registered_from', '2020-01-01'],
      ['registered_to', ''],
    ]);
    const all = [name, empty, codes, none, range];
    expect(paramsOf(all)).toEqual({
      name: 'bygg',
      industry_codes: ['41', '41.2'],
      registered_from: '2020-01-01',
    });
    expect(paramsOf(all, codes)).toEqual({ name: 'bygg', registered_from: '2020-01-01' });
    expect(all.map(isSet)).toEqual([true, false, true, false, true]);
  });

  it('words the count and the cost of the first page', () => {
    const quote = { rows_first_page: 10, credits_first_page: 0.4, price: 0.04, waived_by: null };
    expect(countTexts({ count: 1234, quote }, de)).toEqual({
      count: '1.234 companies match.',
      quote: 'The first 10 rows cost 0,40 credits (0,04 a row). Counting is free.',
      run: 'Run search (0,40 credits)',
      runnable: true,
    });
    expect(
      countTexts({ count: 1, quote: { ...quote, rows_first_page: 1, credits_first_page: 0.04 } }, en).count,
    ).toBe('1 company matches.');
    expect(countTexts({ count: 7, quote: { ...quote, waived_by: 'country plan' } }, en)).toEqual({
      count: '7 companies match.',
      quote: 'The first 10 rows cost nothing (country plan).',
      run: 'Run search',
      runnable: true,
    });
    expect(countTexts({ count: 0, quote }, en)).toEqual({
      count: '0 companies match.',
      quote: 'Nothing to buy: counting is free.',
      run: 'Run search',
      runnable: false,
    });
  });

  it('prices the next and previous page at each country row price of spec 8.2', () => {
    const meta = { rows_returned: 10, credits_charged: 0.4 };
    for (const [cc, c] of Object.entries(SPEC_PRICE_CENTS)) {
      const price = c / 100;
      // 27 companies, 10 a page: page 1 -> page 2 has 10 rows; page 2 -> page 3 has the last 7.
      const first = pageButtons({ page: 1, page_size: 10, total: 27 }, meta, price, en);
      expect([cc, first.previous, first.next]).toEqual([
        cc,
        { page: 0, disabled: true, label: 'Previous page' },
        { page: 2, disabled: false, label: `Next page (10 rows, ${cents(10 * c)} credits)` },
      ]);
      const second = pageButtons({ page: 2, page_size: 10, total: 27 }, meta, price, en);
      expect([cc, second.previous.label, second.next.label]).toEqual([
        cc,
        `Previous page (10 rows, ${cents(10 * c)} credits)`,
        `Next page (7 rows, ${cents(7 * c)} credits)`,
      ]);
      const last = pageButtons({ page: 3, page_size: 10, total: 27 }, meta, price, en);
      expect([cc, last.next]).toEqual([cc, { page: 4, disabled: true, label: 'Next page' }]);
      // To the micro-credit the wallet counts in: 7 x 0.04 is 0.28, not 0.28000000000000003.
      expect(rowsCost(7, price)).toBe(Number(cents(7 * c)));
    }
  });

  it('says "free" on the page buttons when this page cost nothing though it had rows (a plan)', () => {
    const b = pageButtons(
      { page: 2, page_size: 25, total: 60 },
      { rows_returned: 25, credits_charged: 0 },
      0.24,
      de,
    );
    expect([b.previous.label, b.next.label]).toEqual([
      'Previous page (25 rows, free)',
      'Next page (10 rows, free)',
    ]);
  });

  it('counts the rows of the next page as the rows that are on it, for any total and page size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...Object.values(SPEC_PRICE_CENTS)),
        (total, size, page, c) => {
          // Each row's page, enumerated: the next page holds the rows whose page is page + 1.
          const pageOfRow = Array.from({ length: total }, (_, i) => Math.floor(i / size) + 1);
          const nextRows = pageOfRow.filter((p) => p === page + 1).length;
          const lastPage = Math.max(1, ...pageOfRow);
          const b = pageButtons(
            { page, page_size: size, total },
            { rows_returned: 1, credits_charged: 1 },
            c / 100,
            en,
          );
          expect(b.next.disabled).toBe(page >= lastPage);
          expect(b.next.label).toBe(
            nextRows === 0 ? 'Next page' : `Next page (${nextRows} rows, ${cents(nextRows * c)} credits)`,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('offers to clear the filters that bring companies back, most first, at most three', () => {
    const set = ['a', 'b', 'c', 'd', 'e'];
    expect(loosenChoices(set, [0, 5, 120, 7, 3])).toEqual([
      { f: 'c', n: 120 },
      { f: 'd', n: 7 },
      { f: 'b', n: 5 },
    ]);
    expect(loosenChoices(set, [0, 0, 0, 0, 0])).toEqual([]);
  });

  it('names a place by its town and top-level region from the location tree, else as the row names it', () => {
    const tree = [
      {
        kood: '0037',
        label: 'Harju maakond',
        children: [
          { kood: '0784', label: 'Tallinn', children: [{ kood: '0176', label: 'Haabersti linnaosa' }] },
        ],
      },
      { kood: '0039', label: 'Hiiu maakond' },
    ];
    const places = placeNames(tree);
    expect(Object.fromEntries(places)).toEqual({
      '0037': 'Harju maakond',
      '0784': 'Tallinn, Harju maakond',
      '0176': 'Haabersti linnaosa, Harju maakond',
      '0039': 'Hiiu maakond',
    });
    expect(placeOf({ ehak_kood: '0176', ehak_nimetus: 'Tallinn' }, places)).toBe(
      'Haabersti linnaosa, Harju maakond',
    );
    expect(placeOf({ ehak_kood: '9999', ehak_nimetus: 'Oslo' }, places)).toBe('Oslo');
    expect(placeOf({ ehak_nimetus: 'Bergen' }, null)).toBe('Bergen');
    expect(placeOf({}, null)).toBeNull();
  });
});

describe('pickers, filters, results and detail (pure parts)', () => {
  it('finds names whatever their accents and capitals', () => {
    expect([fold('Põhja-TALLINNA'), fold('Łódź'), fold('Ärinimi Öü'), fold(null)]).toEqual([
      'pohja-tallinna',
      'łodz',
      'arinimi ou',
      '',
    ]);
  });

  it('sends an activity and every code under it, a place its own codes, broad items first', () => {
    const activities = treeItems(
      [
        {
          kood: 'F',
          label: 'Construction',
          children: [
            {
              kood: '41',
              label: 'Buildings',
              children: [{ kood: '41.2', label: 'Construction of buildings' }],
            },
          ],
        },
      ],
      false,
    );
    expect(activities.map((i) => [i.key, i.label, i.values, i.depth])).toEqual([
      ['F', 'F Construction', ['F', '41', '41.2'], 0],
      ['41', '41 Buildings', ['41', '41.2'], 1],
      ['41.2', '41.2 Construction of buildings', ['41.2'], 2],
    ]);
    const places = treeItems(
      [
        {
          kood: '0037',
          label: 'Harju maakond',
          codes: ['0037', '0784'],
          children: [
            {
              kood: '0784',
              label: 'Tallinn',
              codes: ['0784', '0176'],
              children: [{ kood: '0176', label: 'Haabersti' }],
            },
          ],
        },
        { kood: 'LT-1', label: 'Vilnius', locations: ['Vilnius', 'Vilniaus m.'] },
      ],
      true,
    );
    expect(places.map((i) => [i.key, i.label, i.detail, i.values])).toEqual([
      ['0037', 'Harju maakond', null, ['0037', '0784']],
      ['LT-1', 'Vilnius', null, ['Vilnius', 'Vilniaus m.']],
      ['0784', 'Tallinn', '(Harju maakond)', ['0784', '0176']],
      ['0176', 'Haabersti', '(Tallinn, Harju maakond)', ['0176']],
    ]);
  });

  it('offers matches from two letters on (or at once for a short list), never one already chosen', () => {
    const items = optionItems([
      { value: 'OÜ', label: 'Osaühing' },
      { value: 'AS', label: 'Aktsiaselts' },
      { value: '__all__', label: 'Every status' },
      { value: 'Registered', label: 'Registered' },
    ]);
    expect(items.map((i: { label: string }) => i.label)).toEqual([
      'Osaühing (OÜ)',
      'Aktsiaselts (AS)',
      'Every status',
      'Registered',
    ]);
    const keys = (typed: string, chosen: string[], browse: boolean) =>
      matchItems(items, typed, new Map(chosen.map((k) => [k, null])), browse).map(
        (i: { key: string }) => i.key,
      );
    expect(keys('o', [], false)).toEqual([]);
    expect(keys('o', [], true)).toEqual(['OÜ', 'AS', '__all__', 'Registered']);
    expect(keys('  OSA ', [], false)).toEqual(['OÜ']);
    expect(keys('OÜ', [], false)).toEqual(['OÜ']);
    expect(keys('as', [], false)).toEqual(['AS']);
    expect(keys('as', ['AS'], false)).toEqual([]);
    const many = optionItems(Array.from({ length: 40 }, (_, i) => ({ value: `c${i}`, label: `Code ${i}` })));
    expect(matchItems(many, 'code', new Map(), false)).toHaveLength(30);
  });

  it("labels a filter in the page's words, naming the country's activity classification", () => {
    const presentation = {
      byParam: { name: { group: 'name', label: 'Company name contains', hint: null } },
    };
    expect(fieldWording({ param: 'name', label: 'name' }, presentation, 'EMTAK')).toEqual({
      key: 'name',
      group: 'name',
      label: 'Company name contains',
      hint: null,
    });
    expect(fieldWording({ param: 'industry_codes', label: 'x' }, presentation, 'SNI').label).toBe(
      'Activity (SNI)',
    );
    expect(
      fieldWording({ param_min: 'revenue_min', label: 'Revenue', note: 'EUR' }, presentation, 'NACE'),
    ).toEqual({
      key: 'revenue_min',
      group: 'more',
      label: 'Revenue',
      hint: 'Amounts in EUR.',
    });
    expect(
      fieldWording({ param: 'x', label: 'X', note: 'Send a node `kood`' }, presentation, 'NACE').hint,
    ).toBeNull();
  });

  it('shows revenue in the report currency and numbers in the reader locale', () => {
    expect([
      cellText(de, COUNTRIES.NO, 'annual_revenue', 1500000),
      cellText(en, COUNTRIES.EE, 'annual_revenue', 1500000),
      cellText(de, COUNTRIES.EE, 'last_quarter_employees_number', 1234),
      cellText(en, COUNTRIES.EE, 'arinimi', 'Näidis OÜ'),
      cellText(en, COUNTRIES.EE, 'arinimi', null),
    ]).toEqual([`1.500.000${NBSP}NOK`, '€1,500,000', '1.234', 'Näidis OÜ', '']);
  });

  it('draws history points evenly spread, each series scaled to its own maximum', () => {
    const periods = [
      { period: '2024', turnover: 50, employees: null },
      { period: '2025', turnover: 100, employees: 4 },
      { period: '2026', turnover: 0, employees: 2 },
    ];
    // 600 x 160 with a 10 margin: x at 10, 300, 590; y = 150 - value / max * 140.
    expect(chartPoints(periods, 'turnover', 600, 160)).toBe('10.0,80.0 300.0,10.0 590.0,150.0');
    expect(chartPoints(periods, 'employees', 600, 160)).toBe('300.0,10.0 590.0,80.0');
    expect(chartPoints([{ period: '2025', turnover: null }], 'turnover', 600, 160)).toBeNull();
  });
});
