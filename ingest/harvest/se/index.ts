import fs from 'node:fs';
import type { Config } from '../../../src/config.ts';
import type { IngestReport } from '../../official/report.ts';
import type { FdbCredentials } from './fdb-client.ts';
import { harvestSweden, type SeHarvestResult } from './harvest.ts';

export { harvestSweden, SE_MANIFEST_FILE, SE_STATE_FILE } from './harvest.ts';

/** The FDB client certificate from the configuration's files, or null when none is configured. */
export function fdbCredentials(config: Config): { baseUrl: string; credentials: FdbCredentials } | null {
  const c = config.harvest.scbFdb;
  if (!c) return null;
  return {
    baseUrl: c.baseUrl,
    credentials: {
      ...(c.certFile && { cert: fs.readFileSync(c.certFile) }),
      ...(c.keyFile && { key: fs.readFileSync(c.keyFile) }),
      ...(c.pfxFile && { pfx: fs.readFileSync(c.pfxFile) }),
      ...(c.passphrase && { passphrase: c.passphrase }),
    },
  };
}

/** `regdata harvest SE --out <dir>`: what the CLI command calls for Sweden. */
export function harvestSe(
  config: Config,
  out: string,
  report: IngestReport,
  now = new Date(),
): Promise<SeHarvestResult> {
  return harvestSweden({ out, now, report, fdb: fdbCredentials(config) });
}

/** One line for the harvest summary. */
export function describeSeHarvest(r: SeHarvestResult): string {
  const bulk = r.bulk.map((b) => `${b.file} ${b.bytes} bytes`).join(', ');
  const fdb =
    r.fdb.status === 'skipped'
      ? `FDB skipped (${r.fdb.why})`
      : `FDB ${r.fdb.pages} answers, ${r.fdb.rows} units, ${r.fdb.requests} requests` +
        (r.fdb.refused.length ? `, ${r.fdb.refused.length} prefixes refused` : '');
  return `SE: ${bulk}; ${fdb}`;
}
