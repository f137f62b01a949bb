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

const credits = (n) => Number(n).toFixed(2);

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
      countOut.textContent = `${res.count} companies match (counting is free).`;
      const q = res.quote;
      quoteOut.textContent = q.waived_by
        ? `Running this search costs nothing (${q.waived_by}).`
        : `Running this search costs ${credits(q.credits_first_page)} credits for ${q.rows_first_page} rows ` +
          `(${q.price} per row; ${credits(q.credits_reserved)} reserved while it runs). Balance ${credits(q.balance)}.`;
      runButton.disabled = res.count === 0;
    } catch (err) {
      if (seq !== countSeq) return;
      countOut.textContent = '';
      quoteOut.textContent = '';
      runButton.disabled = true;
      showError(err);
    }
  }

  async function runSearch() {
    showError(null);
    runButton.disabled = true;
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
    } finally {
      runButton.disabled = false;
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
            COLUMNS.map(([field]) => el('td', {}, row[field] ?? '')),
            el(
              'td',
              {},
              el(
                'button',
                { type: 'button', onclick: () => openDetail(row.registrikood) },
                'Open',
                el('span', { class: 'sr' }, ` ${row.arinimi ?? row.registrikood}`),
              ),
            ),
          ),
        ),
      ),
    );
    const nav = el(
      'p',
      { class: 'row' },
      el(
        'button',
        {
          type: 'button',
          disabled: data.page <= 1,
          onclick: () => {
            state = { ...state, page: data.page - 1 };
            runSearch();
          },
        },
        'Previous page',
      ),
      el(
        'button',
        {
          type: 'button',
          disabled: data.page >= pages,
          onclick: () => {
            state = { ...state, page: data.page + 1 };
            runSearch();
          },
        },
        'Next page',
      ),
      el(
        'span',
        {},
        `Each page is charged like this one (up to ${credits(Number(pageSize.value) * priceOf(country.value))} credits).`,
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

  async function openDetail(code) {
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
    const metrics = d.latest_metrics
      ? el(
          'dl',
          {},
          Object.entries(d.latest_metrics).flatMap(([k, v]) => [
            el('dt', {}, k),
            el('dd', {}, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '—')),
          ]),
        )
      : el('p', {}, 'No metrics.');
    const historyBox = el('div', {});
    const workplacesBox = el('div', {});
    const price = priceOf(cc);
    detail.replaceChildren(
      el('h2', { tabindex: '-1', id: 'detail-h' }, d.arinimi ?? d.registrikood),
      el(
        'p',
        {},
        `Charged ${credits(meta.credits_charged)} credits. ${d.registrikood} · ${d.staatus_tekstina ?? d.staatus ?? ''} · ${d.aadress_text ?? ''}`,
      ),
      list('Contacts', d.contacts, (c) => `${c.liik}: ${c.sisu}`),
      list('People', d.people, (p) => `${p.nimi ?? ''} ${p.roll_tekstina ?? p.roll ?? ''}`),
      list('Activities', d.emtak, (a) => `${a.kood} ${a.label ?? ''}${a.is_main ? ' (main)' : ''}`),
      el('section', {}, el('h3', {}, 'Latest metrics'), metrics),
      el(
        'p',
        { class: 'row' },
        el(
          'button',
          { type: 'button', onclick: () => loadHistory(cc, d.registrikood, historyBox) },
          `Show history (up to ${credits(price)} credits)`,
        ),
        cc === 'SE'
          ? el(
              'button',
              { type: 'button', onclick: () => loadWorkplaces(d.registrikood, workplacesBox) },
              `Show workplaces (up to ${credits(price)} credits)`,
            )
          : null,
      ),
      historyBox,
      workplacesBox,
    );
    document.getElementById('detail-h').focus();
  }

  async function loadHistory(cc, code, box) {
    try {
      const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'history' });
      setBalance(res.meta.credit_balance);
      const periods = res.data.periods;
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
            el('td', {}, p.turnover ?? '—'),
            el('td', {}, p.employees ?? '—'),
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
