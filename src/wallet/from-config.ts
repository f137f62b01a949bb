import type { Config } from '../config.ts';
import type { WalletOptions } from './wallet.ts';

/** Server and CLI open the same ledger with the same prices and limits from the one parsed config. */
export function walletOptions(config: Config, overrides: Partial<WalletOptions> = {}): WalletOptions {
  const w = config.wallet;
  return {
    url: w.url,
    poolSize: w.poolSize,
    prices: w.prices,
    rateLimit: { requestsPerMinute: w.ratePerMinute, burst: w.rateBurst },
    testRateLimit: { requestsPerMinute: w.testRatePerMinute, burst: w.testRateBurst },
    sweepIntervalMs: w.sweepIntervalMs,
    holdTimeoutMs: w.holdTimeoutMs,
    maxLiveKeys: w.maxLiveKeys,
    ...overrides,
  };
}
