import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import type { StageResult } from '../pipeline/publish.ts';
import type { CountryReference } from '../reference/types.ts';
import type { IngestReport } from './report.ts';
import type { CsvRead, JsonRead, SourceFile } from './stage-context.ts';

/** One file to fetch: where from and under which name it is saved in the source folder. */
export interface Download {
  url: string;
  saveAs: string;
  /** Extra request headers the server needs (PRH's bulk answers with the zip only to `Accept: application/zip`). */
  headers?: Readonly<Record<string, string>>;
}

/** What a file's download list may use: the run's clock and a way to read a landing page. */
export interface DownloadContext {
  now: Date;
  fetchText(url: string): Promise<string>;
}

/**
 * An official file an adapter reads. `match` finds it in a source folder (the download saves it under a
 * name `match` accepts; the official-format writers write the same names). The name may also carry a
 * `.zip` or `.gz` container suffix that `match` does not name: such a file is decompressed before
 * reading, so an operator can drop a file in exactly as downloaded. A `.zip` is always extracted; a
 * `.gz` that `match` names itself is handed to the adapter as it is (its reader decompresses it).
 */
interface OfficialFileBase {
  key: string;
  /** What the file is, for logs and docs. */
  title: string;
  match: RegExp;
  /** Several files (one per year) rather than one. */
  many?: boolean;
  /**
   * Orders several matches oldest first (dated names such as `..._kuni_31102026.zip` do not sort as text);
   * the newest is used where `many` is not set. Default: by name.
   */
  sortKey?: (name: string) => string;
  /** With `many`: names with the same group (e.g. the fiscal year) are versions of one file; the newest wins. */
  groupKey?: (name: string) => string;
  /** The files to fetch for this entry. */
  downloads(ctx: DownloadContext): Promise<Download[]>;
  /** Smallest plausible size of a download in bytes; a smaller one is refused as an error page or a stub. */
  minBytes: number;
}

/**
 * The register's principal file (`required`): without it the country cannot be built. Every other file is
 * an enrichment: when it is absent the fields it feeds are null and the run's summary names it with `adds`.
 */
export type OfficialFile = OfficialFileBase &
  (
    | { required: true; adds?: undefined }
    | {
        required: false;
        /** What the file adds, in the summary of a run that lacks it and in docs/ingest.md. */
        adds: string;
      }
  );

/** The resolved source files of one country, by OfficialFile key; zips already extracted. */
export interface SourceSet {
  /** The one file for `key`; throws MissingSourceFile when a required file is absent. */
  one(key: string): string | null;
  /** All files for `key`, oldest first. */
  many(key: string): string[];
  /** The file name as found in the folder (before extraction), for messages and the manifest. */
  displayName(file: string): string;
}

/** What a run hands a country's stage: the connection, the resolved files, the reference, report and clock. */
export interface StageInput {
  conn: DuckDBConnection;
  country: CountryCode;
  sources: SourceSet;
  reference: CountryReference;
  report: IngestReport;
  /** The run's clock: decides the current year (LT year_to_date) and as-of dates. */
  now: Date;
  /** Scratch space for extracted or converted files; removed after the run. */
  workDir: string;
}

/**
 * The StageInput with the plumbing every stage repeats said once (stage-context.ts): a read names its file
 * once, and the handle it returns reports that file's rejects.
 */
export interface StageContext extends StageInput {
  /** Loads an official file into `spec.table` as a stage of the report (`read <file name>`). */
  read(kind: 'csv', spec: CsvRead): Promise<SourceFile>;
  read(kind: 'json', spec: JsonRead): Promise<SourceFile>;
  /** True when the folder has the adapter's file `key` (an optional one may be absent). */
  has(key: string): boolean;
  /** The handle of the adapter's file `key` (named by its key when absent), over `table` if given. */
  source(key: string, table?: string | null): SourceFile;
  /** A handle under any name: a family of capture files, a set of yearly files. */
  file(name: string, table?: string | null): SourceFile;
  /** Runs one named, timed stage of this country (IngestReport.stage). */
  stage<T>(label: string, run: () => Promise<T>, rowsOf?: (result: T) => number | null): Promise<T>;
}

/** A country's ingest: the official files it needs and how they become the contract's stage tables. */
export interface CountryAdapter {
  country: CountryCode;
  files: readonly OfficialFile[];
  /** Leaves stage_companies / stage_history (and stage_workplaces for SE) with the contract's columns. */
  stage(ctx: StageContext): Promise<StageResult>;
}
