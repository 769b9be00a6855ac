/**
 * The rate budget against the GitHub fixture's real limits: a client that asks the budget before
 * each request and shows it each response never sends a request while a limit is in force.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { readmeRequest } from '../../src/extract/github-readme.js';
import { nextSearchUrl, parseSearchPage, searchUrl } from '../../src/extract/github-search.js';
import { githubAuthHeaders, githubBudgetKey } from '../../src/http/github-api.js';
import { credentialIdentity, RateBudget } from '../../src/http/rate-budget.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';

const TOKEN = 'ghp_fixture_token_0123456789';
let fx: GithubFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
});

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

/**
 * Crawl searches and their READMEs (API JSON) with `workers` concurrent loops sharing one budget.
 * A refused request (403/429) is queued again unless `retryLimited` is false.
 * @returns the statuses seen per URL.
 */
async function collect(
  fixture: GithubFixture,
  budget: RateBudget,
  queries: string[],
  workers: number,
  token: string | null,
  retryLimited = true,
) {
  const bases = fixture.bases;
  const identity = credentialIdentity(token);
  const queue = queries.map((q) => searchUrl(bases.api, q, 5));
  const statuses = new Map<string, number[]>();
  let active = 0;
  let n = 0;
  const worker = async () => {
    for (;;) {
      const url = queue.shift();
      if (url === undefined) {
        if (active === 0) return;
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      active++;
      const key = githubBudgetKey(url, bases, identity)!;
      for (;;) {
        const g = budget.reserve(key);
        if (g.ok) break;
        await sleepUntil(g.waitUntil);
      }
      const headers = {
        'user-agent': 'collector-test',
        accept: 'application/vnd.github+json',
        'x-test-request-id': String(++n),
        ...githubAuthHeaders(url, bases, token),
      };
      const r = await request(url, { headers });
      const body = await r.body.text();
      budget.observe(key, r.statusCode, r.headers as Record<string, string>, body.slice(0, 200));
      statuses.set(url, [...(statuses.get(url) ?? []), r.statusCode]);
      if (r.statusCode === 403 || r.statusCode === 429) {
        if (retryLimited) queue.unshift(url); // limited: again later
      } else if (url.includes('/search/')) {
        for (const repo of parseSearchPage(JSON.parse(body), url).results)
          queue.push(readmeRequest(repo, bases, 'api').url);
        const next = nextSearchUrl(r.headers.link as string | undefined, url, bases.api, 2);
        if (next) queue.push(next);
      }
      active--;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return statuses;
}

describe('RateBudget against the fixture’s limits', () => {
  it('one loop, tight primary limits and a secondary limit every 5th request: nothing sent early', async () => {
    fx = await startGithubFixture({
      tokens: [TOKEN],
      limits: { search: { limit: 3, windowMs: 2000 }, core: { limit: 8, windowMs: 1000 } },
      secondaryEvery: 5,
      secondaryRetryAfterS: 1,
    });
    const budget = new RateBudget({ resetMarginMs: 50, spacingMs: {} });
    const statuses = await collect(fx, budget, ['topic:llm', 'topic:web-scraping'], 1, TOKEN);
    expect(fx.violations).toEqual([]);
    // 2 queries × 2 pages of 5, and each result's README fetched exactly once with success or 404.
    const readmes = [...statuses.keys()].filter((u) => u.endsWith('/readme'));
    expect(readmes).toHaveLength(20);
    for (const u of readmes) expect(statuses.get(u)!.filter((s) => s === 200 || s === 404)).toHaveLength(1);
    // The only refusals were the injected secondary ones; the loop waited them out.
    const refused = fx.log.filter((e) => e.status === 403);
    expect(refused.length).toBeGreaterThan(3);
    for (const e of refused)
      expect(fx.log.filter((x) => x.wall > e.wall && x.wall < e.wall + 1000)).toEqual([]);
    // The token went to the API only, as a Bearer header, and the budget holds no trace of it.
    expect(new Set(fx.log.map((e) => e.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(JSON.stringify(budget.snapshot())).not.toContain(TOKEN);
  });

  it('four concurrent loops sharing one budget never exceed a primary limit', async () => {
    fx = await startGithubFixture({
      tokens: [TOKEN],
      limits: { search: { limit: 2, windowMs: 1000 }, core: { limit: 6, windowMs: 1000 } },
    });
    const budget = new RateBudget({ resetMarginMs: 50, spacingMs: {} });
    const statuses = await collect(fx, budget, ['topic:llm', 'topic:crawler'], 4, TOKEN);
    expect(fx.violations).toEqual([]);
    expect(fx.log.filter((e) => e.status === 403 || e.status === 429)).toEqual([]);
    expect([...statuses.keys()].filter((u) => u.endsWith('/readme'))).toHaveLength(20);
  });

  it('without the budget the same loops do hit the limit (the test can fail)', async () => {
    fx = await startGithubFixture({ tokens: [TOKEN], limits: { core: { limit: 6, windowMs: 60_000 } } });
    const open = { reserve: () => ({ ok: true as const }), observe: () => null } as unknown as RateBudget;
    await collect(fx, open, ['topic:web-scraping'], 4, TOKEN, false);
    expect(fx.violations.length).toBeGreaterThan(0);
  });
});
