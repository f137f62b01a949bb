import fs from 'node:fs';
import { queryRows } from '../../pipeline/sql.ts';
import { sqlString } from '../stage-sql.ts';
import type { StageContext } from '../types.ts';

/** `prefix_*.jsonl` as one name for messages about a family of capture files. */
export const family = (prefix: string): string => `${prefix}_*.jsonl`;

/**
 * SQL reading capture files (`files`, a SQL list of paths) with DuckDB's newline-delimited JSON reader:
 * columns `key`, `kind`, `status`, `fetched_at`, `body` (unescaped by the reader) and `body_base64`; a line
 * that is not JSON (the cut last line of a killed harvest) is left out. Reading the lines as text and
 * matching the still-escaped REGON bodies was tried and was slower: at scale 0.05 the reader is about a
 * fifth of the REGON pass's CPU time; the rest is taking the BIR answers apart (docs/ingest.md).
 */
export function captureLines(files: string): string {
  const columns = `{key: 'VARCHAR', kind: 'VARCHAR', status: 'INTEGER', fetched_at: 'VARCHAR', body: 'VARCHAR', body_base64: 'VARCHAR'}`;
  return `read_json(${files}, format = 'newline_delimited', columns = ${columns}, ignore_errors = true,
    maximum_object_size = 268435456)`;
}

const NO_CAPTURES = `(SELECT NULL::VARCHAR AS key, NULL::VARCHAR AS kind, NULL::INTEGER AS status,
  NULL::VARCHAR AS fetched_at, NULL::VARCHAR AS body, NULL::VARCHAR AS body_base64 WHERE false)`;

/** The capture files whose last line was cut (a harvest killed mid-write), and the first one's name. */
function cutFiles(ctx: StageContext, files: readonly string[]): { cut: number; example: string | null } {
  let cut = 0;
  let example: string | null = null;
  for (const file of files) {
    const size = fs.statSync(file).size;
    // A gzipped capture (an operator's archive of an old run) was whole when it was compressed.
    if (size === 0 || file.toLowerCase().endsWith('.gz')) continue;
    const fd = fs.openSync(file, 'r');
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    fs.closeSync(fd);
    if (last[0] !== 0x0a) {
      cut++;
      example ??= ctx.sources.displayName(file);
    }
  }
  return { cut, example };
}

/**
 * Answers a service returned saved one per file as it returned them (not the harvest's capture lines): which
 * files they are, and the SQL that reads a list of them (`files`, a SQL list of paths) as capture rows
 * (`key`, `kind`, `status`, `fetched_at`, `body`, `body_base64`).
 */
export interface SavedAnswers {
  match: RegExp;
  lines: (files: string) => string;
}

/**
 * Saved answers read a batch at a time, each batch's bodies held in a table while what the adapter keeps
 * is taken from them: read in one statement, the body's expression was evaluated again for every field
 * taken from it (3-5 s for 1,000 files, against 1.2 s in batches); a batch bounds what is held (1,000
 * extracts of at most some 40 kB).
 */
const SAVED_BATCH = 1000;

/**
 * Loads every capture file of a source (JSON lines, one answer each) into `table`, or an empty table when
 * the source is absent. `select(from)` is the query of what the table keeps of each line of `from` (columns
 * `key`, `kind`, `status`, `fetched_at`, `body`, and `base64`, which it must keep): what the adapter needs
 * is taken from the bodies in this one streaming pass, so the bodies themselves (about 27 GB of REGON
 * answers at scale 1) are never held in a table. A last line cut by a killed harvest
 * is skipped and counted; an answer stored as base64 (not UTF-8) is counted and left out.
 */
export async function loadCaptures(
  ctx: StageContext,
  key: string,
  prefix: string,
  table: string,
  select: (from: string) => string,
  saved?: SavedAnswers,
): Promise<boolean> {
  const { conn, country, report } = ctx;
  const all = ctx.sources.many(key);
  const isSaved = (f: string) => saved?.match.test(ctx.sources.displayName(f)) ?? false;
  const answers = all.filter(isSaved);
  const files = all.filter((f) => !isSaved(f));
  const captures = ctx.file(family(prefix), table);
  const withBase64 = (from: string) =>
    `(SELECT *, body IS NULL AND body_base64 IS NOT NULL AS base64 FROM ${from})`;
  const load = (from: string) => `CREATE OR REPLACE TEMP TABLE ${table} AS ${select(withBase64(from))}`;
  if (all.length === 0) {
    await conn.run(load(NO_CAPTURES));
    return false;
  }
  const { cut, example } = cutFiles(ctx, files);
  const stage = `read ${captures.name} (${all.length} file${all.length === 1 ? '' : 's'})`;
  const list = (paths: readonly string[]) => `[${paths.map((f) => sqlString(f)).join(', ')}]`;
  const loadAll = async () => {
    await conn.run(load(files.length ? captureLines(list(files)) : NO_CAPTURES));
    for (let i = 0; saved && i < answers.length; i += SAVED_BATCH) {
      const batch = `${table}_saved`;
      await conn.run(
        `CREATE OR REPLACE TEMP TABLE ${batch} AS ${saved.lines(list(answers.slice(i, i + SAVED_BATCH)))}`,
      );
      await conn.run(`INSERT INTO ${table} BY NAME ${select(withBase64(batch))}`);
      await conn.run(`DROP TABLE ${batch}`);
    }
    const n = Number((await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM ${table}`))[0]?.['n'] ?? 0);
    const bytes = all.reduce((a, f) => a + fs.statSync(f).size, 0);
    report.file({ country, file: captures.name, rowsRead: n + cut, rowsLoaded: n, bytes });
    return n;
  };
  await ctx.stage(stage, loadAll, (n) => n);
  captures.reject(
    'answer cut off at the end of a capture file (a harvest killed mid-write)',
    cut,
    'row dropped',
    example,
  );
  await captures.nulled(
    'answer not UTF-8 (kept as base64 by the harvest; left out)',
    `SELECT count(*) AS n, any_value(key) AS example FROM ${table} WHERE base64`,
  );
  return true;
}
