import type { CountryCode } from '../../src/contract/countries.ts';
import { MESSAGE_MAX_CHARS, printableExcerpt } from '../../src/errors/quote-input.ts';

/** What happened to data the ingest could not use. */
export type RejectAction = 'row dropped' | 'value nulled';

export interface RejectLine {
  country: CountryCode;
  file: string;
  reason: string;
  action: RejectAction;
  rows: number;
  /** Where the first case sits (file line and column), or an example value. */
  example: string | null;
}

export interface FileLine {
  country: CountryCode;
  file: string;
  rowsRead: number;
  rowsLoaded: number;
  bytes: number;
}

export interface StageLine {
  country: CountryCode;
  stage: string;
  rows: number | null;
  seconds: number;
}

/** An enrichment file that was not in the input: the fields it feeds are null in this run. */
export interface MissingLine {
  country: CountryCode;
  key: string;
  title: string;
  adds: string;
}

export interface CountryLine {
  country: CountryCode;
  companies: number;
  history: number;
  seconds: number;
  status: 'staged' | 'written' | 'failed';
}

/** Progress events; the terminal renderer draws bars, the plain renderer logs one structured line per stage. */
export interface ProgressSink {
  stageStarted(country: CountryCode, stage: string): void;
  /** fraction in [0, 1], or null when unknown. */
  stageProgress(country: CountryCode, stage: string, fraction: number | null, detail?: string): void;
  stageFinished(line: StageLine): void;
  fileProgress(file: string, done: number, total: number | null): void;
  fileFinished(file: string, bytes: number, seconds: number): void;
  message(text: string): void;
}

export const silentProgress: ProgressSink = {
  stageStarted() {},
  stageProgress() {},
  stageFinished() {},
  fileProgress() {},
  fileFinished() {},
  message() {},
};

/**
 * Everything one ingest run counts: rows read per file, rows rejected by reason, time per stage and the
 * rows each country wrote. It feeds the summary table and goes into each manifest's source_detail.
 */
export class IngestReport {
  readonly files: FileLine[] = [];
  readonly stages: StageLine[] = [];
  readonly countries = new Map<CountryCode, CountryLine>();
  readonly missing: MissingLine[] = [];
  readonly #rejects = new Map<string, RejectLine>();

  #probe: (() => number | null) | null = null;

  constructor(readonly progress: ProgressSink = silentProgress) {}

  /** How far the running query is (0..1, null when unknown): polled while a stage runs, for the bar. */
  setProbe(probe: (() => number | null) | null): void {
    this.#probe = probe;
  }

  file(line: FileLine): void {
    this.files.push(line);
  }

  /** Adds `rows` rejected rows (or nulled values) under one reason; the first example is kept. */
  reject(
    country: CountryCode,
    file: string,
    reason: string,
    rows: number,
    action: RejectAction,
    example: string | null = null,
  ): void {
    if (rows <= 0) return;
    // Reasons and examples may quote the register's bytes (an unmapped code, a bad value): cut, escaped.
    reason = printableExcerpt(reason, MESSAGE_MAX_CHARS);
    example = example === null ? null : printableExcerpt(example, MESSAGE_MAX_CHARS);
    const key = `${country}\u0000${file}\u0000${reason}\u0000${action}`;
    const known = this.#rejects.get(key);
    if (known) {
      known.rows += rows;
      known.example ??= example;
    } else {
      this.#rejects.set(key, { country, file, reason, action, rows, example });
    }
  }

  get rejects(): RejectLine[] {
    return [...this.#rejects.values()];
  }

  rejectsOf(country: CountryCode): RejectLine[] {
    return this.rejects.filter((r) => r.country === country);
  }

  /** Runs one named stage, timing it and reporting it to the progress sink. */
  async stage<T>(
    country: CountryCode,
    stage: string,
    run: () => Promise<T>,
    rowsOf?: (result: T) => number | null,
  ): Promise<T> {
    const started = performance.now();
    this.progress.stageStarted(country, stage);
    const probe = this.#probe;
    const timer = probe ? setInterval(() => this.progress.stageProgress(country, stage, probe()), 250) : null;
    let result: T;
    try {
      result = await run();
    } finally {
      if (timer) clearInterval(timer);
    }
    const line: StageLine = {
      country,
      stage,
      rows: rowsOf ? rowsOf(result) : null,
      seconds: (performance.now() - started) / 1000,
    };
    this.stages.push(line);
    this.progress.stageFinished(line);
    return result;
  }

  missingFile(line: MissingLine): void {
    if (!this.missing.some((m) => m.country === line.country && m.key === line.key)) this.missing.push(line);
  }

  /** The missing-enrichment rows of the summary. */
  missingRows(): Record<string, string>[] {
    return this.missing.map((m) => ({
      country: m.country,
      file: m.title,
      fields_left_null: m.adds,
    }));
  }

  country(line: CountryLine): void {
    this.countries.set(line.country, line);
  }

  /** The per-country rows of the summary table. */
  summaryRows(): Record<string, string | number | null>[] {
    return [...this.countries.values()].map((c) => {
      const files = this.files.filter((f) => f.country === c.country);
      const dropped = this.rejectsOf(c.country)
        .filter((r) => r.action === 'row dropped')
        .reduce((n, r) => n + r.rows, 0);
      const nulled = this.rejectsOf(c.country)
        .filter((r) => r.action === 'value nulled')
        .reduce((n, r) => n + r.rows, 0);
      return {
        country: c.country,
        files: files.length,
        rows_read: files.reduce((n, f) => n + f.rowsRead, 0),
        companies_written: c.companies,
        history_written: c.history,
        rows_rejected: dropped,
        values_nulled: nulled,
        seconds: Number(c.seconds.toFixed(1)),
        result: c.status,
      };
    });
  }

  /** The rejected-rows-by-reason rows of the summary. */
  rejectRows(): Record<string, string | number | null>[] {
    return this.rejects
      .sort((a, b) => a.country.localeCompare(b.country) || b.rows - a.rows)
      .map((r) => ({
        country: r.country,
        file: r.file,
        reason: r.reason,
        action: r.action,
        rows: r.rows,
        first_case: r.example,
      }));
  }

  /** What goes into a country manifest's source_detail. */
  detailFor(country: CountryCode): Record<string, unknown> {
    return {
      files: this.files
        .filter((f) => f.country === country)
        .map((f) => ({ file: f.file, bytes: f.bytes, rows_read: f.rowsRead, rows_loaded: f.rowsLoaded })),
      rejected: this.rejectsOf(country).map((r) => ({
        file: r.file,
        reason: r.reason,
        action: r.action,
        rows: r.rows,
      })),
      missing_enrichments: this.missing
        .filter((m) => m.country === country)
        .map((m) => ({ file: m.key, title: m.title, adds: m.adds })),
    };
  }
}
