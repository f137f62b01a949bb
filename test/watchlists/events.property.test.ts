import { publishEdited } from './publish-world.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sqlPath } from '../../ingest/pipeline/sql.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';

/*
 * Issue 31, property: for random watchlists and a random sequence of publishes, the events each publish
 * writes equal the ones a model of the register predicts. The model knows, for a handful of active EE
 * companies, whether each is in the register, for sale, and carries a marker in its name (which a saved
 * search looks for); every publish sets a random new state for each, through the real publish, and the
 * model alone says what was added, removed, changed, entered and left, for which account.
 */

const MARK = 'Qzxprop';
const SAMPLE = 6;

interface CompanyState {
  present: boolean;
  forSale: boolean;
  marked: boolean;
}

let tmp: string;
let store: SnapshotStore;
let wallet: Wallet;
let base: { companies: string; history: string };
let codes: string[];
let day = 0;
let worldDay: number;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-events-prop-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
  store = new SnapshotStore(dataDir);
  const live = store.currentId()!;
  worldDay = Date.parse(`${live.slice(0, 4)}-${live.slice(4, 6)}-${live.slice(6, 8)}T03:00:00Z`);
  base = { companies: path.join(tmp, 'companies.parquet'), history: path.join(tmp, 'history.parquet') };
  fs.copyFileSync(store.file(live, 'EE', 'companies'), base.companies);
  fs.copyFileSync(store.file(live, 'EE', 'history'), base.history);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  codes = (
    await conn.runAndReadAll(
      `SELECT registrikood FROM read_parquet(${sqlPath(base.companies)})
       WHERE NOT not_for_sale AND staatus = 'R' ORDER BY hash(registrikood) LIMIT ${SAMPLE}`,
    )
  )
    .getRowObjectsJson()
    .map((r) => String(r['registrikood']));
  conn.closeSync();
  db.closeSync();
  wallet = await openWallet({ dbPath: path.join(tmp, 'wallet.db'), sweepIntervalMs: 0 });
}, 120_000);

afterAll(async () => {
  await wallet?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Publishes EE with the sample companies in `states`, the rest of the register as the world has it. */
async function publish(states: CompanyState[], lists: Watchlists): Promise<string> {
  const edits: string[] = [];
  states.forEach((s, i) => {
    const code = codes[i]!;
    if (!s.present) edits.push(`DELETE FROM stage_companies WHERE registrikood = '${code}'`);
    if (!s.forSale)
      edits.push(`UPDATE stage_companies SET not_for_sale = true WHERE registrikood = '${code}'`);
    if (s.marked) {
      edits.push(
        `UPDATE stage_companies SET arinimi = arinimi || ' ${MARK}', search_name = search_name || ' ${MARK.toLowerCase()}'
         WHERE registrikood = '${code}'`,
      );
    }
  });
  day++;
  return publishEdited({
    store,
    base,
    label: 'prop',
    at: new Date(worldDay + day * 86_400_000),
    edits,
    watchlists: lists,
  });
}

async function eventsOf(snapshotId: string) {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const rows = (
      await conn.runAndReadAll(
        `SELECT account_id, registrikood, change, fields, watchlists FROM read_parquet(${sqlPath(
          store.file(snapshotId, 'EE', 'events'),
        )}) WHERE snapshot_id = ?`,
        [snapshotId],
      )
    ).getRowObjectsJson() as unknown as {
      account_id: string;
      registrikood: string;
      change: string | null;
      fields: string[];
      watchlists: { id: string; membership: string }[];
    }[];
    return rows
      .map((r) => ({ ...r, watchlists: [...r.watchlists].sort((a, b) => (a.id < b.id ? -1 : 1)) }))
      .sort((a, b) => `${a.account_id}${a.registrikood}`.localeCompare(`${b.account_id}${b.registrikood}`));
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

const stateArb = fc.record({ present: fc.boolean(), forSale: fc.boolean(), marked: fc.boolean() });

describe('events at publish, against a model of the register', () => {
  it('equal the model for random watchlists and publishes', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        // Per account (two): which sample companies its list holds, and whether it has the saved search.
        fc.array(fc.record({ list: fc.subarray([...Array(SAMPLE).keys()]), search: fc.boolean() }), {
          minLength: 2,
          maxLength: 2,
        }),
        fc.array(stateArb, { minLength: SAMPLE, maxLength: SAMPLE }),
        async (accounts, next) => {
          runs++;
          // Fresh watchlists each run, made before this run's publish.
          await wallet.store.run('DELETE FROM watchlist_companies');
          await wallet.store.run('DELETE FROM watchlists');
          const lists = new Watchlists(wallet.store, () => Date.now());
          const made: { accountId: string; list: string | null; search: string | null; codes: number[] }[] =
            [];
          for (const [i, a] of accounts.entries()) {
            const { accountId } = await wallet.createKey({
              email: `p${runs}-${i}@prop.test`,
              kind: 'standard',
              plan: 'payg',
            });
            const list = a.list.length
              ? (
                  await lists.create(accountId, {
                    name: 'l',
                    country: 'EE',
                    companies: a.list.map((k) => codes[k]!),
                  })
                ).id
              : null;
            const search = a.search
              ? (
                  await lists.create(accountId, {
                    name: 's',
                    country: 'EE',
                    search: { company_name: [MARK] },
                  })
                ).id
              : null;
            made.push({ accountId, list, search, codes: a.list });
          }
          const before = current;
          const id = await publish(next, lists);
          current = next;
          // The model: what a customer can buy before and after, per sample company.
          const sold = (s: CompanyState) => s.present && s.forSale;
          const expected = made.flatMap((m) =>
            codes.flatMap((code, k) => {
              const [was, is] = [before[k]!, next[k]!];
              const change =
                !sold(was) && sold(is)
                  ? 'added'
                  : sold(was) && !sold(is)
                    ? 'removed'
                    : sold(was) && sold(is) && was.marked !== is.marked
                      ? 'changed'
                      : null;
              const [inBefore, inAfter] = [sold(was) && was.marked, sold(is) && is.marked];
              const wls: { id: string; membership: string }[] = [];
              if (m.list && m.codes.includes(k) && change) wls.push({ id: m.list, membership: 'member' });
              if (m.search && (inBefore !== inAfter || (inBefore && change))) {
                wls.push({
                  id: m.search,
                  membership: inBefore === inAfter ? 'member' : inAfter ? 'entered' : 'left',
                });
              }
              if (wls.length === 0) return [];
              return [
                {
                  account_id: m.accountId,
                  registrikood: code,
                  change,
                  fields: change === 'changed' ? ['arinimi'] : [],
                  watchlists: wls.sort((a, b) => (a.id < b.id ? -1 : 1)),
                },
              ];
            }),
          );
          expect(await eventsOf(id)).toEqual(
            expected.sort((a, b) =>
              `${a.account_id}${a.registrikood}`.localeCompare(`${b.account_id}${b.registrikood}`),
            ),
          );
        },
      ),
      { numRuns: 8, seed: 31 },
    );
  }, 600_000);
});

/** The sample's state in the live snapshot: at the start, every one is in the register, for sale, unmarked. */
let current: CompanyState[] = Array.from({ length: SAMPLE }, () => ({
  present: true,
  forSale: true,
  marked: false,
}));
