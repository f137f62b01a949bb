/* global document */
// A company's detail as labelled sections for people (no field names, no JSON), with buttons that buy its
// history (a small chart and a table) and, for Sweden, its workplaces.
import { api, costly, el } from '../dom.js';
import { reportCurrency } from '../format.js';

const CONTACT_KINDS = { WWW: 'Website', EMAIL: 'E-mail', TEL: 'Phone', MOB: 'Mobile', DOMAIN: 'Domain' };

/** A titled list, or "None published." */
function list(title, items, render) {
  return el(
    'section',
    {},
    el('h3', {}, title),
    items && items.length
      ? el(
          'ul',
          {},
          items.map((x) => el('li', {}, render(x))),
        )
      : el('p', {}, 'None published.'),
  );
}

/** A titled section of label/value pairs; pairs without a value are left out, never shown as "null". */
function facts(title, pairs) {
  const shown = pairs.filter(([, v]) => v !== null && v !== undefined && v !== '');
  return el(
    'section',
    { class: 'facts' },
    el('h3', {}, title),
    shown.length
      ? el(
          'dl',
          {},
          shown.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
        )
      : el('p', {}, 'None published.'),
  );
}

/** "Name, role, since 2009-08-18", the date kept on one line (never "2009-" / "08-18"). */
function person(p) {
  const since = p.algus_kpv ? ['since ', el('span', { class: 'nowrap' }, p.algus_kpv)] : null;
  return [p.nimi, p.roll_tekstina ?? p.roll, since].filter(Boolean).flatMap((x, i) => (i ? [', ', x] : [x]));
}

const yesNo = (v) => (v === true ? 'yes' : v === false ? 'no' : null);

function identityFacts(fmt, d) {
  return facts('Identity', [
    ['Registry code', d.registrikood],
    ['Legal form', [d.oiguslik_vorm, d.oigusliku_vormi_alaliik].filter(Boolean).join(', ') || null],
    ['VAT number', d.vat_number ?? d.kmkr_nr],
    ['VAT-registered', yesNo(d.vat_active)],
    [
      'Share capital',
      typeof d.kapital_amount === 'number' && d.kapital_currency
        ? fmt.money(d.kapital_amount, d.kapital_currency)
        : d.kapital,
    ],
  ]);
}

function financeFacts(fmt, d, country) {
  const amount = (v, currency) => (typeof v === 'number' ? fmt.money(v, currency) : null);
  const withPeriod = (value, period) => (value === null ? null : `${value}${period ? ` (${period})` : ''}`);
  const m = d.latest_metrics ?? {};
  const cur = reportCurrency(country);
  const employees = typeof m.employees === 'number' ? fmt.count(m.employees) : null;
  return facts('Finances', [
    ['Turnover', withPeriod(amount(m.turnover, 'EUR'), fmt.period(m.turnover_period))],
    ['Employees', withPeriod(employees, fmt.period(m.employees_period))],
    ['Turnover, last 4 quarters', amount(d.last_4_quarters_turnover_sum, 'EUR')],
    ['Revenue (annual report)', amount(d.annual_revenue, cur)],
    ['Net profit (annual report)', amount(d.annual_net_profit, cur)],
    ['Equity (annual report)', amount(d.annual_equity, cur)],
    ['Total assets (annual report)', amount(d.annual_total_assets, cur)],
  ]);
}

function swedishFacts(se) {
  const coded = (c) => (c && (c.label || c.code) ? (c.label ?? c.code) : null);
  return facts('Swedish register', [
    ['Size class', coded(se.sme_class)],
    ['Turnover class', coded(se.turnover_class)],
    ['Owner category', coded(se.owner_category)],
    ['Export and import', coded(se.export_import)],
    ['Listing', coded(se.listing)],
    ['Activity started', se.activity_start_date],
    ['Trade names', se.trade_names?.length ? se.trade_names.join(', ') : null],
  ]);
}

/** The sections of a company, in the order people look for them. */
function sections(fmt, d, country) {
  return [
    identityFacts(fmt, d),
    facts('Status', [
      ['Register status', d.staatus_tekstina ?? d.staatus],
      ['Registered', d.esmaregistreerimise_kpv],
      ['On the tax-debtor list', yesNo(d.has_tax_debt)],
    ]),
    facts('Address', [
      ['Address', d.aadress_text],
      ['Area', d.ehak_nimetus],
    ]),
    list('Contacts', d.contacts, (c) => `${CONTACT_KINDS[c.liik] ?? c.liik}: ${c.sisu}`),
    list('Activities', d.emtak, (a) => `${a.kood} ${a.label ?? ''}${a.is_main ? ' (main)' : ''}`),
    list('People', d.people, person),
    financeFacts(fmt, d, country),
    d.se_register ? swedishFacts(d.se_register) : '',
  ];
}

/** The company's detail in #detail, its heading focused so a screen reader reads it next. */
export function renderDetail(s, d, meta, cc) {
  const historyBox = el('div', {});
  const workplacesBox = el('div', {});
  const upTo = `up to ${s.fmt.credits(s.priceOf(cc))} credits`;
  const buttons = el(
    'p',
    { class: 'row' },
    el(
      'button',
      {
        type: 'button',
        'data-costs': true,
        onclick: (e) => costly(() => loadHistory(s, cc, d.registrikood, historyBox, e.currentTarget)),
      },
      `Show history (${upTo})`,
    ),
    s.countryInfo(cc)?.workplaces
      ? el(
          'button',
          {
            type: 'button',
            'data-costs': true,
            onclick: () => costly(() => loadWorkplaces(s, cc, d.registrikood, workplacesBox)),
          },
          `Show workplaces (${upTo})`,
        )
      : null,
  );
  s.ui.detail.replaceChildren(
    el('h2', { tabindex: '-1', id: 'detail-h' }, d.arinimi ?? d.registrikood),
    el('p', {}, `Charged ${s.fmt.credits(meta.credits_charged)} credits.`),
    ...sections(s.fmt, d, s.countryInfo(cc)),
    buttons,
    historyBox,
    workplacesBox,
  );
  document.getElementById('detail-h').focus();
}

async function loadHistory(s, cc, code, box, button) {
  try {
    const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'history' });
    s.setBalance(res.meta.credit_balance);
    const periods = res.data.periods;
    button.setAttribute('data-done', '');
    button.disabled = true;
    button.textContent = 'History shown below';
    box.replaceChildren(
      el('h3', {}, 'History'),
      el('p', {}, `Charged ${s.fmt.credits(res.meta.credits_charged)} credits.`),
      ...(periods.length
        ? [historyChart(periods), historyTable(s.fmt, periods)]
        : [el('p', {}, 'No history for this company (not charged).')]),
    );
  } catch (err) {
    s.showError(err);
  }
}

async function loadWorkplaces(s, cc, code, box) {
  try {
    const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'workplaces' });
    s.setBalance(res.meta.credit_balance);
    const line = (w) =>
      `${w.is_main ? 'Main: ' : ''}${w.name ?? ''}, ${w.visit_address ?? 'address not published'} ${w.kommun_name ?? ''}`;
    box.replaceChildren(
      el('h3', {}, 'Workplaces'),
      el(
        'p',
        {},
        `Charged ${s.fmt.credits(res.meta.credits_charged)} credits. Source: ${res.data.source ?? ''}`,
      ),
      el(
        'ul',
        {},
        res.data.workplaces.map((w) => el('li', {}, line(w))),
      ),
    );
  } catch (err) {
    s.showError(err);
  }
}

/**
 * The points of one series in a w x h box with a 10-unit margin: periods spread evenly left to right, each
 * value scaled to the series' own maximum; periods without a value are left out. Null when none has one.
 */
export function chartPoints(periods, key, w, h) {
  const vals = periods.map((p) => p[key]).filter((v) => typeof v === 'number');
  if (!vals.length) return null;
  const max = Math.max(...vals, 1);
  const step = (w - 20) / Math.max(1, periods.length - 1);
  return periods
    .map((p, i) =>
      typeof p[key] === 'number'
        ? `${(10 + i * step).toFixed(1)},${(h - 10 - (p[key] / max) * (h - 20)).toFixed(1)}`
        : null,
    )
    .filter(Boolean)
    .join(' ');
}

/** Turnover and employees per period as two SVG polylines; the figures are in the table beside. */
function historyChart(periods) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const [w, h] = [600, 160];
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'Turnover and employees over time');
  for (const [key, cls] of [
    ['turnover', 'line-a'],
    ['employees', 'line-b'],
  ]) {
    const pts = chartPoints(periods, key, w, h);
    if (!pts) continue;
    const line = document.createElementNS(NS, 'polyline');
    line.setAttribute('points', pts);
    line.setAttribute('class', cls);
    svg.append(line);
  }
  const legend = (cls, text) => el('span', { class: 'legend' }, el('span', { class: `swatch ${cls}` }), text);
  return el(
    'figure',
    { class: 'chart small' },
    svg,
    el(
      'figcaption',
      {},
      legend('line-a', 'turnover'),
      ' ',
      legend('line-b', 'employees'),
      ' (each scaled to its own maximum; the figures are in the table)',
    ),
  );
}

function historyTable(fmt, periods) {
  return el(
    'table',
    { class: 'history', tabindex: '0' },
    el('caption', {}, 'History by period'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['Period', 'Turnover', 'Employees'].map((t) => el('th', { scope: 'col' }, t)),
      ),
    ),
    el(
      'tbody',
      {},
      periods.map((p) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, p.period),
          el('td', {}, typeof p.turnover === 'number' ? fmt.money(p.turnover, 'EUR') : '—'),
          el('td', {}, typeof p.employees === 'number' ? fmt.count(p.employees) : '—'),
        ),
      ),
    ),
  );
}
