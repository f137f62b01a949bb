import fs from 'node:fs';
import type { Config } from '../../../src/config.ts';
import { IngestReport, silentProgress } from '../../official/report.ts';
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
  signal?: AbortSignal,
): Promise<SeHarvestResult> {
  return harvestSweden({ out, now, report, fdb: fdbCredentials(config), ...(signal && { signal }) });
}

/**
 * Sweden's module for `regdata harvest <CC>` (ingest/harvest/types.ts CountryHarvester): the harvest
 * folder `<out>/SE/` gets both bulk zips and, with a certificate configured, the FDB answers.
 */
export const harvester = {
  options: {},
  help: `SE: Bolagsverket's and SCB's public bulk zips (no auth), and with REGDATA_SCB_FDB_CERT + REGDATA_SCB_FDB_KEY
  (or REGDATA_SCB_FDB_PFX) the SCB Företagsregistret (FDB) answers: 10 requests per 10 s, 2,000 rows each.`,
  async run(ctx: {
    dir: string;
    config: Config;
    now: Date;
    signal: AbortSignal;
    log: { info(msg: string): void };
  }): Promise<void> {
    const report = new IngestReport({
      ...silentProgress,
      message: (m: string) => ctx.log.info(m),
      fileFinished: (file: string, bytes: number, seconds: number) =>
        ctx.log.info(`SE: ${file}: ${bytes} bytes in ${seconds.toFixed(0)} s`),
    });
    const result = await harvestSe(ctx.config, ctx.dir, report, ctx.now, ctx.signal);
    ctx.log.info(describeSeHarvest(result));
  },
};

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
