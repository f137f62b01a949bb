import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Test files share one generated snapshot per worker; two cores, so two forks.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    globalSetup: ['test/build-global-setup.ts', 'test/global-setup.ts', 'test/pg-global-setup.ts'],
  },
});
