import crypto from 'node:crypto';
import { COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import { AppError } from '../errors/app-error.ts';
import type { Clock } from './clock.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './idempotency.ts';
import { ApiKeys } from './keys.ts';
import { Ledger } from './ledger.ts';
import { WalletMetering } from './metering.ts';
import { buildPriceTable, microToCredits } from './money.ts';
import { accountKeysPart } from './parts/account-keys.ts';
import { balancesPart } from './parts/balances.ts';
import type { PartContext } from './parts/context.ts';
import { creditsPart } from './parts/credits.ts';
import { keysPart } from './parts/keys.ts';
import { startLifecycle } from './parts/lifecycle.ts';
import { ordersPart } from './parts/orders.ts';
import { plansPart } from './parts/plans.ts';
import { usagePart } from './parts/usage.ts';
import {
  DEFAULT_RATE_LIMIT,
  DEFAULT_TEST_RATE_LIMIT,
  GcraRateLimiter,
  ModeRateLimiter,
  SharedGcraRateLimiter,
  type RateLimitOptions,
} from './rate-limiter.ts';
import { parseWalletUrl, type WalletStore } from './store.ts';
import { PostgresStore } from './store-postgres.ts';
import { openSqliteStore } from './store-sqlite.ts';
import { Instances, Sweeper, sessionName } from './sweeper.ts';
import { UsageLog } from './usage.ts';
import type { Wallet, WalletOptions } from './wallet-api.ts';

export type * from './wallet-api.ts';
export { APP_KEY_NAME } from './parts/account-keys.ts';
export {
  MIN_TOPUP_CREDITS,
  REGISTRATION_CREDITS,
  REGISTRATION_VALIDITY_MS,
  TRIAL_MS,
} from './parts/credits.ts';
export { DEMO_EMAIL } from './parts/keys.ts';
export { COUNTRY_PLAN_EUR_PER_MONTH, PLAN_PERIOD_MS, UNLIMITED_EUR_PER_MONTH } from './parts/orders.ts';

export const DEFAULT_SWEEP_INTERVAL_MS = 30_000;
/** A metered call running longer than this has its hold voided by the sweeper (and is then not charged). */
export const DEFAULT_HOLD_TIMEOUT_MS = 5 * 60_000;

/** Opens the store a wallet URL names: `sqlite:<path>` (or a bare path) or `postgres://…`. */
export async function openWalletStore(
  url: string,
  opts: {
    busyTimeoutMs?: number;
    poolSize?: number;
    applicationName?: string;
    onWarning?: (message: string) => void;
  } = {},
): Promise<WalletStore> {
  const where = parseWalletUrl(url);
  if (where.kind === 'postgres')
    return PostgresStore.open(where.url, { poolSize: opts.poolSize, applicationName: opts.applicationName });
  return openSqliteStore(where.path, {
    busyTimeoutMs: opts.busyTimeoutMs,
    ...(opts.onWarning && { onCheckpointError: opts.onWarning }),
  });
}

/** Opens the store, starts this process's sweeping, and assembles the wallet from its parts (parts/). */
export async function openWallet(opts: WalletOptions): Promise<Wallet> {
  const clock: Clock = opts.now ? () => (opts.now as () => Date)().getTime() : Date.now;
  const prices = buildPriceTable(opts.prices);
  const sweepIntervalMs = opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const holdTimeoutMs = opts.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS;
  const idempotencyTtlMs = opts.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS;
  if (!(holdTimeoutMs > 0) || !(idempotencyTtlMs > 0) || !(sweepIntervalMs >= 0)) {
    throw new AppError('validation_failed', 'wallet timeouts must be positive');
  }
  const url = opts.url ?? opts.dbPath;
  if (!opts.store && url === undefined)
    throw new AppError('internal', 'openWallet needs a url, dbPath or store');
  const instanceId = `ins_${crypto.randomBytes(8).toString('hex')}`;
  const store =
    opts.store ??
    (await openWalletStore(url as string, {
      busyTimeoutMs: opts.busyTimeoutMs,
      poolSize: opts.poolSize,
      applicationName: sessionName(instanceId),
      ...(opts.onStoreWarning && { onWarning: opts.onStoreWarning }),
    }));
  // The limiter's state must be shared where the wallet is: in memory beside SQLite (one machine, and a
  // restart forgives everyone), in the database beside PostgreSQL (every replica sees every request).
  const limiter = (options: RateLimitOptions) =>
    store.dialect === 'postgres'
      ? new SharedGcraRateLimiter(store, options, clock)
      : new GcraRateLimiter(options, clock);
  const rateLimiter = new ModeRateLimiter(
    limiter({ ...DEFAULT_RATE_LIMIT, ...opts.rateLimit }),
    limiter({ ...DEFAULT_TEST_RATE_LIMIT, ...opts.testRateLimit }),
  );
  const ledger = new Ledger();
  const keys = new ApiKeys(store, clock, opts.maxLiveKeys);
  const usage = new UsageLog();
  const idempotency = new IdempotencyStore();
  const instances = new Instances(instanceId);
  const sweeper = new Sweeper(store, ledger, idempotency, usage, instances, clock, holdTimeoutMs);
  const meteringOptions = {
    instanceId,
    prices,
    holdTimeoutMs,
    idempotencyTtlMs,
    ...(opts.onStoreWarning && { onWarning: opts.onStoreWarning }),
  };
  const metering = new WalletMetering(store, clock, ledger, usage, idempotency, sweeper, meteringOptions);
  const ownStore = !opts.store;
  const lifecycle = await startLifecycle({
    store,
    ownStore,
    clock,
    ledger,
    sweeper,
    instances,
    instanceId,
    rateLimiter,
    sweepIntervalMs,
  });
  const ctx: PartContext = { store, clock, ledger, keys };
  return {
    store,
    authenticator: keys,
    rateLimiter,
    metering,
    prices: Object.fromEntries(COUNTRY_CODES.map((c) => [c, microToCredits(prices[c])])) as Record<
      CountryCode,
      number
    >,
    ...keysPart(ctx),
    ...accountKeysPart(ctx),
    ...creditsPart(ctx),
    ...plansPart(ctx),
    ...ordersPart(ctx),
    ...balancesPart(ctx),
    // A usage read sees every free call's line recorded before it (those are written after their answers).
    ...usagePart(ctx, usage, () => metering.settleFree()),
    ...lifecycle,
    close: async () => {
      await metering.settleFree();
      await lifecycle.close();
    },
  };
}
