/**
 * National-scale measurement of the ingest (docs/ingest.md, "Performance at national scale").
 *
 *   npx tsx ingest/official/measure.ts prepare --scale 1 --dir /tmp/regdata-ingest-scale1
 *   npx tsx ingest/official/measure.ts run --dir /tmp/regdata-ingest-scale1
 *
 * `prepare` builds the synthetic world for the countries (`--countries`, default EE,LV,LT) into <dir>/data,
 * or takes an existing world snapshot (`--world <snapshot dir>`), and writes it as the registers' official
 * files into <dir>/official. `run` ingests those files into <dir>/data exactly as
 * `regdata ingest all --from <dir>/official` does, in this process, and prints the wall time, the peak
 * resident memory of the process (Node and DuckDB together) and the machine's load average, since other
 * work on the machine slows a run down.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { buildWorldSnapshot } from '../world/index.ts';
import { structuredProgress } from './progress.ts';
import { IngestReport } from './report.ts';
import { runIngest } from './run-ingest.ts';
import { writeOfficialFiles } from './write-official.ts';

const write = (line: string) => process.stdout.write(`${line}\n`);

const { values, positionals } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    dir: { type: 'string' },
    seed: { type: 'string', default: '1' },
    countries: { type: 'string', default: 'EE,LV,LT' },
    // prepare: write the official files from this existing world snapshot instead of building one.
    world: { type: 'string' },
  },
  allowPositionals: true,
});
const COUNTRIES = values.countries.split(',').map((c) => {
  const code = c.trim().toUpperCase();
  if (!(COUNTRY_CODES as readonly string[]).includes(code)) throw new Error(`unknown country ${c}`);
  return code as CountryCode;
});
const dir = path.resolve(values.dir ?? path.join(os.tmpdir(), 'regdata-ingest-scale1'));
const dataDir = path.join(dir, 'data');
const official = path.join(dir, 'official');
const started = performance.now();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

if (positionals[0] === 'prepare') {
  fs.rmSync(dir, { recursive: true, force: true });
  const worldDir = values.world
    ? path.resolve(values.world)
    : new SnapshotStore(dataDir).snapshotDir(
        (
          await buildWorldSnapshot({
            dataDir,
            scale: Number(values.scale),
            seed: Number(values.seed),
            countries: [...COUNTRIES],
            label: 'world',
            log: write,
          })
        ).snapshotId,
      );
  await writeOfficialFiles({
    snapshotDir: worldDir,
    countries: COUNTRIES,
    outDir: official,
    log: write,
  });
  write(`prepared in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} else if (positionals[0] === 'run') {
  write(`load average before: ${load()}`);
  const report = new IngestReport(structuredProgress(write));
  const result = await runIngest({
    store: new SnapshotStore(dataDir),
    countries: COUNTRIES,
    from: official,
    report,
  });
  const seconds = (performance.now() - started) / 1000;
  for (const row of report.summaryRows()) write(JSON.stringify(row));
  write(
    JSON.stringify({
      snapshot: result.snapshotId,
      seconds: Number(seconds.toFixed(1)),
      // maxRSS is in KiB: the peak resident set of this process, DuckDB's native memory included.
      peak_rss_gib: Number((process.resourceUsage().maxRSS / 1048576).toFixed(2)),
      load_average_after: load(),
      cpus: os.cpus().length,
    }),
  );
} else {
  write('usage: measure.ts prepare|run [--scale 1] [--dir <dir>]');
  process.exitCode = 2;
}
