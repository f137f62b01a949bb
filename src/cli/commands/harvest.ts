import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { isCountryCode } from '../../contract/countries.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

export const harvestHelp = `regdata harvest <CC> --out <dir> [--incremental] [--since YYYY-MM-DD] [country options]

Fetches a register's answers from its services (PL: KRS, CEIDG, REGON BIR; SE: the public bulk files and the
SCB API) and stores them unchanged under <dir>/<CC>/, with harvest-manifest.json listing every run: what was
fetched, when, and how it ended. \`regdata ingest <CC> --from <dir>\` reads that folder.

  --out <dir>        the harvest folder (created; an earlier harvest there is continued)
  --incremental      re-fetch only what changed since the last complete run, where the service allows it
  --since <day>      with --incremental: follow the changes from this day on

A killed harvest (Ctrl-C, a lost connection after all retries) keeps its state under <dir>/<CC>/.harvest/
and the next run with the same --out continues where it stopped. Requests are paced and retried with
backoff (REGDATA_<SERVICE>_RATE requests per second, REGDATA_HARVEST_ATTEMPTS, REGDATA_HARVEST_BACKOFF_MS).

Exit codes: 0 done, 1 a service failed (the state is kept), 2 a usage or configuration error, 130 interrupted.`;

export async function harvestCommand(args: string[], config: Config): Promise<number> {
  const country = args[0]?.toUpperCase();
  if (!country || country.startsWith('-') || !isCountryCode(country)) {
    throw new UsageError(`usage: regdata harvest <CC> --out <dir>\n\n${harvestHelp}`);
  }
  const { HARVESTERS } = await import('../../../ingest/harvest/countries.ts');
  const harvester = await HARVESTERS[country]?.();
  if (!harvester)
    throw new UsageError(`${country}: no harvester (the registers publish files: use regdata ingest)`);
  const { values } = parseArgs({
    args: args.slice(1),
    options: {
      out: { type: 'string' },
      incremental: { type: 'boolean', default: false },
      since: { type: 'string' },
      ...harvester.options,
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.out) throw new UsageError('--out <dir> is required');
  const since = values.since === undefined ? null : String(values.since);
  if (since !== null && !/^\d{4}-\d{2}-\d{2}$/.test(since))
    throw new UsageError('--since must be YYYY-MM-DD');
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await harvester.run({
      dir: path.join(path.resolve(String(values.out)), country),
      config,
      values: values as Record<string, string | boolean | undefined>,
      incremental: values.incremental === true,
      since,
      now: new Date(),
      signal: controller.signal,
      log: { info: (m) => out.info(m) },
    });
    return EXIT.ok;
  } catch (err) {
    if (controller.signal.aborted) {
      out.error(`${country}: harvest interrupted; run the same command again to continue`);
      return 130;
    }
    out.error(
      `${country}: harvest failed: ${(err as Error).message} (the state is kept; run again to continue)`,
    );
    return EXIT.failed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
