import fs from 'node:fs';
import type { ChangeItem, ChangesData, ChangesParams, FieldChange } from '../contract/change-schemas.ts';
import type { CountryCode } from '../contract/countries.ts';
import { validationError } from '../errors/app-error.ts';
import type { CountParams } from '../contract/api-schemas.ts';
import type { Engine } from '../engine/engine.ts';
import type { LoadedSnapshot } from '../engine/loaded-snapshot.ts';

/**
 * The change feed of issue 19: pages of a country's changes.parquet, which every snapshot carries with the
 * whole kept history (ingest/pipeline/changes.ts), so the live snapshot alone answers for any starting
 * point the history covers.
 */

/** `20261121T195600Z-demo` -> `2026-11-21`: the day a snapshot was published (ids are UTC stamps). */
export function snapshotDay(id: string): string {
  return `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}`;
}

/**
 * The first day the kept history covers. A snapshot written before the feed existed has no file: its
 * history is taken to start on the day it was generated, with nothing in it, so "since then" is an
 * honest empty answer and anything earlier is the 422 that names that day.
 */
export function historySince(manifest: { generated_at: string; changes?: { since: string } }): string {
  return manifest.changes?.since ?? manifest.generated_at.slice(0, 10);
}

function tooOld(param: 'since' | 'since_snapshot' | 'updated_since', country: CountryCode, oldest: string) {
  const hint = param === 'updated_since' ? 'updated_since' : 'since';
  return validationError([
    {
      loc: ['query', param],
      param,
      msg:
        `the change history of ${country} starts on ${oldest}; the oldest date available is ${oldest} ` +
        `(send ${hint}=${oldest} or later)`,
      type: 'history_too_old',
    },
  ]);
}

/**
 * `updated_since` of search, count and export reads the same kept history as the feed, so a day before it
 * is the same 422: the answer would silently miss the changes nobody kept.
 */
export function assertUpdatedSince(snap: LoadedSnapshot, params: CountParams): void {
  if (params.updated_since === undefined) return;
  const oldest = historySince(snap.country(params.country).manifest);
  if (params.updated_since < oldest) throw tooOld('updated_since', params.country, oldest);
}

type DiffRow = { field: string; before: string | null; after: string | null };

/** Before and after are kept as JSON text, since the fields' types differ: parsed back here. */
export function parseDiff(diff: readonly DiffRow[] | null): FieldChange[] | null {
  if (diff === null) return null;
  return diff.map((d) => ({
    field: d.field,
    before: d.before === null ? null : (JSON.parse(d.before) as unknown),
    after: d.after === null ? null : (JSON.parse(d.after) as unknown),
  }));
}

function changeItem(row: Record<string, unknown>): ChangeItem {
  return {
    registrikood: row['registrikood'] as string,
    change: row['change'] as ChangeItem['change'],
    fields: row['fields'] as string[],
    snapshot_id: row['snapshot_id'] as string,
    as_of: row['as_of'] as string,
    diff: parseDiff((row['diff'] ?? null) as DiffRow[] | null),
  };
}

export async function listChanges(engine: Engine, params: ChangesParams): Promise<ChangesData> {
  return engine.use(async (snap) => {
    const { country, page, page_size } = params;
    const oldest = historySince(snap.country(country).manifest);
    if ('since' in params) {
      if (params.since < oldest) throw tooOld('since', country, oldest);
    } else if (snapshotDay(params.since_snapshot) < oldest) {
      throw tooOld('since_snapshot', country, oldest);
    }
    const empty: ChangesData = { items: [], page, page_size, total: 0 };
    const file = engine.store.file(snap.id, country, 'changes');
    if (!snap.country(country).manifest.changes || !fs.existsSync(file)) return empty;
    // The file is sorted by (as_of, snapshot_id, registrikood), which is also the feed's order.
    const where =
      'since' in params
        ? { sql: 'as_of >= CAST(? AS DATE)', value: params.since }
        : { sql: 'snapshot_id > ?', value: params.since_snapshot };
    const from = `FROM read_parquet(?) WHERE ${where.sql}`;
    const [items, total] = await Promise.all([
      snap.query(
        'changes',
        // Every column, so a history kept before contract 1.4.0 (no `diff`) reads too; diff is then null.
        `SELECT * ${from}
         ORDER BY as_of, snapshot_id, registrikood LIMIT ? OFFSET ?`,
        [file, where.value, page_size, (page - 1) * page_size],
      ),
      snap.count(`SELECT count(*) AS n ${from}`, [file, where.value]),
    ]);
    return { items: items.map(changeItem), page, page_size, total };
  });
}
