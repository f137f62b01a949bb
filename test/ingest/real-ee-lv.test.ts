import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { writeZip } from '../../ingest/official/zip.ts';
import { loadCsv } from '../../ingest/official/read-csv.ts';
import { REGISTER_HEADER } from '../../ingest/official/lv/files.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { EE_FILES } from '../../ingest/official/ee/files.ts';
import { LV_FILES } from '../../ingest/official/lv/files.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

/*
 * The real-sample corpus (test/fixtures/real/<CC>/, provenance in SOURCES.md): each country is ingested
 * from its register's principal file alone, as downloaded, and again with every enrichment file the corpus
 * has; every company is then read back through the HTTP API and compared field by field with
 * expected.json, which was derived by hand from the source rows, not by running the ingest.
 */

const REAL = fileURLToPath(new URL('../fixtures/real/', import.meta.url));

interface Expected {
  principal: Record<string, Record<string, unknown>>;
  everything: Record<string, Record<string, unknown>>;
  /** Codes the ingest must not serve, with the API's answer (400: the code fails the check digit). */
  absent: Record<string, number>;
  unmapped: Record<string, Record<string, number>>;
  /** Rows the principal file loses, as `file: reason` → rows (the same with or without enrichments). */
  rejects: Record<string, number>;
}

const expected = (country: CountryCode): Expected =>
  JSON.parse(fs.readFileSync(path.join(REAL, country, 'expected.json'), 'utf8')) as Expected;

let tmp = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-real-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A source folder with the corpus' principal file (zipped when the register ships it zipped) and, if asked, its enrichments. */
async function sourceFolder(country: CountryCode, withEnrichments: boolean, zipPrincipal: boolean) {
  const dir = fs.mkdtempSync(path.join(tmp, `${country}-src-`));
  for (const name of fs.readdirSync(path.join(REAL, country, 'principal'))) {
    const file = path.join(REAL, country, 'principal', name);
    if (zipPrincipal) await writeZip(path.join(dir, `${name}.zip`), file, name);
    else fs.copyFileSync(file, path.join(dir, name));
  }
  if (withEnrichments) {
    fs.cpSync(path.join(REAL, country, 'enrichments'), dir, { recursive: true });
  }
  return dir;
}

async function ingestAndServe(country: CountryCode, from: string) {
  const dataDir = fs.mkdtempSync(path.join(tmp, `${country}-data-`));
  const report = new IngestReport();
  await runIngest({ store: new SnapshotStore(dataDir), countries: [country], from, report });
  return { report, app: await buildTestApp(dataDir) };
}

async function readBack(app: TestApp, country: CountryCode, code: string) {
  const res = await app.get(`/api/v1/data/companies/${code}?country=${country}`);
  return { status: res.statusCode, data: res.statusCode === 200 ? res.json().data : null };
}

/** The reported per-code counts of unmapped classifier codes: {classifier: {code: rows}}. */
function unmapped(report: IngestReport, country: CountryCode): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of report.rejectsOf(country)) {
    const m = /^unmapped (.+) code (\S+)$/.exec(r.reason);
    if (!m) continue;
    expect(r.action).toBe('value nulled');
    (out[m[1]!] ??= {})[m[2]!] = r.rows;
  }
  return out;
}

const CASES: { country: CountryCode; zipPrincipal: boolean }[] = [
  // RIK ships lihtandmed as a zip; UR's register.csv is a plain file.
  { country: 'EE', zipPrincipal: true },
  { country: 'LV', zipPrincipal: false },
];

describe.each(CASES)('$country real-sample corpus', ({ country, zipPrincipal }) => {
  const exp = expected(country);
  for (const withEnrichments of [false, true]) {
    describe(withEnrichments ? 'with every file' : 'with the principal file only', () => {
      let app: TestApp;
      let report: IngestReport;
      beforeAll(async () => {
        const from = await sourceFolder(country, withEnrichments, zipPrincipal);
        ({ app, report } = await ingestAndServe(country, from));
      }, 120_000);
      afterAll(async () => app?.close());

      it('reads every company back through the API, field by field', async () => {
        for (const [code, fields] of Object.entries(exp.principal)) {
          const want = { ...fields, ...(withEnrichments ? exp.everything[code] : {}) };
          const { status, data } = await readBack(app, country, code);
          expect({ code, status }).toEqual({ code, status: 200 });
          const got = Object.fromEntries(Object.keys(want).map((k) => [k, data[k]]));
          expect({ code, ...got }).toEqual({ code, ...want });
        }
      });

      it('serves no company the register file rejects', async () => {
        for (const [code, status] of Object.entries(exp.absent)) {
          expect({ code, status: (await readBack(app, country, code)).status }).toEqual({ code, status });
        }
      });

      it('names every enrichment the input lacks, with what it adds', () => {
        const files = country === 'EE' ? EE_FILES : LV_FILES;
        const present = withEnrichments ? fs.readdirSync(path.join(REAL, country, 'enrichments')) : [];
        const lacking = files
          .filter((f) => !f.required && !present.some((n) => f.match.test(n)))
          .map((f) => ({ key: f.key, adds: f.adds }));
        expect(lacking.length).toBeGreaterThan(0);
        expect(
          report.missing.filter((m) => m.country === country).map((m) => ({ key: m.key, adds: m.adds })),
        ).toEqual(lacking);
      });

      it("counts the principal file's rejected rows by reason", () => {
        const got = Object.fromEntries(
          report
            .rejectsOf(country)
            .filter((r) => `${r.file}: ${r.reason}` in exp.rejects)
            .map((r) => [`${r.file}: ${r.reason}`, r.rows]),
        );
        expect(got).toEqual(exp.rejects);
      });

      it('nulls and counts each superseded or unknown classifier code, per code', () => {
        expect(unmapped(report, country)).toEqual(exp.unmapped);
      });
    });
  }
});

/*
 * The quirks the corpus exercises are in its bytes (so the read-back above covers them), checked here so
 * that a fixture edited into a tidier shape fails instead of silently testing less.
 */
describe("the real bytes carry the registers' quirks", () => {
  const bytes = (country: CountryCode, name: string) =>
    fs.readFileSync(path.join(REAL, country, 'principal', name));

  it('EE lihtandmed: UTF-8 BOM, a quoted ";" inside the address, empty trailing fields, LF endings', () => {
    const b = bytes('EE', 'ettevotja_rekvisiidid__lihtandmed.csv');
    expect([...b.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = b.toString('utf8');
    expect(text).toContain(';"postiaadress: Sõle 51-69; asukoht:";');
    expect(text).toMatch(/;;;;;\n/);
    expect(text).not.toContain('\r');
  });

  it('LV register.csv: UTF-8 BOM, doubled quotes, "" empty values, the single-space closed flag, a trailing ";"', () => {
    const b = bytes('LV', 'register.csv');
    expect([...b.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = b.toString('utf8');
    expect(text).toContain(';"""House of Glory""";"";House of Glory;"";');
    expect(text).toContain(';"IK ""D.Luxe""";');
    expect(text).toContain(';2015-03-02;; ;');
    expect(text).toMatch(/;0050000;\n/);
  });
});

/*
 * A row with one field too many whose extra field is empty and last (an unquoted ";" in a row that ends
 * with ";", as register.csv rows do) is accepted by DuckDB 1.5's CSV reader with its fields shifted. The
 * adapter's typed columns are what catch it: here the shift moves a name into `registered` (DATE).
 */
describe('a malformed row in real bytes is rejected with file, line and reason; no column shifts', () => {
  it('rejects the row whose unquoted ";" makes 22 fields, keeps and reads the others exactly', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      const report = new IngestReport();
      const load = await loadCsv(
        conn,
        {
          country: 'LV',
          file: path.join(REAL, 'LV', 'quirks', 'register.csv'),
          display: 'register.csv',
          table: 'quirks',
          delimiter: ';',
          header: REGISTER_HEADER,
          // The LV adapter's column types (ingest/official/lv/stage.ts).
          columns: REGISTER_HEADER.map(
            (n) => [n, n === 'registered' || n === 'terminated' ? 'DATE' : 'VARCHAR'] as const,
          ),
          // Three rows only: one bad row is a third of this file, far above the default share.
          maxRejectShare: 0.5,
        },
        report,
      );
      expect(load).toEqual({ rowsRead: 3, rowsLoaded: 2, rowsRejected: 1 });
      const [reject] = report.rejectsOf('LV');
      expect([reject?.file, reject?.reason, reject?.rows, reject?.action]).toEqual([
        'register.csv',
        'not a valid DATE in registered',
        1,
        'row dropped',
      ]);
      expect(reject?.example).toMatch(/^register\.csv line 3\b/);
      const rows = (
        await conn.runAndReadAll(
          'SELECT regcode, name, name_in_quotes, closed, address, "index", atvk FROM quirks ORDER BY rowid',
        )
      ).getRowObjectsJson();
      expect(rows).toEqual([
        {
          regcode: '40103550818',
          name: 'SIA "Psihologs; Tava kabata"',
          name_in_quotes: 'Psihologs; Tava kabata',
          closed: null,
          address: 'Valmiera, "Centrs"',
          index: '4201',
          atvk: '0885162',
        },
        {
          regcode: '41202013815',
          name: 'IK "KRASTNIEKI A I"',
          name_in_quotes: 'KRASTNIEKI A I',
          closed: 'L',
          address: 'Dundagas nov., Kolka',
          index: '3275',
          atvk: '0885162',
        },
      ]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
