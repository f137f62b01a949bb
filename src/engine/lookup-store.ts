import fs from 'node:fs';
import Database from 'better-sqlite3';
import {
  DuckDBTypeId,
  type DuckDBBlobVector,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import { COMPANY_ROW_COLUMNS, DETAIL_COLUMNS } from './tables.ts';

/**
 * The lookup store of one country: a SQLite file beside the serving database, written at the same time
 * (serving-build.ts) and part of the snapshot like it. It answers everything that is a lookup by key, so
 * a detail, a history, a company's workplaces and the rows of a result page never wait behind the
 * analytical scans running in DuckDB: better-sqlite3 reads them synchronously, on the request's own
 * thread, in microseconds.
 *
 * Tables (rid is the company's position in registrikood order, the same `rid` as the serving
 * database's `co`):
 * - `company(rid, registrikood, row, rest, marketing_optout, phone_optout, source)`: every for-sale
 *   company; `row` the values of its search row (COMPANY_ROW_COLUMNS) and `rest` those of the other detail
 *   fields, each as a JSON array in column order, so the column names are not stored 6.7 million times
 *   (a third of the size of JSON objects) and the row's fields are not stored twice; the SE blocks and
 *   SCB source of /workplaces;
 * - `history(rid, doc)`: the periods of the companies that have any, as a JSON array;
 * - `workplaces(rid, doc)` (SE): the active workplaces of the companies that have any;
 * - `meta(layout_version, fingerprint)`, as in the serving database.
 */
export const LOOKUP_FILE = 'lookup.sqlite';

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
}

/**
 * Writes the lookup store of one country to `file` from the serving build's DuckDB connection. The
 * tables are filled in rid order, so every insert appends to the B-tree; the registrikood index is
 * built afterwards in one sort.
 */
export async function writeLookupStore(
  conn: DuckDBConnection,
  file: string,
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
      CREATE TABLE history (rid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE workplaces (rid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE meta (layout_version INTEGER NOT NULL, fingerprint TEXT NOT NULL);`);
    await step('lookup company', () =>
      copy(conn, db, {
        sql: sources.companies,
        insert: `INSERT INTO company VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, ?)`,
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
    await step('lookup index', async () => {
      db.exec('CREATE UNIQUE INDEX company_code ON company (registrikood)');
    });
    db.prepare('INSERT INTO meta VALUES (?, ?)').run(meta.layoutVersion, meta.fingerprint);
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
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

/** `"field":` of each search row field, in ROW_FIELDS order. */
const ROW_KEYS = ROW_FIELDS.map((c) => `${JSON.stringify(c)}:`);

/**
 * The JSON text of the search rows whose stored texts (`LookupStore.rawRows`, JSON arrays in ROW_FIELDS
 * order) are `raw`: byte for byte what JSON.stringify writes for the row objects, a field the stored array
 * lacks left out as JSON.stringify leaves out an undefined one. Built from the arrays without making the
 * objects: a planner thread writes a page's rows this way, so the event loop neither parses nor
 * serialises them (the REST route splices the text into its answer, src/http/response-serializer.ts).
 */
export function rowsJson(raw: readonly string[]): string {
  const rows = raw.map((text) => {
    const values = JSON.parse(text) as unknown[];
    const parts: string[] = [];
    for (let i = 0; i < ROW_KEYS.length; i++) {
      const v = values[i];
      if (v !== undefined) parts.push(ROW_KEYS[i]! + JSON.stringify(v));
    }
    return `{${parts.join(',')}}`;
  });
  return `[${rows.join(',')}]`;
}

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
  private readonly rowsStmt: Database.Statement;
  private readonly ridStmt: Database.Statement;

  private constructor(private readonly db: Database.Database) {
    this.detailStmt = db.prepare('SELECT row, rest FROM company WHERE registrikood = ?');
    this.historyStmt = db.prepare(
      'SELECT c.row, h.doc FROM company c LEFT JOIN history h USING (rid) WHERE c.registrikood = ?',
    );
    this.workplacesStmt = db.prepare(
      `SELECT c.marketing_optout, c.phone_optout, c.source, w.doc
       FROM company c LEFT JOIN workplaces w USING (rid) WHERE c.registrikood = ?`,
    );
    this.rowsStmt = db
      .prepare('SELECT c.rid, c.row FROM json_each(?) AS j JOIN company AS c ON c.rid = j.value')
      .raw();
    this.ridStmt = db.prepare('SELECT rid FROM company WHERE registrikood = ?').pluck();
  }

  static open(file: string, cacheMiB = 16): LookupStore {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      // 16 MiB of pages per country (the default is 2 MiB): the index and row pages that pages of results
      // read again and again stay in memory; at most ~112 MiB for all seven.
      db.pragma(`cache_size = -${Math.trunc(cacheMiB * 1024)}`);
      // The file never changes once published, so the connection takes its shared lock once and keeps it.
      // In the default mode every statement locked and unlocked the file, looked for a hot journal and
      // re-read the change counter: about nine system calls a lookup (strace), 10-25 µs of the event loop's
      // CPU. Other readers (the planner threads, the CLI) still share the file; nothing ever writes it.
      db.pragma('locking_mode = EXCLUSIVE');
      return new LookupStore(db);
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

  /** The rid of a for-sale registration code, or null. */
  ridOf(registrikood: string): number | null {
    return (this.ridStmt.get(registrikood) as number | undefined) ?? null;
  }

  /**
   * The stored JSON text of the search rows of `rids`, in that order: what a planner thread reads off the
   * event loop (planner-thread.ts) and hands back for `parseRows`.
   */
  rawRows(rids: readonly number[]): string[] {
    if (rids.length === 0) return [];
    // One statement for the page: a hundred point reads cost three to four times as much (.tmp bench at
    // scale 1, PL: 100 rows 0.9-1.5 ms against 3-5 ms, on a loaded machine).
    const found = new Map<number, string>();
    for (const [rid, row] of this.rowsStmt.all(JSON.stringify(rids)) as [number, string][])
      found.set(rid, row);
    return rids.map((rid) => {
      const row = found.get(rid);
      if (row === undefined) throw new Error(`lookup store has no row ${rid}`);
      return row;
    });
  }

  /** The file this store reads (a planner thread opens its own connection to it). */
  get file(): string {
    return this.db.name;
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
