import { parentPort, workerData } from 'node:worker_threads';
import type { CountryCode } from '../contract/countries.ts';
import { buildServingDatabase, type BuildServingOptions } from './serving-build.ts';

/** One country's serving build in a worker thread of serving-build-pool.ts; its log lines go to the parent. */
export interface ServingThreadData {
  dir: string;
  country: CountryCode;
  opts: Omit<BuildServingOptions, 'log'>;
}

const { dir, country, opts } = workerData as ServingThreadData;
await buildServingDatabase(dir, country, {
  ...opts,
  log: (line) => parentPort?.postMessage({ log: line }),
});
