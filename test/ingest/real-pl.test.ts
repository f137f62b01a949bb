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
import { REAL_PL, startPlFakes } from './helpers/pl-fakes.ts';

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

describe('PL from the KRS answers alone', () => {
  it('serves every extract as a company; the REGON and CEIDG fields are null and the summary names them', async () => {
    const { dataDir, report } = await ingest(subset('krs-only', ['pl_krs_']));
    const want = expected['krsOnly']!;
    const got = await readBack(dataDir, Object.keys(want));
    for (const [code, fields] of Object.entries(want)) {
      expect(pick(got[code]!, Object.keys(fields)), code).toEqual(fields);
    }
    expect(
      report.missing
        .filter((m) => m.country === 'PL')
        .map((m) => m.key)
        .sort(),
    ).toEqual(['ceidg', 'regon']);
  }, 120_000);
});

describe('PL from every service', () => {
  let dataDir = '';
  beforeAll(async () => ({ dataDir } = await ingest(subset('all', ['pl_']))), 120_000);

  it('reads every company back as expected, the REGON-only KRS entity included', async () => {
    const want = { ...expected['krsOnly']!, ...expected['allExtra']! };
    const got = await readBack(dataDir, Object.keys(want));
    for (const [code, fields] of Object.entries(want)) {
      expect(pick(got[code]!, Object.keys(fields)), code).toEqual(fields);
    }
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
