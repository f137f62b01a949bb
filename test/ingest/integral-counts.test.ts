import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { fixtureIngest } from './helpers/fixture-ingest.ts';

/*
 * Issue 30 item 5: employee counts are INTEGER in the contract (1.3.0). A register's count that is not a
 * whole number (fractional or negative) is left out and counted under its reason, never rounded (DuckDB's
 * casts would round 4.5 to 4 and '15,5' to 16). Each case is the hand-made fixture folder of
 * test/fixtures/official/ with one count changed, so every other value is what fixtures.test.ts expects.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/official/', import.meta.url));
const { scratch, ingest, rows } = fixtureIngest('integral');

/** The country's fixture folder with `find` replaced by `replace` once in `file`. */
function edited(country: CountryCode, file: string, find: string, replace: string): string {
  const dir = scratch('from');
  fs.cpSync(path.join(FIXTURES, country), dir, { recursive: true });
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  expect(text.split(find), `${file} holds "${find}" once`).toHaveLength(2);
  fs.writeFileSync(path.join(dir, file), text.replace(find, replace));
  return dir;
}

async function historyOf(dir: string, code: string) {
  const file = path.join(dir, 'history.parquet');
  const type = await rows(`SELECT column_type FROM (DESCRIBE SELECT employees FROM read_parquet('${file}'))`);
  expect(type).toEqual([{ column_type: 'INTEGER' }]);
  return rows(
    `SELECT period, turnover, employees FROM read_parquet('${file}') WHERE registrikood = '${code}'
     ORDER BY "year", quarter, "month", granularity`,
  );
}

const CASES = [
  {
    country: 'EE',
    file: 'tasutud_maksud_kaesolev_aasta_eng.csv',
    // 10000001's 2025 row: turnover 10000-13000, employees 4, 4, 5, 5 by quarter.
    find: '13000,4,4,5,5',
    replace: '13000,4.5,4,5,5',
    code: '10000001',
    reason: 'Number of employees is not a whole number (left empty)',
    example: '4.5',
    // The quarter stays with its other figures.
    want: { period: '2025-Q1', turnover: 10000, employees: null },
    kept: { period: '2025-Q2', turnover: 11000, employees: 4 },
  },
  {
    country: 'LV',
    file: 'financial_statements.csv',
    find: '2024-12-31;5;ONES',
    replace: '2024-12-31;5.5;ONES',
    code: '40003000001',
    reason: 'employees is not a whole number (left empty)',
    example: '5.5',
    want: { period: '2024', employees: null },
    kept: { period: '2025', employees: 7 },
  },
  {
    country: 'LT',
    file: 'monthly-2025.csv',
    // Sodra writes decimal commas: 15,5 is 15.5.
    find: '202512;2610,20;15;',
    replace: '202512;2610,20;15,5;',
    code: '110003978',
    reason: 'numInsured is not a whole number (month left out)',
    example: '15.5',
    // A month with no count left has no period.
    want: null,
    kept: { period: '2025-11', employees: 14 },
  },
] as const;

describe.each(CASES)('$country: an employee count that is not a whole number', (c) => {
  it(`is left out with "${c.reason}"`, async () => {
    const { dir, report } = await ingest(c.country, edited(c.country, c.file, c.find, c.replace));
    const periods = await historyOf(dir, c.code);
    if (c.want) expect(periods).toContainEqual(expect.objectContaining(c.want));
    else expect(periods.map((p) => p['period'])).not.toContain('2025-12');
    expect(periods).toContainEqual(expect.objectContaining(c.kept));
    expect(
      report
        .rejectsOf(c.country)
        .filter((r) => r.reason.includes('whole number'))
        .map((r) => [r.file, r.reason, r.rows, r.action, r.example]),
    ).toEqual([[c.file, c.reason, 1, 'value nulled', c.example]]);
  }, 120_000);
});
