import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Deadlines for a hung test, not speed checks: two suites at once on two cores run an e2e
    // test three or four times slower than an idle machine, and a shared machine (several
    // suites and a mutation run: load 25 on 2 cores) ten times slower or more. One deadline for
    // every test; none sets a shorter one of its own.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Four test files at once on two cores: an end-to-end test mostly waits (fixture latency,
    // politeness delays, timeouts, child processes starting), so more files fill the idle
    // time (four files at once ran the suite faster than three on the 2-core machine).
    maxWorkers: 4,
    // Builds dist/ first when src/ is newer: the end-to-end tests run bin/collector.js over it.
    globalSetup: ['test/fixtures/build-once.ts'],
  },
});
