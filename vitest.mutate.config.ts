/**
 * The unit tests StrykerJS runs against each mutant (`npm run mutate`, stryker.config.mjs): only
 * those of the policy modules it mutates, no end-to-end test (those run the built bundle, which a
 * mutant of `src/` never reaches, and would take hours over every mutant).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/http/retry-policy.test.ts',
      'test/http/robots.test.ts',
      'test/http/charset.test.ts',
      'test/http/decompress.test.ts',
      'test/frontier/frontier.test.ts',
      'test/frontier/host-heap.test.ts',
      'test/url/scope.test.ts',
      'test/url/shape-budget.test.ts', // scope's trap-shape verdict and freezeShape
      'test/url/canonicalize.test.ts',
      'test/http/readiness.test.ts', // the render readiness rule (not renderer.test.ts: Chromium)
      'test/extract/app-shell.test.ts',
      'test/engine/page-render.test.ts',
      'test/extract/simhash.test.ts',
      'test/dedup/near-duplicate-index.test.ts',
    ],
    // the initial (dry) run records per-test coverage, several times slower, on a shared machine
    testTimeout: 120_000,
    pool: 'forks',
  },
});
