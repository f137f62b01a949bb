import fs from 'node:fs';
import Database from 'better-sqlite3';
import {
  DuckDBTypeId,
  type DuckDBBlobVector,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { CountryCode } from '../contract/countries.ts';
import { FILTERS } from '../contract/filters.ts';
import type { CountLookup } from './precomputed-counts.ts';
import { COMPANY_ROW_COLUMNS, DETAIL_COLUMNS, ORDER_COLUMNS } from './tables.ts';

/** The sort keys with an order rank (`o_<key>`, as in the serving database's `co`). */
export const ORDER_KEYS = Object.keys(ORDER_COLUMNS);

/**
 * The lookup store of one country: a SQLite file beside the serving database, written at the same time
 * (serving-build.ts) and part of the snapshot like it. It answers everything that is a lookup by key, so
 * a detail, a history, a company's workplaces and the rows of a result page never wait behind the
 * analytical scans running in DuckDB: better-sqlite3 reads them synchronously, on the request's own
 * thread, in microseconds. It also holds the trigram indexes of the substring filters (TEXT_INDEXES).
 *
 * Tables (rid is the company's position in registrikood order, the same `rid` as the serving
 * database's `co`):
 * - `company(rid, registrikood, row, rest, marketing_optout, phone_optout, source)`: every for-sale
 *   company; `row` the values of its search row (COMPANY_ROW_COLUMNS) and `rest` those of the other detail
 *   fields, each as a JSON array in column order, so the column names are not stored 6.7 million times
 *   (a third of the size of JSON objects) and the row's fields are not stored twice; the SE blocks and
 *   SCB source of /workplaces;
 * - `facet(rid, staatus, oiguslik_vorm, o_*)`: what an index-answered search filters and sorts on, in
 *   a narrow table of its own, so its pages hold hundreds of companies (in `company` every candidate
 *   was a page read: 2,000 candidates took ~40 ms);
 * - `history(rid, doc)`: the periods of the companies that have any, as a JSON array;
 * - `workplaces(rid, doc)` (SE): the active workplaces of the companies that have any;
 * - `<filter>_idx`: contentless FTS5 tables (rowid = rid) over the folded text a filter matches;
 * - `counts(dims, a, b, s, n)`: precomputed counts of the common one- and two-filter combinations per
 *   status (precomputed-counts.ts);
 * - `meta(layout_version, fingerprint)`, as in the serving database.
 */
export const LOOKUP_FILE = 'lookup.sqlite';

/**
 * Substring filters answered from a trigram index. The indexed texts are the serving columns the filter's
 * `contains` reads, already folded by DuckDB (lower(strip_accents(...))), and the tokenizer folds nothing
 * (case_sensitive 1), so a phrase match of a term folded by DuckDB (of three characters or more) is
 * exactly `contains` on the same text: the trigram tokenizer makes every character sequence a token
 * sequence, and a phrase matches consecutive positions (test/engine/text-index.test.ts holds the
 * answers to the Parquet files).
 */
export const TEXT_INDEXES = {
  company_name: { table: 'name_idx', column: 'search_name' },
  person_name: { table: 'people_idx', column: 'search_people' },
  location: { table: 'location_idx', column: 'f_location' },
} as const;
export type IndexedFilter = keyof typeof TEXT_INDEXES;

/** The trigram tokenizer needs three characters; a shorter term cannot use the index. */
export const MIN_INDEXED_TERM = 3;

const hasFilter = (country: CountryCode, id: string) =>
  FILTERS.some((f) => f.id === id && f.countries.includes(country));

/** The indexed filters a country has. */
export const indexedFilters = (country: CountryCode): IndexedFilter[] =>
  (Object.keys(TEXT_INDEXES) as IndexedFilter[]).filter((id) => hasFilter(country, id));

/** Source of one SQLite table: a DuckDB query whose columns, in order, bind to `insert`'s parameters. */
interface CopySpec {
  sql: string;
  params?: DuckDBValue[];
  insert: string;
}

/**
 * Streams a DuckDB result into SQLite in one transaction. Text columns that are documents arrive as BLOB
 * (`encode(...)` in DuckDB) and are bound as Buffers: converting them to JS strings and back to UTF-8
 * cost more than the rest of the copy. `CAST(? AS TEXT)` in the insert stores them as text again.
 */
async function copy(conn: DuckDBConnection, db: Database.Database, spec: CopySpec): Promise<number> {
  const insert = db.prepare(spec.insert);
  const result = await conn.stream(spec.sql, spec.params);
  const blob = result.columnTypes().map((t) => t.typeId === DuckDBTypeId.BLOB);
  let rows = 0;
  db.exec('BEGIN');
  try {
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const readers = blob.map((isBlob, i) => {
        const vector = chunk.getColumnVector(i);
        if (!isBlob) return (r: number) => vector.getItem(r);
        const bytes = vector as DuckDBBlobVector;
        return (r: number) => {
          const b = bytes.getItemBytes(r);
          return b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
        };
      });
      const values: unknown[] = new Array<unknown>(readers.length);
      for (let r = 0; r < chunk.rowCount; r++) {
        for (let i = 0; i < readers.length; i++) {
          const v = readers[i]!(r);
          values[i] = typeof v === 'boolean' ? Number(v) : v;
        }
        insert.run(values);
      }
      rows += chunk.rowCount;
    }
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
  return rows;
}

export interface LookupSources {
  /**
   * A query of every for-sale company in rid order: rid, registrikood, row, rest (JSON arrays of
   * ROW_FIELDS and REST_FIELDS, as BLOB), then the SE blocks and source (NULL elsewhere).
   */
  companies: string;
  /** rid, doc (BLOB) of the companies with history periods, in rid order. */
  history: string;
  /** SE: rid, doc (BLOB) of the companies with active workplaces, in rid order. */
  workplaces: string | null;
  /**
   * The table holding `rid`, the folded texts, `staatus`, `oiguslik_vorm` and the `o_*` ranks (the
   * serving database's `co`).
   */
  texts: string;
  /** The rows of `counts` (precomputed-counts.ts countsSql): set key, a, b, status id, count. */
  counts: string;
}

/**
 * Writes the lookup store of one country to `file` from the serving build's DuckDB connection. The
 * tables are filled in rid order, so every insert appends to the B-tree; the registrikood index is
 * built afterwards in one sort.
 */
export async function writeLookupStore(
  conn: DuckDBConnection,
  file: string,
  country: CountryCode,
  sources: LookupSources,
  meta: { layoutVersion: number; fingerprint: string },
  step: (name: string, run: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  fs.rmSync(file, { force: true });
  const db = new Database(file);
  try {
    // A build either completes and is renamed into place or is deleted: no journal, no syncs.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('cache_size = -65536');
    // A company record is ~0.5-2 KB: 16 KiB pages hold several, where 4 KiB pages left half of each empty.
    db.pragma('page_size = 16384');
    db.exec(`
      CREATE TABLE company (rid INTEGER PRIMARY KEY, registrikood TEXT NOT NULL,
        row TEXT NOT NULL, rest TEXT NOT NULL, marketing_optout INTEGER, phone_optout INTEGER, source TEXT);
      CREATE TABLE facet (rid INTEGER PRIMARY KEY, staatus TEXT, oiguslik_vorm TEXT,
        ${ORDER_KEYS.map((k) => `"o_${k}" INTEGER`).join(', ')});
      CREATE TABLE history (rid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE workplaces (rid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE counts (dims TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, s INTEGER NOT NULL,
        n INTEGER NOT NULL, PRIMARY KEY (dims, a, b, s)) WITHOUT ROWID;
      CREATE TABLE meta (layout_version INTEGER NOT NULL, fingerprint TEXT NOT NULL);`);
    await step('lookup company', () =>
      copy(conn, db, {
        sql: sources.companies,
        insert: `INSERT INTO company VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, ?)`,
      }),
    );
    await step('lookup facet', () =>
      copy(conn, db, {
        sql: `SELECT rid, staatus, oiguslik_vorm, ${ORDER_KEYS.map((k) => `"o_${k}"`).join(', ')}
              FROM ${sources.texts} ORDER BY rid`,
        insert: `INSERT INTO facet VALUES (?, ?, ?, ${ORDER_KEYS.map(() => '?').join(', ')})`,
      }),
    );
    await step('lookup history', () =>
      copy(conn, db, { sql: sources.history, insert: `INSERT INTO history VALUES (?, CAST(? AS TEXT))` }),
    );
    if (sources.workplaces) {
      const sql = sources.workplaces;
      await step('lookup workplaces', () =>
        copy(conn, db, { sql, insert: `INSERT INTO workplaces VALUES (?, CAST(? AS TEXT))` }),
      );
    }
    // In primary-key order (countsSql sorts), so every insert appends.
    await step('lookup counts', () =>
      copy(conn, db, { sql: sources.counts, insert: 'INSERT INTO counts VALUES (?, ?, ?, ?, ?)' }),
    );
    await step('lookup index', async () => {
      db.exec('CREATE UNIQUE INDEX company_code ON company (registrikood)');
    });
    for (const id of indexedFilters(country)) {
      const { table, column } = TEXT_INDEXES[id];
      // Contentless (the texts are in DuckDB), no column sizes (no ranking): only the trigram postings.
      db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(t, tokenize = 'trigram case_sensitive 1',
        content = '', columnsize = 0)`);
      await step(`lookup ${table}`, async () => {
        await copy(conn, db, {
          sql: `SELECT rid, "${column}" FROM ${sources.texts} WHERE "${column}" IS NOT NULL ORDER BY rid`,
          insert: `INSERT INTO ${table} (rowid, t) VALUES (?, ?)`,
        });
        // One segment per index: a query then reads one posting list per trigram.
        db.exec(`INSERT INTO ${table} (${table}) VALUES ('optimize')`);
      });
    }
    db.prepare('INSERT INTO meta VALUES (?, ?)').run(meta.layoutVersion, meta.fingerprint);
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** A search the lookup store answers alone (LookupStore.search). */
export interface IndexedSearch {
  /** The rids the substring indexes found, ascending. */
  candidates: readonly number[];
  /** Status codes a row must have, or null for any. */
  statuses: readonly string[] | null;
  /** Legal forms a row must have, or null for any. */
  legalForms: readonly string[] | null;
  /** An ORDER_KEYS key, or null for registrikood order. */
  orderKey: string | null;
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The fields of `company.row` and `company.rest`, in the order of their JSON arrays. */
export const ROW_FIELDS = COMPANY_ROW_COLUMNS;
export const REST_FIELDS = DETAIL_COLUMNS.filter((c) => !COMPANY_ROW_COLUMNS.includes(c));
const ARINIMI = ROW_FIELDS.indexOf('arinimi');
/** Where each detail field is: in `row` or in `rest`, at which position. */
const DETAIL_SOURCES = DETAIL_COLUMNS.map((c) => {
  const i = ROW_FIELDS.indexOf(c);
  return { field: c, inRow: i >= 0, at: i >= 0 ? i : REST_FIELDS.indexOf(c) };
});

/** What the lookup store says about a company that exists. */
export interface HistoryLookup {
  arinimi: string | null;
  doc: string | null;
}
export interface WorkplacesLookup {
  marketing_optout: boolean | null;
  phone_optout: boolean | null;
  source: string | null;
  doc: string | null;
}

type Json = Record<string, unknown>;

const asBool = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === 1);

/** A country's lookup store opened read-only for serving; every method is synchronous. */
export class LookupStore {
  private readonly detailStmt: Database.Statement;
  private readonly historyStmt: Database.Statement;
  private readonly workplacesStmt: Database.Statement;
  private readonly rowStmt: Database.Statement;
  private readonly matchStmts = new Map<IndexedFilter, Database.Statement>();

  private constructor(
    private readonly db: Database.Database,
    country: CountryCode,
  ) {
    this.detailStmt = db.prepare('SELECT row, rest FROM company WHERE registrikood = ?');
    this.historyStmt = db.prepare(
      'SELECT c.row, h.doc FROM company c LEFT JOIN history h USING (rid) WHERE c.registrikood = ?',
    );
    this.workplacesStmt = db.prepare(
      `SELECT c.marketing_optout, c.phone_optout, c.source, w.doc
       FROM company c LEFT JOIN workplaces w USING (rid) WHERE c.registrikood = ?`,
    );
    this.rowStmt = db.prepare('SELECT row FROM company WHERE rid = ?').pluck();
    for (const id of indexedFilters(country)) {
      const { table } = TEXT_INDEXES[id];
      this.matchStmts.set(
        id,
        db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?`).pluck(),
      );
    }
  }

  static open(file: string, country: CountryCode): LookupStore {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      // 16 MiB of pages per country (the default is 2 MiB): the facet table and the trigram postings a
      // search reads stay in memory; at most ~112 MiB for all seven.
      db.pragma('cache_size = -16384');
      return new LookupStore(db, country);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The layout version and fingerprint the file was built with, or null if it has none. */
  static readMeta(file: string): { layoutVersion: number; fingerprint: string } | null {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const m = db.prepare('SELECT layout_version, fingerprint FROM meta').get() as
        { layout_version: number; fingerprint: string } | undefined;
      return m ? { layoutVersion: m.layout_version, fingerprint: m.fingerprint } : null;
    } finally {
      db.close();
    }
  }

  /** The whole detail (spec 2.3), fields in DETAIL_COLUMNS order; null when the company is not for sale. */
  detail(registrikood: string): Json | null {
    const r = this.detailStmt.get(registrikood) as { row: string; rest: string } | undefined;
    if (!r) return null;
    const row = JSON.parse(r.row) as unknown[];
    const rest = JSON.parse(r.rest) as unknown[];
    const out: Json = {};
    for (const { field, inRow, at } of DETAIL_SOURCES) out[field] = inRow ? row[at] : rest[at];
    return out;
  }

  history(registrikood: string): HistoryLookup | null {
    const r = this.historyStmt.get(registrikood) as { row: string; doc: string | null } | undefined;
    if (!r) return null;
    return { arinimi: (JSON.parse(r.row) as (string | null)[])[ARINIMI] ?? null, doc: r.doc };
  }

  workplaces(registrikood: string): WorkplacesLookup | null {
    const r = this.workplacesStmt.get(registrikood) as Record<string, unknown> | undefined;
    if (!r) return null;
    return {
      marketing_optout: asBool(r['marketing_optout']),
      phone_optout: asBool(r['phone_optout']),
      source: (r['source'] as string | null) ?? null,
      doc: (r['doc'] as string | null) ?? null,
    };
  }

  /**
   * One page of the candidate rids and their total, for a search whose every other filter is a status or
   * legal-form list (IndexedSearch): the same order as the engine's page query, `(o_<key>, rid)` in the
   * asked direction with nulls last, or `rid`. Reads only the candidates' records, so its cost follows
   * the number of candidates, not of companies.
   */
  search(q: IndexedSearch): { rids: number[]; total: number } {
    const where = ['f.rid IN (SELECT value FROM json_each(?))'];
    const params: unknown[] = [JSON.stringify(q.candidates)];
    for (const [column, values] of [
      ['staatus', q.statuses],
      ['oiguslik_vorm', q.legalForms],
    ] as const) {
      if (values === null) continue;
      where.push(`f.${column} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(values));
    }
    const dir = q.dir === 'desc' ? 'DESC' : 'ASC';
    const order =
      q.orderKey === null ? `f.rid ${dir}` : `f."o_${q.orderKey}" ${dir} NULLS LAST, f.rid ${dir}`;
    const from = `FROM facet f WHERE ${where.join(' AND ')}`;
    const page = this.prepared(`SELECT f.rid ${from} ORDER BY ${order} LIMIT ? OFFSET ?`).pluck();
    const count = this.prepared(`SELECT count(*) ${from}`).pluck();
    return {
      rids: page.all(...params, q.limit, q.offset) as number[],
      total: count.get(...params) as number,
    };
  }

  /** Statements of `search`, by text: their shapes are few (order key, direction, which lists). */
  private readonly statements = new Map<string, Database.Statement>();
  private prepared(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * A precomputed count (precomputed-counts.ts): the sum over the `counts` rows of the set whose values
   * are among the accepted ones. Each IN list is a probe per value along the primary key.
   */
  count(q: CountLookup): number {
    const where = ['dims = ?'];
    const params: unknown[] = [q.set];
    for (const [i, v] of q.values.entries()) {
      const col = i === 0 ? 'a' : 'b';
      if (Array.isArray(v)) {
        where.push(`${col} IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(v));
      } else {
        where.push(`${col} BETWEEN ? AND ?`);
        params.push(v.min, v.max);
      }
    }
    if (q.statuses !== null) {
      where.push('s IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(q.statuses));
    }
    const stmt = this.prepared(`SELECT total(n) FROM counts WHERE ${where.join(' AND ')}`).pluck();
    return Number(stmt.get(...params));
  }

  /** The search rows of `rids`, in that order. */
  rows(rids: readonly number[]): Json[] {
    return rids.map((rid) => {
      const row = this.rowStmt.get(rid) as string | undefined;
      if (row === undefined) throw new Error(`lookup store has no row ${rid}`);
      const values = JSON.parse(row) as unknown[];
      const out: Json = {};
      ROW_FIELDS.forEach((c, i) => (out[c] = values[i]));
      return out;
    });
  }

  /**
   * The rids whose indexed text contains one of `folded` (terms folded like the text), ascending; null
   * when the index cannot narrow the search: a term shorter than MIN_INDEXED_TERM characters, or more
   * than `limit` matches (a broad term, which the scan answers as fast).
   */
  candidates(filter: IndexedFilter, folded: readonly string[], limit: number): number[] | null {
    const stmt = this.matchStmts.get(filter);
    if (!stmt) return null;
    const found = new Set<number>();
    for (const term of folded) {
      if ([...term].length < MIN_INDEXED_TERM) return null;
      // One FTS5 phrase: inside double quotes only a doubled quote is special.
      const rids = stmt.all(`"${term.replaceAll('"', '""')}"`, limit + 1) as number[];
      if (rids.length > limit) return null;
      for (const rid of rids) found.add(rid);
      if (found.size > limit) return null;
    }
    return [...found].sort((a, b) => a - b);
  }

  /**
   * Reads the whole file once, so that the OS page cache holds it: every method here reads on the request's
   * thread, where a page that is not cached is a disk read that stops the event loop (at scale 1 a result
   * page of 20 rows from cold files took ~8 ms). Sequential reads on the thread pool, stopped by `signal`.
   * Returns the bytes read.
   */
  async warmPageCache(signal: AbortSignal): Promise<number> {
    const handle = await fs.promises.open(this.db.name, 'r');
    const buf = Buffer.allocUnsafe(WARM_CHUNK_BYTES);
    let bytes = 0;
    try {
      while (!signal.aborted) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, bytes);
        if (bytesRead === 0) break;
        bytes += bytesRead;
      }
    } finally {
      await handle.close();
    }
    return bytes;
  }

  close(): void {
    this.db.close();
  }
}

const WARM_CHUNK_BYTES = 4 << 20;
