import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says once whether the PostgreSQL variants run (TEST_POSTGRES_URL), and checks the server answers.
    globalSetup: ['test/global-setup.ts'],
    // Suites start real servers over real SQLite files; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
