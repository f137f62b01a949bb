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

for (const node of document.querySelectorAll('[data-credits]')) {
  node.textContent = credits(node.getAttribute('data-credits'));
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
  const loosenPane = document.getElementById('loosen');
  const loosenDrawer = document.getElementById('loosen-drawer');
  /** Where the no-match advice goes: beside the count, or at the drawer's top while the drawer covers it. */
  const loosenOut = {
    replaceChildren(...nodes) {
      const open = phone.matches && panel.classList.contains('open');
      loosenPane.replaceChildren(...(open ? [] : nodes));
      loosenDrawer.replaceChildren(...(open ? nodes : []));
    },
  };
  const results = document.getElementById('results');
  const detail = document.getElementById('detail');
  const balanceOut = document.getElementById('balance');
  const panel = document.getElementById('filter-panel');
  const openFilters = document.getElementById('open-filters');
  const closeFilters = document.getElementById('close-filters');
  const pane = document.querySelector('.results-pane');
  const drawerStatus = document.getElementById('drawer-status');

  /** The filter controls: { label, get() -> [param, value][], clear(), group }. */
  let fields = [];
  /** Rows bought in this visit, by country and code, for the CSV export (exporting costs nothing). */
  const bought = new Map();
  let state = { page: 1, sort_by: 'registrikood', sort_dir: 'asc' };
  let countTimer = null;
  let countSeq = 0;
  let loadSeq = 0;
  /** Location trees by country (free to fetch), for the pickers and for "town, region" in the results. */
  const trees = new Map();

  const showError = (err) => {
    errorOut.hidden = !err;
    errorOut.textContent = err ? String(err.message ?? err) : '';
  };
  const setBalance = (b) => {
    balanceOut.textContent = credits(b);
  };
  const countryInfo = (cc) => boot.countries.find((c) => c.code === cc);
  const priceOf = (cc) => countryInfo(cc)?.price ?? 0;

  function params(skip) {
    const out = {};
    for (const f of fields) {
      if (f === skip) continue;
      for (const [param, value] of f.get()) {
        if (value === '' || (Array.isArray(value) && value.length === 0)) continue;
        out[param] = value;
      }
    }
    return out;
  }
  const isSet = (f) => f.get().some(([, v]) => v !== '' && !(Array.isArray(v) && v.length === 0));

  // On a phone the filters are a drawer over the results; the rest of the page is inert while it is open.
  const phone = window.matchMedia('(max-width: 40rem)');
  function setDrawer(open) {
    panel.classList.toggle('open', open);
    openFilters.setAttribute('aria-expanded', String(open));
    pane.inert = open && phone.matches;
    if (open) document.getElementById('filters-h').focus();
    else if (phone.matches) openFilters.focus();
  }
  openFilters.addEventListener('click', () => setDrawer(true));
  closeFilters.addEventListener('click', () => setDrawer(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && panel.classList.contains('open')) setDrawer(false);
  });
  phone.addEventListener('change', () => {
    if (!phone.matches) pane.inert = false;
  });
  function updateFilterBadge() {
    const n = fields.filter(isSet).length;
    openFilters.textContent = n ? `Filters (${n} set)` : 'Filters';
    for (const det of filtersBox.querySelectorAll('details[data-group]')) {
      const set = fields.filter((f) => f.group === det.dataset.group && isSet(f)).length;
      det.querySelector('.group-count').textContent = set ? ` (${set} set)` : '';
    }
  }

  /**
   * Builds the form for the chosen country. Each load is numbered: a country changed again before the
   * filters arrived drops the older answer, so two loads never both add their fields. The form carries
   * data-loaded="<country>" once its fields are in place (what a test or an assistive tool can wait on).
   */
  async function loadCountry() {
    const seq = ++loadSeq;
    const cc = country.value;
    fields = [];
    filtersBox.replaceChildren();
    form.removeAttribute('data-loaded');
    results.replaceChildren();
    detail.replaceChildren();
    loosenOut.replaceChildren();
    countOut.textContent = cc ? 'Counting…' : 'Choose a country to count companies (counting is free).';
    quoteOut.textContent = '';
    drawerStatus.textContent = countOut.textContent;
    runButton.disabled = true;
    showError(null);
    updateFilterBadge();
    if (!cc) return;
    filtersBox.setAttribute('aria-busy', 'true');
    try {
      const spec = await api(`/app/api/filters?country=${cc}`);
      if (seq !== loadSeq) return;
      filtersBox.replaceChildren(...buildGroups(spec.filters, cc));
      form.setAttribute('data-loaded', cc);
      updateFilterBadge();
      scheduleCount();
    } catch (err) {
      if (seq === loadSeq) showError(err);
    } finally {
      if (seq === loadSeq) filtersBox.removeAttribute('aria-busy');
    }
  }

  country.addEventListener('change', loadCountry);
  form.addEventListener('input', scheduleCount);
  form.addEventListener('change', scheduleCount);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    state = { ...state, page: 1 };
    if (panel.classList.contains('open')) setDrawer(false);
    runSearch();
  });
  exportButton.addEventListener('click', exportCsv);
  // A country chosen before this script ran (a slow load, or the browser restoring the form) had no
  // listener to hear its change event: load it now, or the filters would never appear.
  if (country.value) loadCountry();

  function scheduleCount(e) {
    if (e && e.target === country) return;
    updateFilterBadge();
    clearTimeout(countTimer);
    // Debounced: typing a name sends one count when the typing pauses, not one per key.
    countTimer = setTimeout(updateCount, 300);
  }

  async function countOf(p) {
    return api('/app/api/count', {
      params: { country: country.value, ...p },
      page_size: Number(pageSize.value),
    });
  }

  async function updateCount() {
    if (!country.value || form.getAttribute('data-loaded') !== country.value) return;
    const seq = ++countSeq;
    try {
      const res = await countOf(params());
      if (seq !== countSeq) return;
      showError(null);
      countOut.textContent = res.count === 1 ? '1 company matches.' : `${count(res.count)} companies match.`;
      const q = res.quote;
      quoteOut.textContent =
        res.count === 0
          ? 'Nothing to buy: counting is free.'
          : q.waived_by
            ? `The first ${q.rows_first_page} rows cost nothing (${q.waived_by}).`
            : `The first ${q.rows_first_page} rows cost ${credits(q.credits_first_page)} credits ` +
              `(${new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 6 }).format(q.price)} a row). Counting is free.`;
      runButton.disabled = res.count === 0;
      runButton.textContent =
        res.count === 0 || q.waived_by
          ? 'Run search'
          : `Run search (${credits(q.credits_first_page)} credits)`;
      // The drawer covers the count bar on a phone, so it repeats the count and the cost at its top.
      drawerStatus.textContent = `${countOut.textContent} ${quoteOut.textContent}`;
      if (res.count === 0) suggestLoosening(seq);
      else loosenOut.replaceChildren();
    } catch (err) {
      if (seq !== countSeq) return;
      countOut.textContent = '';
      quoteOut.textContent = '';
      runButton.disabled = true;
      showError(err);
    }
  }

  /**
   * No match: count again without each filter that is set (counting is free) and offer to clear the ones
   * that would bring companies back, most first.
   */
  async function suggestLoosening(seq) {
    const set = fields.filter(isSet).slice(0, 8);
    if (!set.length) {
      loosenOut.replaceChildren(el('p', {}, 'No companies of this country are for sale yet.'));
      return;
    }
    try {
      const counts = await Promise.all(set.map((f) => countOf(params(f)).then((r) => r.count)));
      if (seq !== countSeq) return;
      const helps = set
        .map((f, i) => ({ f, n: counts[i] }))
        .filter((x) => x.n > 0)
        .sort((a, b) => b.n - a.n)
        .slice(0, 3);
      loosenOut.replaceChildren(
        el(
          'div',
          { class: 'loosen' },
          el('h2', {}, 'No companies match'),
          helps.length
            ? el(
                'p',
                {},
                set.length === 1
                  ? 'This filter leaves nothing. Clear it to see companies:'
                  : 'Loosen one filter. Clearing it would find:',
              )
            : el('p', {}, 'No single filter is to blame: clear several, or start again with fewer.'),
          helps.length
            ? el(
                'ul',
                {},
                helps.map(({ f, n }) =>
                  el(
                    'li',
                    {},
                    el(
                      'button',
                      {
                        type: 'button',
                        class: 'secondary',
                        onclick: () => {
                          f.clear();
                          scheduleCount();
                        },
                      },
                      `Clear ${f.label}`,
                    ),
                    ` ${n === 1 ? '1 company' : `${count(n)} companies`}`,
                  ),
                ),
              )
            : null,
        ),
      );
    } catch {
      // The suggestion is a help, not a result: without it the count still says there is no match.
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
      const places = await placeNames(country.value).catch(() => null);
      renderResults(res, places);
    } catch (err) {
      showError(err);
    }
  }

  /** The location tree of a country (free), fetched once per visit. */
  function treeOf(cc, kind) {
    const key = `${kind}:${cc}`;
    if (!trees.has(key)) {
      const path =
        kind === 'locations' ? `/app/api/locations?country=${cc}` : `/app/api/activities?country=${cc}`;
      const p = api(path);
      p.catch(() => trees.delete(key));
      trees.set(key, p);
    }
    return trees.get(key);
  }

  /** Location code -> "town, region" from the location tree, where the country has one. */
  async function placeNames(cc) {
    if (!countryInfo(cc)?.hasLocationTree) return null;
    const roots = await treeOf(cc, 'locations');
    const out = new Map();
    const walk = (n, top) => {
      const region = top ?? n;
      out.set(n.kood, region === n ? n.label : `${n.label}, ${region.label}`);
      for (const c of n.children ?? []) walk(c, region);
    };
    for (const r of roots) walk(r, null);
    return out;
  }

  const COLUMNS = [
    ['arinimi', 'Name', 'company_name'],
    ['registrikood', 'Code', 'registrikood'],
    ['oiguslik_vorm', 'Legal form', null],
    ['esmaregistreerimise_kpv', 'Registered', 'registered_date'],
    ['place', 'Location', null],
    ['annual_revenue', 'Revenue', 'annual_revenue'],
    ['last_quarter_employees_number', 'Employees', 'last_quarter_employees'],
  ];

  function cellText(field, v) {
    if (v === null || v === undefined) return '';
    if (field === 'annual_revenue' && typeof v === 'number') return money(v, reportCurrency(country.value));
    if (typeof v === 'number') return count(v);
    return String(v);
  }

  /** Town and region of a row: from the location tree by code, else the municipality the row names. */
  function placeOf(row, places) {
    const fromTree = row.ehak_kood && places ? places.get(row.ehak_kood) : null;
    return fromTree ?? row.ehak_nimetus ?? null;
  }

  function renderResults(res, places) {
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
            COLUMNS.map(([field, label]) =>
              el(
                'td',
                { 'data-label': label },
                cellText(field, field === 'place' ? placeOf(row, places) : row[field]),
              ),
            ),
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
        [
          'Share capital',
          typeof d.kapital_amount === 'number' && d.kapital_currency
            ? money(d.kapital_amount, d.kapital_currency)
            : d.kapital,
        ],
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
        ...(periods.length
          ? [historyChart(periods), historyTable(periods)]
          : [el('p', {}, 'No history for this company (not charged).')]),
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
    return el(
      'figure',
      { class: 'chart small' },
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
          'employees (each scaled to its own maximum; the figures are in the table)',
        ),
      ),
    );
  }

  function historyTable(periods) {
    return el(
      'table',
      { class: 'history' },
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
            el('td', {}, typeof p.turnover === 'number' ? money(p.turnover, 'EUR') : '—'),
            el('td', {}, typeof p.employees === 'number' ? count(p.employees) : '—'),
          ),
        ),
      ),
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

  /** The country's filters as collapsible groups (details/summary: keyboard and screen readers for free). */
  function buildGroups(specs, cc) {
    const pres = boot.presentation;
    const boxes = new Map();
    for (const g of pres.groups) {
      const det = el(
        'details',
        { 'data-group': g.id, open: g.open },
        el('summary', {}, g.title, el('span', { class: 'group-count' })),
        el('div', { class: 'group-body' }),
      );
      boxes.set(g.id, det);
    }
    for (const f of specs) {
      const key = f.param ?? f.param_min ?? f.param_from;
      const p = pres.byParam[key] ?? { group: 'more', label: null, hint: null };
      const label =
        key === 'industry_codes'
          ? `Activity (${countryInfo(cc)?.industrySystem ?? ''})`
          : (p.label ?? f.label);
      // The API's own note is for programmers; the page shows its plain hint, or a bare unit such as "EUR".
      const hint = p.hint ?? (/^[A-Z]{3}$/.test(f.note ?? '') ? `Amounts in ${f.note}.` : null);
      const before = fields.length;
      const node = buildField(f, cc, label, hint);
      for (const field of fields.slice(before)) field.group = p.group;
      (boxes.get(p.group) ?? boxes.get('more')).querySelector('.group-body').append(node);
    }
    return [...boxes.values()].filter((d) => d.querySelector('.group-body').childElementCount > 0);
  }

  /** One filter spec of /filters as labelled form controls; registers its field(s) and returns the element. */
  function buildField(f, cc, label, hint) {
    const id = `f-${f.param ?? f.param_min ?? f.param_from}`;
    const note = hint ? el('small', { id: `${id}-note` }, hint) : null;
    const described = hint ? `${id}-note` : null;
    /** A select of one value ('' is "Any"): its field, labelled. */
    const singleSelect = (select) => {
      fields.push({
        label,
        get: () => [[f.param, select.value]],
        clear: () => {
          select.value = '';
        },
      });
      return el('div', { class: 'field' }, el('label', { for: id }, label), select, note);
    };
    switch (f.type) {
      case 'text': {
        const input = el('input', { id, type: 'text', 'aria-describedby': described, autocomplete: 'off' });
        fields.push({
          label,
          get: () => [[f.param, input.value.trim()]],
          clear: () => {
            input.value = '';
          },
        });
        return el('div', { class: 'field' }, el('label', { for: id }, label), input, note);
      }
      case 'boolean': {
        const select = el(
          'select',
          { id, 'aria-describedby': described },
          el('option', { value: '' }, 'Any'),
          el('option', { value: 'true' }, 'Yes'),
          el('option', { value: 'false' }, 'No'),
        );
        return singleSelect(select);
      }
      case 'select':
      case 'multi_select': {
        const options = (f.options ?? []).map((o) => ({
          key: String(o.value),
          // The register's own code beside its name ("Osaühing (OÜ)"), never an internal marker.
          label:
            String(o.value) === o.label || String(o.value).startsWith('__')
              ? o.label
              : `${o.label} (${o.value})`,
          values: [String(o.value)],
          search: `${o.label} ${o.value}`,
        }));
        if (f.type === 'multi_select' || f.multi) {
          return chipPicker({
            id,
            label,
            note,
            param: f.param,
            source: async () => options,
            browse: options.length <= 12,
          });
        }
        const select = el(
          'select',
          { id, 'aria-describedby': described },
          el('option', { value: '' }, 'Any'),
          options.map((o) => el('option', { value: o.key }, o.label)),
        );
        return singleSelect(select);
      }
      case 'number_range':
      case 'date_range': {
        const [pa, pb] = f.type === 'number_range' ? [f.param_min, f.param_max] : [f.param_from, f.param_to];
        const type = f.type === 'number_range' ? 'number' : 'date';
        const a = el('input', {
          id: `${id}-a`,
          type,
          step: type === 'number' ? 'any' : null,
          'aria-describedby': described,
        });
        const b = el('input', {
          id: `${id}-b`,
          type,
          step: type === 'number' ? 'any' : null,
          'aria-describedby': described,
        });
        fields.push({
          label,
          get: () => [
            [pa, a.value],
            [pb, b.value],
          ],
          clear: () => {
            a.value = '';
            b.value = '';
          },
        });
        const words = type === 'number' ? ['at least', 'at most'] : ['from', 'to'];
        return el(
          'fieldset',
          { class: 'field range' },
          el('legend', {}, label),
          el('label', { for: `${id}-a` }, words[0], el('span', { class: 'sr' }, ` (${label})`)),
          a,
          el('label', { for: `${id}-b` }, words[1], el('span', { class: 'sr' }, ` (${label})`)),
          b,
          note,
        );
      }
      case 'tree':
        return treePicker(f, cc, id, label, note);
      default:
        return el('p', {}, `${label}: not offered in the app yet.`);
    }
  }

  const fold = (s) =>
    String(s ?? '')
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase();

  /**
   * A picker that searches by name and shows the chosen items as removable chips. `source()` gives the
   * items { key, label, detail?, values, search }; picking one adds its `values` to the parameter.
   * With `browse`, the first items are listed before anything is typed.
   */
  function chipPicker({ id, label, note, param, source, browse }) {
    const chosen = new Map();
    const listId = `${id}-matches`;
    const chips = el('ul', { class: 'chips', 'aria-label': `${label}: chosen` });
    const matches = el('ul', { class: 'matches', id: listId, 'aria-label': `${label}: matches` });
    const input = el('input', {
      id,
      type: 'search',
      autocomplete: 'off',
      'aria-describedby': note ? `${id}-note` : null,
      'aria-controls': listId,
    });
    const renderChips = () => {
      chips.replaceChildren(
        ...[...chosen.values()].map((item) =>
          el(
            'li',
            {},
            item.label,
            el(
              'button',
              {
                type: 'button',
                class: 'chip-remove',
                'aria-label': `Remove ${item.label}`,
                onclick: () => {
                  chosen.delete(item.key);
                  renderChips();
                  showMatches();
                  scheduleCount();
                  input.focus();
                },
              },
              '×',
            ),
          ),
        ),
      );
    };
    const field = {
      label,
      get: () => [[param, [...new Set([...chosen.values()].flatMap((i) => i.values))]]],
      clear: () => {
        chosen.clear();
        renderChips();
      },
    };
    fields.push(field);
    let items = null;
    async function showMatches() {
      try {
        items = items ?? (await source());
        const q = fold(input.value.trim());
        const hits =
          q.length >= 2 || browse
            ? items
                .filter((i) => !chosen.has(i.key) && (q.length < 2 || fold(i.search).includes(q)))
                .slice(0, 30)
            : [];
        matches.replaceChildren(
          ...hits.map((item) =>
            el(
              'li',
              {},
              el(
                'button',
                {
                  type: 'button',
                  class: 'match',
                  'data-key': item.key,
                  onclick: (e) => {
                    chosen.set(item.key, item);
                    renderChips();
                    scheduleCount();
                    // Focus stays in the list (the next match), so several can be picked by keyboard.
                    const li = e.currentTarget.parentElement;
                    const next =
                      li.nextElementSibling?.querySelector('button') ??
                      li.previousElementSibling?.querySelector('button');
                    li.remove();
                    (next ?? input).focus();
                  },
                },
                el('span', { class: 'sr' }, 'Add '),
                item.label,
                item.detail ? el('small', {}, ` ${item.detail}`) : null,
              ),
            ),
          ),
        );
        if (q.length >= 2 && !hits.length)
          matches.replaceChildren(el('li', { class: 'none' }, 'Nothing found.'));
      } catch (err) {
        showError(err);
      }
    }
    // A short list (statuses, most legal forms) is shown at once; a long one or a tree waits for a word.
    if (browse) showMatches();
    else input.addEventListener('focus', () => showMatches(), { once: true });
    input.addEventListener('input', (e) => {
      // Typing a search word is not a filter change: no count until something is picked.
      e.stopPropagation();
      showMatches();
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown') {
        matches.querySelector('button')?.focus();
        e.preventDefault();
      }
    });
    matches.addEventListener('keydown', (e) => {
      const li = e.target.closest('li');
      if (!li) return;
      if (e.key === 'ArrowDown') li.nextElementSibling?.querySelector('button')?.focus();
      else if (e.key === 'ArrowUp') (li.previousElementSibling?.querySelector('button') ?? input).focus();
      else return;
      e.preventDefault();
    });
    return el(
      'fieldset',
      { class: 'field picker' },
      el('legend', {}, label),
      chips,
      el('label', { for: id }, 'Find by name'),
      input,
      matches,
      note,
    );
  }

  /**
   * Tree filters (activities, locations), searched by name. Picking a node sends what spec 4.2 says
   * matches its whole subtree: a location node's codes (EE/LV/FI/PL) or name variants (LT); for an
   * activity the node and every code under it, since a parent code alone matches only rows tagged with it.
   */
  function treePicker(f, cc, id, label, note) {
    const isLocations = (f.options_url ?? '').includes('/locations');
    const source = async () => {
      const roots = await treeOf(cc, isLocations ? 'locations' : 'activities');
      const out = [];
      const walk = (n, path) => {
        const values = isLocations ? (n.locations ?? n.codes ?? [n.kood]) : [];
        if (!isLocations) {
          const all = (m) => {
            values.push(m.kood);
            for (const c of m.children ?? []) all(c);
          };
          all(n);
        }
        out.push({
          key: n.kood,
          // Activities carry their code (people look them up by it); places are known by name and region.
          label: isLocations ? n.label : `${n.kood} ${n.label}`,
          detail: isLocations && path.length ? `(${path.join(', ')})` : null,
          values,
          search: isLocations ? n.label : `${n.kood} ${n.label}`,
          depth: path.length,
        });
        for (const c of n.children ?? [])
          walk(c, isLocations ? [n.label, ...path].slice(0, 2) : [...path, n.kood]);
      };
      for (const r of roots) walk(r, []);
      // Broad items first, so a region is offered before the villages that share its name.
      return out.sort((a, b) => a.depth - b.depth);
    };
    return chipPicker({ id, label, note, param: f.param, source, browse: false });
  }
}
