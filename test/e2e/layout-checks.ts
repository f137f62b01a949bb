import type { Page } from 'playwright-core';

/**
 * Layout checks run inside the page (as strings, so the pages keep their CSP), measured on what Chromium
 * laid out: every word whole and inside its box, the header's parts apart, the chart's labels apart and
 * readable. Each returns the problems it found, named so that a failure says where to look.
 */

/**
 * Every word of every visible text node, measured by Range rects:
 * - broken: a piece lies on more than one line ("Grant" / "ed", "2026-" / "12-04"). A word may still wrap
 *   after a hyphen or a dash, as typesetting does ("Põhja-" / "Tallinna"), so those pieces are measured
 *   one by one;
 * - wider than its box: it sticks out of the content box of the block (cell, button, paragraph) it is laid
 *   out in. A box that scrolls sideways (a wide table on a phone, a code sample) holds any word whole, so
 *   it is not held to its visible width.
 * Words are split at ASCII white space only: "20,00 €" joined by a no-break space is one word. A token
 * inside `.wrap-any` (style.css: URLs and ids with no space in them) is meant to break, so only its box is
 * checked.
 */
const WORDS = `(() => {
  const problems = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className ? '.' + e.className.trim().replace(/ +/g, '.') : '');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let words = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, textarea, select, option, svg, .sr')) continue;
    let box = parent;
    while (box.parentElement && ['inline', 'contents'].includes(getComputedStyle(box).display)) box = box.parentElement;
    const cs = getComputedStyle(box);
    const b = box.getBoundingClientRect();
    const left = b.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
    const right = b.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
    const scrolls = ['auto', 'scroll'].includes(cs.overflowX);
    // A long token marked .wrap-any (an endpoint URL, an event id) has no place to wrap at: it may break
    // anywhere, but must still stay inside its box.
    const breaks = parent.closest('.wrap-any') !== null;
    for (const m of node.data.matchAll(/[^ \\t\\n\\r\\f]+/g)) {
      // Pieces: a line may break after a hyphen or an en dash (not before a digit, as in 2026-12-04), and
      // around an em dash (Unicode line breaking, UAX 14).
      const w = m[0];
      const cuts = [0, w.length];
      for (let i = 0; i < w.length; i++) {
        if (w[i] === '\u2014') cuts.push(i, i + 1);
        else if ('-\u2010\u2013'.includes(w[i]) && !/[0-9]/.test(w[i + 1] || '0')) cuts.push(i + 1);
      }
      const at = [...new Set(cuts)].sort((a, b) => a - b);
      const pieces = at.slice(1).map((end, k) => [m.index + at[k], m.index + end]);
      for (const [start, end] of pieces) {
        range.setStart(node, start);
        range.setEnd(node, end);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
        if (!rects.length) continue;
        words++;
        const word = node.data.slice(start, end);
        if (!breaks && rects.some((r) => r.top >= rects[0].bottom - 1)) {
          problems.push('broken: "' + word + '" in ' + name(box) + ' (' + location.pathname + ')');
          continue;
        }
        const l = Math.min(...rects.map((r) => r.left));
        const r = Math.max(...rects.map((r) => r.right));
        if (!scrolls && (l < left - 1 || r > right + 1)) {
          problems.push('wider than its box: "' + word + '" ' + Math.round(r - l) + ' px in ' + name(box) +
            ' of ' + Math.round(right - left) + ' px (' + location.pathname + ')');
        }
      }
    }
  }
  return { words, problems: problems.slice(0, 12) };
})()`;

/** The header's parts (the name, each link, the e-mail, Sign out) lie apart and inside the screen. */
const HEADER = `(() => {
  const parts = [...document.querySelectorAll('header .brand, header nav li, header .account > *')]
    .filter((e) => e.getClientRects().length > 0)
    .map((e) => ({ what: (e.textContent || '').trim().replace(/\\s+/g, ' '), r: e.getBoundingClientRect() }))
    .filter((p) => p.r.width > 0 && p.r.height > 0);
  const problems = [];
  for (const p of parts) {
    if (p.r.left < -0.5 || p.r.right > window.innerWidth + 0.5) problems.push('off screen: ' + p.what);
  }
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const a = parts[i].r;
      const b = parts[j].r;
      const apart = a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
      if (!apart) problems.push('overlap: "' + parts[i].what + '" and "' + parts[j].what + '"');
    }
  }
  return { parts: parts.map((p) => p.what), problems };
})()`;

/**
 * The labels of every chart: inside the drawing, apart from each other, and at least 11 px on the screen
 * (the font size times the drawing's scale, so a shrunken drawing counts as the small text it shows).
 */
const CHARTS = `(() => {
  const problems = [];
  let labels = 0;
  for (const svg of document.querySelectorAll('figure.chart svg')) {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map((t) => ({
      what: t.textContent,
      r: t.getBoundingClientRect(),
      px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
    }));
    labels += texts.length;
    for (const t of texts) {
      if (t.px < 11) problems.push('too small: "' + t.what + '" ' + t.px.toFixed(1) + ' px');
      if (t.r.left < box.left - 0.5 || t.r.right > box.right + 0.5 || t.r.top < box.top - 0.5 || t.r.bottom > box.bottom + 0.5)
        problems.push('outside the chart: "' + t.what + '"');
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i].r;
        const b = texts[j].r;
        const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
        if (!apart) problems.push('overlap: "' + texts[i].what + '" and "' + texts[j].what + '"');
      }
    }
  }
  return { labels, problems };
})()`;

export interface LayoutReport {
  /** How many word pieces, header parts and chart labels were measured (a check of nothing proves nothing). */
  words: number;
  headerParts: string[];
  chartLabels: number;
  problems: string[];
}

export async function layoutReport(page: Page): Promise<LayoutReport> {
  const words = await page.evaluate<{ words: number; problems: string[] }>(WORDS);
  const header = await page.evaluate<{ parts: string[]; problems: string[] }>(HEADER);
  const charts = await page.evaluate<{ labels: number; problems: string[] }>(CHARTS);
  return {
    words: words.words,
    headerParts: header.parts,
    chartLabels: charts.labels,
    problems: [...words.problems, ...header.problems, ...charts.problems],
  };
}
