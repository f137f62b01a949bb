import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { CHANGE_RETENTION_DAYS, writeChanges } from '../../ingest/pipeline/changes.ts';
import { publishSnapshot } from '../../ingest/pipeline/publish.ts';
import { sqlPath } from '../../ingest/pipeline/sql.ts';

/*
 * The change feed written at publish: three snapshots of EE made from the test world with edits known
 * in advance, and the feed read back with plain SQL. The expected rows come from the edits, not from the
 * code under test.
 */

type Row = Record<string, unknown>;
const DAY_MS = 86_400_000;
/** The test world's publish day: its snapshot is where the feed starts. */
let worldDay: string;
const dayAfterWorld = (n: number): string =>
  new Date(Date.parse(`${worldDay}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
let tmp: string;
let store: SnapshotStore;
let db: DuckDBInstance;
let baseCompanies: string;
let baseHistory: string;
let codes: string[];

async function rows(sql: string): Promise<Row[]> {
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
  } finally {
    conn.closeSync();
  }
}

/** Publishes EE from the base files with `edits` (SQL run on the stage table) at `day`. */
async function publishEE(day: string, edits: string[]): Promise<{ id: string; manifest: CountryManifest }> {
  const result = await publishSnapshot({
    store,
    countries: ['EE'],
    carryOver: true,
    label: 'changes',
    now: () => new Date(`${day}T03:00:00Z`),
    stageCountry: async (conn) => {
      await conn.run(
        `CREATE OR REPLACE TABLE stage_companies AS SELECT * FROM read_parquet(${sqlPath(baseCompanies)})`,
      );
      for (const sql of edits) await conn.run(sql);
      await conn.run(
        `CREATE OR REPLACE TABLE stage_history AS SELECT * FROM read_parquet(${sqlPath(baseHistory)})
         WHERE registrikood IN (SELECT registrikood FROM stage_companies)`,
      );
      return { source: 'test-edits', sourceDetail: {} };
    },
  });
  return { id: result.snapshotId, manifest: result.manifests[0]! };
}

const feed = (id: string) =>
  rows(
    `SELECT registrikood, change, fields, snapshot_id, strftime(as_of, '%Y-%m-%d') AS as_of
   FROM read_parquet(${sqlPath(store.file(id, 'EE', 'changes'))}) ORDER BY as_of, registrikood`,
  );

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-changes-'));
  fs.cpSync(inject('testDataDir'), path.join(tmp, 'data'), { recursive: true });
  store = new SnapshotStore(path.join(tmp, 'data'));
  const live = store.currentId()!;
  worldDay = (
    JSON.parse(fs.readFileSync(store.file(live, 'EE', 'manifest'), 'utf8')) as CountryManifest
  ).generated_at.slice(0, 10);
  // The base is a copy: the live snapshot's files are pruned as new snapshots are published.
  baseCompanies = path.join(tmp, 'companies.parquet');
  baseHistory = path.join(tmp, 'history.parquet');
  fs.copyFileSync(store.file(live, 'EE', 'companies'), baseCompanies);
  fs.copyFileSync(store.file(live, 'EE', 'history'), baseHistory);
  db = await DuckDBInstance.create(':memory:');
  codes = (
    await rows(
      `SELECT registrikood FROM read_parquet(${sqlPath(baseCompanies)}) WHERE NOT not_for_sale ORDER BY 1 LIMIT 6`,
    )
  ).map((r) => String(r['registrikood']));
}, 120_000);

afterAll(() => {
  db?.closeSync();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the change feed written at publish', () => {
  it('records exactly the removed and changed companies, with the fields that changed, and keeps the history', async () => {
    const [a, b, c, d, e, f] = codes as [string, string, string, string, string, string];
    const first = await publishEE(dayAfterWorld(1), [
      `DELETE FROM stage_companies WHERE registrikood IN ('${a}', '${b}')`,
      `UPDATE stage_companies SET arinimi = arinimi || ' X' WHERE registrikood = '${c}'`,
      `UPDATE stage_companies SET vat_active = NOT coalesce(vat_active, false), emtak = [] WHERE registrikood = '${d}'`,
      // Taken off sale: gone from what a customer can buy, so removed from the feed's point of view.
      `UPDATE stage_companies SET not_for_sale = true WHERE registrikood = '${e}'`,
      // An internal column alone is no change a customer can see.
      `UPDATE stage_companies SET search_name = search_name || ' y' WHERE registrikood = '${f}'`,
    ]);
    const emtakBefore = await rows(
      `SELECT len(emtak) AS n FROM read_parquet(${sqlPath(baseCompanies)}) WHERE registrikood = '${d}'`,
    );
    const fieldsOfD = ['vat_active', ...(Number(emtakBefore[0]?.['n']) > 0 ? ['emtak'] : [])];
    expect(await feed(first.id)).toEqual(
      [
        { registrikood: a, change: 'removed', fields: [] },
        { registrikood: b, change: 'removed', fields: [] },
        { registrikood: c, change: 'changed', fields: ['arinimi'] },
        { registrikood: d, change: 'changed', fields: fieldsOfD },
        { registrikood: e, change: 'removed', fields: [] },
      ]
        .map((r) => ({ ...r, snapshot_id: first.id, as_of: dayAfterWorld(1) }))
        .sort((x, y) => x.registrikood.localeCompare(y.registrikood)),
    );
    expect(first.manifest.changes).toMatchObject({ added: 0, removed: 3, changed: 2, rows: 5 });
    // The test world's own (empty) history started on its publish day.
    const worldSince = first.manifest.changes!.since;
    expect(worldSince).toBe(dayAfterWorld(0));

    // The next night the register is back as it was: the removed ones are added, the changed ones change back.
    const second = await publishEE(dayAfterWorld(2), []);
    const all = await feed(second.id);
    expect(all.filter((r) => r['snapshot_id'] === first.id)).toHaveLength(5);
    const latest = all.filter((r) => r['snapshot_id'] === second.id);
    expect(latest.map((r) => [r['registrikood'], r['change']])).toEqual(
      [
        [a, 'added'],
        [b, 'added'],
        [c, 'changed'],
        [d, 'changed'],
        [e, 'added'],
      ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );
    expect(second.manifest.changes).toMatchObject({
      added: 3,
      removed: 0,
      changed: 2,
      rows: 10,
      since: worldSince,
    });
  }, 180_000);

  it('drops history older than the retention window and says from when it covers', async () => {
    const day = dayAfterWorld(CHANGE_RETENTION_DAYS + 5);
    const later = await publishEE(day, []);
    const cutoff = dayAfterWorld(5);
    expect(later.manifest.changes!.since).toBe(cutoff);
    expect(await feed(later.id)).toEqual([]);
  }, 120_000);
});

describe('a live snapshot written under an older contract', () => {
  it('publishes against one without postcode (contract 1.1.0): each company with a postcode changed in it', async () => {
    // The world's EE companies as a 1.1.0 snapshot wrote them: without the postcode column.
    const old = path.join(tmp, 'companies-1.1.0.parquet');
    const conn = await db.connect();
    try {
      await conn.run(
        `COPY (SELECT * EXCLUDE (postcode) FROM read_parquet(${sqlPath(baseCompanies)})) TO ${sqlPath(old)} (FORMAT parquet)`,
      );
      const out = path.join(tmp, 'changes-1.1.0.parquet');
      const summary = await writeChanges(conn, {
        companies: baseCompanies,
        previous: { companies: old, changes: null, since: null },
        out,
        snapshotId: 'contract-upgrade',
        asOf: dayAfterWorld(1),
      });
      const want = Number(
        (
          await rows(
            `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlPath(baseCompanies)})
             WHERE NOT not_for_sale AND postcode IS NOT NULL`,
          )
        )[0]?.['n'],
      );
      expect(want).toBeGreaterThan(0);
      expect(summary).toMatchObject({ added: 0, removed: 0, changed: want });
      const fields = await rows(
        `SELECT DISTINCT array_to_string(fields, ',') AS f FROM read_parquet(${sqlPath(out)})`,
      );
      expect(fields).toEqual([{ f: 'postcode' }]);
    } finally {
      conn.closeSync();
    }
  });

  it('publishes against one with employee counts DOUBLE (contract 1.2.0): only a count that differs is a change', async () => {
    // The world's EE companies as a 1.2.0 snapshot wrote them, with one count one higher than now.
    const old = path.join(tmp, 'companies-1.2.0.parquet');
    const [edited] = await rows(
      `SELECT registrikood FROM read_parquet(${sqlPath(baseCompanies)})
       WHERE NOT not_for_sale AND last_quarter_employees_number IS NOT NULL ORDER BY registrikood LIMIT 1`,
    );
    const code = String(edited!['registrikood']);
    const period = 'STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, as_of DATE)';
    const metrics1_2_0 = `STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, turnover DOUBLE, employees DOUBLE,
      turnover_period ${period}, employees_period ${period})`;
    const bump = (v: string) => `CASE WHEN registrikood = '${code}' THEN ${v} + 1 ELSE ${v} END`;
    const conn = await db.connect();
    try {
      await conn.run(
        `COPY (SELECT * REPLACE (
           ${bump('last_quarter_employees_number::DOUBLE')} AS last_quarter_employees_number,
           CAST(latest_metrics AS ${metrics1_2_0}) AS latest_metrics)
         FROM read_parquet(${sqlPath(baseCompanies)})) TO ${sqlPath(old)} (FORMAT parquet)`,
      );
      const types = await rows(
        `SELECT column_type AS t FROM (DESCRIBE SELECT last_quarter_employees_number FROM read_parquet(${sqlPath(old)}))`,
      );
      expect(types).toEqual([{ t: 'DOUBLE' }]);
      const out = path.join(tmp, 'changes-1.2.0.parquet');
      const summary = await writeChanges(conn, {
        companies: baseCompanies,
        previous: { companies: old, changes: null, since: null },
        out,
        snapshotId: 'contract-1.3.0',
        asOf: dayAfterWorld(1),
      });
      expect(summary).toMatchObject({ added: 0, removed: 0, changed: 1 });
      expect(
        await rows(
          `SELECT registrikood, array_to_string(fields, ',') AS f FROM read_parquet(${sqlPath(out)})`,
        ),
      ).toEqual([{ registrikood: code, f: 'last_quarter_employees_number' }]);
    } finally {
      conn.closeSync();
    }
  });
  it('keeps a history written before contract 1.4.0 (no diff): its rows with diff null, the new ones with values', async () => {
    const conn = await db.connect();
    try {
      // A 1.3.0 history: one change row of an earlier publish, without the diff column.
      const [first] = await rows(
        `SELECT registrikood, arinimi FROM read_parquet(${sqlPath(baseCompanies)}) WHERE NOT not_for_sale
         ORDER BY registrikood LIMIT 1`,
      );
      const code = String(first!['registrikood']);
      const oldHistory = path.join(tmp, 'changes-1.3.0.parquet');
      await conn.run(
        `COPY (SELECT '${code}' AS registrikood, 'changed' AS change, ['arinimi'] AS fields,
           'contract-1.3.0' AS snapshot_id, DATE '${dayAfterWorld(1)}' AS as_of) TO ${sqlPath(oldHistory)} (FORMAT parquet)`,
      );
      // This publish renames the same company.
      const renamed = path.join(tmp, 'companies-renamed.parquet');
      await conn.run(
        `COPY (SELECT * REPLACE (CASE WHEN registrikood = '${code}' THEN arinimi || ' Uus' ELSE arinimi END AS arinimi)
         FROM read_parquet(${sqlPath(baseCompanies)})) TO ${sqlPath(renamed)} (FORMAT parquet)`,
      );
      const out = path.join(tmp, 'changes-1.4.0.parquet');
      await writeChanges(conn, {
        companies: renamed,
        previous: { companies: baseCompanies, changes: oldHistory, since: dayAfterWorld(1) },
        out,
        snapshotId: 'contract-1.4.0',
        asOf: dayAfterWorld(2),
      });
      const name = String(first!['arinimi']);
      expect(
        await rows(`SELECT snapshot_id, diff FROM read_parquet(${sqlPath(out)}) ORDER BY as_of, snapshot_id`),
      ).toEqual([
        { snapshot_id: 'contract-1.3.0', diff: null },
        {
          snapshot_id: 'contract-1.4.0',
          diff: [{ field: 'arinimi', before: JSON.stringify(name), after: JSON.stringify(`${name} Uus`) }],
        },
      ]);
    } finally {
      conn.closeSync();
    }
  });
});
