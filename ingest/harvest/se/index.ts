import fs from 'node:fs';
import type { Config } from '../../../src/config.ts';
import { IngestReport, silentProgress } from '../../official/report.ts';
import type { FdbCredentials } from './fdb-client.ts';
import { runId } from '../capture.ts';
import { HarvestManifest } from '../manifest.ts';
import type { CountryHarvester, HarvestContext } from '../types.ts';
import { harvestSweden, SE_MANIFEST_FILE, type SeHarvestResult } from './harvest.ts';

export { harvestSweden, SE_MANIFEST_FILE, SE_STATE_FILE } from './harvest.ts';

/** The FDB client certificate from the configuration's files, or null when none is configured. */
export function fdbCredentials(config: Config): { baseUrl: string; credentials: FdbCredentials } | null {
  const c = config.harvest.se.scbFdb;
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

/**
 * Sweden's module for `regdata harvest <CC>`: the harvest folder `<out>/SE/` gets both bulk zips and, with
 * a certificate configured, the FDB answers; the run is listed in the folder's harvest-manifest.json too.
 */
export const harvester: CountryHarvester = {
  options: {},
  help: `SE: Bolagsverket's and SCB's public bulk zips (no auth), and with REGDATA_SCB_FDB_CERT + REGDATA_SCB_FDB_KEY
  (or REGDATA_SCB_FDB_PFX) the SCB Företagsregistret (FDB) answers: 10 requests per 10 s, 2,000 rows each.`,
  async run(ctx: HarvestContext): Promise<void> {
    const report = new IngestReport({
      ...silentProgress,
      message: (m: string) => ctx.log.info(m),
      fileFinished: (file: string, bytes: number, seconds: number) =>
        ctx.log.info(`SE: ${file}: ${bytes} bytes in ${seconds.toFixed(0)} s`),
    });
    const { attempts, backoffMs } = ctx.config.harvest;
    const fdb = fdbCredentials(ctx.config);
    const manifest = new HarvestManifest(ctx.dir);
    const entry = manifest.begin({
      service: 'se-bulk-and-fdb',
      run: runId(ctx.now),
      mode: 'full',
      started_at: ctx.now.toISOString(),
    });
    try {
      const result = await harvestSweden({
        out: ctx.dir,
        now: ctx.now,
        report,
        signal: ctx.signal,
        bulk: {
          attempts,
          backoffMs,
          urls: {
            bolagsverket: new URL('bolagsverket/bolagsverket_bulkfil.zip', ctx.config.harvest.se.bulkUrl)
              .href,
            scb: new URL('scb/scb_bulkfil.zip', ctx.config.harvest.se.bulkUrl).href,
          },
        },
        fdb: fdb && { ...fdb, attempts, backoffMs },
      });
      entry.outcome = 'complete';
      entry.files = [
        ...result.bulk.map((b) => b.file),
        ...(result.fdb.status === 'complete' ? [`scb_fdb_je_*.json (${result.fdb.pages})`] : []),
      ];
      entry.requests = result.fdb.status === 'complete' ? result.fdb.requests : 0;
      entry.detail = { fdb: result.fdb, manifest: SE_MANIFEST_FILE };
      ctx.log.info(describeSeHarvest(result));
    } catch (err) {
      entry.error = (err as Error).message;
      throw err;
    } finally {
      entry.finished_at = new Date().toISOString();
      manifest.save();
    }
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
