import { openWalletStore } from '../../wallet/wallet.ts';
import { Watchlists } from '../../watchlists/watchlists.ts';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { COUNTRY_CODES, isCountryCode, type CountryCode } from '../../contract/countries.ts';
import { SnapshotStore } from '../../contract/snapshot-store.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';
import type { IngestReport } from '../../../ingest/official/report.ts';
import type { RequireSpec } from '../../../ingest/official/sources.ts';
import type { CountryAdapter } from '../../../ingest/official/types.ts';

const LABEL = /^[a-z0-9-]{1,40}$/;

export const ingestHelp = `regdata ingest <CC...|all> [--from <dir>] [--snapshot <label>] [--allow-drop] [--no-promote]
                [--keep <n>] [--download-dir <dir>] [--max-drop-pct <p>] [--require <files|all>]

Turns the registers' official open-data files into a new snapshot and makes it live (write-audit-publish).
Every country has an ingest adapter: EE, LV, LT, NO, FI, SE, PL ("all" means all seven). Countries not
named are carried over from the live snapshot unchanged.

Each country needs only its register's principal file, plain or as downloaded (.zip, .gz); every other
file is an enrichment. A missing enrichment leaves the fields it feeds empty, and the summary names it.
Every problem with the input folders is reported in one run, before anything is read.

  --from <dir>          read the official files from <dir> (or <dir>/<CC>/ per country) instead of
                        downloading them; this is how tests and air-gapped sites run
  --require <files|all> treat missing enrichments as errors: "all", or file keys separated by commas,
                        optionally per country (yldandmed,NO:roller); docs/ingest.md lists the keys
  --download-dir <dir>  where downloads are kept between runs, so an interrupted one resumes
                        (default <data>/downloads)
  --snapshot <label>    label of the new snapshot id (<UTC time>-<label>; default "ingest")
  --allow-drop          accept a country with no company for sale, or whose count of companies for sale
                        fell more than the drop guard allows
  --max-drop-pct <p>    the drop guard (default 10)
  --no-promote          write and audit the snapshot but leave the live one serving
  --keep <n>            snapshots kept on disk after promotion (default 3; the live one always)

Exit codes: 0 promoted (or written with --no-promote), 1 a data problem (a principal or required file
missing, malformed or truncated, too many rejected rows, no company for sale, a row-count drop, a failed
audit: nothing is promoted and the live snapshot keeps serving), 2 a usage or configuration error.`;

export async function ingestCommand(args: string[], config: Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      from: { type: 'string' },
      snapshot: { type: 'string' },
      'allow-drop': { type: 'boolean', default: false },
      'max-drop-pct': { type: 'string' },
      'no-promote': { type: 'boolean', default: false },
      keep: { type: 'string' },
      'download-dir': { type: 'string' },
      require: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const { ADAPTERS } = await import('../../../ingest/official/adapters.ts');
  const supported = COUNTRY_CODES.filter((c) => ADAPTERS[c] !== undefined);
  const countries = parseIngestCountries(positionals, supported);
  const label = values.snapshot ?? 'ingest';
  if (!LABEL.test(label)) throw new UsageError('--snapshot must be 1-40 characters of a-z, 0-9 and -');
  const keep = values.keep === undefined ? 3 : Number(values.keep);
  if (!Number.isInteger(keep) || keep < 1) throw new UsageError('--keep must be a positive integer');
  const maxDropPct = values['max-drop-pct'] === undefined ? undefined : Number(values['max-drop-pct']);
  if (maxDropPct !== undefined && !(maxDropPct >= 0 && maxDropPct <= 100)) {
    throw new UsageError('--max-drop-pct must be a number from 0 to 100');
  }
  const require = parseRequire(values.require, countries, ADAPTERS);
  const from = values.from === undefined ? undefined : path.resolve(values.from);
  if (from !== undefined && !(fs.existsSync(from) && fs.statSync(from).isDirectory())) {
    throw new UsageError(`--from: ${from} is not a folder`);
  }

  const { runIngest } = await import('../../../ingest/official/run-ingest.ts');
  const { IngestReport } = await import('../../../ingest/official/report.ts');
  const { DataProblem } = await import('../../../ingest/official/errors.ts');
  const { AuditError } = await import('../../../ingest/pipeline/audit.ts');
  const { terminalProgress, structuredProgress } = await import('../../../ingest/official/progress.ts');
  const progress = process.stderr.isTTY ? terminalProgress(out.info) : structuredProgress(out.info);
  const report = new IngestReport(progress);
  const store = new SnapshotStore(config.dataDir);
  // The publish computes the events of the account's watchlists (issue 31), read from the shared wallet.
  const walletStore = await openWalletStore(config.wallet.url, {
    poolSize: 1,
    applicationName: 'regdata ingest',
  });
  const started = Date.now();
  let code: number = EXIT.ok;
  try {
    const result = await runIngest({
      store,
      countries,
      ...(from !== undefined ? { from } : {}),
      ...(values['download-dir'] !== undefined ? { downloadDir: path.resolve(values['download-dir']) } : {}),
      label,
      promote: !values['no-promote'],
      allowDrop: values['allow-drop'],
      ...(maxDropPct !== undefined ? { maxDropPct } : {}),
      keep,
      require,
      report,
      duckdb: { memoryLimit: config.ingest.memoryLimit },
      unpack: config.ingest.unpack,
      servingBuilds: config.ingest.servingBuilds,
      watchlists: new Watchlists(walletStore, Date.now),
    });
    const carried = result.carriedOver.length ? `; carried over ${result.carriedOver.join(', ')}` : '';
    out.info(
      `snapshot ${result.snapshotId} ${values['no-promote'] ? 'written (not promoted)' : 'is live'}${carried}`,
    );
  } catch (err) {
    if (!(err instanceof DataProblem || err instanceof AuditError)) throw err;
    out.error(`ingest failed, nothing promoted, the live snapshot keeps serving: ${err.message}`);
    code = EXIT.failed;
  } finally {
    await walletStore.close();
  }
  printSummary(report, (Date.now() - started) / 1000);
  return code;
}

function printSummary(report: IngestReport, seconds: number): void {
  const rows = report.summaryRows();
  if (rows.length) {
    out.line();
    out.table(rows);
  }
  const missing = report.missingRows();
  if (missing.length) {
    out.line();
    out.line('enrichments not in the input (their fields are left empty; --require makes this an error):');
    out.table(missing);
  }
  const rejects = report.rejectRows();
  if (rejects.length) {
    out.line();
    out.line('rejected rows and nulled values by reason:');
    out.table(rejects);
  }
  out.line();
  out.line(`total time ${seconds.toFixed(1)} s`);
}

/**
 * `--require`: "all", or enrichment keys (`yldandmed`) or country-qualified keys (`EE:yldandmed`). A key
 * no named country has is a usage error, so a typo cannot silently require nothing.
 */
export function parseRequire(
  value: string | undefined,
  countries: readonly CountryCode[],
  adapters: Partial<Record<CountryCode, CountryAdapter>>,
): RequireSpec {
  if (value === undefined) return { all: false, keys: new Set() };
  const items = value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError('--require needs "all" or a list of file keys');
  if (items.some((k) => k.toLowerCase() === 'all')) return { all: true, keys: new Set() };
  const known = new Set<string>();
  for (const c of countries) {
    for (const f of adapters[c]?.files ?? []) {
      if (f.required) continue;
      known.add(f.key);
      known.add(`${c}:${f.key}`);
    }
  }
  const keys = items.map((k) => k.replace(/^([a-z]{2}):/i, (_, cc: string) => `${cc.toUpperCase()}:`));
  const unknown = keys.filter((k) => !known.has(k));
  if (unknown.length) {
    const list = [...known].filter((k) => k.includes(':')).join(', ');
    throw new UsageError(
      `--require: no enrichment file ${unknown.join(', ')} for ${countries.join(', ')} (known: ${list})`,
    );
  }
  return { all: false, keys: new Set(keys) };
}

/** Countries from the positionals: codes, or `all` for every country with an adapter. */
export function parseIngestCountries(
  positionals: string[],
  supported: readonly CountryCode[],
): CountryCode[] {
  if (positionals.length === 0) {
    throw new UsageError(`name the countries to ingest (${supported.join(' ')}) or "all"\n\n${ingestHelp}`);
  }
  const list = positionals.flatMap((p) => p.split(',')).map((c) => c.trim().toUpperCase());
  if (list.includes('ALL')) return [...supported];
  const picked: CountryCode[] = [];
  for (const code of list) {
    if (!isCountryCode(code))
      throw new UsageError(`unknown country: ${code} (one of ${COUNTRY_CODES.join(', ')})`);
    if (!supported.includes(code)) {
      throw new UsageError(`no ingest adapter for ${code} yet (available: ${supported.join(', ')})`);
    }
    if (!picked.includes(code)) picked.push(code);
  }
  return picked;
}

export const officialFilesHelp = `regdata official-files <dir> [--countries EE,LV,LT] [--snapshot <id>]

Writes a snapshot (the live one by default) as the registers' official open-data files, one folder per
country (<dir>/EE/, <dir>/LV/, <dir>/LT/), with the real names, headers, encodings and quirks. Meant for the
synthetic world: "regdata demo" then "regdata official-files out" then "regdata ingest all --from out"
runs the real ingest on synthetic data.`;

export async function officialFilesCommand(args: string[], config: Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { countries: { type: 'string' }, snapshot: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [dir, ...rest] = positionals;
  if (!dir || rest.length) throw new UsageError(`name one output folder\n\n${officialFilesHelp}`);
  const { OFFICIAL_WRITERS, writeOfficialFiles } = await import('../../../ingest/official/write-official.ts');
  const supported = COUNTRY_CODES.filter((c) => OFFICIAL_WRITERS[c] !== undefined);
  const countries = parseIngestCountries(
    values.countries === undefined ? ['all'] : values.countries.split(','),
    supported,
  );
  const store = new SnapshotStore(config.dataDir);
  const id = values.snapshot ?? store.currentId();
  if (!id || !store.list().includes(id)) {
    throw new UsageError(
      id ? `no such snapshot: ${id}` : `no live snapshot in ${config.dataDir} (run regdata demo)`,
    );
  }
  const written = await writeOfficialFiles({
    snapshotDir: store.snapshotDir(id),
    countries,
    outDir: path.resolve(dir),
    log: (msg) => out.info(msg),
  });
  for (const files of Object.values(written)) for (const f of files) out.line(f);
  return EXIT.ok;
}
