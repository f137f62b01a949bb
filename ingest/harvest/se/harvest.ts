import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { downloadSources, type DownloadOptions } from '../../official/download.ts';
import type { IngestReport } from '../../official/report.ts';
import { SE_FILE_NAMES, SE_FILES } from '../../official/se/files.ts';
import type { OfficialFile } from '../../official/types.ts';
import {
  FDB_BASE_URL,
  FDB_MAX_ROWS,
  FdbClient,
  FdbError,
  prefixQuery,
  type FdbClientOptions,
} from './fdb-client.ts';

/*
 * `regdata harvest SE`: the two public bulk zips (Bolagsverket, SCB) fetched unchanged, and, when a client
 * certificate is configured, every legal unit's FDB answer, stored one `HamtaForetag` answer per file as
 * received. The FDB part splits the register by organisation-number prefix: a prefix SCB counts at more
 * than 2,000 units is split into its ten longer prefixes, one at or under is fetched. A state file beside
 * the answers holds the prefixes still to do, so a harvest that is killed or loses the service carries on
 * where it stopped; the manifest says what was fetched, from where and when, with sizes and checksums.
 */

export const SE_STATE_FILE = '.harvest-se-state.json';
export const SE_MANIFEST_FILE = 'harvest-se-manifest.json';

export interface SeHarvestOptions {
  out: string;
  now: Date;
  report: IngestReport;
  /** The bulk zips' addresses (default: Bolagsverket's public ones) and download tuning. */
  bulk?: {
    urls?: { bolagsverket: string; scb: string };
    /** Smallest plausible zip (default: the files' own 1 MB floor); a test server's zips are small. */
    minBytes?: number;
  } & Pick<DownloadOptions, 'attempts' | 'backoffMs' | 'idleTimeoutMs' | 'sleep' | 'fetchImpl'>;
  /** Stops the FDB part before its next request (SIGINT/SIGTERM); the state file resumes it. */
  signal?: AbortSignal;
  /** The FDB service; null or absent: skipped (the certificate is optional), and the summary says so. */
  fdb?:
    | (FdbClientOptions & {
        /** Rows an answer may hold (SCB: 2,000); a smaller cap splits more. */ maxRows?: number;
      })
    | null;
}

interface FdbPage {
  prefix: string;
  file: string;
  rows: number;
  bytes: number;
  sha256: string;
  fetchedAt: string;
}

interface SeState {
  /** The harvest's date (YYYYMMDD), kept when it resumes on a later day: it names the answer files. */
  date: string;
  startedAt: string;
  pending: string[];
  pages: FdbPage[];
  /** Prefixes SCB refused (HTTP 4xx with its reason); the harvest goes on without them. */
  refused: { prefix: string; status: number | null; reason: string }[];
  /** Prefixes still over 2,000 at ten digits (cannot happen with unique numbers; kept as a guard). */
  overCap: string[];
  requests: number;
}

export interface SeHarvestResult {
  bulk: { file: string; bytes: number; sha256: string; url: string }[];
  fdb:
    | { status: 'skipped'; why: string }
    | { status: 'complete'; pages: number; rows: number; requests: number; refused: SeState['refused'] };
}

const compact = (d: Date): string => d.toISOString().slice(0, 10).replaceAll('-', '');

function writeAtomic(file: string, data: string | Buffer): void {
  fs.writeFileSync(`${file}.tmp`, data);
  fs.renameSync(`${file}.tmp`, file);
}

function readState(file: string): SeState | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as SeState;
  } catch {
    return null;
  }
}

/** The bulk entries of SE_FILES, pointed at other addresses when given (a mirror, a test server). */
function bulkFiles(urls?: { bolagsverket: string; scb: string }, minBytes?: number): OfficialFile[] {
  return SE_FILES.filter((f) => f.key === 'bolagsverket' || f.key === 'scb').map((f) =>
    urls
      ? {
          ...f,
          ...(minBytes !== undefined && { minBytes }),
          downloads: async () => [
            {
              url: urls[f.key as 'bolagsverket' | 'scb'],
              saveAs: f.key === 'scb' ? SE_FILE_NAMES.scb : SE_FILE_NAMES.bolagsverket,
            },
          ],
        }
      : f,
  );
}

async function harvestFdb(
  opts: SeHarvestOptions,
  fdb: NonNullable<SeHarvestOptions['fdb']>,
): Promise<SeHarvestResult['fdb']> {
  const cap = fdb.maxRows ?? FDB_MAX_ROWS;
  const stateFile = path.join(opts.out, SE_STATE_FILE);
  const progress = opts.report.progress;
  let state = readState(stateFile);
  if (!state || state.pending.length === 0) {
    // A finished harvest is not resumed: this is a new one (its older answer files stay until replaced).
    state = {
      date: compact(opts.now),
      startedAt: opts.now.toISOString(),
      pending: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'],
      pages: [],
      refused: [],
      overCap: [],
      requests: 0,
    };
    // Answers of an earlier harvest of the same day would mix with this one's numbering.
    const stale = new RegExp(`^scb_fdb_je_${state.date}_\\d+\\.json$`);
    for (const name of fs.readdirSync(opts.out)) if (stale.test(name)) fs.rmSync(path.join(opts.out, name));
    writeAtomic(stateFile, JSON.stringify(state));
  } else {
    progress.message(`SE: resuming the FDB harvest of ${state.date}: ${state.pending.length} prefixes to go`);
  }
  const client = new FdbClient(fdb);
  try {
    while (state.pending.length > 0) {
      opts.signal?.throwIfAborted();
      const prefix = state.pending[0]!;
      try {
        const query = prefixQuery(prefix);
        const n = await client.count(query);
        if (n > cap && prefix.length < 10) {
          state.pending.splice(0, 1, ...Array.from({ length: 10 }, (_, d) => `${prefix}${d}`));
        } else {
          if (n > cap) state.overCap.push(prefix);
          if (n > 0) {
            const answer = await client.fetch(query);
            const file = SE_FILE_NAMES.fdb(state.date, state.pages.length + 1);
            writeAtomic(path.join(opts.out, file), answer.body);
            state.pages.push({
              prefix,
              file,
              rows: (JSON.parse(answer.body.toString('utf8')) as unknown[]).length,
              bytes: answer.body.length,
              sha256: createHash('sha256').update(answer.body).digest('hex'),
              fetchedAt: new Date().toISOString(),
            });
          }
          state.pending.shift();
        }
      } catch (err) {
        // A refused query (4xx other than throttling) costs that prefix only; anything else stops the
        // harvest with its state saved, to be resumed by the next run.
        if (
          !(err instanceof FdbError) ||
          err.status === null ||
          err.status >= 500 ||
          [401, 403, 404].includes(err.status)
        ) {
          throw err;
        }
        state.refused.push({ prefix, status: err.status, reason: err.reason });
        state.pending.shift();
      } finally {
        state.requests += client.requests;
        client.requests = 0;
        writeAtomic(stateFile, JSON.stringify(state));
      }
    }
  } finally {
    client.close();
  }
  const rows = state.pages.reduce((s, p) => s + p.rows, 0);
  return {
    status: 'complete',
    pages: state.pages.length,
    rows,
    requests: state.requests,
    refused: state.refused,
  };
}

export async function harvestSweden(opts: SeHarvestOptions): Promise<SeHarvestResult> {
  fs.mkdirSync(opts.out, { recursive: true });
  const files = bulkFiles(opts.bulk?.urls, opts.bulk?.minBytes);
  await downloadSources('SE', files, opts.out, {
    report: opts.report,
    now: opts.now,
    ...(opts.bulk?.attempts !== undefined && { attempts: opts.bulk.attempts }),
    ...(opts.bulk?.backoffMs !== undefined && { backoffMs: opts.bulk.backoffMs }),
    ...(opts.bulk?.idleTimeoutMs !== undefined && { idleTimeoutMs: opts.bulk.idleTimeoutMs }),
    ...(opts.bulk?.sleep && { sleep: opts.bulk.sleep }),
    ...(opts.bulk?.fetchImpl && { fetchImpl: opts.bulk.fetchImpl }),
  });
  const bulk = [SE_FILE_NAMES.bolagsverket, SE_FILE_NAMES.scb].map((file) => {
    const meta = JSON.parse(fs.readFileSync(path.join(opts.out, `${file}.meta.json`), 'utf8')) as {
      url: string;
      bytes: number;
      sha256: string;
    };
    return { file, bytes: meta.bytes, sha256: meta.sha256, url: meta.url };
  });

  const fdb: SeHarvestResult['fdb'] = opts.fdb
    ? await harvestFdb(opts, opts.fdb)
    : {
        status: 'skipped',
        why: 'no FDB client certificate configured: size and turnover bands, VAT status, seat kommun and the se_register categories will be NULL',
      };
  const state = readState(path.join(opts.out, SE_STATE_FILE));
  writeAtomic(
    path.join(opts.out, SE_MANIFEST_FILE),
    JSON.stringify(
      {
        country: 'SE',
        finishedAt: new Date().toISOString(),
        bulk,
        fdb: {
          ...fdb,
          ...(fdb.status === 'complete' &&
            state && { date: state.date, startedAt: state.startedAt, files: state.pages }),
          endpoint: fdb.status === 'complete' ? (opts.fdb?.baseUrl ?? FDB_BASE_URL) : null,
        },
      },
      null,
      2,
    ),
  );
  if (fdb.status === 'skipped') opts.report.progress.message(`SE: FDB skipped: ${fdb.why}`);
  return { bulk, fdb };
}
