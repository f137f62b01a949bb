/**
 * The round-trip comparison at any scale, outside vitest: the current snapshot of a world data folder
 * against the current snapshot of the folder its official files were ingested into, country by country,
 * with the round-trip tests' comparator (compare-snapshots.ts). Prints one line per country and exits 1
 * when any row or carried value differs.
 *
 *   node --import tsx test/ingest/compare-cli.ts <world data dir> <ingested data dir> [CC,CC,...]
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { compareCountry, type KeyedDiff } from './compare-snapshots.ts';

const [worldData, ingestedData, only] = process.argv.slice(2);
if (!worldData || !ingestedData) {
  process.stderr.write('usage: compare-cli.ts <world data dir> <ingested data dir> [CC,CC,...]\n');
  process.exit(2);
}
const current = (dir: string) => {
  const store = new SnapshotStore(dir);
  const id = store.currentId();
  if (!id) throw new Error(`${dir}: no current snapshot`);
  return store.snapshotDir(id);
};
const world = current(worldData);
const ingested = current(ingestedData);
const countries = (only?.split(',') ?? COUNTRY_CODES) as CountryCode[];
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await instance.connect();
const keyed = (what: string, d: KeyedDiff) =>
  `${what} ${d.worldRows}/${d.ingestedRows} rows, ${d.missing} missing, ${d.extra} extra, ` +
  `${d.columns.reduce((s, c) => s + c.different, 0)} values differ`;
let differences = 0;
for (const country of countries) {
  const r = await compareCountry(conn, country, world, ingested);
  const differing = r.columns.filter((c) => c.different > 0);
  const n =
    r.missing +
    r.extra +
    differing.length +
    r.unkeyed.unmatched +
    r.history.missing +
    r.history.extra +
    r.history.columns.filter((c) => c.different > 0).length +
    (r.workplaces
      ? r.workplaces.missing + r.workplaces.extra + r.workplaces.columns.filter((c) => c.different > 0).length
      : 0);
  differences += n;
  process.stdout.write(
    `${country}: companies ${r.worldRows}/${r.ingestedRows}, ${r.missing} missing, ${r.extra} extra, ` +
      `${r.columns.length} columns compared, ${differing.length} differ` +
      `${differing.map((c) => ` [${c.column}: ${c.different} of ${c.compared}, e.g. ${JSON.stringify(c.examples[0])}]`).join('')}; ` +
      `${keyed('history', r.history)}; unkeyed ${r.unkeyed.worldRows}/${r.unkeyed.ingestedRows}, ${r.unkeyed.unmatched} unmatched` +
      `${r.workplaces ? `; ${keyed('workplaces', r.workplaces)}` : ''}\n`,
  );
}
conn.closeSync();
instance.closeSync();
process.exit(differences === 0 ? 0 : 1);
