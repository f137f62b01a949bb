import { esc, SafeHtml } from './html.ts';

export interface Series {
  name: string;
  /** A CSS class of the bar colour (style.css), so the SVG has no inline style under the CSP. */
  cls: string;
  values: number[];
}

/**
 * Stacked bars as inline SVG (no chart library, no script): one bar per slot, one segment per series.
 * Screen readers get the figure's label and a <title> per segment; the page shows the numbers as a table too.
 */
export function stackedBars(opts: {
  label: string;
  slots: string[];
  series: Series[];
  unit: string;
}): SafeHtml {
  const width = 640;
  const height = 200;
  const pad = { left: 44, bottom: 24, top: 8 };
  const n = Math.max(1, opts.slots.length);
  const totals = opts.slots.map((_, i) => opts.series.reduce((s, ser) => s + (ser.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotH = height - pad.bottom - pad.top;
  const slotW = (width - pad.left) / n;
  const barW = Math.max(2, slotW * 0.7);
  let bars = '';
  opts.slots.forEach((slot, i) => {
    let y = height - pad.bottom;
    for (const ser of opts.series) {
      const v = ser.values[i] ?? 0;
      if (v <= 0) continue;
      const h = (v / max) * plotH;
      y -= h;
      const x = pad.left + i * slotW + (slotW - barW) / 2;
      bars += `<rect class="${esc(ser.cls)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(slot)} ${esc(ser.name)}: ${esc(round(v))} ${esc(opts.unit)}</title></rect>`;
    }
  });
  const step = Math.max(1, Math.ceil(n / 8));
  let ticks = '';
  opts.slots.forEach((slot, i) => {
    if (i % step !== 0) return;
    const x = pad.left + i * slotW + slotW / 2;
    ticks += `<text x="${x.toFixed(1)}" y="${height - 6}" text-anchor="middle">${esc(slot.slice(5))}</text>`;
  });
  const axis =
    `<line class="axis" x1="${pad.left}" y1="${height - pad.bottom}" x2="${width}" y2="${height - pad.bottom}"/>` +
    `<text x="${pad.left - 4}" y="${pad.top + 10}" text-anchor="end">${esc(round(max))}</text>` +
    `<text x="${pad.left - 4}" y="${height - pad.bottom}" text-anchor="end">0</text>`;
  const legend = opts.series
    .map((s) => `<span class="legend"><span class="swatch ${esc(s.cls)}"></span>${esc(s.name)}</span>`)
    .join(' ');
  return new SafeHtml(
    `<figure class="chart"><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(opts.label)}">${axis}${bars}${ticks}</svg>` +
      `<figcaption>${esc(opts.label)} ${legend}</figcaption></figure>`,
  );
}

function round(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}
