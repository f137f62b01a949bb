/* global document, URL, Blob */
// One page of results: the charged line, the table (sortable columns, an Open button per company; cards on a
// phone), the previous/next buttons saying what they cost, and the CSV export of what was bought.
import { el } from '../dom.js';
import { csvText, reportCurrency } from '../format.js';
import { ariaSort, atPage, pageButtons, pageCount, placeOf, sortedBy } from './state.js';

/** [field, column label, sort key (null: not sortable)] */
export const COLUMNS = [
  ['arinimi', 'Name', 'company_name'],
  ['registrikood', 'Code', 'registrikood'],
  ['oiguslik_vorm', 'Legal form', null],
  ['esmaregistreerimise_kpv', 'Registered', 'registered_date'],
  ['place', 'Location', null],
  ['annual_revenue', 'Revenue', 'annual_revenue'],
  ['last_quarter_employees_number', 'Employees', 'last_quarter_employees'],
];

/**
 * A cell as text: revenue as money in the report's currency, numbers in the reader's locale.
 * @param {{ currency?: string } | undefined} country the country's boot entry
 */
export function cellText(fmt, country, field, v) {
  if (v === null || v === undefined) return '';
  if (field === 'annual_revenue' && typeof v === 'number') return fmt.money(v, reportCurrency(country));
  if (typeof v === 'number') return fmt.count(v);
  return String(v);
}

function sortButton(s, label, key) {
  if (!key) return label;
  const active = s.state.sort_by === key;
  const next = sortedBy(s.state, key);
  return el(
    'button',
    {
      type: 'button',
      class: 'link',
      'data-costs': true,
      'aria-label': `Sort by ${label} ${next.sort_dir === 'asc' ? 'ascending' : 'descending'} (runs the search again)`,
      onclick: () => {
        s.state = next;
        s.runSearch();
      },
    },
    label,
    active ? (s.state.sort_dir === 'asc' ? ' ▲' : ' ▼') : '',
  );
}

function resultsTable(s, cc, data, places) {
  const headings = COLUMNS.map(([, label, key]) =>
    el('th', { scope: 'col', 'aria-sort': ariaSort(s.state, key) }, sortButton(s, label, key)),
  );
  const row = (r) =>
    el(
      'tr',
      {},
      COLUMNS.map(([field, label]) =>
        el(
          'td',
          { 'data-label': label },
          cellText(s.fmt, s.countryInfo(cc), field, field === 'place' ? placeOf(r, places) : r[field]),
        ),
      ),
      el(
        'td',
        {},
        el(
          'button',
          { type: 'button', 'data-costs': true, onclick: () => s.openDetail(r.registrikood) },
          'Open',
          el('span', { class: 'sr' }, ` ${r.arinimi ?? r.registrikood}`),
        ),
      ),
    );
  return el(
    'table',
    { id: 'results-table' },
    el(
      'caption',
      {},
      `Page ${data.page} of ${pageCount(data)}: ${data.items.length} of ${data.total} companies`,
    ),
    el('thead', {}, el('tr', {}, headings, el('th', { scope: 'col' }, 'Detail'))),
    el('tbody', {}, data.items.map(row)),
  );
}

/** Previous and next page, each saying what it costs before it is clicked. */
function pageNav(s, cc, data, meta) {
  const buttons = pageButtons(data, meta, s.priceOf(cc), s.fmt);
  const button = (b) =>
    el(
      'button',
      {
        type: 'button',
        'data-costs': true,
        disabled: b.disabled,
        onclick: () => {
          s.state = atPage(s.state, b.page);
          s.runSearch();
        },
      },
      b.label,
    );
  return el('p', { class: 'row' }, button(buttons.previous), button(buttons.next));
}

export function renderResults(s, cc, res, places) {
  const { data, meta } = res;
  const { credits } = s.fmt;
  s.ui.results.replaceChildren(
    el(
      'p',
      { role: 'status', id: 'charged' },
      `Charged ${credits(meta.credits_charged)} credits for ${meta.rows_returned} rows. Balance ${credits(meta.credit_balance)}.`,
    ),
    el('div', { class: 'scroll' }, resultsTable(s, cc, data, places)),
    pageNav(s, cc, data, meta),
  );
}

/** The rows bought in this visit as a CSV download (exporting costs nothing). */
export function exportCsv(s) {
  const rows = [...s.bought.values()];
  if (!rows.length) return;
  const a = el('a', {
    href: URL.createObjectURL(new Blob([csvText(rows)], { type: 'text/csv' })),
    download: 'regdata-companies.csv',
  });
  document.body.append(a);
  a.click();
  a.remove();
}
