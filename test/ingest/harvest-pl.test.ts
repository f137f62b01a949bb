import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarvestManifest } from '../../ingest/harvest/manifest.ts';
import { readCaptures } from '../../ingest/harvest/pl/captures.ts';
import { harvestCeidg } from '../../ingest/harvest/pl/ceidg.ts';
import { harvestKrs, type KrsOptions } from '../../ingest/harvest/pl/krs.ts';
import { harvestRegon } from '../../ingest/harvest/pl/regon.ts';
import type { CaptureRecord } from '../../ingest/harvest/capture.ts';
import { harvestCommand } from '../../src/cli/commands/harvest.ts';
import { UsageError } from '../../src/cli/errors.ts';
import { loadConfig } from '../../src/config.ts';
import { ELRO_REGON, KRS_EXTRACTS, REAL_PL, startPlFakes, type PlFakes } from './helpers/pl-fakes.ts';

/*
 * `regdata harvest PL` against loopback fakes of KRS, CEIDG and REGON BIR that answer with recorded real
 * answers and the services' real errors: the sweep skips 404 gaps, waits out a 429, survives a dropped
 * connection, is killed halfway and resumed from its state file; the change-list mode fetches only the
 * numbers of the day's list; BIR logs in again when its session expires. Every stored body is the
 * recorded answer byte for byte.
 */

const quiet = { info: () => {} };
const http = { ratePerSecond: 1000, attempts: 4, backoffMs: 1 };
let tmp = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-harvest-pl-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function captures(dir: string, prefix: string): Promise<CaptureRecord[]> {
  const out: CaptureRecord[] = [];
  for await (const c of readCaptures(dir, prefix)) out.push(c);
  return out;
}

const krsOpts = (fakes: PlFakes, extra: Partial<KrsOptions> = {}): KrsOptions => ({
  baseUrl: fakes.url,
  http,
  from: 405060,
  minTo: 405065,
  maxGap: 3,
  days: null,
  now: new Date('2026-11-23T01:00:00Z'),
  log: quiet,
  ...extra,
});

describe('KRS sweep', () => {
  it('skips 404 gaps, waits out a 429, is killed halfway and resumes at its checkpoint', async () => {
    const dir = path.join(tmp, 'sweep', 'PL');
    const abort = new AbortController();
    const fakes = await startPlFakes({
      throttle: new Set(['0000405063']),
      // Killed when the sweep reaches 405065 (after 405063's extract was stored).
      onRequest: (line) => {
        if (line === 'GET krs 0000405065 P') abort.abort(new Error('killed'));
      },
    });
    try {
      const first = harvestKrs(dir, new HarvestManifest(dir), krsOpts(fakes, { signal: abort.signal }));
      await expect(first).rejects.toThrow();
      const state = JSON.parse(fs.readFileSync(path.join(dir, '.harvest', 'krs.state.json'), 'utf8')) as {
        next: number;
      };
      expect(state.next).toBeGreaterThan(405063);
      const before = fakes.log.length;
      await harvestKrs(dir, new HarvestManifest(dir), krsOpts(fakes));
      const resumed = fakes.log.slice(before);
      // The resumed run starts where the state says, not at the beginning.
      expect(resumed[0]).toBe(`GET krs ${String(state.next).padStart(10, '0')} P`);
      expect(resumed.some((l) => l.includes('0000405060'))).toBe(false);
      // The 429 was retried: two P requests for 405063, one stored answer.
      expect(fakes.log.filter((l) => l === 'GET krs 0000405063 P')).toHaveLength(2);
      // A gap is asked in P, then S; the sweep stops 3 misses after the last extract.
      expect(fakes.log).toContain('GET krs 0000405064 S');
      expect(fakes.log.at(-1)).toBe('GET krs 0000405066 S');
    } finally {
      await fakes.close();
    }
    const stored = await captures(dir, 'pl_krs');
    const extracts = stored.filter((c) => c.status === 200);
    expect(extracts.map((c) => c.key)).toEqual(['0000405063/P']);
    expect(Buffer.from(extracts[0]!.body!, 'utf8')).toEqual(
      fs.readFileSync(path.join(REAL_PL, 'krs', KRS_EXTRACTS['0000405063']!)),
    );
    const runs = new HarvestManifest(dir).all();
    expect(runs.map((r) => r.outcome)).toEqual(['interrupted', 'complete']);
    expect(runs[1]!.answers['OdpisAktualny 404']).toBeGreaterThan(0);
  });
});

describe('KRS change list (incremental)', () => {
  it("fetches only the day's numbers, once each, through a dropped connection", async () => {
    const dir = path.join(tmp, 'incremental', 'PL');
    const fakes = await startPlFakes({
      bulletin: { '2026-11-22': ['413516', '1268296', '413516'] },
      drop: new Set(['0001268296']),
    });
    try {
      await harvestKrs(dir, new HarvestManifest(dir), krsOpts(fakes, { days: ['2026-11-22'] }));
      expect(fakes.log).toEqual([
        'GET krs-biuletyn 2026-11-22',
        'GET krs 0000413516 P',
        'GET krs 0001268296 P',
        'GET krs 0001268296 P',
      ]);
    } finally {
      await fakes.close();
    }
    const stored = (await captures(dir, 'pl_krs')).filter((c) => c.kind === 'OdpisAktualny');
    expect(stored.map((c) => [c.key, c.status])).toEqual([
      ['0000413516/P', 200],
      ['0001268296/P', 200],
    ]);
    for (const c of stored) {
      expect(Buffer.from(c.body!, 'utf8')).toEqual(
        fs.readFileSync(path.join(REAL_PL, 'krs', KRS_EXTRACTS[c.key.slice(0, 10)]!)),
      );
    }
    expect(new HarvestManifest(dir).all()[0]!.mode).toBe('incremental');
  });
});

describe('CEIDG and REGON BIR', () => {
  it('pages CEIDG with the token, then searches BIR in batches and logs in again when the session expires', async () => {
    const dir = path.join(tmp, 'all', 'PL');
    const fakes = await startPlFakes({ expireBirAfter: 2 });
    try {
      await harvestKrs(dir, new HarvestManifest(dir), krsOpts(fakes, { days: [] }));
      fs.cpSync(path.join(tmp, 'incremental', 'PL'), dir, { recursive: true });
      const common = { now: new Date('2026-11-23T02:00:00Z'), log: quiet, http };
      await expect(
        harvestCeidg(dir, new HarvestManifest(dir), {
          ...common,
          baseUrl: `${fakes.url}/api/ceidg/v3`,
          token: 'wrong',
          query: '',
          pageSize: 25,
          details: true,
        }),
      ).rejects.toThrow(/refused the token/);
      await harvestCeidg(dir, new HarvestManifest(dir), {
        ...common,
        baseUrl: `${fakes.url}/api/ceidg/v3`,
        token: 'test-token',
        query: '',
        pageSize: 25,
        details: true,
      });
      await harvestRegon(dir, new HarvestManifest(dir), {
        ...common,
        url: `${fakes.url}/bir`,
        key: 'abcde12345abcde12345',
        days: null,
      });
      const bir = fakes.log.filter((l) => l.startsWith('POST bir:'));
      expect(bir).toEqual([
        'POST bir:Zaloguj',
        'POST bir:DaneSzukajPodmioty', // the KRS numbers: not found
        'POST bir:DaneSzukajPodmioty', // the CEIDG REGON: the sole trader
        'POST bir:DanePobierzPelnyRaport', // expired
        'POST bir:GetValue', // KomunikatKod 7
        'POST bir:Zaloguj',
        'POST bir:DanePobierzPelnyRaport',
        'POST bir:DanePobierzPelnyRaport',
        'POST bir:DanePobierzPelnyRaport',
        'POST bir:Wyloguj',
      ]);
    } finally {
      await fakes.close();
    }
    const regon = await captures(dir, 'pl_regon');
    expect(regon.map((c) => [c.kind, c.key])).toEqual([
      ['DaneSzukajPodmioty', '0000413516,0001268296'],
      ['DaneSzukajPodmioty', ELRO_REGON],
      ['BIR11OsFizycznaDaneOgolne', ELRO_REGON],
      ['BIR11OsFizycznaDzialalnoscCeidg', ELRO_REGON],
      ['BIR11OsFizycznaPkd', ELRO_REGON],
    ]);
    expect(Buffer.from(regon[1]!.body!, 'utf8')).toEqual(
      fs.readFileSync(path.join(REAL_PL, 'bir', 'DaneSzukajPodmioty-nip-5790004488.mtom')),
    );
    const ceidg = await captures(dir, 'pl_ceidg');
    expect(ceidg.map((c) => c.kind)).toEqual(['firmy', 'firma']);
    // The refused try, then the one page: its links.next pointing at itself ends the list.
    expect(fakes.log.filter((l) => l.startsWith('GET ceidg /api/ceidg/v3/firmy'))).toHaveLength(2);
    const outcomes = new HarvestManifest(dir).all().map((r) => `${r.service} ${r.outcome}`);
    expect(outcomes).toEqual(['krs complete', 'ceidg failed', 'ceidg complete', 'regon complete']);
  });
});

describe('REGON BIR incremental', () => {
  it("asks the day's bulk reports (new, updated, deleted) and searches only the REGONs they list", async () => {
    const dir = path.join(tmp, 'bir-incremental', 'PL');
    const fakes = await startPlFakes();
    try {
      await harvestRegon(dir, new HarvestManifest(dir), {
        url: `${fakes.url}/bir`,
        key: 'abcde12345abcde12345',
        days: ['2026-11-22'],
        now: new Date('2026-11-23T02:00:00Z'),
        log: quiet,
        http,
      });
      expect(fakes.log).toEqual([
        'POST bir:Zaloguj',
        'POST bir:DanePobierzRaportZbiorczy',
        'POST bir:DanePobierzRaportZbiorczy',
        'POST bir:DanePobierzRaportZbiorczy',
        'POST bir:DaneSzukajPodmioty',
        'POST bir:Wyloguj',
      ]);
    } finally {
      await fakes.close();
    }
    const stored = await captures(dir, 'pl_regon');
    expect(stored.map((c) => [c.kind, c.key])).toEqual([
      ['BIR11NowePodmiotyPrawneOrazDzialalnosciOsFizycznych', '2026-11-22'],
      ['BIR11AktualizowanePodmiotyPrawneOrazDzialalnosciOsFizycznych', '2026-11-22'],
      ['BIR11SkreslonePodmiotyPrawneOrazDzialalnosciOsFizycznych', '2026-11-22'],
      ['DaneSzukajPodmioty', '022399999,147210456,243544401,341568222'],
    ]);
    expect(new HarvestManifest(dir).all()[0]!.mode).toBe('incremental');
  });
});

describe('regdata harvest PL (the command)', () => {
  it('harvests into <out>/PL with the configured service address, skips REGON without a key, refuses EE', async () => {
    const out = path.join(tmp, 'cli');
    const fakes = await startPlFakes();
    try {
      const config = loadConfig({
        REGDATA_DATA_DIR: path.join(tmp, 'cli-data'),
        REGDATA_KRS_URL: fakes.url,
        REGDATA_KRS_RATE: '50',
        REGDATA_HARVEST_BACKOFF_MS: '1',
      });
      const args = [
        'PL',
        '--out',
        out,
        '--services',
        'krs,regon',
        '--krs-from',
        '413515',
        '--krs-to',
        '413516',
      ];
      expect(await harvestCommand([...args, '--krs-max-gap', '1'], config)).toBe(0);
      expect(fakes.log).toEqual([
        'GET krs 0000413515 P',
        'GET krs 0000413515 S',
        'GET krs 0000413516 P',
        'GET krs 0000413517 P',
        'GET krs 0000413517 S',
      ]);
      const stored = await captures(path.join(out, 'PL'), 'pl_krs');
      expect(stored.map((c) => c.key)).toEqual(['0000413516/P']);
      expect(new HarvestManifest(path.join(out, 'PL')).all().map((r) => r.service)).toEqual(['krs']);
      await expect(harvestCommand(['EE', '--out', out], config)).rejects.toThrow(UsageError);
      await expect(harvestCommand(['PL'], config)).rejects.toThrow(/--out/);
    } finally {
      await fakes.close();
    }
  });
});
