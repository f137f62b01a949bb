import path from 'node:path';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { buildWorldSnapshot } from '../world/index.ts';
import { ADAPTERS } from './adapters.ts';
import { IngestReport } from './report.ts';
import { runIngest } from './run-ingest.ts';
import { writeOfficialFiles } from './write-official.ts';

export interface DemoThroughIngestOptions {
  dataDir: string;
  scale: number;
  seed: number;
  countries?: readonly CountryCode[];
  report?: IngestReport;
  log?: (msg: string) => void;
}

/**
 * The demo path that exercises the real ingest on every fresh start: the synthetic world is built and made
 * live, the countries with an adapter are written out as the registers' official files, and those files
 * are ingested into a new snapshot (the other countries carried over from the world). What the API then
 * serves for EE, LV and LT went through exactly the code the nightly run uses on real files.
 */
export async function buildDemoThroughIngest(
  opts: DemoThroughIngestOptions,
): Promise<{ snapshotId: string }> {
  const countries = opts.countries ?? [...COUNTRY_CODES];
  const world = await buildWorldSnapshot({
    dataDir: opts.dataDir,
    scale: opts.scale,
    seed: opts.seed,
    countries: [...countries],
    label: 'demo-world',
    promote: true,
    ...(opts.log ? { log: opts.log } : {}),
  });
  const store = new SnapshotStore(opts.dataDir);
  const official = countries.filter((c) => ADAPTERS[c] !== undefined);
  if (official.length === 0) return world;
  const outDir = path.join(opts.dataDir, 'official-demo');
  await writeOfficialFiles({
    snapshotDir: store.snapshotDir(world.snapshotId),
    countries: official,
    outDir,
    ...(opts.log ? { log: opts.log } : {}),
  });
  const result = await runIngest({
    store,
    countries: official,
    from: outDir,
    label: 'demo',
    report: opts.report ?? new IngestReport(),
  });
  return { snapshotId: result.snapshotId };
}
