import { describe, expect, it } from 'vitest';
import { dateLabelSlots, stackedBars } from '../../src/web/charts.ts';

/** The usage chart (issue 30 item 8): bars in proportion, few enough dates to read on a phone, a named scale. */
describe('stacked bars', () => {
  const unit = { one: 'request', many: 'requests' };
  const slots = ['2026-11-01', '2026-11-02', '2026-11-03'];

  it('labels at most five dates, none too near the right edge to fit', () => {
    expect(dateLabelSlots(7)).toEqual([0, 2, 4]);
    expect(dateLabelSlots(30)).toEqual([0, 6, 12, 18, 24]);
    expect(dateLabelSlots(90)).toEqual([0, 18, 36, 54, 72]);
    expect(dateLabelSlots(1)).toEqual([0]);
    expect(dateLabelSlots(0)).toEqual([]);
  });

  it('draws each bar in proportion to the tallest, in CSS pixels, with dates and the scale as text', () => {
    const svg = stackedBars({
      label: 'Requests',
      slots,
      series: [
        { name: 'REST', cls: 'c-rest', values: [2, 0, 3] },
        { name: 'MCP', cls: 'c-mcp', values: [0, 0, 1] },
      ],
      unit,
    }).value;
    // 180 px high, 22 above and 22 below: 136 px for the tallest total (4), so 2 is 68 px, 3 is 102 and 1 is 34.
    const rects = [
      ...svg.matchAll(
        /<rect class="([\w-]+)" x="([\d.]+)%" y="([\d.]+)" width="([\d.]+)%" height="([\d.]+)">/g,
      ),
    ];
    expect(rects.map((m) => [m[1], Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])])).toEqual([
      ['c-rest', 5, 90, 23.333, 68],
      ['c-rest', 71.667, 56, 23.333, 102],
      ['c-mcp', 71.667, 22, 23.333, 34],
    ]);
    expect(svg).not.toContain('viewBox');
    expect([...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual([
      '4 requests',
      '1 Nov',
      '2 Nov',
      '3 Nov',
    ]);
    expect(svg).toContain('<title>2026-11-03 MCP: 1 request</title>');
  });

  it('says there is nothing rather than drawing a scale of nothing', () => {
    const svg = stackedBars({
      label: 'Requests',
      slots,
      series: [{ name: 'REST', cls: 'c-rest', values: [0, 0, 0] }],
      unit,
    }).value;
    expect(svg).not.toContain('<rect');
    expect(svg).toContain('>no requests</text>');
  });
});
