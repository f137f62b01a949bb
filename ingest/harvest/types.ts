import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../../src/config.ts';
import type { HarvestLog } from './session.ts';

/** What `regdata harvest <CC>` hands a country's harvester. */
export interface HarvestContext {
  /** The country's harvest folder (`<out>/<CC>/`), which `regdata ingest --from <out>` reads. */
  dir: string;
  config: Config;
  /** The country's own options, parsed with its `options`. */
  values: Record<string, string | boolean | undefined>;
  /** Re-fetch only what changed since the last complete run, where the service allows it. */
  incremental: boolean;
  /** With `incremental`: the first day to follow (YYYY-MM-DD); default the last complete run's day. */
  since: string | null;
  now: Date;
  /** Aborted on SIGINT/SIGTERM: the harvester stops at its next request and keeps its state. */
  signal: AbortSignal;
  log: HarvestLog;
}

/** A country's harvester module (`ingest/harvest/<cc>/index.ts`). */
export interface CountryHarvester {
  /** Options beyond the common ones, as node:util parseArgs takes them. */
  options: NonNullable<ParseArgsConfig['options']>;
  /** Lines for `regdata harvest --help`. */
  help: string;
  run(ctx: HarvestContext): Promise<void>;
}

/** The days from `since` to yesterday (UTC), oldest first: what an incremental run follows. */
export function daysSince(since: string, now: Date): string[] {
  const days: string[] = [];
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  for (let d = new Date(`${since}T00:00:00Z`); d < end; d = new Date(d.getTime() + 86_400_000)) {
    days.push(d.toISOString().slice(0, 10));
  }
  return days;
}
