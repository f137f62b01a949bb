/* global document, window, navigator */
// The in-app search page: filters in a side panel (a drawer on a phone), the free count and the quote in a
// bar above the results, and the metered calls (search, detail) one at a time. The search's state lives in
// one object, `s`, that the other search modules are handed.
import { api, costly } from '../dom.js';
import { formats } from '../format.js';
import { scheduleCount, showLoosen } from './count.js';
import { renderDetail } from './detail.js';
import { buildGroups, updateFilterBadge } from './filters.js';
import { exportCsv, renderResults } from './results.js';
import { atPage, initialState, paramsOf, placeNames } from './state.js';

function elements() {
  const $ = (id) => document.getElementById(id);
  return {
    form: $('search-form'),
    country: $('country'),
    filtersBox: $('filters'),
    pageSize: $('page_size'),
    countOut: $('count'),
    quoteOut: $('quote'),
    runButton: $('run-search'),
    exportButton: $('export-csv'),
    errorOut: $('search-error'),
    loosenPane: $('loosen'),
    loosenDrawer: $('loosen-drawer'),
    results: $('results'),
    detail: $('detail'),
    balanceOut: $('balance'),
    panel: $('filter-panel'),
    openFilters: $('open-filters'),
    closeFilters: $('close-filters'),
    filtersHeading: $('filters-h'),
    pane: document.querySelector('.results-pane'),
    drawerStatus: $('drawer-status'),
  };
}

/** The search's state and the actions the other modules call back. */
function searchSession(ui, boot) {
  const fmt = formats(navigator.language || undefined);
  const phone = window.matchMedia('(max-width: 40rem)');
  const s = {
    ui,
    boot,
    fmt,
    phone,
    /** The filter controls of the chosen country: { label, get() -> [param, value][], clear(), group }. */
    fields: [],
    /** Rows bought in this visit, by country and code, for the CSV export. */
    bought: new Map(),
    state: initialState(),
    seq: { count: 0, load: 0 },
    countTimer: null,
    /** Location and activity trees by kind and country (free to fetch), fetched once per visit. */
    trees: new Map(),
    countryInfo: (cc) => boot.countries.find((c) => c.code === cc),
    priceOf: (cc) => s.countryInfo(cc)?.price ?? 0,
    drawerOpen: () => phone.matches && ui.panel.classList.contains('open'),
    showError: (err) => {
      ui.errorOut.hidden = !err;
      ui.errorOut.textContent = err ? String(err.message ?? err) : '';
    },
    setBalance: (b) => {
      ui.balanceOut.textContent = fmt.credits(b);
    },
    scheduleCount: (e) => scheduleCount(s, e),
    runSearch: () => costly(() => searchPage(s)),
    openDetail: (code) => costly(() => detailOf(s, code)),
    treeOf: (cc, kind) => treeOf(s, cc, kind),
  };
  return s;
}

function treeOf(s, cc, kind) {
  const key = `${kind}:${cc}`;
  if (!s.trees.has(key)) {
    const p = api(`/app/api/${kind}?country=${cc}`);
    p.catch(() => s.trees.delete(key));
    s.trees.set(key, p);
  }
  return s.trees.get(key);
}

/** On a phone the filters are a drawer over the results; the rest of the page is inert while it is open. */
function wireDrawer(s) {
  const { ui, phone } = s;
  s.setDrawer = (open) => {
    ui.panel.classList.toggle('open', open);
    ui.openFilters.setAttribute('aria-expanded', String(open));
    ui.pane.inert = open && phone.matches;
    if (open) ui.filtersHeading.focus();
    else if (phone.matches) ui.openFilters.focus();
  };
  ui.openFilters.addEventListener('click', () => s.setDrawer(true));
  ui.closeFilters.addEventListener('click', () => s.setDrawer(false));
  ui.panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && ui.panel.classList.contains('open')) s.setDrawer(false);
  });
  phone.addEventListener('change', () => {
    if (!phone.matches) ui.pane.inert = false;
  });
}

/**
 * Builds the form for the chosen country. Each load is numbered: a country changed again before the
 * filters arrived drops the older answer, so two loads never both add their fields. The form carries
 * data-loaded="<country>" once its fields are in place (what a test or an assistive tool can wait on).
 */
async function loadCountry(s) {
  const { ui } = s;
  const seq = ++s.seq.load;
  const cc = ui.country.value;
  s.fields = [];
  for (const box of [ui.filtersBox, ui.results, ui.detail]) box.replaceChildren();
  ui.form.removeAttribute('data-loaded');
  showLoosen(s);
  ui.countOut.textContent = cc ? 'Counting…' : 'Choose a country to count companies (counting is free).';
  ui.quoteOut.textContent = '';
  ui.drawerStatus.textContent = ui.countOut.textContent;
  ui.runButton.disabled = true;
  s.showError(null);
  updateFilterBadge(s);
  if (!cc) return;
  ui.filtersBox.setAttribute('aria-busy', 'true');
  try {
    const spec = await api(`/app/api/filters?country=${cc}`);
    if (seq !== s.seq.load) return;
    ui.filtersBox.replaceChildren(...buildGroups(s, spec.filters, cc));
    ui.form.setAttribute('data-loaded', cc);
    s.scheduleCount();
  } catch (err) {
    if (seq === s.seq.load) s.showError(err);
  } finally {
    if (seq === s.seq.load) ui.filtersBox.removeAttribute('aria-busy');
  }
}

async function searchPage(s) {
  const { ui } = s;
  const cc = ui.country.value;
  s.showError(null);
  try {
    const { page, sort_by, sort_dir } = s.state;
    const res = await api('/app/api/search', {
      params: {
        country: cc,
        ...paramsOf(s.fields),
        page: String(page),
        page_size: ui.pageSize.value,
        sort_by,
        sort_dir,
      },
    });
    for (const row of res.data.items) s.bought.set(`${cc}:${row.registrikood}`, { country: cc, ...row });
    ui.exportButton.disabled = s.bought.size === 0;
    s.setBalance(res.meta.credit_balance);
    const places = s.countryInfo(cc)?.hasLocationTree
      ? await s
          .treeOf(cc, 'locations')
          .then(placeNames)
          .catch(() => null)
      : null;
    renderResults(s, cc, res, places);
  } catch (err) {
    s.showError(err);
  }
}

async function detailOf(s, code) {
  const cc = s.ui.country.value;
  s.showError(null);
  try {
    const res = await api('/app/api/company', { country: cc, registrikood: code, part: 'detail' });
    s.setBalance(res.meta.credit_balance);
    renderDetail(s, res.data, res.meta, cc);
  } catch (err) {
    s.showError(err);
  }
}

export function initSearch() {
  const ui = elements();
  const s = searchSession(ui, JSON.parse(document.getElementById('boot').textContent));
  wireDrawer(s);
  ui.country.addEventListener('change', () => loadCountry(s));
  ui.form.addEventListener('input', s.scheduleCount);
  ui.form.addEventListener('change', s.scheduleCount);
  ui.form.addEventListener('submit', (e) => {
    e.preventDefault();
    s.state = atPage(s.state, 1);
    if (ui.panel.classList.contains('open')) s.setDrawer(false);
    s.runSearch();
  });
  ui.exportButton.addEventListener('click', () => exportCsv(s));
  // A country chosen before this script ran (a slow load, or the browser restoring the form) had no
  // listener to hear its change event: load it now, or the filters would never appear.
  if (ui.country.value) loadCountry(s);
}
