import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMPANY_COLUMNS,
  countSql,
  HISTORY_COLUMNS,
  notCountSql,
  PERIOD_TYPE,
  contractColumnsSql,
} from '../../src/contract/data-contract.ts';

/*
 * Contract 1.3.0 (issue 30 item 5): a count is a whole number from 0 to the INTEGER maximum, never a
 * rounded fraction, and a file of an older contract reads as the current one. Checked in a real DuckDB
 * against values written out by hand.
 */

let db: DuckDBInstance;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
});
afterAll(() => db.closeSync());

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
  }
}

describe('countSql', () => {
  it('keeps whole numbers from 0 to 2^31-1 and leaves out every other value', async () => {
    const values = ['3', '0', '2147483647', '2.5', '4.5', '-1', 'NaN', 'inf', '2147483648', null];
    const list = values.map((v, i) => `(${i}, ${v === null ? 'NULL' : `'${v}'`}::DOUBLE)`).join(', ');
    const got = await rows(
      `SELECT ${countSql('v')} AS n, ${notCountSql('v')} AS out, typeof(${countSql('v')}) AS t
       FROM (VALUES ${list}) t(i, v) ORDER BY i`,
    );
    expect(got.map((r) => r['n'])).toEqual([3, 0, 2147483647, null, null, null, null, null, null, null]);
    expect(got.map((r) => r['out'])).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(new Set(got.map((r) => r['t']))).toEqual(new Set(['INTEGER']));
  });
});

describe('contractColumnsSql', () => {
  const metrics1_2_0 =
    `STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, turnover DOUBLE, employees DOUBLE, ` +
    `turnover_period ${PERIOD_TYPE}, employees_period ${PERIOD_TYPE})`;

  it('reads employee counts of contract 1.2.0 (DOUBLE) as INTEGER, a fraction as null, other fields as they are', async () => {
    const conn = await db.connect();
    try {
      await conn.run(`CREATE OR REPLACE TABLE old_companies AS
        SELECT * FROM (VALUES
          ('1', 7.0::DOUBLE, {"year": 2025, quarter: 3, "month": 0, turnover: 1.5, employees: 7.0,
            turnover_period: NULL, employees_period: {"year": 2025, quarter: 3, "month": 0, as_of: DATE '2025-09-30'}}::${metrics1_2_0}),
          ('2', 2.5::DOUBLE, {"year": 2025, quarter: 0, "month": 0, turnover: NULL, employees: 2.5,
            turnover_period: NULL, employees_period: NULL}::${metrics1_2_0}),
          ('3', NULL::DOUBLE, NULL::${metrics1_2_0})
        ) t(registrikood, last_quarter_employees_number, latest_metrics)`);
    } finally {
      conn.closeSync();
    }
    const present = new Map([
      ['registrikood', 'VARCHAR'],
      ['last_quarter_employees_number', 'DOUBLE'],
      ['latest_metrics', metrics1_2_0],
    ]);
    const columns = COMPANY_COLUMNS.filter((c) => present.has(c.name) || c.name === 'postcode');
    const got = await rows(
      `SELECT registrikood, last_quarter_employees_number AS n, typeof(last_quarter_employees_number) AS t,
         latest_metrics.employees AS m, latest_metrics.turnover AS turnover,
         strftime(latest_metrics.employees_period.as_of, '%Y-%m-%d') AS as_of, postcode
       FROM (SELECT ${contractColumnsSql(columns, present)} FROM old_companies) ORDER BY registrikood`,
    );
    expect(got).toEqual([
      { registrikood: '1', n: 7, t: 'INTEGER', m: 7, turnover: 1.5, as_of: '2025-09-30', postcode: null },
      { registrikood: '2', n: null, t: 'INTEGER', m: null, turnover: null, as_of: null, postcode: null },
      { registrikood: '3', n: null, t: 'INTEGER', m: null, turnover: null, as_of: null, postcode: null },
    ]);
  });

  it('selects a column of the current type as it is, and refuses a type change it has no conversion for', () => {
    const employees = HISTORY_COLUMNS.filter((c) => c.name === 'employees');
    expect(contractColumnsSql(employees, new Map([['employees', 'INTEGER']]))).toBe('"employees"');
    const turnover = HISTORY_COLUMNS.filter((c) => c.name === 'turnover');
    expect(() => contractColumnsSql(turnover, new Map([['turnover', 'VARCHAR']]))).toThrow(
      'turnover is VARCHAR in the file and DOUBLE in the contract',
    );
  });
});
