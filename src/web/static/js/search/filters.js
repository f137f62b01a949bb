// The country's filters as labelled form controls, built from /filters, in collapsible groups. Each control
// registers a field ({ label, get, clear, group }) on the search page `s`.
import { el } from '../dom.js';
import { chipPicker, optionItems, treePicker } from './pickers.js';
import { isSet } from './state.js';

/**
 * The label and hint a filter shows: the page's own wording (src/web/filter-ui.ts) keyed by parameter, the
 * country's classification named on the activity filter, and the API's note only when it is a bare unit
 * such as "EUR" (its other notes are for programmers).
 */
export function fieldWording(f, presentation, industrySystem) {
  const key = f.param ?? f.param_min ?? f.param_from;
  const p = presentation.byParam[key] ?? { group: 'more', label: null, hint: null };
  const label = key === 'industry_codes' ? `Activity (${industrySystem ?? ''})` : (p.label ?? f.label);
  const hint = p.hint ?? (/^[A-Z]{3}$/.test(f.note ?? '') ? `Amounts in ${f.note}.` : null);
  return { key, group: p.group, label, hint };
}

/** "Filters (2 set)" on the drawer's button, "(1 set)" in each group's heading. */
export function updateFilterBadge(s) {
  const n = s.fields.filter(isSet).length;
  s.ui.openFilters.textContent = n ? `Filters (${n} set)` : 'Filters';
  for (const det of s.ui.filtersBox.querySelectorAll('details[data-group]')) {
    const set = s.fields.filter((f) => f.group === det.dataset.group && isSet(f)).length;
    det.querySelector('.group-count').textContent = set ? ` (${set} set)` : '';
  }
}

/** The country's filters as collapsible groups (details/summary: keyboard and screen readers for free). */
export function buildGroups(s, specs, cc) {
  const pres = s.boot.presentation;
  const boxes = new Map(
    pres.groups.map((g) => [
      g.id,
      el(
        'details',
        { 'data-group': g.id, open: g.open },
        el('summary', {}, g.title, el('span', { class: 'group-count' })),
        el('div', { class: 'group-body' }),
      ),
    ]),
  );
  for (const f of specs) {
    const w = fieldWording(f, pres, s.countryInfo(cc)?.industrySystem);
    const before = s.fields.length;
    const node = buildField(s, f, cc, w);
    for (const field of s.fields.slice(before)) field.group = w.group;
    (boxes.get(w.group) ?? boxes.get('more')).querySelector('.group-body').append(node);
  }
  return [...boxes.values()].filter((d) => d.querySelector('.group-body').childElementCount > 0);
}

/** One filter spec of /filters as labelled form controls. */
function buildField(s, f, cc, { key, label, hint }) {
  const id = `f-${key}`;
  const c = {
    id,
    label,
    note: hint ? el('small', { id: `${id}-note` }, hint) : null,
    described: hint ? `${id}-note` : null,
  };
  switch (f.type) {
    case 'text':
      return textField(s, f, c);
    case 'boolean':
      return selectField(s, f, c, [
        ['true', 'Yes'],
        ['false', 'No'],
      ]);
    case 'select':
    case 'multi_select': {
      const options = optionItems(f.options);
      if (f.type === 'multi_select' || f.multi) {
        const source = async () => options;
        return chipPicker(s, { ...c, param: f.param, source, browse: options.length <= 12 });
      }
      return selectField(
        s,
        f,
        c,
        options.map((o) => [o.key, o.label]),
      );
    }
    case 'number_range':
    case 'date_range':
      return rangeField(s, f, c);
    case 'tree':
      return treePicker(s, f, cc, c);
    default:
      return el('p', {}, `${label}: not offered in the app yet.`);
  }
}

function textField(s, f, { id, label, note, described }) {
  const input = el('input', { id, type: 'text', 'aria-describedby': described, autocomplete: 'off' });
  s.fields.push({
    label,
    get: () => [[f.param, input.value.trim()]],
    clear: () => {
      input.value = '';
    },
  });
  return el('div', { class: 'field' }, el('label', { for: id }, label), input, note);
}

/** A select of one value, '' being "Any". */
function selectField(s, f, { id, label, note, described }, options) {
  const select = el(
    'select',
    { id, 'aria-describedby': described },
    el('option', { value: '' }, 'Any'),
    options.map(([value, text]) => el('option', { value }, text)),
  );
  s.fields.push({
    label,
    get: () => [[f.param, select.value]],
    clear: () => {
      select.value = '';
    },
  });
  return el('div', { class: 'field' }, el('label', { for: id }, label), select, note);
}

/** From/to (dates) or at least/at most (numbers), each labelled with the filter's name for screen readers. */
function rangeField(s, f, { id, label, note, described }) {
  const isNumber = f.type === 'number_range';
  const [pa, pb] = isNumber ? [f.param_min, f.param_max] : [f.param_from, f.param_to];
  const input = (suffix) =>
    el('input', {
      id: `${id}-${suffix}`,
      type: isNumber ? 'number' : 'date',
      step: isNumber ? 'any' : null,
      'aria-describedby': described,
    });
  const a = input('a');
  const b = input('b');
  s.fields.push({
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
  const [from, to] = isNumber ? ['at least', 'at most'] : ['from', 'to'];
  const sr = el('span', { class: 'sr' }, ` (${label})`);
  return el(
    'fieldset',
    { class: 'field range' },
    el('legend', {}, label),
    el('label', { for: `${id}-a` }, from, sr),
    a,
    el('label', { for: `${id}-b` }, to, sr.cloneNode(true)),
    b,
    note,
  );
}
