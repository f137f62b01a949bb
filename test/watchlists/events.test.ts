import { copyBase, copyWorld, publishEdited } from './publish-world.ts';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import type { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';

/*
 * Issue 31: the events a publish computes for watchlists, through the real publish on the test world, a
 * real SQLite wallet holding the watchlists, and the real engine evaluating a saved search on both
 * snapshots. The expected events are written from the edits each publish makes, never read from the
 * code under test.
 */

const DAY_MS = 86_400_000;
const MARK = 'Qzxwatch';

interface EventRow {
  id: string;
  account_id: string;
  registrikood: string;
  change: string | null;
  fields: string[];
  diff: { field: string; before: string | null; after: string | null }[];
  watchlists: { id: string; membership: string }[];
  snapshot_id: string;
  as_of: string;
}

let tmp: string;
let store: SnapshotStore;
let wallet: Wallet;
let lists: Watchlists;
let worldDay: string;
const day = (n: number) =>
  new Date(Date.parse(`${worldDay}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

function publishEE(base: { companies: string; history: string }, at: string, edits: string[]) {
  return publishEdited({
    store,
    base,
    label: 'watch',
    at: new Date(`${at}T03:00:00Z`),
    edits,
    watchlists: lists,
  });
}

async function readEvents(snapshotId: string): Promise<EventRow[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const rows = (
      await conn.runAndReadAll(
        `SELECT * FROM read_parquet(${sqlPath(store.file(snapshotId, 'EE', 'events'))}) ORDER BY snapshot_id, account_id, registrikood`,
      )
    ).getRowObjectsJson();
    return rows as unknown as EventRow[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

let codes: string[];
let name: string;
let first: string;
let second: string;
let accountA: string;
let accountB: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  let live: string;
  ({ tmp, store, live, worldDay } = copyWorld(inject('testDataDir'), 'events'));
  const base = copyBase(store, live, tmp);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const rows = (
    await conn.runAndReadAll(
      `SELECT registrikood, arinimi FROM read_parquet(${sqlPath(base.companies)})
       WHERE NOT not_for_sale AND staatus = 'R' ORDER BY 1 LIMIT 5`,
    )
  ).getRowObjectsJson();
  const marked = (
    await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlPath(base.companies)}) WHERE arinimi ILIKE '%${MARK}%'`,
    )
  ).getRowObjectsJson();
  conn.closeSync();
  db.closeSync();
  expect(marked[0]!['n']).toBe(0);
  codes = rows.map((r) => String(r['registrikood']));
  name = String(rows[2]!['arinimi']);
  const [a, b, c, d, e] = codes as [string, string, string, string, string];

  wallet = await openWallet({ dbPath: path.join(tmp, 'wallet.db'), sweepIntervalMs: 0 });
  lists = new Watchlists(wallet.store, () => Date.now());
  accountA = (await wallet.createKey({ email: 'a@test.local', kind: 'standard', plan: 'payg' })).accountId;
  accountB = (await wallet.createKey({ email: 'b@test.local', kind: 'standard', plan: 'payg' })).accountId;
  ids['aList'] = (
    await lists.create(accountA, { name: 'suppliers', country: 'EE', companies: [a, c, e] })
  ).id;
  ids['aSearch'] = (
    await lists.create(accountA, { name: 'marked', country: 'EE', search: { company_name: [MARK] } })
  ).id;
  ids['bOne'] = (await lists.create(accountB, { name: 'one', country: 'EE', companies: [c] })).id;
  ids['bTwo'] = (await lists.create(accountB, { name: 'two', country: 'EE', companies: [c, d] })).id;
  // Another country's list sees nothing of an EE publish.
  await lists.create(accountB, { name: 'lv', country: 'LV', companies: ['40003000000'] });

  // Day 1: a and b deleted, c renamed into the saved search, d taken off sale.
  first = await publishEE(base, day(1), [
    `DELETE FROM stage_companies WHERE registrikood IN ('${a}', '${b}')`,
    // search_name is the stage's folded arinimi (ingest/official/stage-sql.ts), so it follows the name.
    `UPDATE stage_companies SET arinimi = arinimi || ' ${MARK}', search_name = search_name || ' ${MARK.toLowerCase()}'
     WHERE registrikood = '${c}'`,
    `UPDATE stage_companies SET not_for_sale = true WHERE registrikood = '${d}'`,
  ]);
  // Day 2: as the register was, less e: a, b, d back, c renamed back out of the search, e gone.
  second = await publishEE(base, day(2), [`DELETE FROM stage_companies WHERE registrikood = '${e}'`]);
}, 300_000);

afterAll(async () => {
  await wallet?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The expected event, from the edits: id and diff checked separately. */
function expected(
  snapshot: string,
  asOf: string,
  account: string,
  registrikood: string,
  change: string | null,
  watchlists: [string, string][],
  fields: string[] = [],
) {
  return {
    account_id: account,
    registrikood,
    change,
    fields,
    watchlists: watchlists
      .map(([id, membership]) => ({ id: ids[id]!, membership }))
      .sort((x, y) => (x.id < y.id ? -1 : 1)),
    snapshot_id: snapshot,
    as_of: asOf,
  };
}

const strip = (rows: EventRow[]) => rows.map(({ id: _id, diff: _diff, ...rest }) => rest);
const order = <T extends { account_id: string; registrikood: string }>(rows: T[]) =>
  [...rows].sort((x, y) =>
    x.account_id === y.account_id
      ? x.registrikood.localeCompare(y.registrikood)
      : x.account_id.localeCompare(y.account_id),
  );

describe('events at publish', () => {
  it('makes one event per account and company, listing every watchlist it is in', async () => {
    const [a, , c, d, e] = codes as [string, string, string, string, string];
    const day1 = (await readEvents(first)).filter((r) => r.snapshot_id === first);
    expect(strip(day1)).toEqual(
      order([
        expected(first, day(1), accountA, a, 'removed', [['aList', 'member']]),
        expected(
          first,
          day(1),
          accountA,
          c,
          'changed',
          [
            ['aList', 'member'],
            ['aSearch', 'entered'],
          ],
          ['arinimi'],
        ),
        expected(
          first,
          day(1),
          accountB,
          c,
          'changed',
          [
            ['bOne', 'member'],
            ['bTwo', 'member'],
          ],
          ['arinimi'],
        ),
        expected(first, day(1), accountB, d, 'removed', [['bTwo', 'member']]),
      ]),
    );
    const all = await readEvents(second);
    const day2 = all.filter((r) => r.snapshot_id === second);
    expect(strip(day2)).toEqual(
      order([
        expected(second, day(2), accountA, a, 'added', [['aList', 'member']]),
        expected(
          second,
          day(2),
          accountA,
          c,
          'changed',
          [
            ['aList', 'member'],
            ['aSearch', 'left'],
          ],
          ['arinimi'],
        ),
        expected(second, day(2), accountA, e, 'removed', [['aList', 'member']]),
        expected(
          second,
          day(2),
          accountB,
          c,
          'changed',
          [
            ['bOne', 'member'],
            ['bTwo', 'member'],
          ],
          ['arinimi'],
        ),
        expected(second, day(2), accountB, d, 'added', [['bTwo', 'member']]),
      ]),
    );
    // The second snapshot keeps the first one's events too.
    expect(all.filter((r) => r.snapshot_id === first)).toEqual(
      (await readEvents(first)).filter((r) => r.snapshot_id === first),
    );
  });

  it('carries the before and after values of /changes', async () => {
    const c = codes[2]!;
    const events = (await readEvents(second)).filter((r) => r.registrikood === c);
    const at = (snapshot: string) => events.filter((r) => r.snapshot_id === snapshot).map((r) => r.diff);
    const renamed = [
      { field: 'arinimi', before: JSON.stringify(name), after: JSON.stringify(`${name} ${MARK}`) },
    ];
    const back = [
      { field: 'arinimi', before: JSON.stringify(`${name} ${MARK}`), after: JSON.stringify(name) },
    ];
    expect(at(first)).toEqual([renamed, renamed]);
    expect(at(second)).toEqual([back, back]);
    const removed = (await readEvents(second)).filter((r) => r.change !== 'changed');
    for (const r of removed) expect(r.diff).toEqual([]);
  });

  it('gives stable, distinct ids ordered by snapshot', async () => {
    const all = await readEvents(second);
    const idList = all.map((r) => r.id);
    expect(new Set(idList).size).toBe(idList.length);
    for (const r of all) expect(r.id.startsWith(`${r.snapshot_id}.EE.`)).toBe(true);
    expect([...idList].sort()).toEqual(
      [...all]
        .sort((x, y) =>
          x.snapshot_id === y.snapshot_id ? (x.id < y.id ? -1 : 1) : x.snapshot_id < y.snapshot_id ? -1 : 1,
        )
        .map((r) => r.id),
    );
  });
});
