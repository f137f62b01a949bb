import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { COUNTRY_CODES, isCountryCode, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { buildWorldSnapshot } from './index.ts';

/**
 * Builds a world snapshot and reports what it cost: wall time, peak RSS of this process (DuckDB runs
 * in-process, so this includes it), row counts and file sizes per country. docs/world.md records a run.
 *
 *   npx tsx ingest/world/measure.ts --scale 1 --seed 1 [--data-dir DIR] [--countries EE,LV] [--memory-limit 3GB]
 *
 * For an outside view of memory as well: /usr/bin/time -v npx tsx ingest/world/measure.ts --scale 1
 */
const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    'data-dir': { type: 'string' },
    countries: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'memory-limit': { type: 'string' },
  },
});

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const scale = Number(values.scale);
const seed = Number(values.seed);
const countries = (values.countries?.split(',') ?? [...COUNTRY_CODES]).map((c) => {
  if (!isCountryCode(c)) throw new Error(`unknown country ${c}`);
  return c;
}) as CountryCode[];
const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-world-measure-'));

const started = Date.now();
const { snapshotId } = await buildWorldSnapshot({
  dataDir,
  scale,
  seed,
  countries,
  label: 'measure',
  promote: true,
  ...(values['memory-limit'] ? { duckdb: { memoryLimit: values['memory-limit'] } } : {}),
  log: (msg) => out(`${((Date.now() - started) / 1000).toFixed(1)} s  ${msg}`),
});
const seconds = (Date.now() - started) / 1000;
const peakMiB = process.resourceUsage().maxRSS / 1024;

const store = new SnapshotStore(dataDir);
out('');
out(`scale ${scale}, seed ${seed}, snapshot ${snapshotId}`);
out(`wall ${seconds.toFixed(1)} s, peak RSS ${peakMiB.toFixed(0)} MiB, ${os.cpus().length} CPUs`);
out('country | companies | for sale | history | workplaces | parquet MiB');
let totalBytes = 0;
for (const c of countries) {
  const m = JSON.parse(fs.readFileSync(store.file(snapshotId, c, 'manifest'), 'utf8')) as CountryManifest;
  const bytes = Object.entries(m.files)
    .filter(([f]) => f.endsWith('.parquet'))
    .reduce((s, [, f]) => s + f.bytes, 0);
  totalBytes += bytes;
  const r = m.row_counts;
  out(
    `${c} | ${r.companies} | ${r.companies_for_sale} | ${r.history} | ${r.workplaces} | ${(bytes / 2 ** 20).toFixed(1)}`,
  );
}
out(`total parquet ${(totalBytes / 2 ** 20).toFixed(1)} MiB`);
if (!values.keep && !values['data-dir']) fs.rmSync(dataDir, { recursive: true, force: true });
