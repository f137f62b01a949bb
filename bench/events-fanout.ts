import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeEvents } from '../ingest/pipeline/events.ts';
import { CHANGE_COLUMNS, columnList } from '../src/contract/data-contract.ts';
import type { CountryCode } from '../src/contract/countries.ts';
import type { PublishWatchlist } from '../src/watchlists/watchlists.ts';

/*
 * Issue 31's fan-out figure: the time to compute the events of one publish for W watchlists of S companies
 * each, on a country folder of a scale-1 world. The publish's changes are made here (a share of the
 * companies for sale renamed, in changes.parquet of a scratch folder), the watchlists are drawn with a
 * seeded generator from the country's companies, and writeEvents runs as the publish runs it.
 *
 *   node --import tsx bench/events-fanout.ts <country folder> [watchlists=10000] [size=100] [changedPct=5]
 */
const [dir, w = '10000', s = '100', pct = '5'] = process.argv.slice(2);
if (!dir) throw new Error('usage: events-fanout.ts <country folder> [watchlists] [size] [changedPct]');
const country = path.basename(dir) as CountryCode;
const W = Number(w);
const S = Number(s);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-fanout-'));
const snapshotId = '20261201T030000Z-fanout';
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const companies = `read_parquet('${path.join(dir, 'companies.parquet')}')`;
await conn.run(
  `COPY (SELECT ${columnList(CHANGE_COLUMNS)} FROM (
     SELECT registrikood, 'changed' AS change, ['arinimi'] AS fields, '${snapshotId}' AS snapshot_id,
       DATE '2026-12-01' AS as_of,
       [{'field': 'arinimi', 'before': to_json(arinimi)::VARCHAR, 'after': to_json(arinimi || ' AS')::VARCHAR}] AS diff
     FROM ${companies} WHERE NOT not_for_sale AND hash(registrikood) % 100 < ${Number(pct)}))
   TO '${path.join(scratch, 'changes.parquet')}' (FORMAT parquet)`,
);
const codes = (await conn.runAndReadAll(`SELECT registrikood FROM ${companies} WHERE NOT not_for_sale`))
  .getRowObjectsJson()
  .map((r) => String(r['registrikood']));
const changed = Number(
  (
    await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(scratch, 'changes.parquet')}')`,
    )
  ).getRowObjectsJson()[0]!['n'],
);
conn.closeSync();
db.closeSync();

// A seeded generator (mulberry32), so every run draws the same watchlists.
let seed = 31;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const watchlists: PublishWatchlist[] = Array.from({ length: W }, (_, i) => ({
  id: `wl_${String(i).padStart(16, '0')}`,
  // Five watchlists per account: one event per account and company joins them.
  accountId: `acc_${Math.floor(i / 5)}`,
  country,
  kind: 'companies',
  search: null,
}));
async function* members() {
  for (let i = 0; i < W; i += 500) {
    const page: { watchlistId: string; registrikood: string }[] = [];
    for (let j = i; j < Math.min(W, i + 500); j++) {
      for (let k = 0; k < S; k++)
        page.push({ watchlistId: watchlists[j]!.id, registrikood: codes[Math.floor(rnd() * codes.length)]! });
    }
    yield page;
  }
}
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const started = performance.now();
const summary = await writeEvents({
  country,
  snapshotId,
  asOf: '2026-12-01',
  dir: scratch,
  previousDir: null,
  watchlists,
  members: members(),
  views: null,
});
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
console.log(
  JSON.stringify({
    country,
    companiesForSale: codes.length,
    changedInPublish: changed,
    watchlists: W,
    perWatchlist: S,
    memberships: W * S,
    events: summary.events,
    seconds: Number(seconds.toFixed(2)),
    rssPeakMiB: Math.round(peak / 2 ** 20),
    eventsFileBytes: fs.statSync(path.join(scratch, 'events.parquet')).size,
  }),
);
fs.rmSync(scratch, { recursive: true, force: true });
