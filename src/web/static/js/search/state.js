// @ts-check
/* global URLSearchParams */
/**
 * The search page's state and what follows from it, as pure functions: the page and the sort, the
 * parameters the filters make, the count's wording, the cost of the neighbouring pages, which filters to
 * loosen, and the place names of a location tree. No page and no browser global, so
 * test/web/dashboard-script.test.ts runs them under Node.
 */

/** @typedef {import('../format.js').Formats} Formats */
/** @typedef {{ page: number, sort_by: string, sort_dir: 'asc' | 'desc' }} SearchState */
/** @typedef {string | string[]} ParamValue */
/**
 * A filter control: its label, its parameters, and how to empty it; `group` is its collapsible group.
 * @typedef {{ label: string, get: () => [string, ParamValue][], clear: () => void, group?: string }} Field
 */
/** @typedef {{ page: number, page_size: number, total: number }} PageData */
/** @typedef {{ rows_returned: number, credits_charged: number }} PageMeta */

/** @returns {SearchState} */
export const initialState = () => ({ page: 1, sort_by: 'registrikood', sort_dir: 'asc' });

/**
 * @param {SearchState} state
 * @param {number} page
 * @returns {SearchState}
 */
export const atPage = (state, page) => ({ ...state, page });

/**
 * Sorting by a column: ascending, or descending when it is the ascending sort already; from page 1.
 * @param {SearchState} state
 * @param {string} key
 * @returns {SearchState}
 */
export function sortedBy(state, key) {
  const dir = state.sort_by === key && state.sort_dir === 'asc' ? 'desc' : 'asc';
  return { page: 1, sort_by: key, sort_dir: dir };
}

/**
 * The column's aria-sort, or null when the results are not sorted by it.
 * @param {SearchState} state
 * @param {string | null} key
 */
export const ariaSort = (state, key) =>
  state.sort_by === key ? (state.sort_dir === 'asc' ? 'ascending' : 'descending') : null;

/** @param {ParamValue} v */
const isEmpty = (v) => v === '' || (Array.isArray(v) && v.length === 0);

/** @param {Field} f */
export const isSet = (f) => f.get().some(([, v]) => !isEmpty(v));

/**
 * The parameters the filters send, empty ones left out; `skip` leaves one filter out (what-if counts).
 * @param {Field[]} fields
 * @param {Field} [skip]
 * @returns {Record<string, ParamValue>}
 */
export function paramsOf(fields, skip) {
  /** @type {Record<string, ParamValue>} */
  const out = {};
  for (const f of fields) {
    if (f === skip) continue;
    for (const [param, value] of f.get()) if (!isEmpty(value)) out[param] = value;
  }
  return out;
}

/**
 * The Watchlists page with this search filled in ("Watch this search"): the country and the filters as the
 * API's query string, repeated parameters for lists.
 * @param {string} country
 * @param {Record<string, ParamValue>} params
 */
export function watchHref(country, params) {
  const filters = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const item of Array.isArray(v) ? v : [v]) filters.append(k, String(item));
  }
  const q = new URLSearchParams({ country, filters: filters.toString() });
  return `/dashboard/watchlists?${q.toString()}#new-search`;
}

/**
 * The count bar's wording for a /count answer with its quote: the count, the cost of the first page, and
 * the run button's label.
 * @param {{ count: number, quote: { rows_first_page: number, credits_first_page: number, price: number, waived_by: string | null } }} res
 * @param {Formats} fmt
 */
export function countTexts(res, fmt) {
  const q = res.quote;
  const count = res.count === 1 ? '1 company matches.' : `${fmt.count(res.count)} companies match.`;
  const quote =
    res.count === 0
      ? 'Nothing to buy: counting is free.'
      : q.waived_by
        ? `The first ${q.rows_first_page} rows cost nothing (${q.waived_by}).`
        : `The first ${q.rows_first_page} rows cost ${fmt.credits(q.credits_first_page)} credits ` +
          `(${fmt.price(q.price)} a row). Counting is free.`;
  const run =
    res.count === 0 || q.waived_by
      ? 'Run search'
      : `Run search (${fmt.credits(q.credits_first_page)} credits)`;
  return { count, quote, run, runnable: res.count > 0 };
}

/** @param {PageData} data */
export const pageCount = (data) => Math.max(1, Math.ceil(data.total / data.page_size));

/**
 * Credits for `rows` rows at `price`, to the micro-credit the wallet counts in (no 0.28000000000000003).
 * @param {number} rows
 * @param {number} price
 */
export const rowsCost = (rows, price) => Math.round(rows * price * 1e6) / 1e6;

/**
 * The previous and next page buttons: which page each goes to, whether it can, and what it costs, said
 * before anyone clicks. A page is free when this one was (a plan waives the country), else rows x price.
 * @param {PageData} data
 * @param {PageMeta} meta
 * @param {number} price the country's row price
 * @param {Formats} fmt
 */
export function pageButtons(data, meta, price, fmt) {
  const pages = pageCount(data);
  const free = meta.rows_returned > 0 && meta.credits_charged === 0;
  /** @param {number} rows */
  const cost = (rows) => `${rows} rows, ${free ? 'free' : `${fmt.credits(rowsCost(rows, price))} credits`}`;
  const nextRows = Math.max(0, Math.min(data.page_size, data.total - data.page * data.page_size));
  return {
    previous: {
      page: data.page - 1,
      disabled: data.page <= 1,
      label: data.page <= 1 ? 'Previous page' : `Previous page (${cost(data.page_size)})`,
    },
    next: {
      page: data.page + 1,
      disabled: data.page >= pages,
      label: nextRows === 0 ? 'Next page' : `Next page (${cost(nextRows)})`,
    },
  };
}

/**
 * Of the filters that are set, the ones whose clearing brings companies back, most first, at most three.
 * @template T
 * @param {T[]} set
 * @param {number[]} counts the count without each filter of `set`, in its order
 * @returns {{ f: T, n: number }[]}
 */
export function loosenChoices(set, counts) {
  return set
    .map((f, i) => ({ f, n: counts[i] ?? 0 }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n)
    .slice(0, 3);
}

/** @typedef {{ kood: string, label: string, children?: TreeNode[], codes?: string[], locations?: string[] }} TreeNode */

/**
 * Location code -> "town, region" (a top-level region is named alone) from a country's location tree.
 * @param {TreeNode[]} roots
 */
export function placeNames(roots) {
  /** @type {Map<string, string>} */
  const out = new Map();
  /**
   * @param {TreeNode} n
   * @param {TreeNode | null} top
   */
  const walk = (n, top) => {
    out.set(n.kood, top ? `${n.label}, ${top.label}` : n.label);
    for (const c of n.children ?? []) walk(c, top ?? n);
  };
  for (const r of roots) walk(r, null);
  return out;
}

/**
 * Town and region of a row: from the location tree by its code, else the municipality the row names.
 * @param {{ ehak_kood?: string | null, ehak_nimetus?: string | null }} row
 * @param {Map<string, string> | null} places
 */
export function placeOf(row, places) {
  const fromTree = row.ehak_kood && places ? places.get(row.ehak_kood) : undefined;
  return fromTree ?? row.ehak_nimetus ?? null;
}
