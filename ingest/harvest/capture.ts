import fs from 'node:fs';
import path from 'node:path';
import type { HttpAnswer } from './http.ts';

/**
 * One stored answer. `body` is the response body exactly as received, decoded as UTF-8 (every service
 * harvested answers in UTF-8); `body_base64` replaces it for an answer that is not valid UTF-8, so no byte
 * is ever altered.
 */
export interface CaptureRecord {
  /** The service's own name for what was asked (a KRS number, a REGON, a page number). */
  key: string;
  /** What kind of answer (e.g. `OdpisAktualny`, `BIR11OsPrawna`, `firmy-page`). */
  kind: string;
  url: string;
  /** For POSTs (SOAP): the operation. */
  action?: string;
  status: number;
  content_type: string | null;
  fetched_at: string;
  body?: string;
  body_base64?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function captureOf(answer: HttpAnswer, key: string, kind: string, action?: string): CaptureRecord {
  const record: CaptureRecord = {
    key,
    kind,
    url: answer.url,
    ...(action ? { action } : {}),
    status: answer.status,
    content_type: answer.headers.get('content-type'),
    fetched_at: answer.at,
  };
  try {
    record.body = utf8.decode(answer.body);
  } catch {
    record.body_base64 = answer.body.toString('base64');
  }
  return record;
}

/** Answers per capture file; the official-files writer splits its PL files the same way. */
export const CAPTURE_PART_LINES = 100_000;

/**
 * Appends answers as JSON lines to `<dir>/<prefix>_<run>.jsonl`: one line per answer, so a file holds
 * thousands of extracts without one file per entity, a line is written whole or not at all (a killed
 * harvest leaves at most one cut last line, which the ingest reports and skips), and the ingest reads it
 * with DuckDB's newline-delimited reader. A new file is started every `maxLines` lines.
 */
export class CaptureWriter {
  private fd: number | null = null;
  private lines = 0;
  private part = 0;
  readonly files: string[] = [];
  written = 0;

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
    private readonly run: string,
    private readonly maxLines = CAPTURE_PART_LINES,
  ) {}

  private open(): number {
    if (this.fd !== null && this.lines < this.maxLines) return this.fd;
    this.close();
    this.part++;
    const file = path.join(
      this.dir,
      `${this.prefix}_${this.run}_${String(this.part).padStart(4, '0')}.jsonl`,
    );
    fs.mkdirSync(this.dir, { recursive: true });
    this.fd = fs.openSync(file, 'a');
    this.files.push(path.basename(file));
    this.lines = 0;
    return this.fd;
  }

  write(record: CaptureRecord): void {
    fs.writeSync(this.open(), `${JSON.stringify(record)}\n`);
    this.lines++;
    this.written++;
  }

  /** Makes what was written durable before the state file moves past it. */
  sync(): void {
    if (this.fd !== null) fs.fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** A run id that sorts by time and is safe in file names: `20261123T223015Z`. */
export function runId(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}
