import type { CountParams, FilterInput, SearchParams } from '../contract/api-schemas.ts';
import { SORT_FIELDS } from '../contract/api-schemas.ts';
import { ACTIVE_STATUS } from '../contract/data-contract.ts';
import { FILTER_IDS, type FilterId } from '../contract/filters.ts';
import {
  EMPTY,
  andNot,
  fromRids,
  intersectAll,
  keep,
  unionAll,
  withScratch,
  type Bitmap,
} from './bitmaps.ts';
import { FILTER_INDEX, STATUS_INDEX, valuesKey } from './filter-index.ts';
import type { PageBytes, PageSlot } from './page-arena.ts';
import type { Candidates, Postings, TextIndex } from './postings.ts';
import { ALL_STATUSES } from './query-builder.ts';
import { ORDER_COLUMNS } from './tables.ts';

/**
 * The planner: a search or count as set algebra on the posting lists (postings.ts) instead of a scan.
 * Each filter becomes a set of rids; the sets are intersected smallest first; the count is the result's
 * cardinality and a page is read off the result in the sort's order. The SQL of the same filters
 * (query-builder.ts) is the oracle: test/engine/planner.property.test.ts draws filter combinations and
 * holds the two to the same page and total.
 */

/** What the planner needs besides the posting lists. */
export interface PlanInputs {
  postings: Postings;
  /** The rid of a for-sale registration code, or null. */
  ridOf: (registrikood: string) => number | null;
  /** Each text filter term folded as DuckDB folds the texts (LoadedSnapshot.fold). */
  folded: ReadonlyMap<string, string>;
}

export interface Plan {
  rows: Bitmap;
  /** How the sets were combined, for logs and the bench: `name(size)` per set, then the result. */
  explain: string;
  /** `rows` was made for this plan alone (not a list of the file or a kept set): its cache frees it. */
  owned?: boolean;
}

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of a YYYY-MM-DD date (validated by the request schema). */
export const days = (date: string): number => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

const listOf = (input: FilterInput): (string | number | boolean)[] =>
  input.kind === 'list' ? input.values : input.kind === 'scalar' ? [input.value] : [];

/** The terms of the text filters in `params`, to be folded before planning. */
export function textTerms(params: CountParams): string[] {
  const out: string[] = [];
  for (const [id, input] of Object.entries(params.filters)) {
    if (input && FILTER_INDEX[id as FilterId]?.kind === 'text') out.push(...listOf(input).map(String));
  }
  return out;
}

/** The plan of `params`: every filter is answered by the posting lists. */
export function plan(params: CountParams, inputs: PlanInputs): Plan {
  const { postings } = inputs;
  const sets: { name: string; rows: Bitmap }[] = [];
  const excluded: Bitmap[] = [];
  // Text terms whose set is only a superset until checked against the texts (TextIndex.candidates).
  const unverified: { index: TextIndex; terms: string[]; found: Candidates[] }[] = [];
  const status = params.filters['status'];
  if (status === undefined) {
    sets.push({ name: 'status', rows: postings.values(valuesKey(STATUS_INDEX), [ACTIVE_STATUS]) });
  }
  // In declaration order, so the explanation of the same request reads the same.
  for (const id of FILTER_IDS) {
    const input = params.filters[id];
    if (input === undefined) continue;
    const spec = FILTER_INDEX[id];
    const values = listOf(input);
    switch (spec.kind) {
      case 'values':
      case 'codes':
      case 'flag':
        if (id === 'status' && values.includes(ALL_STATUSES)) break;
        sets.push({ name: id, rows: postings.values(valuesKey(spec), values.map(String)) });
        break;
      case 'prefix':
        // One bitmap per prefix (postings-build.ts writePrefixes): any of the sent prefixes.
        sets.push({ name: id, rows: postings.values(valuesKey(spec), values.map(String)) });
        break;
      case 'exclude':
        if (values[0] === true) excluded.push(postings.values(valuesKey(spec), ['true']));
        break;
      case 'range': {
        if (input.kind !== 'range') throw new Error(`${id} expects a range`);
        const bound = (v: string | number | undefined) =>
          v === undefined ? undefined : spec.valueType === 'date' ? days(String(v)) : Number(v);
        sets.push({ name: id, rows: postings.order(spec.column).range(bound(input.min), bound(input.max)) });
        break;
      }
      case 'text': {
        const index = postings.text(spec.column);
        const terms = values.map((v) => inputs.folded.get(String(v)) ?? String(v));
        const found = terms.map((t) => index.candidates(t));
        const rows = unionAll(found.map((c) => c.rows));
        if (found.every((c) => c.exact)) {
          sets.push({ name: id, rows });
        } else {
          sets.push({ name: `${id}~`, rows });
          unverified.push({ index, terms, found });
        }
        break;
      }
      case 'code': {
        const rid = inputs.ridOf(String(values[0]));
        sets.push({ name: id, rows: rid === null ? EMPTY : fromRids([rid]) });
        break;
      }
    }
  }
  if (params.updated_since !== undefined) {
    sets.push({ name: 'updated_since', rows: postings.changedSince(days(params.updated_since)) });
  }
  let rows = sets.length > 0 ? intersectAll(sets.map((s) => s.rows)) : postings.all();
  for (const ex of excluded) rows = andNot(rows, ex);
  for (const { index, terms, found } of unverified) rows = index.verify(rows, terms, found);
  const parts = sets.map((s) => `${s.name}(${s.rows.size})`);
  if (excluded.length) parts.push(`-exclude(${excluded.length})`);
  if (unverified.length) parts.push('verified');
  return { rows, explain: `${parts.join(' & ') || 'all'} = ${rows.size}` };
}

/**
 * One page of `rows` in the search's order: `(key, registrikood)` in the asked direction with nulls last
 * (ordered among themselves by registrikood in the same direction), exactly as buildPageQuery orders it.
 */
export function pageOf(rows: Bitmap, params: SearchParams, postings: Postings): number[] {
  const offset = (params.page - 1) * params.page_size;
  const limit = params.page_size;
  const desc = params.sort_dir === 'desc';
  const field = SORT_FIELDS[params.sort_by];
  if (field === 'registrikood') return byRid(rows, offset, limit, desc);
  const order = postings.order(ORDER_COLUMNS[field]);
  const ranked = rows.andCardinality(order.nonNull);
  const out: number[] = [];
  if (offset < ranked) {
    const end = Math.min(ranked, offset + limit);
    // Descending positions [offset, end) are ascending positions [ranked - end, ranked - offset).
    const ids = desc
      ? order.page(rows, ranked - end, ranked - offset).reverse()
      : order.page(rows, offset, end);
    out.push(...ids);
  }
  if (out.length < limit && offset + limit > ranked) {
    const nulls = andNot(rows, order.nonNull);
    out.push(...byRid(nulls, Math.max(0, offset - ranked), limit - out.length, desc));
  }
  return out;
}

/** Positions [offset, offset + limit) of `rows` in rid order, ascending or descending. */
function byRid(rows: Bitmap, offset: number, limit: number, desc: boolean): number[] {
  const size = rows.size;
  if (offset >= size || limit <= 0) return [];
  if (!desc) {
    const n = Math.min(limit, size - offset);
    return Array.from(rows.rangeUint32Array(new Uint32Array(n), offset, n));
  }
  const from = Math.max(0, size - offset - limit);
  const n = size - offset - from;
  return Array.from(rows.rangeUint32Array(new Uint32Array(n), from, n)).reverse();
}

/** The cache key of a plan: the parameters that decide the set, in a fixed order. */
export function planKey(params: CountParams): string {
  const filters = Object.entries(params.filters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([params.country, params.updated_since ?? null, filters]);
}

/**
 * One request to a planner (planner-pool.ts): what to answer and everything the plan needs that lives
 * on the main thread (the folded terms, the rid of a registration code).
 */
export type PlanTask = {
  key: string;
  folded: [string, string][];
  rid: number | null;
} & (
  | { kind: 'count'; params: CountParams }
  /** `rows`: the thread also reads the page's stored rows (PlanAnswer.rows), where it has the lookup store. */
  | { kind: 'search'; params: SearchParams; rows?: boolean }
  /** An export's rids, ascending: the first `limit` in its order, or none when more than `most` match. */
  | { kind: 'export'; params: SearchParams; limit: number; most: number }
);

export interface PlanAnswer {
  total: number;
  /** The page (search), the rows to write (export; null when too many), nothing (count). */
  rids: number[] | null;
  explain: string;
  /** Planned now, not taken from the cache. */
  fresh: boolean;
  /** A search's rows in `rids` order as one JSON array text (lookup-store.ts rowsJson), when a planner thread read them. */
  rowsJson?: string;
  /** The same, put in the thread's page arena instead (page-arena.ts); the pool turns it into `rowsBytes`. */
  rowsSlot?: PageSlot;
  rowsBytes?: PageBytes;
}

/** Plans remembered per planner: a search's pages and its count share one. */
const PLAN_CACHE_SIZE = 256;

/**
 * Answers a task on the posting lists, with a cache of plans (least recently used first out). The
 * bitmaps the task makes and the cache does not keep are freed when it ends (bitmaps.ts withScratch).
 */
export function answerTask(task: PlanTask, postings: Postings, cache: Map<string, Plan>): PlanAnswer {
  return withScratch(() => answerIn(task, postings, cache));
}

function answerIn(task: PlanTask, postings: Postings, cache: Map<string, Plan>): PlanAnswer {
  let planned = cache.get(task.key);
  const fresh = planned === undefined;
  if (planned) {
    cache.delete(task.key);
  } else {
    const folded = new Map(task.folded);
    planned = plan(task.params, { postings, ridOf: () => task.rid, folded });
    planned.owned = keep(planned.rows);
    // Rows that are a kept filter set (a single filter's union, range or term): that cache frees its sets
    // when it drops them, so the plan keeps a copy of its own. Frozen rows are lists of the file.
    if (!planned.owned && !planned.rows.isFrozen) {
      planned.rows = planned.rows.clone();
      planned.owned = true;
    }
    if (cache.size >= PLAN_CACHE_SIZE) {
      const [oldest, dropped] = cache.entries().next().value as [string, Plan];
      cache.delete(oldest);
      // No other plan or cache holds a set this plan made itself, and no task is using it now.
      if (dropped.owned) dropped.rows.clear();
    }
  }
  cache.set(task.key, planned);
  const { rows, explain } = planned;
  const total = rows.size;
  switch (task.kind) {
    case 'count':
      return { total, rids: null, explain, fresh };
    case 'search':
      return { total, rids: pageOf(rows, task.params, postings), explain, fresh };
    case 'export': {
      if (total > task.most) return { total, rids: null, explain, fresh };
      const rids =
        total <= task.limit
          ? Array.from(rows.toUint32Array())
          : pageOf(rows, { ...task.params, page: 1, page_size: task.limit }, postings).sort((a, b) => a - b);
      return { total, rids, explain, fresh };
    }
  }
}
