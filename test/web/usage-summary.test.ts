import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsagePoint } from '../../src/wallet/wallet.ts';
import { usageSummary, usageWindow } from '../../src/web/usage-summary.ts';

/** The overview's usage summary (issue 32 item 4): a pure function of the wallet's day buckets. */
describe('usage window', () => {
  const now = Date.UTC(2026, 10, 27, 14, 30);

  it('ends at the coming midnight and spans the days asked for, 30 for anything else', () => {
    expect(usageWindow(now, '7')).toEqual({
      days: 7,
      since: new Date('2026-11-21T00:00:00Z'),
      until: new Date('2026-11-28T00:00:00Z'),
    });
    expect(usageWindow(now, '90').since).toEqual(new Date('2026-08-30T00:00:00Z'));
    for (const asked of [undefined, '30', '8', '', '7 ', '1e1']) {
      expect(usageWindow(now, asked)).toMatchObject({ days: 30, since: new Date('2026-10-29T00:00:00Z') });
    }
  });

  it('counts a call at midnight in the new day', () => {
    const midnight = Date.UTC(2026, 10, 27);
    expect(usageWindow(midnight, '7').until).toEqual(new Date('2026-11-28T00:00:00Z'));
    expect(usageWindow(midnight - 1, '7').until).toEqual(new Date('2026-11-27T00:00:00Z'));
  });
});

describe('usage summary', () => {
  const since = new Date('2026-11-21T00:00:00Z');
  const point = (
    day: string,
    channel: string,
    country: string,
    requests: number,
    credits = 0,
  ): UsagePoint => ({
    bucketStart: `${day}T00:00:00.000Z`,
    channel,
    country,
    requests,
    rows: requests * 10,
    credits,
  });

  it('stacks requests per day and channel, and totals per channel and per country', () => {
    const s = usageSummary(
      [
        point('2026-11-21', 'mcp', 'EE', 2, 0.5),
        point('2026-11-21', 'rest', 'SE', 1, 0.25),
        point('2026-11-23', 'rest', 'EE', 3, 1),
        point('2026-11-27', 'app', 'FI', 4, 0),
      ],
      since,
      7,
    );
    expect(s.slots).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
    ]);
    expect(s.byChannel).toEqual([
      { name: 'REST', cls: 'c-rest', values: [1, 0, 3, 0, 0, 0, 0] },
      { name: 'MCP', cls: 'c-mcp', values: [2, 0, 0, 0, 0, 0, 0] },
      { name: 'In-app', cls: 'c-app', values: [0, 0, 0, 0, 0, 0, 4] },
      { name: 'Webhooks', cls: 'c-webhook', values: [0, 0, 0, 0, 0, 0, 0] },
    ]);
    expect(s.channelTotals).toEqual([
      ['MCP', { requests: 2, rows: 20, credits: 0.5 }],
      ['REST', { requests: 4, rows: 40, credits: 1.25 }],
      ['In-app', { requests: 4, rows: 40, credits: 0 }],
    ]);
    expect(s.countryTotals).toEqual([
      ['EE', { requests: 5, rows: 50, credits: 1.5 }],
      ['FI', { requests: 4, rows: 40, credits: 0 }],
      ['SE', { requests: 1, rows: 10, credits: 0.25 }],
    ]);
  });

  it('has empty tables and flat bars when nothing was called', () => {
    const s = usageSummary([], since, 30);
    expect(s.slots).toHaveLength(30);
    expect(s.byChannel.map((c) => c.values.every((v) => v === 0))).toEqual([true, true, true, true]);
    expect([s.channelTotals, s.countryTotals]).toEqual([[], []]);
  });

  it('agrees with a recomputation from the points one cell at a time', () => {
    const days = ['2026-11-20', '2026-11-21', '2026-11-24', '2026-11-27', '2026-11-28'];
    const arbPoint = fc.record({
      day: fc.constantFrom(...days),
      channel: fc.constantFrom('rest', 'mcp', 'app', 'webhook', 'other'),
      country: fc.constantFrom('EE', 'LV', 'SE', 'PL', ''),
      requests: fc.integer({ min: 1, max: 1000 }),
      rows: fc.integer({ min: 0, max: 10_000 }),
      micro: fc.integer({ min: 0, max: 50_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(arbPoint, { maxLength: 40 }), fc.constantFrom(7, 30), (raw, n) => {
        const points = raw.map((r) => ({
          bucketStart: `${r.day}T00:00:00.000Z`,
          channel: r.channel,
          country: r.country,
          requests: r.requests,
          rows: r.rows,
          credits: r.micro / 1e6,
        }));
        const start = new Date(Date.UTC(2026, 10, 28 - n));
        const s = usageSummary(points, start, n);
        // Slots by calendar arithmetic, cells by filtering: nothing shared with the function's own loop.
        const slots = Array.from({ length: n }, (_, i) =>
          new Date(Date.UTC(2026, 10, 28 - n + i)).toISOString().slice(0, 10),
        );
        expect(s.slots).toEqual(slots);
        const sum = (ps: typeof raw, f: (r: (typeof raw)[number]) => number) =>
          ps.reduce((a, r) => a + f(r), 0);
        const names = { rest: 'REST', mcp: 'MCP', app: 'In-app', webhook: 'Webhooks' } as const;
        for (const [channel, name] of Object.entries(names)) {
          const series = s.byChannel.find((c) => c.name === name);
          expect(series?.values).toEqual(
            slots.map((d) =>
              sum(
                raw.filter((r) => r.day === d && r.channel === channel),
                (r) => r.requests,
              ),
            ),
          );
        }
        const totals = (ps: typeof raw) => ({
          requests: sum(ps, (r) => r.requests),
          rows: sum(ps, (r) => r.rows),
          micro: sum(ps, (r) => r.micro),
        });
        const asMicro = ([k, t]: [string, { requests: number; rows: number; credits: number }]) => [
          k,
          { requests: t.requests, rows: t.rows, micro: Math.round(t.credits * 1e6) },
        ];
        const countries = [...new Set(raw.map((r) => r.country))].sort();
        expect(s.countryTotals.map(asMicro)).toEqual(
          countries.map((c) => [c, totals(raw.filter((r) => r.country === c))]),
        );
        const channels = raw.map((r) => r.channel).filter((c, i, all) => all.indexOf(c) === i);
        expect(s.channelTotals.map(asMicro)).toEqual(
          channels.map((c) => [
            names[c as keyof typeof names] ?? c,
            totals(raw.filter((r) => r.channel === c)),
          ]),
        );
      }),
      { numRuns: 200 },
    );
  });
});
