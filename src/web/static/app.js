/* global document, window, navigator, fetch, Blob, URL, setTimeout, clearTimeout */
// The dashboard's one script: copy buttons, and the in-app search page. Plain ES module, no build step, no
// dependencies. Every value from the server is put into the page as text (textContent), never as markup.

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** Tiny element builder: el('td', {class: 'x'}, 'text', child). Strings become text nodes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof window.Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const input = document.getElementById(button.getAttribute('data-copy'));
    if (!input) return;
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
  });
}

// E-mailed links carry their token in the fragment (never sent to the server); the form posts it.
const linkToken = /^#t=([A-Za-z0-9_-]{20,100})$/.exec(window.location.hash)?.[1];
for (const input of document.querySelectorAll('input[data-link-token]')) {
  if (linkToken) input.value = linkToken;
  window.history.replaceState(null, '', window.location.pathname);
  const tokenForm = input.form;
  if (linkToken && tokenForm?.hasAttribute('data-autosubmit')) tokenForm.submit();
}

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-csrf-token': csrf, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => ({ detail: `HTTP ${res.status}` }));
  if (!res.ok) {
    const detail = Array.isArray(data.detail)
      ? data.detail.map((d) => `${d.param}: ${d.msg}`).join('; ')
      : data.detail;
    throw new Error(detail || `HTTP ${res.status}`);
  }
  return data;
}

// Numbers in the reader's own locale (thousands separators, decimal mark), money with its currency.
const LOCALE = navigator.language || undefined;
const creditFormat = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const credits = (n) => creditFormat.format(Number(n));
const count = (n) => new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 }).format(Number(n));
const money = (n, currency) =>
  new Intl.NumberFormat(LOCALE, { style: 'currency', currency, maximumFractionDigits: 0 }).format(Number(n));
// Spec 2.2: annual-report figures are in EUR except Norway's, which are NOK; quarterly turnover is EUR.
const reportCurrency = (cc) => (cc === 'NO' ? 'NOK' : 'EUR');
const MONTHS = new Intl.DateTimeFormat(LOCALE, { month: 'long', year: 'numeric', timeZone: 'UTC' });
/** A metrics period {year, quarter, month} as people write it: "2026 Q1", "March 2026", "2025". */
function periodLabel(p) {
  if (!p || typeof p.year !== 'number') return '';
  if (p.quarter > 0) return `${p.year} Q${p.quarter}`;
  if (p.month > 0) return MONTHS.format(new Date(Date.UTC(p.year, p.month - 1, 1)));
  return String(p.year);
}

// Order and revoke forms post once: a double click would otherwise place two orders. Disabled after the
// submit event, so the browser has already taken the form's data.
for (const f of document.querySelectorAll('form[method="post"]')) {
  f.addEventListener('submit', () => {
    setTimeout(() => {
      for (const b of f.querySelectorAll('button[type="submit"]')) b.disabled = true;
    }, 0);
  });
}

/**
 * Runs one call that costs credits, with every costing button (data-costs) disabled until it answers. A
 * second click while one runs is dropped, so a double click is charged once.
 */
let costlyRunning = false;
async function costly(fn) {
  if (costlyRunning) return;
  costlyRunning = true;
  const held = [...document.querySelectorAll('button[data-costs]')].filter((b) => !b.disabled);
  for (const b of held) b.disabled = true;
  try {
    await fn();
  } finally {
    costlyRunning = false;
    // A button whose answer is on the page already (data-done) stays disabled: clicking again would pay twice.
    for (const b of held) if (!b.hasAttribute('data-done')) b.disabled = false;
  }
}

const form = document.getElementById('search-form');
if (form) initSearch();

function initSearch() {
  const boot = JSON.parse(document.getElementById('boot').textContent);
  const country = document.getElementById('country');
  const filtersBox = document.getElementById('filters');
  const pageSize = document.getElementById('page_size');
  const countOut = document.getElementById('count');
  const quoteOut = document.getElementById('quote');
  const runButton = document.getElementById('run-search');
  const exportButton = document.getElementById('export-csv');
  const errorOut = document.getElementById('search-error');
  const results = document.getElementById('results');
  const detail = document.getElementById('detail');
  const balanceOut = document.getElementById('balance');

  /** Getters of the current filter values: [param, value | values][] per field. */
  let fields = [];
  /** Rows bought in this visit, by country and code, for the CSV export (exporting costs nothing). */
  const bought = new Map();
  let state = { page: 1, sort_by: 'registrikood', sort_dir: 'asc' };
  let countTimer = null;
  let countSeq = 0;

  const showError = (err) => {
    errorOut.hidden = !err;
    errorOut.textContent = err ? String(err.message ?? err) : '';
  };
  const setBalance = (b) => {
    balanceOut.textContent = credits(b);
  };
  const priceOf = (cc) => boot.countries.find((c) => c.code === cc)?.price ?? 0;

  function params() {
    const out = {};
    for (const get of fields) {
      for (const [param, value] of get()) {
        if (value === '' || (Array.isArray(value) && value.length === 0)) continue;
        out[param] = value;
      }
    }
    return out;
  }

  country.addEventListener('change', async () => {
    fields = [];
    filtersBox.replaceChildren();
    results.replaceChildren();
    detail.replaceChildren();
    countOut.textContent = '';
    quoteOut.textContent = '';
    runButton.disabled = true;
    showError(null);
    if (!country.value) return;
    try {
      const spec = await api(`/app/api/filters?country=${country.value}`);
      for (const f of spec.filters) filtersBox.append(buildField(f, country.value));
      scheduleCount();
    } catch (err) {
      showError(err);
    }
  });

  form.addEventListener('input', scheduleCount);
  form.addEventListener('change', scheduleCount);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    state = { ...state, page: 1 };
    runSearch();
  });
  exportButton.addEventListener('click', exportCsv);

  function scheduleCount(e) {
    if (e && e.target === country) return;
    clearTimeout(countTimer);
    // Debounced: typing a name sends one count when the typing pauses, not one per key.
    countTimer = setTimeout(updateCount, 300);
  }

  async function updateCount() {
    if (!country.value) return;
    const seq = ++countSeq;
    try {
      const res = await api('/app/api/count', {
        params: { country: country.value, ...params() },
        page_size: Number(pageSize.value),
      });
      if (seq !== countSeq) return;
      showError(null);
      countOut.textContent = `${count(res.count)} companies match (counting is free).`;
      const q = res.quote;
      quoteOut.textContent = q.waived_by
        ? `Running this search costs nothing (${q.waived_by}).`
        : `Running this search costs ${credits(q.credits_first_page)} credits for ${q.rows_first_page} rows ` +
          `(${new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 6 }).format(q.price)} per row; ${credits(q.credits_reserved)} reserved while it runs). Balance ${credits(q.balance)}.`;
      runButton.disabled = res.count === 0;
    } catch (err) {
      if (seq !== countSeq) return;
      countOut.textContent = '';
      quoteOut.textContent = '';
      runButton.disabled = true;
      showError(err);
    }
  }

  function runSearch() {
    return costly(searchPage);
  }

  async function searchPage() {
    showError(null);
    try {
      const res = await api('/app/api/search', {
        params: {
          country: country.value,
          ...params(),
          page: String(state.page),
          page_size: pageSize.value,
          sort_by: state.sort_by,
          sort_dir: state.sort_dir,
        },
      });
      for (const row of res.data.items)
        bought.set(`${country.value}:${row.registrikood}`, { country: country.value, ...row });
      exportButton.disabled = bought.size === 0;
      setBalance(res.meta.credit_balance);
      renderResults(res);
    } catch (err) {
      showError(err);
    }
  }

  const COLUMNS = [
    ['registrikood', 'Code', 'registrikood'],
    ['arinimi', 'Name', 'company_name'],
    ['oiguslik_vorm', 'Legal form', null],
    ['esmaregistreerimise_kpv', 'Registered', 'registered_date'],
    ['asukoht', 'Location', null],
    ['annual_revenue', 'Revenue', 'annual_revenue'],
    ['last_quarter_employees_number', 'Employees', 'last_quarter_employees'],
  ];

  function cellText(field, v) {
    if (v === null || v === undefined) return '';
    if (field === 'annual_revenue' && typeof v === 'number') return money(v, reportCurrency(country.value));
    if (typeof v === 'number') return count(v);
    return String(v);
  }

  function renderResults(res) {
    const { data, meta } = res;
    const pages = Math.max(1, Math.ceil(data.total / data.page_size));
    const sortButton = (label, key) => {
      if (!key) return label;
      const active = state.sort_by === key;
      const dir = active && state.sort_dir === 'asc' ? 'desc' : 'asc';
      return el(
        'button',
        {
          type: 'button',
          class: 'link',
          'data-costs': true,
          'aria-label': `Sort by ${label} ${dir === 'asc' ? 'ascending' : 'descending'} (runs the search again)`,
          onclick: () => {
            state = { page: 1, sort_by: key, sort_dir: dir };
            runSearch();
          },
        },
        label,
        active ? (state.sort_dir === 'asc' ? ' ▲' : ' ▼') : '',
      );
    };
    const table = el(
      'table',
      { id: 'results-table' },
      el('caption', {}, `Page ${data.page} of ${pages}: ${data.items.length} of ${data.total} companies`),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          COLUMNS.map(([, label, key]) =>
            el(
              'th',
              {
                scope: 'col',
                'aria-sort':
                  state.sort_by === key ? (state.sort_dir === 'asc' ? 'ascending' : 'descending') : null,
              },
              sortButton(label, key),
            ),
          ),
          el('th', { scope: 'col' }, 'Detail'),
        ),
      ),
      el(
        'tbody',
        {},
        data.items.map((row) =>
          el(
            'tr',
            {},
            COLUMNS.map(([field, label]) => el('td', { 'data-label': label }, cellText(field, row[field]))),
            el(
              'td',
              {},
              el(
                'button',
                { type: 'button', 'data-costs': true, onclick: () => openDetail(row.registrikood) },
                'Open',
                el('span', { class: 'sr' }, ` ${row.arinimi ?? row.registrikood}`),
              ),
            ),
          ),
        ),
      ),
    );
    // What the neighbouring pages cost, said on their buttons before anyone clicks.
    const free = meta.rows_returned > 0 && meta.credits_charged === 0;
    const cost = (rows) =>
      `${rows} rows, ${free ? 'free' : `${credits(rows * priceOf(country.value))} credits`}`;
    const nextRows = Math.max(0, Math.min(data.page_size, data.total - data.page * data.page_size));
    const nav = el(
      'p',
      { class: 'row' },
      el(
        'button',
        {
          type: 'button',
          'data-costs': true,
          disabled: data.page <= 1,
          onclick: () => {
            state = { ...state, page: data.page - 1 };
            runSearch();
          },
        },
        data.page <= 1 ? 'Previous page' : `Previous page (${cost(data.page_size)})`,
      ),
      el(
        'button',
        {
          type: 'button',
          'data-costs': true,
          disabled: data.page >= pages,
          onclick: () => {
            state = { ...state, page: data.page + 1 };
            runSearch();
          },
        },
        nextRows === 0 ? 'Next page' : `Next page (${cost(nextRows)})`,
      ),
    );
    results.replaceChildren(
      el(
        'p',
        { role: 'status', id: 'charged' },
        `Charged ${credits(meta.credits_charged)} credits for ${meta.rows_returned} rows. Balance ${credits(meta.credit_balance)}.`,
      ),
      el('div', { class: 'scroll' }, table),
      nav,
    );
  }

  function openDetail(code) {
    return costly(() => detailOf(code));
  }

  async function detailOf(code) {
    const cc = country.value;
    showError(null);
    try {
      const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'detail' });
      setBalance(res.meta.credit_balance);
      renderDetail(res.data, res.meta, cc);
    } catch (err) {
      showError(err);
    }
  }

  function renderDetail(d, meta, cc) {
    const list = (title, items, render) =>
      el(
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
    const cur = reportCurrency(cc);
    const yesNo = (v) => (v === true ? 'yes' : v === false ? 'no' : null);
    /** A titled section of label/value pairs; pairs without a value are left out, never shown as "null". */
    const facts = (title, pairs) => {
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
    };
    const amount = (v, currency) => (typeof v === 'number' ? money(v, currency) : null);
    const m = d.latest_metrics ?? {};
    const withPeriod = (value, period) => (value === null ? null : `${value}${period ? ` (${period})` : ''}`);
    const se = d.se_register;
    const coded = (c) => (c && (c.label || c.code) ? (c.label ?? c.code) : null);
    const CONTACT_KINDS = { WWW: 'Website', EMAIL: 'E-mail', TEL: 'Phone', MOB: 'Mobile', DOMAIN: 'Domain' };
    const historyBox = el('div', {});
    const workplacesBox = el('div', {});
    const price = priceOf(cc);
    detail.replaceChildren(
      el('h2', { tabindex: '-1', id: 'detail-h' }, d.arinimi ?? d.registrikood),
      el('p', {}, `Charged ${credits(meta.credits_charged)} credits.`),
      facts('Identity', [
        ['Registry code', d.registrikood],
        ['Legal form', [d.oiguslik_vorm, d.oigusliku_vormi_alaliik].filter(Boolean).join(', ') || null],
        ['VAT number', d.vat_number ?? d.kmkr_nr],
        ['VAT-registered', yesNo(d.vat_active)],
        ['Share capital', d.kapital],
      ]),
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
      list('People', d.people, (p) =>
        [p.nimi, p.roll_tekstina ?? p.roll, p.algus_kpv ? `since ${p.algus_kpv}` : null]
          .filter(Boolean)
          .join(', '),
      ),
      facts('Finances', [
        ['Turnover', withPeriod(amount(m.turnover, 'EUR'), periodLabel(m.turnover_period))],
        [
          'Employees',
          withPeriod(
            typeof m.employees === 'number' ? count(m.employees) : null,
            periodLabel(m.employees_period),
          ),
        ],
        ['Turnover, last 4 quarters', amount(d.last_4_quarters_turnover_sum, 'EUR')],
        ['Revenue (annual report)', amount(d.annual_revenue, cur)],
        ['Net profit (annual report)', amount(d.annual_net_profit, cur)],
        ['Equity (annual report)', amount(d.annual_equity, cur)],
        ['Total assets (annual report)', amount(d.annual_total_assets, cur)],
      ]),
      se
        ? facts('Swedish register', [
            ['Size class', coded(se.sme_class)],
            ['Turnover class', coded(se.turnover_class)],
            ['Owner category', coded(se.owner_category)],
            ['Export and import', coded(se.export_import)],
            ['Listing', coded(se.listing)],
            ['Activity started', se.activity_start_date],
            ['Trade names', se.trade_names?.length ? se.trade_names.join(', ') : null],
          ])
        : '',
      el(
        'p',
        { class: 'row' },
        el(
          'button',
          {
            type: 'button',
            'data-costs': true,
            onclick: (e) => costly(() => loadHistory(cc, d.registrikood, historyBox, e.currentTarget)),
          },
          `Show history (up to ${credits(price)} credits)`,
        ),
        cc === 'SE'
          ? el(
              'button',
              {
                type: 'button',
                'data-costs': true,
                onclick: () => costly(() => loadWorkplaces(d.registrikood, workplacesBox)),
              },
              `Show workplaces (up to ${credits(price)} credits)`,
            )
          : null,
      ),
      historyBox,
      workplacesBox,
    );
    document.getElementById('detail-h').focus();
  }

  async function loadHistory(cc, code, box, button) {
    try {
      const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'history' });
      setBalance(res.meta.credit_balance);
      const periods = res.data.periods;
      button.setAttribute('data-done', '');
      button.disabled = true;
      button.textContent = 'History shown below';
      box.replaceChildren(
        el('h3', {}, 'History'),
        el('p', {}, `Charged ${credits(res.meta.credits_charged)} credits.`),
        periods.length ? historyChart(periods) : el('p', {}, 'No history for this company (not charged).'),
      );
    } catch (err) {
      showError(err);
    }
  }

  async function loadWorkplaces(code, box) {
    try {
      const res = await api('/app/api/company', { country: 'SE', registrikood: code, part: 'workplaces' });
      setBalance(res.meta.credit_balance);
      box.replaceChildren(
        el('h3', {}, 'Workplaces'),
        el('p', {}, `Charged ${credits(res.meta.credits_charged)} credits. Source: ${res.data.source ?? ''}`),
        el(
          'ul',
          {},
          res.data.workplaces.map((w) =>
            el(
              'li',
              {},
              `${w.is_main ? 'Main: ' : ''}${w.name ?? ''}, ${w.visit_address ?? 'address not published'} ${w.kommun_name ?? ''}`,
            ),
          ),
        ),
      );
    } catch (err) {
      showError(err);
    }
  }

  /** Turnover and employees per period as two SVG polylines with a data table beside (for screen readers). */
  function historyChart(periods) {
    const NS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(NS, 'svg');
    const w = 600;
    const h = 160;
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Turnover and employees over time');
    for (const [key, cls] of [
      ['turnover', 'line-a'],
      ['employees', 'line-b'],
    ]) {
      const vals = periods.map((p) => p[key]).filter((v) => typeof v === 'number');
      if (!vals.length) continue;
      const max = Math.max(...vals, 1);
      const pts = periods
        .map((p, i) =>
          typeof p[key] === 'number'
            ? `${(10 + (i * (w - 20)) / Math.max(1, periods.length - 1)).toFixed(1)},${(h - 10 - (p[key] / max) * (h - 20)).toFixed(1)}`
            : null,
        )
        .filter(Boolean)
        .join(' ');
      const line = document.createElementNS(NS, 'polyline');
      line.setAttribute('points', pts);
      line.setAttribute('class', cls);
      svg.append(line);
    }
    const table = el(
      'table',
      {},
      el('caption', {}, 'History'),
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
            el('td', {}, typeof p.turnover === 'number' ? money(p.turnover, 'EUR') : '—'),
            el('td', {}, typeof p.employees === 'number' ? count(p.employees) : '—'),
          ),
        ),
      ),
    );
    return el(
      'figure',
      { class: 'chart' },
      svg,
      el(
        'figcaption',
        {},
        el('span', { class: 'legend' }, el('span', { class: 'swatch line-a' }), 'turnover'),
        ' ',
        el(
          'span',
          { class: 'legend' },
          el('span', { class: 'swatch line-b' }),
          'employees (each scaled to its own maximum)',
        ),
      ),
      el('details', {}, el('summary', {}, 'Table'), table),
    );
  }

  function exportCsv() {
    const rows = [...bought.values()];
    if (!rows.length) return;
    const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const cell = (v) => {
      const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      // Quoted always; a leading = + - @ is prefixed so a spreadsheet does not run it as a formula.
      return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
    };
    const text = [cols.map(cell).join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join(
      '\r\n',
    );
    const a = el('a', {
      href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })),
      download: 'regdata-companies.csv',
    });
    document.body.append(a);
    a.click();
    a.remove();
  }

  /** One filter spec of /filters as labelled form controls; returns the element and registers its getter. */
  function buildField(f, cc) {
    const id = `f-${f.param ?? f.param_min ?? f.param_from}`;
    const note = f.note ? el('small', { id: `${id}-note` }, f.note) : null;
    const described = f.note ? `${id}-note` : null;
    switch (f.type) {
      case 'text': {
        const input = el('input', { id, type: 'text', 'aria-describedby': described });
        fields.push(() => [[f.param, input.value.trim()]]);
        return el('div', { class: 'field' }, el('label', { for: id }, f.label), input, note);
      }
      case 'boolean': {
        const select = el(
          'select',
          { id, 'aria-describedby': described },
          el('option', { value: '' }, 'any'),
          el('option', { value: 'true' }, 'yes'),
          el('option', { value: 'false' }, 'no'),
        );
        fields.push(() => [[f.param, select.value]]);
        return el('div', { class: 'field' }, el('label', { for: id }, f.label), select, note);
      }
      case 'select':
      case 'multi_select': {
        const multi = f.type === 'multi_select' || f.multi;
        const select = el(
          'select',
          {
            id,
            multiple: multi,
            size: multi ? Math.min(6, f.options.length) : null,
            'aria-describedby': described,
          },
          multi ? null : el('option', { value: '' }, 'any'),
          (f.options ?? []).map((o) =>
            el('option', { value: o.value }, `${o.label}${o.value !== o.label ? ` (${o.value})` : ''}`),
          ),
        );
        fields.push(() => [
          [f.param, multi ? [...select.selectedOptions].map((o) => o.value) : select.value],
        ]);
        return el(
          'div',
          { class: 'field' },
          el('label', { for: id }, f.label, multi ? ' (several allowed)' : ''),
          select,
          note,
        );
      }
      case 'number_range':
      case 'date_range': {
        const [pa, pb] = f.type === 'number_range' ? [f.param_min, f.param_max] : [f.param_from, f.param_to];
        const type = f.type === 'number_range' ? 'number' : 'date';
        const a = el('input', { id: `${id}-a`, type, step: type === 'number' ? 'any' : null });
        const b = el('input', { id: `${id}-b`, type, step: type === 'number' ? 'any' : null });
        fields.push(() => [
          [pa, a.value],
          [pb, b.value],
        ]);
        return el(
          'fieldset',
          { class: 'field range' },
          el('legend', {}, f.label),
          el('label', { for: `${id}-a` }, type === 'number' ? 'min' : 'from'),
          a,
          el('label', { for: `${id}-b` }, type === 'number' ? 'max' : 'to'),
          b,
          note,
        );
      }
      case 'tree':
        return treePicker(f, cc, id, note);
      default:
        return el('p', {}, `${f.label}: not offered in the app (use the API).`);
    }
  }

  /**
   * Tree filters (activities, locations). Picking a node sends what spec 4.2 says matches its whole subtree:
   * a location node's `codes` (EE/LV/FI/PL) or `locations` (LT); for activities the node and every
   * descendant code, since a parent code alone matches only rows tagged with exactly it.
   */
  function treePicker(f, cc, id, note) {
    const isLocations = (f.options_url ?? '').includes('/locations');
    const chosen = new Map();
    const chips = el('ul', { class: 'chips', 'aria-label': `${f.label}: chosen` });
    const valuesOf = (node) => {
      if (isLocations) return node.locations ?? node.codes ?? [node.kood];
      const out = [];
      const walk = (n) => {
        out.push(n.kood);
        for (const c of n.children ?? []) walk(c);
      };
      walk(node);
      return out;
    };
    const renderChips = () => {
      chips.replaceChildren(
        ...[...chosen.values()].map((n) =>
          el(
            'li',
            {},
            `${n.kood} ${n.label} `,
            el(
              'button',
              {
                type: 'button',
                'aria-label': `Remove ${n.label}`,
                onclick: () => {
                  chosen.delete(n.kood);
                  renderChips();
                  scheduleCount();
                },
              },
              '×',
            ),
          ),
        ),
      );
    };
    fields.push(() => [[f.param, [...new Set([...chosen.values()].flatMap(valuesOf))]]]);
    const search = el('input', {
      id,
      type: 'search',
      placeholder: 'type to filter, then pick',
      'aria-describedby': note ? `${id}-note` : null,
    });
    const tree = el('div', { class: 'tree' });
    let roots = null;
    const pick = (node) => {
      chosen.set(node.kood, node);
      renderChips();
      scheduleCount();
    };
    const nodeItem = (node) => {
      const pickButton = el(
        'button',
        { type: 'button', class: 'link', onclick: () => pick(node) },
        `${node.kood} ${node.label}`,
      );
      if (!node.children || node.children.length === 0) return el('li', {}, pickButton);
      const sub = el('ul', {});
      const det = el(
        'details',
        {},
        el('summary', {}, el('span', { class: 'sr' }, 'Expand '), `${node.kood}`),
        sub,
      );
      // Children are built when opened: the EE location tree has thousands of nodes.
      det.addEventListener('toggle', () => {
        if (det.open && !sub.childElementCount) sub.append(...node.children.map(nodeItem));
      });
      return el('li', {}, det, ' ', pickButton);
    };
    const load = async () => {
      if (roots) return roots;
      const path = isLocations ? `/app/api/locations?country=${cc}` : `/app/api/activities?country=${cc}`;
      roots = await api(path);
      return roots;
    };
    const show = async () => {
      try {
        const all = await load();
        const q = search.value.trim().toLowerCase();
        if (q.length < 2) {
          tree.replaceChildren(el('ul', {}, all.map(nodeItem)));
          return;
        }
        const hits = [];
        const walk = (n) => {
          if (hits.length >= 50) return;
          if (`${n.kood} ${n.label}`.toLowerCase().includes(q)) hits.push(n);
          for (const c of n.children ?? []) walk(c);
        };
        all.forEach(walk);
        tree.replaceChildren(el('ul', {}, hits.map(nodeItem)));
      } catch (err) {
        showError(err);
      }
    };
    search.addEventListener('focus', show, { once: true });
    search.addEventListener('input', (e) => {
      e.stopPropagation();
      show();
    });
    return el(
      'fieldset',
      { class: 'field tree-field' },
      el('legend', {}, f.label),
      el('label', { for: id }, 'Find'),
      search,
      tree,
      chips,
      note,
    );
  }
}
