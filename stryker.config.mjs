/**
 * Mutation testing of the policy modules (`npm run mutate`): StrykerJS changes one thing at a
 * time in each module (a `<` into `<=`, a constant, a removed call) and runs the unit tests that
 * cover it; a mutant no test notices ("survived") is a behaviour no test pins down. Reports go to
 * `reports/mutation/` (ignored by git); reviewed survivors are listed in `test/MUTANTS.md`.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  mutate: [
    'src/http/retry-policy.ts',
    'src/http/robots.ts',
    'src/frontier/frontier.ts',
    'src/frontier/host-heap.ts',
    'src/url/scope.ts',
    'src/url/canonicalize.ts',
    'src/http/charset.ts',
    'src/http/decompress.ts',
    'src/http/readiness.ts',
    'src/extract/app-shell.ts',
    'src/engine/page-render.ts',
    'src/extract/simhash.ts',
    'src/dedup/near-duplicate-index.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // A mutant that loops (a loop bound changed) is "timed out", which counts as detected. The unit
  // tests here take milliseconds, so 2 s over their measured time is a wide margin even when
  // another suite shares the two cores, and keeps a run under ~20 minutes.
  timeoutMS: 2000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The sandbox needs src/ and test/ only.
  ignorePatterns: ['dist', 'bench', 'reports', 'data', 'examples'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  thresholds: { high: 90, low: 80, break: null },
};
