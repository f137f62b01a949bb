import fs from 'node:fs';
import path from 'node:path';
import type { ExportFormat, ExportParams } from '../contract/export-schemas.ts';
import type { Engine } from '../engine/engine.ts';
import { buildExportQuery, type QueryContext } from '../engine/query-builder.ts';
import { sqlString } from '../engine/serving-build.ts';
import { COMPANY_ROW_COLUMNS } from '../engine/tables.ts';
import { QUERY_PRIORITY, type LoadedSnapshot } from '../engine/loaded-snapshot.ts';
import type { RateLimitDecision } from '../wallet/types.ts';
import { assertUpdatedSince } from './changes.ts';
import { withForwardIndustryCodes } from './industry-codes.ts';

/**
 * The export of issue 19: every matching search row, in search order, written by DuckDB's own CSV, JSON
 * or Parquet writer (COPY) into a file of its own in the export folder, then streamed to the client in
 * 64 KiB chunks. The result never sits in memory: DuckDB writes it to disk, and the file is read a chunk
 * at a time, each chunk sent once the previous one was accepted by the connection.
 *
 * What is charged is the rows in the bytes the client acknowledged receiving (ExportSink.delivered: TCP on
 * REST), else in the bytes the socket accepted: a CSV row once its terminating newline is out (quoted newlines inside a value do not end a row), an NDJSON row once its
 * newline is, and a Parquet row once the whole row group holding it is (a row group is the smallest part
 * of a Parquet file that can be decoded; see ROW_GROUP_ROWS).
 */

/** Rows per Parquet row group: the step in which a cut-short Parquet download is charged. */
export const ROW_GROUP_ROWS = 10_240;
/** Bytes read from the export file and written to the connection at a time. */
const CHUNK_BYTES = 64 * 1024;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
};

const COPY_OPTIONS: Record<ExportFormat, string> = {
  csv: 'FORMAT csv, HEADER true',
  // DuckDB's JSON writer writes newline-delimited JSON: one object a line, newlines inside values escaped.
  ndjson: 'FORMAT json',
  parquet: `FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}`,
};

const EXTENSIONS: Record<ExportFormat, string> = { csv: 'csv', ndjson: 'ndjson', parquet: 'parquet' };

export interface ExportHead {
  contentType: string;
  filename: string;
  format: ExportFormat;
  fresh: WrittenExport['fresh'];
  rate: RateLimitDecision | null;
}

/** Where an export goes: the transport (REST) implements it; the service never sees a socket. */
export interface ExportSink {
  /** Before the first byte: the response head (REST: status, headers). */
  start(head: ExportHead): void;
  /** Resolves true once the connection accepted the chunk, false when the client is gone. */
  write(chunk: Buffer): Promise<boolean>;
  /**
   * After the last chunk: the body bytes the client acknowledged receiving (REST: TCP_INFO), or null
   * where the transport cannot tell; then the rows in the bytes the connection accepted are charged.
   */
  delivered(): Promise<number | null>;
}

/** Counts the rows complete in the bytes sent so far. */
export interface RowCounter {
  /** Feeds the next chunk that was sent; returns the rows complete so far. */
  sent(chunk: Buffer): number;
}

/** RFC 4180 as DuckDB writes it: `"` opens and closes a quoted value, `""` inside one is a quote. */
export function csvCounter(): RowCounter {
  let quoted = false;
  let lines = 0;
  return {
    sent(chunk) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 0x22) quoted = !quoted;
        else if (b === 0x0a && !quoted) lines++;
      }
      // The first line is the header.
      return Math.max(0, lines - 1);
    },
  };
}

export function ndjsonCounter(): RowCounter {
  let lines = 0;
  return {
    sent(chunk) {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
      return lines;
    },
  };
}

/** `groups`: each row group's rows and the offset of the byte after its last column chunk. */
export function parquetCounter(groups: readonly { rows: number; end: number }[]): RowCounter {
  let offset = 0;
  return {
    sent(chunk) {
      offset += chunk.length;
      let rows = 0;
      for (const g of groups) if (g.end <= offset) rows += g.rows;
      return rows;
    },
  };
}

export interface WrittenExport {
  dir: string;
  file: string;
  rows: number;
  /** A fresh counter of the file's rows, fed its bytes from the start. */
  counter: () => RowCounter;
  fresh: { data_as_of: string; snapshot_id: string };
}

/**
 * The rows of an export the planner found, when they are few enough to bind as one list: the COPY then
 * reads those rows alone instead of scanning with the filters' predicates.
 */
const EXPORT_CANDIDATE_LIMIT = 200_000;

async function exportContext(
  snap: LoadedSnapshot,
  params: ExportParams,
  limit: number,
): Promise<QueryContext> {
  const base = snap.context(params.country);
  // Only the first `limit` rows in the export's order are written; the planner picks them too.
  const rows = await snap.planExport({ ...params, page: 1, page_size: limit }, limit, EXPORT_CANDIDATE_LIMIT);
  return rows === null ? base : { ...base, candidates: rows };
}

/**
 * Runs the export's COPY on the live snapshot: at most `limit` rows into a new folder of the engine's
 * export folder (the only one its DuckDB may write to). The caller streams the file and removes the folder.
 */
export async function writeExport(engine: Engine, sent: ExportParams, limit: number): Promise<WrittenExport> {
  return engine.use(async (snap) => {
    assertUpdatedSince(snap, sent);
    const params = withForwardIndustryCodes(snap, sent);
    const fresh = {
      data_as_of: snap.country(params.country).manifest.generated_at.slice(0, 10),
      snapshot_id: snap.id,
    };
    const ctx = await exportContext(snap, params, limit);
    // The pid in the name lets a later start-up tell a crashed process's folder from a running one's.
    const dir = fs.mkdtempSync(path.join(engine.exportDirectory, `export-${process.pid}-`));
    try {
      const file = path.join(dir, `rows.${EXTENSIONS[params.format]}`);
      const q = buildExportQuery(params, ctx, COMPANY_ROW_COLUMNS, limit);
      // The file name is made here, never from a request; every value of the query is bound.
      const copied = await snap.query(
        'export',
        `COPY (${q.sql}) TO ${sqlString(file)} (${COPY_OPTIONS[params.format]})`,
        q.params,
        ctx.candidates ? QUERY_PRIORITY.narrowed : QUERY_PRIORITY.scan,
        false,
      );
      const rows = Number(copied[0]?.['Count'] ?? 0);
      let counter: () => RowCounter;
      if (params.format === 'parquet') {
        const groups = await snap.query(
          'export',
          `SELECT row_group_num_rows::INTEGER AS rows,
             max(coalesce(dictionary_page_offset, data_page_offset) + total_compressed_size)::BIGINT AS "end"
           FROM parquet_metadata(?) GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id`,
          [file],
          QUERY_PRIORITY.narrowed,
          false,
        );
        const ends = groups.map((g) => ({ rows: Number(g['rows']), end: Number(g['end']) }));
        counter = () => parquetCounter(ends);
      } else {
        counter = params.format === 'csv' ? csvCounter : ndjsonCounter;
      }
      return { dir, file, rows, counter, fresh };
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  });
}

/**
 * Streams a written export to the sink and removes its folder. Returns the rows the client received (all
 * of them unless it went away first).
 */
export async function streamExport(
  written: WrittenExport,
  format: ExportFormat,
  sink: ExportSink,
  country: string,
  rate: RateLimitDecision | null,
): Promise<number> {
  try {
    sink.start({
      contentType: EXPORT_CONTENT_TYPES[format],
      filename: `regdata-${country}-${written.fresh.snapshot_id}.${EXTENSIONS[format]}`,
      format,
      fresh: written.fresh,
      rate,
    });
    const handle = await fs.promises.open(written.file, 'r');
    let sent = 0;
    let bytes = 0;
    try {
      const counter = written.counter();
      for (;;) {
        // A new buffer per chunk: the connection may still hold the previous one.
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        const part = chunk.subarray(0, bytesRead);
        if (!(await sink.write(part))) break;
        bytes += bytesRead;
        sent = counter.sent(part);
      }
      const delivered = await sink.delivered();
      // The rows in the bytes the client acknowledged; only the part of the file they cover is read again.
      if (delivered !== null && delivered < bytes)
        sent = await rowsWithin(handle, written.counter(), delivered);
    } finally {
      await handle.close();
    }
    return Math.min(sent, written.rows);
  } finally {
    fs.rmSync(written.dir, { recursive: true, force: true });
  }
}

/** The rows complete in the first `bytes` bytes of the file. */
async function rowsWithin(
  handle: fs.promises.FileHandle,
  counter: RowCounter,
  bytes: number,
): Promise<number> {
  let rows = 0;
  let at = 0;
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  while (at < bytes) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, bytes - at), at);
    if (bytesRead === 0) break;
    rows = counter.sent(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
  return rows;
}

/** An export's folder: `export-<pid>-<random>`; `export-<random>` from versions before the pid. */
const EXPORT_FOLDER = /^export-(?:(\d+)-)?[A-Za-z0-9]{6}$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * At start-up: removes the export folders a crashed or killed server left behind (an export removes its
 * own folder when it ends, so any other is a leftover), leaving those of live processes alone: replicas on
 * one machine share the folder. A folder named with this process's own pid is a dead predecessor's (the
 * pid was reused, as in a container where every start is pid 1): nothing has been exported here yet.
 * A folder without a pid (an older version) is removed once untouched for `unnamedAfterMs`. Returns the
 * names removed.
 */
export function removeStaleExports(dir: string, unnamedAfterMs: number, nowMs = Date.now()): string[] {
  if (!fs.existsSync(dir)) return [];
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const m = EXPORT_FOLDER.exec(name);
    if (!m) continue;
    const full = path.join(dir, name);
    const pid = m[1] === undefined ? null : Number(m[1]);
    const stale =
      pid === null
        ? nowMs - fs.statSync(full).mtimeMs > unnamedAfterMs
        : pid === process.pid || !processAlive(pid);
    if (!stale) continue;
    fs.rmSync(full, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
