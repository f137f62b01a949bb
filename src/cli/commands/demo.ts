import { parseArgs } from 'node:util';
import { COUNTRY_CODES, isCountryCode, type CountryCode } from '../../contract/countries.ts';
import type { Config } from '../../config.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

export const demoHelp = `regdata demo [--scale <s>] [--seed <n>] [--countries EE,LV,...] [--no-promote]

Builds a deterministic synthetic world snapshot (the same seed gives the same rows) and makes it live.
--scale 1 matches the real registers' sizes (about 11 million companies); the default is ${'0.01'}.`;

export async function demoCommand(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: 'string' },
      seed: { type: 'string' },
      countries: { type: 'string' },
      'no-promote': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const scale = values.scale === undefined ? config.demoScale : Number(values.scale);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 2)
    throw new UsageError('--scale must be a number in (0, 2]');
  const seed = values.seed === undefined ? config.demoSeed : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer');
  const countries = parseCountries(values.countries);
  const { buildWorldSnapshot } = await import('../../../ingest/world/index.ts');
  const started = Date.now();
  const { snapshotId } = await buildWorldSnapshot({
    dataDir: config.dataDir,
    scale,
    seed,
    countries,
    label: 'demo',
    promote: !values['no-promote'],
    log: (msg) => out.info(msg),
  });
  out.info(`snapshot ${snapshotId} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  out.line(snapshotId);
  return EXIT.ok;
}

export function parseCountries(value: string | undefined): CountryCode[] {
  if (value === undefined || value === 'all') return [...COUNTRY_CODES];
  const list = value.split(',').map((c) => c.trim().toUpperCase());
  const bad = list.filter((c) => !isCountryCode(c));
  if (bad.length)
    throw new UsageError(`unknown country: ${bad.join(', ')} (one of ${COUNTRY_CODES.join(', ')})`);
  return list as CountryCode[];
}
