/**
 * Two collectors ("machines") running the github-search source through one redis-server, against
 * the loopback stand-in for GitHub with tight limits (3 searches and 12 core requests per 3 s
 * window, a secondary limit with Retry-After 1 s on every 8th API request, 40 ms per API answer): the token's budget is
 * one for the crawl, so the server sees no request past a window's limit nor during a pause that
 * either machine learnt, and every README is collected once in the union.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialIdentity } from '../../src/http/rate-budget.js';
import { readItems, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';
import { haveRedis, machineFlags, useRedis, waitForMachines } from '../fixtures/redis-machines.js';
import type { TestRedis } from '../fixtures/redis-server.js';

const HAVE_REDIS = haveRedis('shared GitHub budget tests');

const TOKEN = 'ghp_fixtureToken0123456789abcdef';
/** Search pages per topic, results per page, and the results (`topic:llm` has 25, `topic:web-scraping` 12). */
const PER_PAGE = 10;
const PAGES = 2;
const RESULTS = PER_PAGE * PAGES + 12;
/** The shared budget's spacing of searches with a token (30 a minute), less a margin for a loaded machine. */
const SEARCH_GAP_MS = 2000 - 400;

function machine(gh: GithubFixture, out: string, redis: TestRedis): string[] {
  return [
    'crawl',
    '--source',
    'github-search',
    '--source-option',
    `github.web=${gh.bases.web}`,
    '--source-option',
    `github.api=${gh.bases.api}`,
    '--source-option',
    `github.raw=${gh.bases.raw}`,
    '--source-option',
    'topics=[llm,web-scraping]',
    '--source-option',
    `perPage=${PER_PAGE}`,
    '--source-option',
    `searchPages=${PAGES}`,
    '--out',
    out,
    '--delay',
    '0',
    // Several requests to the API host at once crawl-wide: only the shared budget keeps them in turn.
    '--host-concurrency',
    '4',
    '--quiet',
    ...machineFlags(redis, 'gh-budget'),
  ];
}

describe.skipIf(!HAVE_REDIS)('two machines, one GitHub budget through redis', () => {
  const bench = useRedis();
  let gh: GithubFixture;
  /** Opens the API's answers once both machines beat in Redis (see the test). */
  let bothRunning: () => void = () => {};
  beforeAll(async () => {
    gh = await startGithubFixture({
      holdApiAnswers: new Promise<void>((resolve) => {
        bothRunning = resolve;
      }),
      tokens: [TOKEN],
      limits: { search: { limit: 3, windowMs: 3000 }, core: { limit: 12, windowMs: 3000 } },
      secondaryEvery: 8,
      secondaryRetryAfterS: 1,
      // Each API request takes a while: the machines' requests would overlap without one budget.
      apiLatencyMs: 40,
    });
  });
  afterAll(async () => {
    await gh?.close();
  });

  it('never past a window nor during a pause either machine learnt; every README once', async () => {
    const [a, b] = [tempDir(), tempDir()];
    const ra = startCli(machine(gh, a, bench.redis), { GITHUB_TOKEN: TOKEN });
    const rb = startCli(machine(gh, b, bench.redis), { GITHUB_TOKEN: TOKEN });
    bench.children.push(ra, rb);
    // The first search is answered only once both machines run: on a loaded machine one of them
    // may take seconds longer to start, and the other would have found and collected every
    // README alone (two-suites round 05:26: no README on one machine). Requests are still logged
    // and counted on arrival; only their answers wait.
    await waitForMachines(bench.redis, 'gh-budget', 2, undefined, 120_000);
    bothRunning();
    const [ea, eb] = await Promise.all([waitExit(ra), waitExit(rb)]);
    expect(ea.code, ea.stderr).toBe(0);
    expect(eb.code, eb.stderr).toBe(0);
    const readmes = (out: string) => readItems(out).filter((i) => i.label === 'readme');
    const [ia, ib] = [readmes(a), readmes(b)];
    const repos = [...ia, ...ib].map((i) => i.data.repo.toLowerCase());
    expect(repos).toHaveLength(RESULTS);
    expect(new Set(repos).size).toBe(RESULTS);
    // Both machines spent the budget (the pauses one of them learnt had the other to hold).
    expect(Math.min(ia.length, ib.length)).toBeGreaterThan(0);
    // Pauses were imposed (secondary limits answered)...
    expect(gh.log.filter((e) => e.service === 'api' && e.status === 403).length).toBeGreaterThan(0);
    // Searches spaced crawl-wide, whichever machine sent them (each alone would space only its own).
    const searches = gh.log
      .filter((e) => e.service === 'api' && e.path.startsWith('/search/'))
      .map((e) => e.wall);
    expect(searches.length).toBeGreaterThanOrEqual(2 * PAGES);
    for (let i = 1; i < searches.length; i++)
      expect(searches[i] - searches[i - 1]).toBeGreaterThanOrEqual(SEARCH_GAP_MS);
    // ...and no request came past a window's limit or during a pause, from either machine.
    expect(gh.violations).toEqual([]);
    // The budget the machines spent is the crawl's, in Redis (per token; the token never stored).
    const P = `collector:{gh-budget}:rb:r:${credentialIdentity(TOKEN)}`;
    for (const resource of ['core', 'search']) {
      expect(await bench.redis.client.hmget(`${P}:${resource}`, 'k', 'l')).toEqual([
        '1',
        resource === 'core' ? '12' : '3',
      ]);
    }
    expect((await bench.redis.client.keys('*')).join(' ')).not.toContain(TOKEN);
    // No item says 403: a rate-limit answer waits and goes again.
    expect([...readItems(a), ...readItems(b)].filter((i) => i.status === 403)).toEqual([]);
  });
});
