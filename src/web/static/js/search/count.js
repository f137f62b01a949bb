/* global document, setTimeout, clearTimeout */
// The free count and the quote as the filters change (debounced), and, when nothing matches, which filter
// to loosen: counted again without each one that is set (counting is free).
import { api, el } from '../dom.js';
import { updateFilterBadge } from './filters.js';
import { countTexts, isSet, loosenChoices, paramsOf, watchHref } from './state.js';

/** The no-match advice goes beside the count, or at the drawer's top while the drawer covers the count. */
export function showLoosen(s, ...nodes) {
  const open = s.drawerOpen();
  s.ui.loosenPane.replaceChildren(...(open ? [] : nodes));
  s.ui.loosenDrawer.replaceChildren(...(open ? nodes : []));
}

/** Typing a name sends one count when the typing pauses, not one per key. */
export function scheduleCount(s, e) {
  if (e && e.target === s.ui.country) return;
  updateFilterBadge(s);
  clearTimeout(s.countTimer);
  s.countTimer = setTimeout(() => updateCount(s), 300);
}

const countOf = (s, params) =>
  api('/app/api/count', {
    params: { country: s.ui.country.value, ...params },
    page_size: Number(s.ui.pageSize.value),
  });

/** Each count is numbered: an answer overtaken by a newer count is dropped. */
async function updateCount(s) {
  const { ui } = s;
  if (!ui.country.value || ui.form.getAttribute('data-loaded') !== ui.country.value) return;
  const seq = ++s.seq.count;
  try {
    const params = paramsOf(s.fields);
    const res = await countOf(s, params);
    if (seq !== s.seq.count) return;
    s.showError(null);
    // Filters the count accepted are a saved search a watchlist can keep.
    const watch = document.getElementById('watch-search');
    if (watch) {
      watch.setAttribute('href', watchHref(ui.country.value, params));
      watch.parentElement.hidden = false;
    }
    const t = countTexts(res, s.fmt);
    ui.countOut.textContent = t.count;
    ui.quoteOut.textContent = t.quote;
    ui.runButton.disabled = !t.runnable;
    ui.runButton.textContent = t.run;
    // The drawer covers the count bar on a phone, so it repeats the count and the cost at its top.
    ui.drawerStatus.textContent = `${t.count} ${t.quote}`;
    if (res.count === 0) await suggestLoosening(s, seq);
    else showLoosen(s);
  } catch (err) {
    if (seq !== s.seq.count) return;
    ui.countOut.textContent = '';
    ui.quoteOut.textContent = '';
    ui.runButton.disabled = true;
    s.showError(err);
  }
}

function clearButton(s, { f, n }) {
  const onclick = () => {
    f.clear();
    s.scheduleCount();
  };
  return el(
    'li',
    {},
    el('button', { type: 'button', class: 'secondary', onclick }, `Clear ${f.label}`),
    ` ${n === 1 ? '1 company' : `${s.fmt.count(n)} companies`}`,
  );
}

async function suggestLoosening(s, seq) {
  const set = s.fields.filter(isSet).slice(0, 8);
  if (!set.length) {
    showLoosen(s, el('p', {}, 'No companies of this country are for sale yet.'));
    return;
  }
  try {
    const counts = await Promise.all(set.map((f) => countOf(s, paramsOf(s.fields, f)).then((r) => r.count)));
    if (seq !== s.seq.count) return;
    const helps = loosenChoices(set, counts);
    const intro = !helps.length
      ? 'No single filter is to blame: clear several, or start again with fewer.'
      : set.length === 1
        ? 'This filter leaves nothing. Clear it to see companies:'
        : 'Loosen one filter. Clearing it would find:';
    showLoosen(
      s,
      el(
        'div',
        { class: 'loosen' },
        el('h2', {}, 'No companies match'),
        el('p', {}, intro),
        helps.length
          ? el(
              'ul',
              {},
              helps.map((h) => clearButton(s, h)),
            )
          : null,
      ),
    );
  } catch {
    // The suggestion is a help, not a result: without it the count still says there is no match.
  }
}
