import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Test files share one generated snapshot per worker; two cores, so two forks.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // In this order: tools first, so CI fails at once when one is missing (test/tools.ts).
    globalSetup: [
      'test/tools-global-setup.ts',
      'test/build-global-setup.ts',
      'test/global-setup.ts',
      'test/pg-global-setup.ts',
    ],
  },
});
