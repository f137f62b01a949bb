import fs from 'node:fs';
import path from 'node:path';
import type { HttpOptions } from '../http.ts';
import type { HarvestManifest } from '../manifest.ts';
import { HarvestSession, type HarvestLog } from '../session.ts';
import { birBodies, daneRecords, envelope, resultText, soapAction, type BirOperation } from './bir-soap.ts';
import { readCaptures } from './captures.ts';
import { CEIDG_PREFIX } from './ceidg.ts';
import { KRS_PREFIX } from './krs.ts';

/*
 * REGON BIR 1.1 (GUS): log in with the key (`Zaloguj`), find units in batches of 20 by KRS number (the KRS
 * harvest's extracts) and by REGON (the CEIDG harvest's sole traders) with `DaneSzukajPodmioty`, then fetch
 * each unit's full reports with `DanePobierzPelnyRaport`: legal persons `BIR11OsPrawna`, their PKD rows
 * `BIR11OsPrawnaPkd` and local units `BIR11OsPrawnaListaJednLokalnych`; natural persons
 * `BIR11OsFizycznaDaneOgolne`, `BIR11OsFizycznaDzialalnoscCeidg` and `BIR11OsFizycznaPkd`. A session lasts
 * about an hour; an expired one answers with an empty result, and `GetValue('KomunikatKod')` then says 7,
 * upon which the harvester logs in again and repeats the call. The incremental mode asks the daily bulk
 * reports (`DanePobierzRaportZbiorczy`: new, updated, deleted units of a day) for the REGONs to refresh.
 */

export const REGON_PREFIX = 'pl_regon';
export const REGON_DEFAULT_URL = 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc';
/** The service refuses more identifiers per search (KomunikatKod 2). */
const BATCH = 20;

export const BIR_REPORTS = {
  P: ['BIR11OsPrawna', 'BIR11OsPrawnaPkd', 'BIR11OsPrawnaListaJednLokalnych'],
  F: ['BIR11OsFizycznaDaneOgolne', 'BIR11OsFizycznaDzialalnoscCeidg', 'BIR11OsFizycznaPkd'],
} as const;
const BULK_REPORTS = [
  'BIR11NowePodmiotyPrawneOrazDzialalnosciOsFizycznych',
  'BIR11AktualizowanePodmiotyPrawneOrazDzialalnosciOsFizycznych',
  'BIR11SkreslonePodmiotyPrawneOrazDzialalnosciOsFizycznych',
];

export interface RegonOptions {
  url: string;
  key: string;
  http: HttpOptions;
  /** Days (YYYY-MM-DD) whose bulk change reports to follow; null = every unit the KRS and CEIDG captures name. */
  days: string[] | null;
  now: Date;
  signal?: AbortSignal;
  log: HarvestLog;
}

interface RegonState {
  /** Batches done of the work list saved beside the state. */
  batch: number;
  total: number;
  done: boolean;
}

interface Work {
  field: 'Krsy' | 'Regony9zn' | 'Regony14zn';
  ids: string[];
}

/** A BIR call failed in a way retrying cannot mend (a refused key, a KomunikatKod other than 4 or 7). */
export class BirError extends Error {
  override readonly name = 'BirError';
}

class BirClient {
  private sid: string | null = null;
  constructor(
    private readonly s: HarvestSession<RegonState>,
    private readonly opts: RegonOptions,
  ) {}

  private async post(op: BirOperation, body: string, sid: string | null) {
    return this.s.http.request(this.opts.url, {
      method: 'POST',
      headers: {
        'content-type': `application/soap+xml; charset=utf-8; action="${soapAction(op)}"`,
        ...(sid ? { sid } : {}),
      },
      body: envelope(this.opts.url, op, body),
    });
  }

  async login(): Promise<string> {
    const answer = await this.post('Zaloguj', birBodies.login(this.opts.key), null);
    const sid = resultText(answer.body.toString('utf8'), 'Zaloguj');
    // An unknown key answers an empty ZalogujResult.
    if (answer.status !== 200 || !sid)
      throw new BirError(`Zaloguj: no session (HTTP ${answer.status}); is REGDATA_REGON_KEY right?`);
    this.sid = sid.trim();
    return this.sid;
  }

  async messageCode(): Promise<string> {
    const answer = await this.post('GetValue', birBodies.getValue('KomunikatKod'), this.sid);
    return (resultText(answer.body.toString('utf8'), 'GetValue') ?? '').trim();
  }

  /**
   * One data call, stored as received. An empty result is either "nothing" or an expired session:
   * KomunikatKod tells which; 7 (no session) logs in again and repeats the call once.
   */
  async call(op: BirOperation, body: string, key: string, kind: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const sid = this.sid ?? (await this.login());
      const answer = await this.post(op, body, sid);
      const text = answer.body.toString('utf8');
      const inner = answer.status === 200 ? resultText(text, op) : null;
      if (inner === null) throw new BirError(`${op} ${key}: HTTP ${answer.status} without a result`);
      if (inner.trim() !== '') {
        this.s.store(REGON_PREFIX, answer, key, kind, op);
        return inner;
      }
      const code = await this.messageCode();
      if (code === '7' && attempt === 1) {
        this.s.log.info(`regon: session expired (KomunikatKod 7); logging in again`);
        this.sid = null;
        continue;
      }
      if (code === '4' || code === '0' || code === '') {
        this.s.store(REGON_PREFIX, answer, key, kind, op);
        return '';
      }
      throw new BirError(`${op} ${key}: empty result, KomunikatKod ${code}`);
    }
  }

  async logout(): Promise<void> {
    if (!this.sid) return;
    try {
      await this.post('Wyloguj', birBodies.logout(this.sid), this.sid);
    } catch {
      // A failed logout only leaves a session to expire on its own.
    }
    this.sid = null;
  }
}

/** The identifiers a full harvest asks for: KRS numbers with an extract, then the sole traders' REGONs. */
async function fullWork(dir: string): Promise<Work[]> {
  const krs = new Set<string>();
  const regons = new Set<string>();
  for await (const c of readCaptures(dir, KRS_PREFIX)) {
    if (c.kind === 'OdpisAktualny' && c.status === 200) krs.add(c.key.split('/')[0]!);
  }
  for await (const c of readCaptures(dir, CEIDG_PREFIX)) {
    if (c.status !== 200 || !c.body) continue;
    const page = JSON.parse(c.body) as {
      firmy?: { wlasciciel?: { regon?: string } }[];
      firma?: { wlasciciel?: { regon?: string } }[];
    };
    for (const f of page.firmy ?? page.firma ?? []) {
      const r = f.wlasciciel?.regon?.trim();
      if (r) regons.add(r);
    }
  }
  const batches = (field: Work['field'], ids: string[]): Work[] => {
    const out: Work[] = [];
    for (let i = 0; i < ids.length; i += BATCH) out.push({ field, ids: ids.slice(i, i + BATCH) });
    return out;
  };
  const nine = [...regons].filter((r) => r.length === 9).sort();
  const fourteen = [...regons].filter((r) => r.length === 14).sort();
  return [
    ...batches('Krsy', [...krs].sort()),
    ...batches('Regony9zn', nine),
    ...batches('Regony14zn', fourteen),
  ];
}

export async function harvestRegon(
  dir: string,
  manifest: HarvestManifest,
  opts: RegonOptions,
): Promise<void> {
  const incremental = opts.days !== null;
  const s = new HarvestSession<RegonState>(
    dir,
    'regon',
    manifest,
    { batch: 0, total: 0, done: false },
    opts.http,
    opts.log,
    { now: opts.now, mode: incremental ? 'incremental' : 'full' },
  );
  const workFile = path.join(dir, '.harvest', 'regon.work.json');
  const client = new BirClient(s, opts);
  try {
    let work: Work[];
    if (s.state.get().done || !fs.existsSync(workFile)) {
      if (incremental) {
        const changed = new Set<string>();
        for (const day of opts.days!) {
          for (const report of BULK_REPORTS) {
            const inner = await client.call(
              'DanePobierzRaportZbiorczy',
              birBodies.bulk(day, report),
              day,
              report,
            );
            for (const rec of daneRecords(inner)) if (rec['regon']) changed.add(rec['regon']);
          }
        }
        const ids = [...changed].sort();
        work = [];
        for (let i = 0; i < ids.length; i += BATCH) {
          const part = ids.slice(i, i + BATCH);
          work.push({ field: 'Regony9zn', ids: part.filter((r) => r.length === 9) });
          if (part.some((r) => r.length === 14))
            work.push({ field: 'Regony14zn', ids: part.filter((r) => r.length === 14) });
        }
        work = work.filter((w) => w.ids.length > 0);
      } else {
        work = await fullWork(dir);
      }
      fs.mkdirSync(path.dirname(workFile), { recursive: true });
      fs.writeFileSync(workFile, JSON.stringify(work));
      s.checkpoint({ batch: 0, total: work.length, done: false });
    } else {
      work = JSON.parse(fs.readFileSync(workFile, 'utf8')) as Work[];
    }
    s.entry.detail = { batches: work.length, resumedAt: s.state.get().batch };
    for (let b = s.state.get().batch; b < work.length; b++) {
      opts.signal?.throwIfAborted();
      const w = work[b]!;
      const key = w.ids.join(',');
      const inner = await client.call(
        'DaneSzukajPodmioty',
        birBodies.search(w.field, w.ids),
        key,
        'DaneSzukajPodmioty',
      );
      for (const unit of daneRecords(inner)) {
        const regon = unit['Regon'];
        const typ = unit['Typ'] as 'P' | 'F' | undefined;
        if (!regon || (typ !== 'P' && typ !== 'F')) continue;
        // Sole traders: only CEIDG-registered activity (SilosID 1) has the CEIDG report.
        const reports =
          typ === 'F' && unit['SilosID'] !== '1'
            ? BIR_REPORTS.F.filter((r) => !r.includes('Ceidg'))
            : BIR_REPORTS[typ];
        for (const report of reports) {
          await client.call('DanePobierzPelnyRaport', birBodies.report(regon, report), regon, report);
        }
      }
      s.checkpoint({ batch: b + 1 });
    }
    s.checkpoint({ done: true });
    await client.logout();
    s.finish('complete');
  } catch (err) {
    await client.logout();
    s.finish(opts.signal?.aborted ? 'interrupted' : 'failed', err);
    throw err;
  }
}
