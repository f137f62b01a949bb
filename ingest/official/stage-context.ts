import { SourceFileError } from './errors.ts';
import { loadCsv, type CsvSource } from './read-csv.ts';
import { loadJson, type JsonSource } from './read-json.ts';
import type { RejectAction } from './report.ts';
import { countNulled, keyRows, rejectOrphans } from './rows.ts';
import { sniffDelimiter } from './text-file.ts';
import type { StageContext, StageInput } from './types.ts';
import { rejectPerCode } from './unmapped.ts';

/**
 * Which file a read loads: an adapter file key (the one file the source folder resolved for it), or one
 * path of `sources.many(key)`; `name` replaces the file's own name in messages (a converted twin).
 */
export type FileRef =
  { key: string; path?: never; name?: never } | { path: string; name?: string; key?: never };

interface ReadOptions {
  /** Table to create in the connection. */
  table: string;
  /** The stage's label in the progress and the run's report; default `read <file name>`. */
  stage?: string;
  /**
   * Column definitions of an empty `table` made when the (optional) file is absent, so the SQL after the
   * read runs the same either way (and its checks count nothing).
   */
  ifAbsent?: string;
}

export type CsvRead = FileRef &
  ReadOptions &
  Omit<CsvSource, 'country' | 'file' | 'display' | 'table' | 'workDir' | 'delimiter'> & {
    /**
     * The delimiter, or the candidates of a register that uses either: the one that splits the header into
     * at least the expected fields (the header's, or with `byName` the columns listed).
     */
    delimiter: string | readonly string[];
  };

export type JsonRead = FileRef & ReadOptions & Pick<JsonSource, 'columns'>;

/**
 * An official file of a stage, by the name its rejects are reported under, with the checks a stage runs
 * on what was read from it. `table` is the table the last read or keying step left (null when nothing was
 * read); `present` is false for an optional file the folder lacks.
 */
export class SourceFile {
  constructor(
    private readonly ctx: StageInput,
    readonly name: string,
    readonly table: string | null,
    readonly present = true,
  ) {}

  private get on(): string {
    if (!this.table) throw new Error(`${this.name}: no table was read from this file`);
    return this.table;
  }

  /**
   * One row per registration code in `to` (`code` added), the rest rejected by reason (rows.ts keyRows);
   * the raw table is dropped. Returns the handle of the keyed table.
   */
  async keyRows(
    to: string,
    codeSql: string,
    opts: { checkRule?: boolean; keep?: string } = {},
  ): Promise<SourceFile> {
    const { conn, country, report } = this.ctx;
    await keyRows(conn, { country, from: this.on, to, codeSql, file: this.name, report, ...opts });
    return new SourceFile(this.ctx, this.name, to, this.present);
  }

  /** Counts rows whose code (`codeSql` over alias `t`; default the keyed `t.code`) the register lacks. */
  async orphans(what: string, opts: { codeSql?: string; table?: string } = {}): Promise<void> {
    const { conn, country, report } = this.ctx;
    const table = opts.table ?? this.on;
    await rejectOrphans(conn, {
      country,
      table,
      codeSql: opts.codeSql ?? 't.code',
      file: this.name,
      report,
      what,
    });
  }

  /** Counts a value set to NULL or left out, the row kept: `sql` yields `n` and `example`. */
  async nulled(reason: string, sql: string): Promise<void> {
    const { conn, country, report } = this.ctx;
    await countNulled(conn, { country, file: this.name, report, reason, sql });
  }

  /** One summary line per classifier code nothing maps (unmapped.ts rejectPerCode): `sql` yields `code`, `n`. */
  async perCode(classifier: string, sql: string, opts: { listAll?: boolean } = {}): Promise<void> {
    const { conn, country, report } = this.ctx;
    await rejectPerCode(conn, { country, file: this.name, report, classifier, sql, ...opts });
  }

  /** A count the stage computed itself. */
  reject(reason: string, rows: number, action: RejectAction, example: string | null = null): void {
    this.ctx.report.reject(this.ctx.country, this.name, reason, rows, action, example);
  }
}

function delimiterOf(file: string, name: string, spec: CsvRead): string {
  if (typeof spec.delimiter === 'string') return spec.delimiter;
  const expected = spec.byName ? spec.columns.length : spec.header.length;
  const found = sniffDelimiter(file, spec.delimiter, expected, spec.encoding);
  if (found) return found;
  const names = spec.delimiter.map((d) => `"${d}"`).join(' nor ');
  throw new SourceFileError(name, { line: 1, column: 1 }, `neither ${names} splits the header`);
}

async function loadFile(
  ctx: StageInput,
  kind: 'csv' | 'json',
  spec: CsvRead | JsonRead,
): Promise<SourceFile> {
  const { conn, country, report, sources } = ctx;
  const file = spec.key !== undefined ? sources.one(spec.key) : spec.path;
  if (file === null) {
    if (spec.ifAbsent) await conn.run(`CREATE OR REPLACE TEMP TABLE ${spec.table} (${spec.ifAbsent})`);
    return new SourceFile(ctx, spec.key ?? '', spec.ifAbsent ? spec.table : null, false);
  }
  const display = spec.name ?? sources.displayName(file);
  const { key: _key, path: _path, name: _name, stage, ifAbsent: _absent, table, ...options } = spec;
  const src = { country, file, display, table };
  let load: () => Promise<{ rowsRead: number }>;
  if (kind === 'csv') {
    const csv = options as Omit<CsvRead, keyof FileRef | keyof ReadOptions>;
    const delimiter = delimiterOf(file, display, spec as CsvRead);
    load = () => loadCsv(conn, { ...csv, ...src, delimiter, workDir: ctx.workDir }, report);
  } else {
    load = () => loadJson(conn, { ...src, columns: (spec as JsonRead).columns }, report);
  }
  await report.stage(country, stage ?? `read ${display}`, load, (r) => r.rowsRead);
  return new SourceFile(ctx, display, table);
}

/** The run's StageInput with the plumbing a stage repeats said once (types.ts StageContext). */
export function createStageContext(input: StageInput): StageContext {
  const { sources } = input;
  const read = (kind: 'csv' | 'json', spec: CsvRead | JsonRead) => loadFile(input, kind, spec);
  return {
    ...input,
    read: read as StageContext['read'],
    has: (key) => sources.many(key).length > 0,
    file: (name, table = null) => new SourceFile(input, name, table),
    source: (key, table = null) => {
      const file = sources.one(key);
      return new SourceFile(input, file === null ? key : sources.displayName(file), table, file !== null);
    },
    stage: (label, run, rowsOf) => input.report.stage(input.country, label, run, rowsOf),
  };
}
