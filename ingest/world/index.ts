import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { publishSnapshot } from '../pipeline/publish.ts';
import { stageWorldCountry, validateWorldOptions } from './stage-country.ts';

export { stageWorldCountry, worldRowCount, MAX_SCALE } from './stage-country.ts';
export { WORLD_DATE } from './profiles/index.ts';

export interface BuildWorldOptions {
  dataDir: string;
  /** 1 = national scale (docs/world.md); 0.01 is the `npm start` demo. At most 2. */
  scale: number;
  seed: number;
  countries?: CountryCode[];
  label?: string;
  /** Make the snapshot live (default true). */
  promote?: boolean;
  log?: (msg: string) => void;
  /** Passed to the pipeline's DuckDB (its defaults: 6GB, 2 threads); PL at scale 1 fills what it gets. */
  duckdb?: { memoryLimit?: string; threads?: number };
}

/**
 * Builds a synthetic world snapshot through the shared write-audit-publish pipeline: the generator only
 * stages tables; writing, auditing and promotion are the pipeline's.
 */
export async function buildWorldSnapshot(opts: BuildWorldOptions): Promise<{ snapshotId: string }> {
  validateWorldOptions(opts.scale, opts.seed);
  const result = await publishSnapshot({
    store: new SnapshotStore(opts.dataDir),
    countries: opts.countries ?? [...COUNTRY_CODES],
    label: opts.label ?? 'world',
    promote: opts.promote ?? true,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.duckdb ? { duckdb: opts.duckdb } : {}),
    stageCountry: (conn, country, reference) =>
      stageWorldCountry(conn, country, { scale: opts.scale, seed: opts.seed, reference }),
  });
  return { snapshotId: result.snapshotId };
}
