import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { buildTestApp } from '../helpers/app.ts';

/*
 * Issue 28: BRREG's employee count as written. The real record of test/fixtures/real/NO (974760673, JSON
 * and the CSV form of it, SOURCES.md there) is changed in one documented way each: its employee block is
 * put in the shape BRREG writes for a unit without registered employees (`harRegistrertAntallAnsatte`
 * false beside `antallAnsatte` 0), or its count is removed (flag false, no key; in the CSV an empty
 * cell). The first is a real 0, the second unknown, and the JSON and CSV downloads agree. Issue 30: a
 * count that is not a whole number (`2.5`, `-3`) is no employee count (contract 1.3.0, INTEGER): left out
 * with its reason in the report, never rounded.
 */

const REAL = fileURLToPath(new URL('../fixtures/real/NO/', import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-real-no-emp-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const JSON_BLOCK = '"antallAnsatte":487,"harRegistrertAntallAnsatte":true';
const CSV_BLOCK = '"true","487"';

const VARIANTS = {
  zero: { json: '"antallAnsatte":0,"harRegistrertAntallAnsatte":false', csv: '"false","0"', want: 0 },
  absent: { json: '"harRegistrertAntallAnsatte":false', csv: '"false",""', want: null },
  fraction: {
    json: '"antallAnsatte":2.5,"harRegistrertAntallAnsatte":true',
    csv: '"true","2.5"',
    want: null,
  },
  negative: { json: '"antallAnsatte":-3,"harRegistrertAntallAnsatte":true', csv: '"true","-3"', want: null },
} as const;
const NOT_WHOLE = 'antallAnsatte is not a whole number (no employee count)';

/** The real file with its employee block replaced, gzipped as BRREG ships it, in a folder of its own. */
function variant(name: string, file: string, block: string, replacement: string): string {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(REAL, file))).toString('utf8');
  expect(text.split(block)).toHaveLength(2);
  const dir = path.join(tmp, `${name}-${path.basename(file)}-from`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, path.basename(file)), zlib.gzipSync(text.replace(block, replacement)));
  return dir;
}

async function employees(from: string, name: string, report = new IngestReport()): Promise<unknown> {
  const dataDir = path.join(tmp, `${name}-data`);
  await runIngest({
    store: new SnapshotStore(dataDir),
    countries: ['NO'],
    from,
    report,
    now: () => new Date('2026-11-01T06:00:00Z'),
  });
  const app = await buildTestApp(dataDir);
  try {
    const res = await app.get('/api/v1/data/companies/974760673?country=NO');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as Record<string, unknown>;
    const metrics = data['latest_metrics'] as Record<string, unknown> | null;
    // The row, the detail's latest_metrics and the history agree.
    expect(metrics?.['employees'] ?? null).toEqual(data['last_quarter_employees_number']);
    return data['last_quarter_employees_number'];
  } finally {
    await app.close();
  }
}

describe.each(Object.entries(VARIANTS))('NO real record, employee block %s', (name, v) => {
  it(`serves ${String(v.want)} from the JSON and from the CSV download alike`, async () => {
    const fromJson = variant(name, 'enheter_alle.json.gz', JSON_BLOCK, v.json);
    const fromCsv = variant(name, 'csv/enheter_alle.csv.gz', CSV_BLOCK, v.csv);
    for (const [from, form] of [
      [fromJson, 'json'],
      [fromCsv, 'csv'],
    ] as const) {
      const report = new IngestReport();
      expect(await employees(from, `${name}-${form}`, report)).toBe(v.want);
      const notWhole = report.rejects.filter((r) => r.reason === NOT_WHOLE);
      const bad = name === 'fraction' || name === 'negative';
      expect(
        notWhole.map((r) => [r.rows, r.action]),
        form,
      ).toEqual(bad ? [[1, 'value nulled']] : []);
    }
  }, 120_000);
});
