import type { Channel } from '../wallet/types.ts';
import type { UsagePoint } from '../wallet/wallet.ts';
import type { Series } from './charts.ts';

export const DAY_MS = 86_400_000;

/** The channels of the usage chart, in the order their bars stack, with the names the page shows. */
export const CHANNELS: readonly { channel: Channel; name: string }[] = [
  { channel: 'rest', name: 'REST' },
  { channel: 'mcp', name: 'MCP' },
  { channel: 'app', name: 'In-app' },
  { channel: 'webhook', name: 'Webhooks' },
];

/** The periods the overview offers; anything else asked for shows the default. */
export const USAGE_DAYS = [7, 30, 90] as const;
export type UsageDays = (typeof USAGE_DAYS)[number];

export interface UsageTotals {
  requests: number;
  rows: number;
  credits: number;
}

export interface UsageSummary {
  /** One UTC day per slot, `YYYY-MM-DD`, oldest first. */
  slots: string[];
  /** Requests per slot, one series per channel of CHANNELS (the chart). */
  byChannel: Series[];
  /** Totals per channel (its shown name), in the order the channels first occur in the points. */
  channelTotals: [string, UsageTotals][];
  /** Totals per country code, by code. */
  countryTotals: [string, UsageTotals][];
}

/**
 * The overview's window: the `days` last UTC days up to and including today, so the last bar is today
 * and a bucket boundary is a midnight. `daysParam` is the query string's value.
 */
export function usageWindow(
  now: number,
  daysParam: string | undefined,
): {
  days: UsageDays;
  since: Date;
  until: Date;
} {
  const days = daysParam === '7' ? 7 : daysParam === '90' ? 90 : 30;
  const until = new Date(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS);
  return { days, since: new Date(until.getTime() - days * DAY_MS), until };
}

/**
 * The overview's usage from the wallet's day buckets (Wallet.usageSeries with bucketMs = DAY_MS): the
 * chart's series and the two totals tables. Every point counts in the totals; the chart shows the points
 * of its slots and channels.
 */
export function usageSummary(points: readonly UsagePoint[], since: Date, days: number): UsageSummary {
  const slots = Array.from({ length: days }, (_, i) =>
    new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
  const slotIndex = new Map(slots.map((s, i) => [s, i]));
  const byChannel = CHANNELS.map(({ channel, name }) => ({
    name,
    cls: `c-${channel}`,
    values: slots.map(() => 0),
  }));
  const countries = new Map<string, UsageTotals>();
  const channels = new Map<string, UsageTotals>();
  for (const p of points) {
    const i = slotIndex.get(p.bucketStart.slice(0, 10));
    const series = byChannel[CHANNELS.findIndex((c) => c.channel === p.channel)];
    if (i !== undefined && series) series.values[i] = (series.values[i] ?? 0) + p.requests;
    add(countries, p.country, p);
    add(channels, p.channel, p);
  }
  return {
    slots,
    byChannel,
    channelTotals: [...channels].map(([k, v]) => [CHANNELS.find((c) => c.channel === k)?.name ?? k, v]),
    countryTotals: [...countries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}

function add(totals: Map<string, UsageTotals>, key: string, p: UsageTotals): void {
  const t = totals.get(key) ?? { requests: 0, rows: 0, credits: 0 };
  totals.set(key, {
    requests: t.requests + p.requests,
    rows: t.rows + p.rows,
    credits: t.credits + p.credits,
  });
}
