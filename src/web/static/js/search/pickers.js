// Pickers that search by name and show the chosen items as removable chips (multi-choice lists, activities,
// locations). The item lists and the matching are pure functions, exported for the unit tests.
import { el } from '../dom.js';

/** Accents and capitals ignored: "Põhja" is found by "pohja". */
export const fold = (s) =>
  String(s ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();

/** A select's options as picker items: the register's own code beside its name, never an internal marker. */
export function optionItems(options) {
  return (options ?? []).map((o) => ({
    key: String(o.value),
    label:
      String(o.value) === o.label || String(o.value).startsWith('__') ? o.label : `${o.label} (${o.value})`,
    values: [String(o.value)],
    search: `${o.label} ${o.value}`,
  }));
}

/**
 * A tree (activities or locations) as picker items, broad ones first. Picking a node sends what spec 4.2
 * says matches its whole subtree: a location node's codes (EE/LV/FI/PL) or name variants (LT); for an
 * activity the node and every code under it, since a parent code alone matches only rows tagged with it.
 */
export function treeItems(roots, isLocations) {
  const out = [];
  const subtreeCodes = (m, into = []) => {
    into.push(m.kood);
    for (const c of m.children ?? []) subtreeCodes(c, into);
    return into;
  };
  const walk = (n, path) => {
    out.push({
      key: n.kood,
      // Activities carry their code (people look them up by it); places are known by name and region.
      label: isLocations ? n.label : `${n.kood} ${n.label}`,
      detail: isLocations && path.length ? `(${path.join(', ')})` : null,
      values: isLocations ? (n.locations ?? n.codes ?? [n.kood]) : subtreeCodes(n),
      search: isLocations ? n.label : `${n.kood} ${n.label}`,
      depth: path.length,
    });
    for (const c of n.children ?? [])
      walk(c, isLocations ? [n.label, ...path].slice(0, 2) : [...path, n.kood]);
  };
  for (const r of roots) walk(r, []);
  // Stable: a region is offered before the villages that share its name.
  return out.sort((a, b) => a.depth - b.depth);
}

/**
 * The items to offer for what is typed: nothing under two letters unless the list is short (`browse`), never
 * an item already chosen, at most 30.
 */
export function matchItems(items, typed, chosen, browse) {
  const q = fold(typed.trim());
  if (q.length < 2 && !browse) return [];
  return items.filter((i) => !chosen.has(i.key) && (q.length < 2 || fold(i.search).includes(q))).slice(0, 30);
}

/** The chosen items as chips, each with a Remove button. */
function renderChips(p) {
  p.chips.replaceChildren(
    ...[...p.chosen.values()].map((item) =>
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
              p.chosen.delete(item.key);
              renderChips(p);
              showMatches(p);
              p.s.scheduleCount();
              p.input.focus();
            },
          },
          '×',
        ),
      ),
    ),
  );
}

/** Picks a match: it becomes a chip, and the focus moves to the next match so several can be picked by keyboard. */
function pick(p, item, button) {
  p.chosen.set(item.key, item);
  renderChips(p);
  p.s.scheduleCount();
  const li = button.parentElement;
  const next =
    li.nextElementSibling?.querySelector('button') ?? li.previousElementSibling?.querySelector('button');
  li.remove();
  (next ?? p.input).focus();
}

async function showMatches(p) {
  try {
    p.items = p.items ?? (await p.source());
    const hits = matchItems(p.items, p.input.value, p.chosen, p.browse);
    p.matches.replaceChildren(
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
              onclick: (e) => pick(p, item, e.currentTarget),
            },
            el('span', { class: 'sr' }, 'Add '),
            item.label,
            item.detail ? el('small', {}, ` ${item.detail}`) : null,
          ),
        ),
      ),
    );
    if (fold(p.input.value.trim()).length >= 2 && !hits.length)
      p.matches.replaceChildren(el('li', { class: 'none' }, 'Nothing found.'));
  } catch (err) {
    p.s.showError(err);
  }
}

/** ↓ from the input into the matches, ↓/↑ between them, ↑ from the first back to the input. */
function wireKeys(p) {
  p.input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      p.matches.querySelector('button')?.focus();
      e.preventDefault();
    }
  });
  p.matches.addEventListener('keydown', (e) => {
    const li = e.target.closest('li');
    if (!li) return;
    if (e.key === 'ArrowDown') li.nextElementSibling?.querySelector('button')?.focus();
    else if (e.key === 'ArrowUp') (li.previousElementSibling?.querySelector('button') ?? p.input).focus();
    else return;
    e.preventDefault();
  });
}

/**
 * A picker: `source()` gives the items { key, label, detail?, values, search }; picking one adds its
 * `values` to the parameter. With `browse`, the first items are listed before anything is typed. Registers
 * its field on the search page `s` and returns its fieldset.
 */
export function chipPicker(s, { id, label, note, param, source, browse }) {
  const listId = `${id}-matches`;
  const p = {
    s,
    source,
    browse,
    items: null,
    chosen: new Map(),
    chips: el('ul', { class: 'chips', 'aria-label': `${label}: chosen` }),
    matches: el('ul', { class: 'matches', id: listId, 'aria-label': `${label}: matches` }),
    input: el('input', {
      id,
      type: 'search',
      autocomplete: 'off',
      'aria-describedby': note ? `${id}-note` : null,
      'aria-controls': listId,
    }),
  };
  s.fields.push({
    label,
    get: () => [[param, [...new Set([...p.chosen.values()].flatMap((i) => i.values))]]],
    clear: () => {
      p.chosen.clear();
      renderChips(p);
    },
  });
  // A short list (statuses, most legal forms) is shown at once; a long one or a tree waits for a word.
  if (browse) showMatches(p);
  else p.input.addEventListener('focus', () => showMatches(p), { once: true });
  p.input.addEventListener('input', (e) => {
    // Typing a search word is not a filter change: no count until something is picked.
    e.stopPropagation();
    showMatches(p);
  });
  wireKeys(p);
  const labelEl = el('label', { for: id }, 'Find by name');
  return el(
    'fieldset',
    { class: 'field picker' },
    el('legend', {}, label),
    p.chips,
    labelEl,
    p.input,
    p.matches,
    note,
  );
}

/** Tree filters (activities, locations), searched by name; the tree is fetched (free) when first needed. */
export function treePicker(s, f, cc, { id, label, note }) {
  const isLocations = (f.options_url ?? '').includes('/locations');
  const source = async () =>
    treeItems(await s.treeOf(cc, isLocations ? 'locations' : 'activities'), isLocations);
  return chipPicker(s, { id, label, note, param: f.param, source, browse: false });
}
