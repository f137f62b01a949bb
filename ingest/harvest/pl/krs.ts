import type { HarvestManifest } from '../manifest.ts';
import { HarvestSession, type HarvestLog } from '../session.ts';
import type { HttpOptions } from '../http.ts';

/*
 * KRS Open API (Ministry of Justice, registry-formats.md 6.1): one `OdpisAktualny` per entity and register,
 * no key, no bulk. A full harvest sweeps KRS numbers upward: each number is asked in register P
 * (entrepreneurs), then S (associations) when P answers 404. 404 in both is a gap (numbers are sparse), 204
 * is an entity removed from the register. The sweep stops after `maxGap` consecutive numbers with no
 * extract beyond `minTo`. The incremental mode reads the daily change list (`Biuletyn/{day}`) for each day
 * since the last complete run and re-fetches only those numbers.
 */

export const KRS_PREFIX = 'pl_krs';
export const KRS_DEFAULT_URL = 'https://api-krs.ms.gov.pl';

export interface KrsOptions {
  baseUrl: string;
  http: HttpOptions;
  /** First KRS number of a full sweep (1 by default). */
  from: number;
  /** The sweep runs at least to this number, then stops after `maxGap` misses in a row. */
  minTo: number;
  maxGap: number;
  /** Days (YYYY-MM-DD) whose change lists to follow; null = full sweep. */
  days: string[] | null;
  now: Date;
  signal?: AbortSignal;
  log: HarvestLog;
}

interface KrsState {
  /** Full sweep: the next number to ask. */
  next: number;
  /** The highest number that answered with an extract. */
  lastHit: number;
  /** Incremental: the days and numbers still to do. */
  days: string[];
  pending: string[];
  done: boolean;
}

const pad = (n: number | string): string => String(n).padStart(10, '0');

async function fetchExtract(s: HarvestSession<KrsState>, base: string, krs: string): Promise<boolean> {
  for (const register of ['P', 'S'] as const) {
    const url = `${base}/api/krs/OdpisAktualny/${krs}?rejestr=${register}&format=json`;
    const answer = await s.http.request(url, { headers: { accept: 'application/json' } });
    if (answer.status === 404) continue;
    // 200 (an extract) and 204 (removed from the register) are both kept: the ingest reads 200s, and a 204
    // tells a later run that a number is taken.
    if (answer.status === 200 || answer.status === 204) {
      s.store(KRS_PREFIX, answer, `${krs}/${register}`, 'OdpisAktualny');
      return answer.status === 200;
    }
    throw new Error(`${url}: unexpected HTTP ${answer.status}`);
  }
  s.entry.answers['OdpisAktualny 404'] = (s.entry.answers['OdpisAktualny 404'] ?? 0) + 1;
  return false;
}

/** The change list of one day: a JSON array of KRS numbers (as strings, not always padded, with repeats). */
function changedNumbers(body: Buffer): string[] {
  const list = JSON.parse(body.toString('utf8')) as unknown;
  if (!Array.isArray(list)) throw new Error('the KRS change list is not a JSON array');
  return [...new Set(list.map((x) => pad(String(x).trim())))];
}

export async function harvestKrs(dir: string, manifest: HarvestManifest, opts: KrsOptions): Promise<void> {
  const incremental = opts.days !== null;
  const s = new HarvestSession<KrsState>(
    dir,
    'krs',
    manifest,
    { next: opts.from, lastHit: 0, days: opts.days ?? [], pending: [], done: false },
    opts.http,
    opts.log,
    {
      now: opts.now,
      mode: incremental ? 'incremental' : 'full',
      detail: { from: opts.from, minTo: opts.minTo },
    },
  );
  // A finished state from an earlier run starts a new sweep; an unfinished one is resumed.
  if (s.state.get().done) {
    s.state.save({ next: opts.from, lastHit: 0, days: opts.days ?? [], pending: [], done: false });
  }
  const base = opts.baseUrl.replace(/\/+$/, '');
  try {
    if (incremental) {
      let { days, pending } = s.state.get();
      while (days.length > 0 || pending.length > 0) {
        opts.signal?.throwIfAborted();
        if (pending.length === 0) {
          const day = days[0]!;
          const answer = await s.http.request(`${base}/api/krs/Biuletyn/${day}`, {
            headers: { accept: 'application/json' },
          });
          s.store(KRS_PREFIX, answer, day, 'Biuletyn');
          pending = answer.status === 200 ? changedNumbers(answer.body) : [];
          days = days.slice(1);
          s.checkpoint({ days, pending });
          continue;
        }
        await fetchExtract(s, base, pending[0]!);
        pending = pending.slice(1);
        s.checkpoint({ days, pending });
      }
    } else {
      let { next, lastHit } = s.state.get();
      while (next <= opts.minTo || next - lastHit <= opts.maxGap) {
        opts.signal?.throwIfAborted();
        if (await fetchExtract(s, base, pad(next))) lastHit = next;
        next++;
        // A checkpoint per number: at a polite pace it costs nothing, and a resume repeats at most one.
        s.checkpoint({ next, lastHit });
      }
      s.entry.detail = { ...s.entry.detail, to: next - 1, lastHit };
    }
    s.checkpoint({ done: true });
    s.finish('complete');
  } catch (err) {
    s.finish(opts.signal?.aborted ? 'interrupted' : 'failed', err);
    throw err;
  }
}
