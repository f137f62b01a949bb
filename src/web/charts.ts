import { esc, SafeHtml } from './html.ts';

export interface Series {
  name: string;
  /** A CSS class of the bar colour (style.css), so the SVG has no inline style under the CSP. */
  cls: string;
  values: number[];
}

/** The chart's height in CSS pixels, and the room above the bars (the scale) and below them (the dates). */
const HEIGHT = 180;
const TOP = 22;
const BOTTOM = 22;
/** At most this many dates under the bars, so each has room at a phone's width (about 20 % of 340 px). */
const MAX_DATE_LABELS = 5;

const DAY_LABEL = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** Which slots get a date under them: every step-th, and none so near the right edge that it would not fit. */
export function dateLabelSlots(n: number): number[] {
  const step = Math.max(1, Math.ceil(n / MAX_DATE_LABELS));
  const out: number[] = [];
  for (let i = 0; i + step * 0.8 <= n; i += step) out.push(i);
  return out;
}

/**
 * Stacked bars as inline SVG (no chart library, no script): one bar per slot, one segment per series.
 * Horizontal positions are percentages of the chart's width and there is no viewBox, so the SVG stretches
 * to any width while its text keeps the page's font size: the dates and the scale read the same on a
 * 375 px phone as on a laptop, where a scaled drawing shrank them to 5 px. Screen readers get the figure's
 * label and a <title> per segment; the page shows the numbers as a table too.
 */
export function stackedBars(opts: {
  label: string;
  slots: string[];
  series: Series[];
  /** What is counted, for one and for several ("request", "requests"). */
  unit: { one: string; many: string };
}): SafeHtml {
  const amount = (v: number) => `${round(v)} ${v === 1 ? opts.unit.one : opts.unit.many}`;
  const n = Math.max(1, opts.slots.length);
  const totals = opts.slots.map((_, i) => opts.series.reduce((s, ser) => s + (ser.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotH = HEIGHT - TOP - BOTTOM;
  const pct = (slots: number) => `${((slots / n) * 100).toFixed(3)}%`;
  let bars = '';
  opts.slots.forEach((slot, i) => {
    let y = HEIGHT - BOTTOM;
    for (const ser of opts.series) {
      const v = ser.values[i] ?? 0;
      if (v <= 0) continue;
      const h = (v / max) * plotH;
      y -= h;
      bars += `<rect class="${esc(ser.cls)}" x="${pct(i + 0.15)}" y="${y.toFixed(1)}" width="${pct(0.7)}" height="${h.toFixed(1)}"><title>${esc(slot)} ${esc(ser.name)}: ${esc(amount(v))}</title></rect>`;
    }
  });
  // Each date starts where its bar starts; the scale is the dashed line at the tallest bar, named above it.
  const dates = dateLabelSlots(opts.slots.length)
    .map((i) => `<text x="${pct(i + 0.15)}" y="${HEIGHT - 5}">${esc(dayLabel(opts.slots[i] ?? ''))}</text>`)
    .join('');
  const axis =
    `<line class="axis" x1="0" y1="${HEIGHT - BOTTOM}" x2="100%" y2="${HEIGHT - BOTTOM}"/>` +
    `<line class="grid" x1="0" y1="${TOP}" x2="100%" y2="${TOP}"/>` +
    `<text x="0" y="${TOP - 6}">${esc(totals.some((t) => t > 0) ? amount(max) : `no ${opts.unit.many}`)}</text>`;
  const legend = opts.series
    .map((s) => `<span class="legend"><span class="swatch ${esc(s.cls)}"></span>${esc(s.name)}</span>`)
    .join(' ');
  return new SafeHtml(
    `<figure class="chart bars"><svg width="100%" height="${HEIGHT}" role="img" aria-label="${esc(opts.label)}">${axis}${bars}${dates}</svg>` +
      `<figcaption>${esc(opts.label)} ${legend}</figcaption></figure>`,
  );
}

/** "2026-11-24" as "24 Nov"; anything else as it is. */
function dayLabel(slot: string): string {
  const d = new Date(`${slot}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? slot : DAY_LABEL.format(d);
}

function round(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}
