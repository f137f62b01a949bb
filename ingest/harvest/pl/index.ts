import { HarvestManifest } from '../manifest.ts';
import { daysSince, type CountryHarvester, type HarvestContext } from '../types.ts';
import { CEIDG_PREFIX, harvestCeidg } from './ceidg.ts';
import { harvestKrs } from './krs.ts';
import { harvestRegon } from './regon.ts';

/*
 * Poland's harvest: KRS first (the principal source: every company comes from an extract), then CEIDG (the
 * sole traders), then REGON BIR, whose work list is the KRS numbers and CEIDG REGONs just harvested. A
 * service without its key or token is skipped with a note; its enrichment is then missing at ingest and
 * the ingest summary names it.
 */

const SERVICES = ['krs', 'ceidg', 'regon'] as const;
type Service = (typeof SERVICES)[number];

const int = (v: unknown, name: string, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
  return n;
};

export const harvester: CountryHarvester = {
  options: {
    services: { type: 'string' },
    'krs-from': { type: 'string' },
    'krs-to': { type: 'string' },
    'krs-max-gap': { type: 'string' },
    'ceidg-query': { type: 'string' },
    'ceidg-page-size': { type: 'string' },
    'ceidg-details': { type: 'boolean', default: true },
    'no-ceidg-details': { type: 'boolean', default: false },
  },
  help: `PL options:
  --services <list>      krs,ceidg,regon (default all three, in that order)
  --krs-from <n>         first KRS number of a full sweep (default 1)
  --krs-to <n>           sweep at least to this number (default 1300000), then stop after
  --krs-max-gap <n>      this many numbers in a row without an extract (default 5000)
  --ceidg-query <q>      extra query of the CEIDG list, e.g. status=AKTYWNY
  --ceidg-page-size <n>  companies per CEIDG page (default 25)
  --no-ceidg-details     skip the per-company detail requests (no contacts, no PKD)
  REGDATA_REGON_KEY and REGDATA_CEIDG_TOKEN hold the REGON key and the CEIDG token.`,

  async run(ctx: HarvestContext): Promise<void> {
    const cfg = ctx.config.harvest;
    const chosen = String(ctx.values['services'] ?? SERVICES.join(','))
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    for (const s of chosen) {
      if (!(SERVICES as readonly string[]).includes(s)) throw new Error(`--services: unknown service ${s}`);
    }
    const manifest = new HarvestManifest(ctx.dir);
    const http = (rate: number) => ({
      ratePerSecond: rate,
      attempts: cfg.attempts,
      backoffMs: cfg.backoffMs,
    });
    const days = (service: Service): string[] | null => {
      if (!ctx.incremental) return null;
      const since = ctx.since ?? manifest.lastComplete(service)?.started_at.slice(0, 10) ?? null;
      if (!since) {
        ctx.log.info(`${service}: no complete earlier run to continue from; doing a full harvest`);
        return null;
      }
      return daysSince(since, ctx.now);
    };
    const common = { now: ctx.now, signal: ctx.signal, log: ctx.log };
    for (const service of SERVICES.filter((s) => chosen.includes(s))) {
      const start = () => ctx.log.info(`PL ${service}: harvesting into ${ctx.dir}`);
      if (service === 'krs') {
        start();
        await harvestKrs(ctx.dir, manifest, {
          ...common,
          baseUrl: cfg.pl.krs.url,
          http: http(cfg.pl.krs.rate),
          from: int(ctx.values['krs-from'], 'krs-from', 1),
          minTo: int(ctx.values['krs-to'], 'krs-to', 1_300_000),
          maxGap: int(ctx.values['krs-max-gap'], 'krs-max-gap', 5000),
          days: days('krs'),
        });
      } else if (service === 'ceidg') {
        if (!cfg.pl.ceidg.token) {
          ctx.log.info(`PL ceidg: skipped (no REGDATA_CEIDG_TOKEN); sole traders will be missing at ingest`);
          continue;
        }
        if (ctx.incremental)
          ctx.log.info(`PL ceidg: the service has no change list; paging through all of it`);
        await harvestCeidg(ctx.dir, manifest, {
          ...common,
          baseUrl: cfg.pl.ceidg.url,
          token: cfg.pl.ceidg.token,
          http: http(cfg.pl.ceidg.rate),
          query: String(ctx.values['ceidg-query'] ?? ''),
          pageSize: int(ctx.values['ceidg-page-size'], 'ceidg-page-size', 25),
          details: ctx.values['no-ceidg-details'] !== true,
        });
      } else {
        if (!cfg.pl.regon.key) {
          ctx.log.info(
            `PL regon: skipped (no REGDATA_REGON_KEY); REGON enrichments will be missing at ingest`,
          );
          continue;
        }
        start();
        await harvestRegon(ctx.dir, manifest, {
          ...common,
          url: cfg.pl.regon.url,
          key: cfg.pl.regon.key,
          http: http(cfg.pl.regon.rate),
          days: days('regon'),
        });
      }
    }
  },
};

export { CEIDG_PREFIX };
