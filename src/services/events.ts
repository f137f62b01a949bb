import type { CountryCode } from '../contract/countries.ts';
import type { EventsData, EventsParams, WatchlistEvent } from '../contract/watchlist-schemas.ts';
import type { Engine } from '../engine/engine.ts';
import { validationError } from '../errors/app-error.ts';
import { parseDiff, snapshotDay } from './changes.ts';

/**
 * The resumable pull of watchlist events (issue 31): pages of the live snapshot's `<CC>/events.parquet`,
 * the account's own rows after a cursor. The events were computed once at publish
 * (ingest/pipeline/events.ts); every snapshot keeps the last 30 days of them.
 */

function tooOld(country: CountryCode, since: string, oldest: string | null) {
  const resume = oldest
    ? `the oldest event kept for this account is ${oldest}: send no \`after\` to start from it`
    : 'no event is kept for this account: send no `after` to start from the oldest';
  return validationError([
    {
      loc: ['query', 'after'],
      param: 'after',
      msg: `the events of ${country} are kept from ${since} on, and events after this cursor may be gone; ${resume}`,
      type: 'cursor_too_old',
    },
  ]);
}

export interface EventRow {
  id: string;
  registrikood: string;
  change: WatchlistEvent['change'];
  fields: string[];
  diff: { field: string; before: string | null; after: string | null }[];
  watchlists: WatchlistEvent['watchlists'];
  snapshot_id: string;
  as_of: string;
}

/** A row of events.parquet as the API shows it: the pull and the webhook send the same object. */
export function toEvent(r: EventRow, country: CountryCode): WatchlistEvent {
  return {
    id: r.id,
    country,
    registrikood: r.registrikood,
    change: r.change,
    fields: r.fields,
    diff: parseDiff(r.diff) ?? [],
    watchlists: r.watchlists,
    snapshot_id: r.snapshot_id,
    as_of: r.as_of,
  };
}

export const EVENT_SELECT = 'SELECT id, registrikood, change, fields, diff, watchlists, snapshot_id, as_of';

export async function listEvents(
  engine: Engine,
  accountId: string,
  params: EventsParams,
): Promise<EventsData> {
  return engine.use(async (snap) => {
    const { country, page_size } = params;
    const events = snap.countries.includes(country) ? snap.country(country).events : undefined;
    if (!events) return { items: [], next_after: null, oldest: null };
    const { file, since } = events;
    const first = await snap.query(
      'events',
      'SELECT min(id) AS id FROM read_parquet(?) WHERE account_id = ?',
      [file, accountId],
    );
    const oldest = (first[0]?.['id'] as string | null | undefined) ?? null;
    // Event ids begin with their snapshot id: a cursor from before the kept days may have lost events.
    if (params.after !== undefined && snapshotDay(params.after) < since) throw tooOld(country, since, oldest);
    const rows = (await snap.query(
      'events',
      `${EVENT_SELECT} FROM read_parquet(?)
       WHERE account_id = ? AND id > ? ORDER BY id LIMIT ?`,
      [file, accountId, params.after ?? '', page_size],
    )) as unknown as EventRow[];
    const items = rows.map((r): WatchlistEvent => ({
      id: r.id,
      country,
      registrikood: r.registrikood,
      change: r.change,
      fields: r.fields,
      diff: parseDiff(r.diff) ?? [],
      watchlists: r.watchlists,
      snapshot_id: r.snapshot_id,
      as_of: r.as_of,
    }));
    return { items, next_after: items.at(-1)?.id ?? null, oldest };
  });
}
