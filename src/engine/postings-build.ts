import fs from 'node:fs';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { CountryCode } from '../contract/countries.ts';
import { FILTERS } from '../contract/filters.ts';
import { RoaringBitmap32, serialize, type Bitmap } from './bitmaps.ts';
import { FILTER_INDEX, valuesKey, type IndexSpec } from './filter-index.ts';
import {
  PostingsWriter,
  type HeaderBody,
  type OrderedHeader,
  type Ref,
  type TextHeader,
} from './postings-file.ts';
import { ORDER_COLUMNS } from './tables.ts';

/**
 * Writes a country's posting lists (postings-file.ts) from the serving build's tables `co`, `act` and
 * (SE) `wp`: what FILTER_INDEX declares for the filters the country has, the order of every sort key,
 * and the change history's days. DuckDB does the grouping and sorting; this side only turns sorted rid
 * runs into bitmaps and typed arrays.
 */

/** Rank buckets per ordered column: a range is whole buckets plus two edge buckets checked by rank. */
export const ORDER_BUCKETS = 64;

const q = (c: string) => `"${c}"`;

/** Every row of `sql`, in its order: column i into `into[i]`, which must hold exactly the rows. */
async function readColumns(
  conn: DuckDBConnection,
  sql: string,
  into: readonly (Uint32Array | Float64Array)[],
  params?: DuckDBValue[],
): Promise<void> {
  const result = await conn.stream(sql, params);
  const count = into[0]?.length ?? 0;
  let n = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    if (n + chunk.rowCount > count) throw new Error(`more than ${count} rows: ${sql.slice(0, 80)}`);
    into.forEach((out, c) => {
      const v = chunk.getColumnVector(c);
      for (let i = 0; i < chunk.rowCount; i++) out[n + i] = v.getItem(i) as number;
    });
    n += chunk.rowCount;
  }
  if (n !== count) throw new Error(`expected ${count} rows, read ${n}: ${sql.slice(0, 80)}`);
}

/**
 * One bitmap per distinct `v` of `source` (a query of `rid, v`, v VARCHAR): the distinct values and their
 * row counts first, then every rid ordered by (v, rid), cut at those counts.
 */
async function groupedBitmaps(
  conn: DuckDBConnection,
  source: string,
  onGroup: (value: string, bitmap: Bitmap) => void,
  params?: DuckDBValue[],
): Promise<void> {
  const counts = (
    await conn.runAndReadAll(
      `SELECT v, count(*)::INTEGER AS n FROM (${source}) WHERE v IS NOT NULL GROUP BY v ORDER BY v`,
      params,
    )
  ).getRows() as [string, number][];
  const total = counts.reduce((s, [, n]) => s + n, 0);
  const rids = new Uint32Array(total);
  await readColumns(conn, `SELECT rid FROM (${source}) WHERE v IS NOT NULL ORDER BY v, rid`, [rids], params);
  let at = 0;
  for (const [value, n] of counts) {
    onGroup(value, new RoaringBitmap32(rids.subarray(at, at + n)));
    at += n;
  }
}

const hasFilter = (country: CountryCode, id: string) =>
  FILTERS.some((f) => f.id === id && f.countries.includes(country));

/** The index specs of the filters the country has. */
function countrySpecs(country: CountryCode): IndexSpec[] {
  return FILTERS.filter((f) => hasFilter(country, f.id)).map((f) => FILTER_INDEX[f.id]);
}

async function writeValues(
  conn: DuckDBConnection,
  w: PostingsWriter,
  spec: Extract<IndexSpec, { kind: 'values' | 'codes' | 'flag' | 'exclude' }>,
): Promise<Record<string, Ref>> {
  const col = q(spec.column);
  const v =
    spec.kind === 'exclude' || spec.kind === 'flag'
      ? `CASE WHEN ${col} THEN 'true' WHEN NOT ${col} THEN 'false' END`
      : `${col}::VARCHAR`;
  const table = spec.kind === 'codes' ? spec.table : 'co';
  const out: Record<string, Ref> = {};
  await groupedBitmaps(conn, `SELECT rid, ${v} AS v FROM ${table}`, (value, b) => {
    out[value] = w.add(serialize(b));
  });
  return out;
}

/** One bitmap per leading substring of the column's values (filter-index.ts `prefix`). */
async function writePrefixes(
  conn: DuckDBConnection,
  w: PostingsWriter,
  column: string,
): Promise<Record<string, Ref>> {
  const col = q(column);
  const out: Record<string, Ref> = {};
  await groupedBitmaps(
    conn,
    `SELECT rid, substr(t, 1, n::INTEGER) AS v
     FROM (SELECT rid, ${col} AS t, unnest(range(1, length(${col}) + 1)) AS n FROM co WHERE length(${col}) > 0)`,
    (value, b) => {
      out[value] = w.add(serialize(b));
    },
  );
  return out;
}

/**
 * The order of one column: rids by (value, rid) — the order of its `o_<key>` rank in `co`, so a sort
 * here and a sort in SQL agree — their ranks, the values (for range bounds) and bucket bitmaps.
 */
async function writeOrdered(
  conn: DuckDBConnection,
  w: PostingsWriter,
  rows: number,
  column: string,
  valueType: 'number' | 'date' | null,
): Promise<OrderedHeader> {
  const col = q(column);
  const count = Number(
    (await conn.runAndReadAll(`SELECT count(${col})::INTEGER FROM co`)).getRows()[0]?.[0] ?? 0,
  );
  // One sort for both: the rids and (range columns) their values in (value, rid) order.
  const rids = new Uint32Array(count);
  const v = valueType === null ? null : new Float64Array(count);
  const expr = valueType === 'date' ? `(${col} - DATE '1970-01-01')::DOUBLE` : `${col}::DOUBLE`;
  await readColumns(
    conn,
    `SELECT rid${v ? `, ${expr}` : ''} FROM co WHERE ${col} IS NOT NULL ORDER BY ${col}, rid`,
    v ? [rids, v] : [rids],
  );
  // A column the country never fills has no order to keep (its rank would be -1 for every row).
  const rank = new Int32Array(count > 0 ? rows + 1 : 0).fill(-1);
  for (let i = 0; i < count; i++) rank[rids[i]!] = i;
  const values = v ? w.array(v) : null;
  const bucketSize = Math.max(1, Math.ceil(count / ORDER_BUCKETS));
  const buckets: Ref[] = [];
  for (let start = 0; start < count; start += bucketSize) {
    const part = rids.slice(start, Math.min(count, start + bucketSize)).sort();
    buckets.push(w.add(serialize(new RoaringBitmap32(part))));
  }
  return { count, rids: w.array(rids), rank: w.array(rank), values, buckets, bucketSize };
}

/**
 * Posting lists of every one-, two- and three-code-point piece of a folded text column (a term of up to
 * three is then one exact lookup, a longer one the intersection of its trigrams), and the texts themselves
 * to check the longer terms against.
 */
async function writeText(
  conn: DuckDBConnection,
  w: PostingsWriter,
  rows: number,
  column: string,
): Promise<TextHeader> {
  const col = q(column);
  // Pieces of code points from every position: the same pieces a term is cut into (postings.ts).
  await conn.run(`CREATE OR REPLACE TEMP TABLE grams AS
    SELECT DISTINCT rid, v FROM (
      SELECT rid, unnest([
        substr(t, i::INTEGER, 1),
        CASE WHEN i < length(t) THEN substr(t, i::INTEGER, 2) END,
        CASE WHEN i < length(t) - 1 THEN substr(t, i::INTEGER, 3) END]) AS v
      FROM (SELECT rid, ${col} AS t, unnest(range(1, length(${col}) + 1)) AS i FROM co WHERE length(${col}) > 0))
    WHERE v IS NOT NULL`);
  const grams: string[] = [];
  const refs: Ref[] = [];
  await groupedBitmaps(conn, 'SELECT rid, v FROM grams', (value, b) => {
    grams.push(value);
    refs.push(w.add(serialize(b)));
  });
  await conn.run('DROP TABLE grams');
  const offsets = new Uint32Array(rows + 2);
  const parts: Buffer[] = [];
  let bytes = 0;
  const result = await conn.stream(`SELECT rid, ${col} FROM co ORDER BY rid`);
  const present = new Uint32Array(rows);
  let presentCount = 0;
  let expected = 1;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const ridVec = chunk.getColumnVector(0);
    const textVec = chunk.getColumnVector(1);
    for (let i = 0; i < chunk.rowCount; i++) {
      const rid = ridVec.getItem(i) as number;
      if (rid !== expected++) throw new Error(`co rids are not 1..n at ${rid}`);
      offsets[rid] = bytes;
      const t = textVec.getItem(i) as string | null;
      if (t !== null) present[presentCount++] = rid;
      if (t) {
        const b = Buffer.from(t, 'utf8');
        parts.push(b);
        bytes += b.byteLength;
      }
    }
  }
  offsets[rows + 1] = bytes;
  return {
    grams,
    refs,
    texts: w.add(Buffer.concat(parts, bytes)),
    offsets: w.array(offsets),
    present: w.add(serialize(new RoaringBitmap32(present.subarray(0, presentCount)))),
  };
}

/** Per day of the change history, the for-sale rids a snapshot of that day added or changed. */
async function writeChanges(
  conn: DuckDBConnection,
  w: PostingsWriter,
  changesFile: string | null,
): Promise<HeaderBody['changes']> {
  if (changesFile === null || !fs.existsSync(changesFile)) return [];
  const out: HeaderBody['changes'] = [];
  await groupedBitmaps(
    conn,
    `SELECT c.rid, ((ch.as_of - DATE '1970-01-01')::INTEGER)::VARCHAR AS v
     FROM read_parquet(?) ch JOIN co c USING (registrikood) WHERE ch.change IN ('added', 'changed')`,
    (value, b) => out.push({ day: Number(value), ref: w.add(serialize(b)) }),
    [changesFile],
  );
  return out.sort((a, b) => a.day - b.day);
}

export async function writePostings(
  conn: DuckDBConnection,
  file: string,
  country: CountryCode,
  changesFile: string | null,
  meta: { layoutVersion: number; fingerprint: string },
  step: (name: string, run: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const w = new PostingsWriter(file);
  try {
    const rows = Number(
      (await conn.runAndReadAll('SELECT count(*)::INTEGER FROM co')).getRows()[0]?.[0] ?? 0,
    );
    const body: HeaderBody = { rows, values: {}, ordered: {}, text: {}, changes: [] };
    const specs = countrySpecs(country);
    await step('postings values', async () => {
      for (const spec of specs) {
        if (spec.kind === 'prefix') {
          body.values[valuesKey(spec)] = await writePrefixes(conn, w, spec.column);
          continue;
        }
        if (
          spec.kind !== 'values' &&
          spec.kind !== 'codes' &&
          spec.kind !== 'flag' &&
          spec.kind !== 'exclude'
        ) {
          continue;
        }
        const key = valuesKey(spec);
        if (!(key in body.values)) body.values[key] = await writeValues(conn, w, spec);
      }
    });
    await step('postings order', async () => {
      // Sort keys need the order alone; range filters also the values (a sort key can be both).
      const columns = new Map<string, 'number' | 'date' | null>(
        Object.values(ORDER_COLUMNS).map((c) => [c, null]),
      );
      for (const spec of specs) if (spec.kind === 'range') columns.set(spec.column, spec.valueType);
      for (const [column, valueType] of columns) {
        body.ordered[column] = await writeOrdered(conn, w, rows, column, valueType);
      }
    });
    for (const spec of specs) {
      if (spec.kind !== 'text') continue;
      await step(`postings ${spec.column}`, async () => {
        body.text[spec.column] = await writeText(conn, w, rows, spec.column);
      });
    }
    await step('postings changes', async () => {
      body.changes = await writeChanges(conn, w, changesFile);
    });
    w.finish({ ...meta, ...body });
  } catch (err) {
    w.abort();
    throw err;
  }
}
