import { defineConfig } from 'vitest/config';

/**
 * The wallet tests need no generated world snapshot, so they can run without the shared globalSetup:
 *   npx vitest run --config ./test/wallet/vitest.config.ts
 * They also run under the root config (REGDATA_TEST_SKIP_WORLD=1 skips the world build there).
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/wallet/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // The throwaway PostgreSQL the suite also runs against (REGDATA_TEST_PG=0: SQLite only).
    globalSetup: ['test/pg-global-setup.ts'],
  },
});
