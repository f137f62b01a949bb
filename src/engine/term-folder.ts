import type { DuckDBConnection } from '@duckdb/node-api';
import { AppError } from '../errors/app-error.ts';

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** Folded terms remembered (a term is short; this bounds the map at ~1 MB). */
const CACHE_SIZE = 10_000;

/**
 * The code points folded one by one from a table. Outside these, DuckDB composes neighbours (conjoining
 * Hangul jamo become a syllable), so a term with any other code point is folded whole by DuckDB.
 * test/engine/term-folder.test.ts holds the table to DuckDB's folding of whole random strings.
 */
export const TABLE_RANGES: readonly (readonly [number, number])[] = [
  [0x80, 0x1100],
  [0x1e00, 0x2c00],
];

/**
 * Folds search terms to `lower(strip_accents(term))` exactly as DuckDB folded the indexed texts: a
 * folding of our own (String.normalize) differs on some characters, and a term folded differently than
 * the texts could miss rows that `contains` would find.
 *
 * On those code points DuckDB's folding is one code point at a time, so after one query for the table of
 * them a Latin, Greek or Cyrillic term costs a map lookup per character instead of a DuckDB round trip
 * (which all folds shared, one at a time, on one connection).
 */
export class TermFolder {
  private readonly folded = new Map<string, string>();
  private table: Promise<Map<number, string>> | undefined;
  /** Queries run one at a time on the connection (a DuckDB connection runs one query). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly connection: DuckDBConnection) {}

  async fold(terms: readonly string[]): Promise<string[]> {
    const known = new Map<string, string>();
    const missing = new Set<string>();
    for (const t of terms) {
      const f = this.folded.get(t);
      // On ASCII, strip_accents changes nothing and lower() maps only A-Z, as toLowerCase() does.
      if (f !== undefined) known.set(t, f);
      else if (ASCII.test(t)) known.set(t, t.toLowerCase());
      else missing.add(t);
    }
    if (missing.size > 0) {
      let folded: Map<string, string>;
      try {
        folded = await this.foldMissing([...missing]);
      } catch (err) {
        throw new AppError('backend_unavailable', 'data backend temporarily unavailable', [], { cause: err });
      }
      if (this.folded.size + folded.size > CACHE_SIZE) this.folded.clear();
      for (const [t, f] of folded) {
        known.set(t, f);
        this.folded.set(t, f);
      }
    }
    return terms.map((t) => known.get(t)!);
  }

  private async foldMissing(terms: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const table = await this.codePoints();
    const whole: string[] = [];
    for (const t of terms) {
      const f = foldByTable(t, table);
      if (f === null) whole.push(t);
      else out.set(t, f);
    }
    for (const t of whole) {
      out.set(
        t,
        await this.run(async () => {
          const reader = await this.connection.runAndReadAll('SELECT lower(strip_accents(?)) AS f', [t]);
          return String(reader.getRowObjectsJson()[0]?.['f']);
        }),
      );
    }
    return out;
  }

  private codePoints(): Promise<Map<number, string>> {
    if (!this.table) {
      this.table = this.run(() => readTable(this.connection));
      // A failed read is tried again by the next term rather than remembered.
      this.table.catch(() => (this.table = undefined));
    }
    return this.table;
  }

  private run<T>(query: () => Promise<T>): Promise<T> {
    const next = this.queue.then(query);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Each code point of TABLE_RANGES and its folding by DuckDB. */
export async function readTable(connection: DuckDBConnection): Promise<Map<number, string>> {
  const ranges = TABLE_RANGES.map(([lo, hi]) => `SELECT range AS cp FROM range(${lo}, ${hi})`).join(
    ' UNION ALL ',
  );
  const reader = await connection.runAndReadAll(
    `SELECT cp::INTEGER AS cp, lower(strip_accents(chr(cp::INTEGER))) AS f FROM (${ranges})`,
  );
  const table = new Map<number, string>();
  for (const row of reader.getRowObjectsJson()) table.set(Number(row['cp']), String(row['f']));
  return table;
}

/** `term` folded code point by code point, or null when it has one the table does not hold. */
export function foldByTable(term: string, table: ReadonlyMap<number, string>): string | null {
  let out = '';
  for (const ch of term) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) {
      out += ch.toLowerCase();
      continue;
    }
    const f = table.get(cp);
    if (f === undefined) return null;
    out += f;
  }
  return out;
}
