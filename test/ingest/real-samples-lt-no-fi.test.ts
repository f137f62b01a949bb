import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

/*
 * The real-sample corpus (test/fixtures/real/<CC>, provenance in SOURCES.md there): rows the registers
 * published, copied from public material. Each country is ingested from its principal file alone and
 * again with every file the corpus has (and in the other real containers: NO's CSV download, FI's ZIP64),
 * then every company is read back through the HTTP API and compared field by field with expected.json,
 * which was written by hand from the source rows and the classifiers.
 */

const REAL = fileURLToPath(new URL('../fixtures/real/', import.meta.url));

interface Expected {
  now: string;
  /** Run name → the corpus files (paths under the country folder) the run's source folder holds. */
  runs: Record<string, string[]>;
  companies: Record<string, Record<string, unknown>>;
  /** Run name → the rejects the run must count (file: reason (rows)), nothing else. */
  rejects: Record<string, string[]>;
  /** Run name → the keys of the enrichments the run lacks, which its summary must name. */
  missing: Record<string, string[]>;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-real-lt-no-fi-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function expected(country: CountryCode): Expected {
  return JSON.parse(fs.readFileSync(path.join(REAL, country, 'expected.json'), 'utf8')) as Expected;
}

describe.each(['LT', 'NO', 'FI'] as const)('%s real samples', (country) => {
  const exp = expected(country);
  describe.each(Object.keys(exp.runs))('run "%s"', (run) => {
    let app: TestApp;
    let report: IngestReport;
    beforeAll(async () => {
      const from = path.join(tmp, `${country}-${run}-from`);
      fs.mkdirSync(from, { recursive: true });
      for (const file of exp.runs[run]!) {
        fs.copyFileSync(path.join(REAL, country, file), path.join(from, path.basename(file)));
      }
      const dataDir = path.join(tmp, `${country}-${run}-data`);
      report = new IngestReport();
      await runIngest({
        store: new SnapshotStore(dataDir),
        countries: [country],
        from,
        report,
        now: () => new Date(exp.now),
      });
      app = await buildTestApp(dataDir);
    }, 120_000);
    afterAll(async () => app?.close());

    it('serves exactly the expected companies', async () => {
      const res = await app.get(`/api/v1/data/companies?country=${country}&page_size=500`);
      expect(res.statusCode, res.body).toBe(200);
      const codes = (res.json().data.items as { registrikood: string }[]).map((r) => r.registrikood).sort();
      expect(codes).toEqual(Object.keys(exp.companies).sort());
    });

    it('reads every company back field by field', async () => {
      for (const [code, fields] of Object.entries(exp.companies)) {
        const res = await app.get(`/api/v1/data/companies/${code}?country=${country}`);
        expect(res.statusCode, res.body).toBe(200);
        const data = res.json().data as Record<string, unknown>;
        for (const [field, value] of Object.entries(fields)) {
          expect(data[field], `${country} ${code} ${field}`).toEqual(value);
        }
      }
    });

    it('names every missing enrichment with what it would add', () => {
      const missing = report.missing.filter((m) => m.country === country);
      expect(missing.map((m) => m.key).sort()).toEqual([...(exp.missing[run] ?? [])].sort());
      expect(missing.every((m) => m.adds.length > 0)).toBe(true);
    });

    it('counts exactly the expected rejects', () => {
      const rejects = report
        .rejectRows()
        .filter((r) => r['country'] === country)
        .map((r) => `${String(r['file'])}: ${String(r['reason'])} (${String(r['rows'])})`);
      expect(rejects.sort()).toEqual([...(exp.rejects[run] ?? [])].sort());
    });
  });
});
