import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  CountQuerySchema,
  SearchQuerySchema,
  SORT_FIELDS,
  type SearchParams,
} from '../../src/contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { filtersFor, type FilterDef } from '../../src/contract/filters.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { FILTER_INDEX } from '../../src/engine/filter-index.ts';
import { PlannerPool } from '../../src/engine/planner-pool.ts';
import { planKey, textTerms, type PlanTask } from '../../src/engine/planner.ts';
import type { LoadedSnapshot } from '../../src/engine/loaded-snapshot.ts';
import { ROW_FIELDS } from '../../src/engine/lookup-store.ts';
import { buildCountQuery, buildPageQuery } from '../../src/engine/query-builder.ts';
import { tables } from '../../src/engine/tables.ts';

/**
 * The planner against the scan: random combinations of every filter a country has (values that exist and
 * some that do not, ranges cut at real values, text pieces of real names, people and places, one and two
 * letters included), random sorts, directions and pages. The posting lists' page and total must equal
 * what the SQL of the same filters (query-builder.ts, DuckDB over the serving table) returns.
 */

let engine: Engine;
let snap: LoadedSnapshot;

beforeAll(async () => {
  engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 2 });
  snap = engine.snapshot!;
});
afterAll(() => engine.close());

type Raw = Record<string, string | string[]>;

const DAY_MS = 86_400_000;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** What a country's filters can be drawn from: real values of its serving table. */
async function pools(country: CountryCode) {
  const t = tables(country).companies;
  const column = async (sql: string) => (await snap.query('test', sql)).map((r) => r['v']);
  const texts = async (col: string) =>
    (await column(`SELECT ${col} AS v FROM ${t} WHERE ${col} IS NOT NULL ORDER BY hash(rid) LIMIT 60`)).map(
      String,
    );
  const distinct = async (col: string, from = t) =>
    (
      await column(`SELECT DISTINCT ${col}::VARCHAR AS v FROM ${from} WHERE ${col} IS NOT NULL ORDER BY 1`)
    ).map(String);
  const postings = snap.country(country).postings;
  const out = {
    codes: (await column(`SELECT registrikood AS v FROM ${t} ORDER BY hash(rid) LIMIT 20`)).map(String),
    values: new Map<string, string[]>(),
    ranges: new Map<string, number[]>(),
    texts: new Map<string, string[]>(),
    days: postings.header.changes.map((c) => c.day),
  };
  for (const f of filtersFor(country)) {
    const spec = FILTER_INDEX[f.id];
    if (spec.kind === 'values' || spec.kind === 'codes') {
      const from =
        spec.kind === 'codes' ? tables(country)[spec.table === 'act' ? 'activities' : 'workplaces'] : t;
      out.values.set(f.id, await distinct(spec.column, from));
    } else if (spec.kind === 'range') {
      const values = postings.order(spec.column).values!;
      out.ranges.set(
        f.id,
        Array.from(values.filter((_, i) => i % Math.max(1, Math.floor(values.length / 40)) === 0)),
      );
    } else if (spec.kind === 'text') {
      out.texts.set(f.id, await texts(spec.column));
    } else if (spec.kind === 'prefix') {
      // The served postcodes, as written (`LV-1019`, `291 80`), to cut the sent prefixes from.
      out.texts.set(f.id, await texts('postcode'));
    }
  }
  return out;
}

type Pools = Awaited<ReturnType<typeof pools>>;

/** A raw (query-string) value for one filter, or undefined to leave it out. */
function filterArb(f: FilterDef, p: Pools): fc.Arbitrary<Raw> {
  const spec = FILTER_INDEX[f.id];
  const param = f.kind === 'single' ? f.param : '';
  switch (spec.kind) {
    case 'flag':
      return fc.constantFrom('true', 'false').map((v) => ({ [param]: v }));
    case 'values':
    case 'codes': {
      const pool = p.values.get(f.id) ?? [];
      const missing = f.valueType === 'integer' ? '16' : 'ZZ-NONE';
      const extra = f.id === 'status' ? ['__all__', missing] : [missing];
      const pick = pool.length ? fc.constantFrom(...pool, ...extra) : fc.constantFrom(...extra);
      return fc.array(pick, { minLength: 1, maxLength: 3 }).map((v) => ({ [param]: v }));
    }
    case 'exclude':
      return fc.constantFrom('true', 'false').map((v) => ({ [param]: v }));
    case 'range': {
      if (f.kind !== 'range') throw new Error('range filter expected');
      const pool = p.ranges.get(f.id) ?? [];
      const value = pool.length ? fc.constantFrom(...pool) : fc.constant(0);
      const text = (v: number) => (f.type === 'date_range' ? isoDay(v) : String(v));
      return fc
        .tuple(fc.option(value, { nil: undefined }), fc.option(value, { nil: undefined }))
        .filter(([a, b]) => a !== undefined || b !== undefined)
        .map(([a, b]) => ({
          ...(a !== undefined && { [f.params[0]]: text(a) }),
          ...(b !== undefined && { [f.params[1]]: text(b) }),
        }));
    }
    case 'text': {
      const pool = p.texts.get(f.id) ?? ['x'];
      const piece = fc
        .tuple(fc.constantFrom(...pool), fc.nat(), fc.integer({ min: 1, max: 8 }), fc.boolean())
        .map(([text, start, len, upper]) => {
          const chars = [...text];
          const s = start % Math.max(1, chars.length - len + 1);
          const term = chars.slice(s, s + len).join('') || 'x';
          return upper ? term.toUpperCase() : term;
        })
        .filter((t) => t.trim().length > 0);
      const term = fc.oneof(
        { weight: 9, arbitrary: piece },
        { weight: 1, arbitrary: fc.constantFrom('zzqx', 'Ø', 'ÕÜ') },
      );
      return f.kind === 'single' && f.multi
        ? fc.array(term, { minLength: 1, maxLength: 2 }).map((v) => ({ [param]: v }))
        : term.map((v) => ({ [param]: v }));
    }
    case 'prefix': {
      // Leading pieces of real postcodes as written (separators and LV's prefix kept), and one no postcode has.
      const pool = p.texts.get(f.id) ?? ['9'];
      const prefix = fc
        .tuple(fc.constantFrom(...pool), fc.integer({ min: 1, max: 8 }))
        .map(([pc, len]) => pc.slice(0, len))
        .filter((v) => /[0-9]/.test(v) && !/[ -]$/.test(v));
      const term = fc.oneof({ weight: 9, arbitrary: prefix }, { weight: 1, arbitrary: fc.constant('99999') });
      return fc.array(term, { minLength: 1, maxLength: 2 }).map((v) => ({ [param]: v }));
    }
    case 'code':
      return fc.constantFrom(...p.codes).map((v) => ({ [param]: v }));
  }
}

function requestArb(country: CountryCode, p: Pools): fc.Arbitrary<Raw> {
  // Each filter in about one request of ten, so most requests combine one to four filters and match rows.
  const filters = filtersFor(country).map((f) =>
    fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: filterArb(f, p) }),
  );
  const since = p.days.length
    ? fc.option(
        fc.constantFrom(...p.days).map((d) => ({ updated_since: isoDay(d) })),
        { nil: undefined, freq: 6 },
      )
    : fc.constant(undefined);
  return fc
    .tuple(
      fc.tuple(...filters),
      since,
      fc.constantFrom(...Object.keys(SORT_FIELDS)),
      fc.constantFrom('asc', 'desc'),
      fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 60 })),
      fc.integer({ min: 1, max: 40 }),
    )
    .map(([parts, s, sortBy, dir, page, size]) =>
      Object.assign(
        { country, sort_by: sortBy, sort_dir: dir, page: String(page), page_size: String(size) },
        s,
        ...parts.filter((x) => x !== undefined),
      ),
    );
}

async function scan(params: SearchParams): Promise<{ rids: number[]; total: number }> {
  const ctx = snap.context(params.country);
  const page = buildPageQuery(params, ctx);
  const count = buildCountQuery(params, ctx);
  const rids = (await snap.query('test', page.sql, page.params)).map((r) => Number(r['rid']));
  const total = Number((await snap.query('test', count.sql, count.params))[0]?.['n']);
  return { rids, total };
}

describe('planner against the scan', () => {
  for (const country of COUNTRY_CODES) {
    it(
      `${country}: random filters, sorts and pages give the scan's page and total`,
      { timeout: 300_000 },
      async () => {
        const p = await pools(country);
        let runs = 0;
        let nonEmpty = 0;
        await fc.assert(
          fc.asyncProperty(requestArb(country, p), async (raw) => {
            runs++;
            const params = SearchQuerySchema.parse(raw);
            const expected = await scan(params);
            // Through the planner threads, as the services ask.
            const page = await snap.searchPage(params);
            expect({ total: page.total, rids: page.rids }).toEqual(expected);
            // The page's rows, read and written by a planner thread: the bytes JSON.stringify writes for the
            // objects of the scan's rids' stored rows, built here the plain way.
            const objects = snap
              .lookups(country)
              .rawRows(expected.rids)
              .map((text) => {
                const values = JSON.parse(text) as unknown[];
                return Object.fromEntries(ROW_FIELDS.map((field, i) => [field, values[i]]));
              });
            // In the thread's page arena (or, when no slot was free, a string): the same text either way.
            const text = typeof page.rows === 'string' ? page.rows : page.rows.text();
            if (typeof page.rows !== 'string') page.rows.release();
            expect(text).toBe(JSON.stringify(objects));
            if (expected.total > 0) nonEmpty++;
          }),
          { numRuns: 150, seed: 20261127 + COUNTRY_CODES.indexOf(country) },
        );
        // The draw is worth something only if most answers have rows to compare.
        expect(nonEmpty).toBeGreaterThan(runs / 4);
      },
    );
  }
});

describe('planner threads', () => {
  it('send a plan to an idle thread rather than queue it behind its home thread’s plan', async () => {
    const fresh: string[] = [];
    engine.observePlans((_country, explain) => fresh.push(explain));
    // A filter set no other test plans: both threads start without it in their caches.
    const params = SearchQuerySchema.parse({ country: 'EE', vat_active: 'true', legal_form: ['OÜ'] });
    // Sent together: the second finds its home thread busy with the first and goes to the idle one,
    // which plans it too (two fresh plans). Queued behind the first, it would have found the plan cached.
    const [a, b] = await Promise.all([snap.planCount(params), snap.planCount(params)]);
    expect(a).toBe(b);
    expect(fresh).toHaveLength(2);
    // One at a time, the home thread is idle and answers from its cache.
    await snap.planCount(params);
    expect(fresh).toHaveLength(2);
  });

  it('run the cheapest waiting plan first, unless the oldest has waited too long', async () => {
    const country = 'EE';
    const order = async (maxWaitMs: number): Promise<string[]> => {
      const d = snap.country(country);
      const pool = new PlannerPool(
        { [country]: d.postings.shared },
        1,
        { [country]: d.lookups.file },
        {
          maxWaitMs,
        },
      );
      // A text term longer than a posting list's piece is checked against the texts: class 1.
      const task = (label: string, filters: Raw): [string, PlanTask] => {
        const params = SearchQuerySchema.parse({ country, ...filters });
        const folded = textTerms(params).map((t): [string, string] => [t, t.toLowerCase()]);
        return [label, { kind: 'search', params, key: planKey(params), folded, rid: null }];
      };
      const count = (label: string, filters: Raw): [string, PlanTask] => {
        const params = CountQuerySchema.parse({ country, ...filters });
        return [label, { kind: 'count', params, key: `count ${planKey(params)}`, folded: [], rid: null }];
      };
      const tasks = [
        task('first', { company_name: ['osaühing'] }),
        task('text', { company_name: ['ehitus'] }),
        task('plain', { legal_form: ['OÜ'] }),
        count('count', { legal_form: ['AS'] }),
      ];
      const done: string[] = [];
      try {
        // One thread: the first runs at once, the other two wait for it.
        await Promise.all(tasks.map(([label, t]) => pool.run(t).then(() => done.push(label))));
      } finally {
        // The thread ends by itself (exit code 0), its lookup store closed, rather than being stopped.
        expect(await pool.close()).toEqual([0]);
      }
      return done;
    };
    expect(await order(60 * 60_000)).toEqual(['first', 'count', 'plain', 'text']);
    expect(await order(-1)).toEqual(['first', 'text', 'plain', 'count']);
  });
});
