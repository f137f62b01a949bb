import path from 'node:path';
import type { CountryCode } from '../../src/contract/countries.ts';

/**
 * A problem with the data (a source file or what the ingest made of it), as opposed to a usage or
 * configuration error. The CLI turns every DataProblem into exit code 1: nothing is promoted and the live
 * snapshot keeps serving.
 */
export class DataProblem extends Error {
  override readonly name: string = 'DataProblem';
}

/** Where in a source file a problem sits. `line` is the physical line (1-based, the header is line 1). */
export interface FilePosition {
  line: number;
  /** 1-based field number for CSV, 1-based character column for JSON. */
  column: number;
  /** CSV: the column's header name, where known. */
  columnName?: string;
}

/** A malformed, truncated or unexpected official file. The message names the file, line and column. */
export class SourceFileError extends DataProblem {
  override readonly name = 'SourceFileError';
  constructor(
    readonly file: string,
    readonly position: FilePosition | null,
    readonly problem: string,
  ) {
    super(`${describePosition(file, position)}: ${problem}`);
  }
}

export function describePosition(file: string, position: FilePosition | null): string {
  const name = path.basename(file);
  if (!position) return name;
  const col = position.columnName
    ? `column ${position.column} (${position.columnName})`
    : `column ${position.column}`;
  return `${name} line ${position.line}, ${col}`;
}

/** A required official file is not in the source folder (or could not be downloaded). */
export class MissingSourceFile extends DataProblem {
  override readonly name = 'MissingSourceFile';
}

/** Too many rows of one file were rejected for the snapshot to be trusted. */
export class RejectThresholdError extends DataProblem {
  override readonly name = 'RejectThresholdError';
}

/** The drop guard of write-audit-publish: a country lost more rows than allowed since the live snapshot. */
export class RowCountDropError extends DataProblem {
  override readonly name = 'RowCountDropError';
  constructor(
    readonly country: CountryCode,
    readonly liveCount: number,
    readonly newCount: number,
    readonly maxDropPct: number,
  ) {
    const pct = (((liveCount - newCount) / liveCount) * 100).toFixed(1);
    super(
      `${country}: ${newCount} companies against ${liveCount} in the live snapshot, a ${pct}% drop ` +
        `(more than ${maxDropPct}% is refused; rerun with --allow-drop if the register really shrank)`,
    );
  }
}

/** Everything wrong with the input folders of a run, found before any country is staged. */
export class InputFolderError extends DataProblem {
  override readonly name = 'InputFolderError';
  constructor(readonly problems: readonly string[]) {
    super(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} problems with the input:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/** A country whose input has rows but which would be served with no company for sale. */
export class NothingSellableError extends DataProblem {
  override readonly name = 'NothingSellableError';
  constructor(
    readonly country: CountryCode,
    readonly stagedRows: number,
  ) {
    super(
      `${country}: the input yields 0 companies for sale (${stagedRows} rows staged, all held or dropped); ` +
        `nothing is promoted (rerun with --allow-drop if that is really so)`,
    );
  }
}
