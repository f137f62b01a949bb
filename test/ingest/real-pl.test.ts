import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureOf } from '../../ingest/harvest/capture.ts';
import { HarvestManifest } from '../../ingest/harvest/manifest.ts';
import { harvestCeidg } from '../../ingest/harvest/pl/ceidg.ts';
import { harvestKrs } from '../../ingest/harvest/pl/krs.ts';
import { harvestRegon } from '../../ingest/harvest/pl/regon.ts';
import { NothingSellableError } from '../../ingest/official/errors.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { buildTestApp } from '../helpers/app.ts';
import { composeBirAnswer, KRS_EXTRACTS, REAL_PL, startPlFakes } from './helpers/pl-fakes.ts';

/*
 * Poland from the services' real answers: a harvest against the loopback fakes (recorded KRS extracts,
 * BIR and CEIDG answers) is ingested with the KRS answers alone and again with every service, and each
 * company is read back through the HTTP API field by field against test/fixtures/real/PL/expected.json,
 * which was made by hand from the sources.
 */

type Row = Record<string, unknown>;
const expected = JSON.parse(fs.readFileSync(path.join(REAL_PL, 'expected.json'), 'utf8')) as Record<
  string,
  Record<string, Row>
>;
const quiet = { info: () => {} };
const http = { ratePerSecond: 1000, attempts: 3, backoffMs: 1 };
let tmp = '';
let harvest = '';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-real-pl-'));
  harvest = path.join(tmp, 'harvest', 'PL');
  const fakes = await startPlFakes({ bulletin: { '2026-11-22': ['405063', '413516', '1268296'] } });
  const now = new Date('2026-11-23T01:00:00Z');
  try {
    await harvestKrs(harvest, new HarvestManifest(harvest), {
      baseUrl: fakes.url,
      http,
      from: 1,
      minTo: 1,
      maxGap: 0,
      days: ['2026-11-22'],
      now,
      log: quiet,
    });
    await harvestCeidg(harvest, new HarvestManifest(harvest), {
      baseUrl: `${fakes.url}/api/ceidg/v3`,
      token: 'test-token',
      http,
      query: '',
      pageSize: 25,
      details: true,
      now,
      log: quiet,
    });
    await harvestRegon(harvest, new HarvestManifest(harvest), {
      url: `${fakes.url}/bir`,
      key: 'abcde12345abcde12345',
      http,
      days: null,
      now,
      log: quiet,
    });
  } finally {
    await fakes.close();
  }
  // The recorded PZU report, as an earlier REGON run would have stored it (its KRS number has no extract).
  const pzu = captureOf(
    {
      url: 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc',
      status: 200,
      headers: new Headers({ 'content-type': 'multipart/related; type="application/xop+xml"' }),
      body: fs.readFileSync(path.join(REAL_PL, 'bir', 'BIR11OsPrawna-010001345-pzu.mtom')),
      at: '2026-11-22T01:00:00.000Z',
    },
    '010001345',
    'BIR11OsPrawna',
    'DanePobierzPelnyRaport',
  );
  fs.writeFileSync(path.join(harvest, 'pl_regon_20261122T010000Z_0001.jsonl'), `${JSON.stringify(pzu)}\n`);
}, 60_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of the harvest folder with only the files whose names start with one of `prefixes`. */
function subset(label: string, prefixes: string[]): string {
  const root = path.join(tmp, label);
  fs.mkdirSync(path.join(root, 'PL'), { recursive: true });
  for (const name of fs.readdirSync(harvest)) {
    if (prefixes.some((p) => name.startsWith(p)))
      fs.copyFileSync(path.join(harvest, name), path.join(root, 'PL', name));
  }
  return root;
}

async function ingest(from: string) {
  const dataDir = path.join(from, 'data');
  const report = new IngestReport();
  await runIngest({ store: new SnapshotStore(dataDir), countries: ['PL'], from, report });
  return { dataDir, report };
}

async function readBack(dataDir: string, codes: string[]): Promise<Record<string, Row>> {
  const t = await buildTestApp(dataDir);
  try {
    const out: Record<string, Row> = {};
    for (const code of codes) {
      const res = await t.get(`/api/v1/data/companies/${code}?country=PL`);
      expect(res.statusCode, code).toBe(200);
      out[code] = res.json().data as Row;
    }
    return out;
  } finally {
    await t.close();
  }
}

const pick = (row: Row, keys: string[]): Row => Object.fromEntries(keys.map((k) => [k, row[k]]));

/** Each company of `want` read back through the API, field by field. */
async function expectCompanies(dataDir: string, want: Record<string, Row>): Promise<void> {
  const got = await readBack(dataDir, Object.keys(want));
  for (const [code, fields] of Object.entries(want)) {
    expect(pick(got[code]!, Object.keys(fields)), code).toEqual(fields);
  }
}

describe('PL from the KRS answers alone', () => {
  it('serves every extract as a company; the REGON and CEIDG fields are null and the summary names them', async () => {
    const { dataDir, report } = await ingest(subset('krs-only', ['pl_krs_']));
    await expectCompanies(dataDir, expected['krsOnly']!);
    expect(
      report.missing
        .filter((m) => m.country === 'PL')
        .map((m) => m.key)
        .sort(),
    ).toEqual(['ceidg', 'regon']);
    expect(krsReasons(report).filter((r) => r.includes('PKD'))).toEqual(KRS_PKD_COUNTS);
  }, 120_000);
});

const krsReasons = (report: IngestReport) =>
  report
    .rejectsOf('PL')
    .filter((r) => r.file === 'pl_krs_*.jsonl')
    .map((r) => `${r.reason} (${r.rows})`);
/*
 * GYM CENTER 8.0 (0001268296, registered 2026-09-22) carries PKD 2025 codes (86.95.Z, 86.99.B, 93.13.Z
 * "DZIAŁALNOŚĆ KLUBÓW FITNESS", ...): all PKD 2025 podklasy of the served tree, so none is left out or counted
 * (with a PKD 2007 tree, two were unknown and four of another edition).
 */
const KRS_PKD_COUNTS: string[] = [];

describe('PL from the KRS answers saved one per file (curl -o OdpisAktualny_<KRS>.json)', () => {
  /** The recorded extracts under the names `curl -o` would give them, and the recorded 404 answer. */
  function saved(root: string, codes: string[]): void {
    fs.mkdirSync(path.join(root, 'PL'), { recursive: true });
    for (const code of codes) {
      // One unpadded number: the file name's number is read as a KRS number either way.
      const name = code === '0000413516' ? '413516' : code;
      fs.copyFileSync(
        path.join(REAL_PL, 'krs', KRS_EXTRACTS[code]!),
        path.join(root, 'PL', `OdpisAktualny_${name}.json`),
      );
    }
    fs.copyFileSync(
      path.join(REAL_PL, 'krs', 'not-found-404.json'),
      path.join(root, 'PL', 'OdpisAktualny_0000000001.json'),
    );
  }

  it('serves each saved extract with its activities, address, REGON and NIP; a saved 404 is no company', async () => {
    const root = path.join(tmp, 'saved');
    saved(root, Object.keys(KRS_EXTRACTS));
    // More saved answers than one batch reads (captures.ts): the recorded 404 answer under 1,000 more numbers.
    for (let n = 0; n < 1000; n++) {
      fs.copyFileSync(
        path.join(REAL_PL, 'krs', 'not-found-404.json'),
        path.join(root, 'PL', `OdpisAktualny_${2_000_000 + n}.json`),
      );
    }
    const { dataDir, report } = await ingest(root);
    await expectCompanies(dataDir, expected['krsOnly']!);
    expect(krsReasons(report).filter((r) => r.includes('PKD'))).toEqual(KRS_PKD_COUNTS);
    expect(krsReasons(report).filter((r) => r.startsWith('answer is not'))).toEqual([]);
    const t = await buildTestApp(dataDir);
    try {
      expect((await t.get('/api/v1/data/companies/0000000001?country=PL')).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  }, 120_000);

  it("reads saved answers beside the harvest's capture files, each extract once", async () => {
    const root = subset('saved-beside', ['pl_krs_']);
    // The captures without GYM CENTER's answer; its extract saved as a file instead.
    let removed = 0;
    for (const name of fs.readdirSync(path.join(root, 'PL'))) {
      const file = path.join(root, 'PL', name);
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const kept = lines.filter((l) => !l.includes('"key":"0001268296'));
      removed += lines.length - kept.length;
      fs.writeFileSync(file, kept.join('\n'));
    }
    expect(removed).toBeGreaterThan(0);
    saved(root, ['0001268296']);
    const { dataDir, report } = await ingest(root);
    await expectCompanies(dataDir, expected['krsOnly']!);
    expect(krsReasons(report).filter((r) => r.includes('PKD'))).toEqual(KRS_PKD_COUNTS);
  }, 120_000);
});

describe('PL where KRS and REGON both list activities', () => {
  /*
   * SWLEX's real extract (ten PKD 2007 rows) beside a REGON unit that points at it: the recorded PZU report
   * with one change, its KRS number 0000009831 made 0000413516, and the recorded PKD report document
   * (GusApi's three praw_pkd rows) in that answer's envelope, as the fakes compose answers.
   */
  it("serves REGON's PKD rows, not the extract's", async () => {
    const root = subset('both-pkd', ['pl_krs_']);
    const pzu = fs.readFileSync(path.join(REAL_PL, 'bir', 'BIR11OsPrawna-010001345-pzu.mtom'), 'utf8');
    expect(pzu.split('0000009831')).toHaveLength(2);
    const pkd = fs
      .readFileSync(path.join(REAL_PL, 'bir', 'BIR11OsPrawnaPkd-inner-gusapi.xml'), 'utf8')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;');
    const answer = (body: Buffer, kind: string) =>
      captureOf(
        {
          url: 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc',
          status: 200,
          headers: new Headers({ 'content-type': 'multipart/related; type="application/xop+xml"' }),
          body,
          at: '2026-11-22T01:00:00.000Z',
        },
        '010001345',
        kind,
        'DanePobierzPelnyRaport',
      );
    fs.writeFileSync(
      path.join(root, 'PL', 'pl_regon_20261122T010000Z_0001.jsonl'),
      [
        answer(Buffer.from(pzu.replace('0000009831', '0000413516'), 'utf8'), 'BIR11OsPrawna'),
        answer(composeBirAnswer('DanePobierzPelnyRaport', pkd), 'BIR11OsPrawnaPkd'),
      ]
        .map((c) => `${JSON.stringify(c)}\n`)
        .join(''),
    );
    const { dataDir } = await ingest(root);
    const got = await readBack(dataDir, ['0000413516']);
    expect(got['0000413516']!['emtak']).toEqual([
      {
        kood: '74.14.Z',
        label: 'Pozostała działalność w zakresie specjalistycznego projektowania',
        is_main: true,
      },
      { kood: '74.30.Z', label: 'Działalność związana z tłumaczeniami', is_main: false },
      { kood: '74.20.Z', label: 'Działalność fotograficzna', is_main: false },
    ]);
  }, 120_000);
});

describe('PL from every service', () => {
  let dataDir = '';
  beforeAll(async () => ({ dataDir } = await ingest(subset('all', ['pl_']))), 120_000);

  it('reads every company back as expected, the REGON-only KRS entity included', async () => {
    await expectCompanies(dataDir, { ...expected['krsOnly']!, ...expected['allExtra']! });
  }, 120_000);

  it('holds the CEIDG sole trader under its REGON, never for sale', async () => {
    const store = new SnapshotStore(dataDir);
    const file = store.file(store.currentId()!, 'PL', 'companies');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const want = expected['heldSoleTrader']!;
      for (const [code, fields] of Object.entries(want)) {
        const rows = (
          await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}') WHERE registrikood = $1`, [code])
        ).getRowObjectsJson() as Row[];
        expect(rows.map((r) => pick(r, Object.keys(fields)))).toEqual([fields]);
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
    const t = await buildTestApp(dataDir);
    try {
      expect((await t.get(`/api/v1/data/companies/810528352?country=PL`)).statusCode).not.toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('PL with a CEIDG trader working only in a civil partnership', () => {
  it('reads WYLACZNIE_W_FORMIE_SPOLKI as a known, registered status', async () => {
    const from = subset('partnership', ['pl_']);
    for (const name of fs.readdirSync(path.join(from, 'PL')).filter((n) => n.startsWith('pl_ceidg_'))) {
      const file = path.join(from, 'PL', name);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toContain('AKTYWNY');
      fs.writeFileSync(file, text.replaceAll('AKTYWNY', 'WYLACZNIE_W_FORMIE_SPOLKI'));
    }
    const { dataDir, report } = await ingest(from);
    const store = new SnapshotStore(dataDir);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const rows = (
        await conn.runAndReadAll(
          `SELECT staatus, staatus_tekstina, source_status FROM read_parquet('${store.file(store.currentId()!, 'PL', 'companies')}')
           WHERE registrikood = '810528352'`,
        )
      ).getRowObjectsJson();
      expect(rows).toEqual([
        {
          staatus: 'R',
          staatus_tekstina: 'Działalność prowadzona wyłącznie w formie spółki cywilnej',
          source_status: 'WYLACZNIE_W_FORMIE_SPOLKI',
        },
      ]);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
    expect(report.rejects.filter((r) => r.reason.startsWith('CEIDG status not a known value'))).toEqual([]);
  }, 120_000);
});

describe('PL with input but nothing for sale', () => {
  it('fails as a data problem and promotes nothing', async () => {
    const root = path.join(tmp, 'nothing');
    fs.mkdirSync(path.join(root, 'PL'), { recursive: true });
    // Non-empty input: the KRS harvest's change list and 404 gaps only, plus the CEIDG sole trader.
    for (const name of fs.readdirSync(harvest).filter((n) => n.startsWith('pl_ceidg_'))) {
      fs.copyFileSync(path.join(harvest, name), path.join(root, 'PL', name));
    }
    const bulletin = fs
      .readFileSync(
        path.join(
          harvest,
          fs.readdirSync(harvest).find((n) => n.startsWith('pl_krs_'))!,
        ),
        'utf8',
      )
      .split('\n')
      .filter((l) => l.includes('"kind":"Biuletyn"'));
    fs.writeFileSync(path.join(root, 'PL', 'pl_krs_20261123T010000Z_0001.jsonl'), `${bulletin.join('\n')}\n`);
    const store = new SnapshotStore(path.join(root, 'data'));
    const error = await runIngest({ store, countries: ['PL'], from: root, report: new IngestReport() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NothingSellableError);
    expect(store.currentId()).toBeNull();
  }, 120_000);
});
