/** The GitHub fixture speaks the shapes the real services do (checked with our own parsers). */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeReadmeJson } from '../../src/extract/github-readme.js';
import { nextSearchUrl, parseSearchPage, searchUrl } from '../../src/extract/github-search.js';
import { extractTrending } from '../../src/extract/github-trending.js';
import { DEFAULT_TRENDING, type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';

const UA = { 'user-agent': 'collector-test' };
let fx: GithubFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
});

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await request(url, { headers: { ...UA, ...headers } });
  const body = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, headers: r.headers as Record<string, string>, body };
}

describe('GitHub fixture: web', () => {
  it('serves trending pages per language and period, the empty state, and a changed layout', async () => {
    fx = await startGithubFixture();
    const web = fx.bases.web;
    const all = await get(`${web}/trending`);
    const listed = extractTrending(all.body.toString(), `${web}/trending`, web);
    expect(listed.kind === 'listed' && listed.repos.map((r) => r.slug)).toEqual(
      DEFAULT_TRENDING[''].map((e) => e.slug),
    );
    const weekly = extractTrending(
      (await get(`${web}/trending/python?since=weekly`)).body.toString(),
      web,
      web,
    );
    expect(weekly.kind === 'listed' && weekly.repos[0].period).toBe('weekly');
    expect(extractTrending((await get(`${web}/trending/cobol`)).body.toString(), web, web)).toEqual({
      kind: 'empty',
    });
    fx.setTrendingLayout('changed', 'python');
    expect(extractTrending((await get(`${web}/trending/python`)).body.toString(), web, web).kind).toBe(
      'unrecognized',
    );
    expect(extractTrending((await get(`${web}/trending`)).body.toString(), web, web).kind).toBe('listed');
    expect(fx.log.filter((e) => e.service === 'web').map((e) => e.path)).toEqual([
      '/trending',
      '/trending/python?since=weekly',
      '/trending/cobol',
      '/trending/python',
      '/trending',
    ]);
  });
});

describe('GitHub fixture: search API', () => {
  it('paginates with Link up to the 1,000-result cap and answers 422 beyond it, under a path prefix', async () => {
    fx = await startGithubFixture({ apiPrefix: '/api/v3' });
    const api = fx.bases.api;
    expect(api).toMatch(/\/api\/v3$/);
    let url: string | null = searchUrl(api, 'topic:crawler', 100);
    const ranks: number[] = [];
    while (url) {
      const r = await get(url);
      expect(r.status).toBe(200);
      const page = parseSearchPage(JSON.parse(r.body.toString()), url);
      expect(page.totalCount).toBe(2500);
      ranks.push(...page.results.map((x) => x.rank));
      expect(page.results[0].slug).toBe(fx.searchRepo('topic:crawler', page.results[0].rank));
      url = nextSearchUrl(r.headers.link, url, api, 50);
    }
    expect(ranks).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect((await get(searchUrl(api, 'topic:crawler', 100, 11))).status).toBe(422);
    // With 30 a page, the Link header offers page 34 (results 991-1020): not followed.
    const p33 = searchUrl(api, 'topic:crawler', 30, 33);
    const r33 = await get(p33);
    expect(r33.headers.link).toContain('page=34>; rel="next"');
    expect(nextSearchUrl(r33.headers.link, p33, api, 50)).toBeNull();
    expect((await get(searchUrl(api, 'topic:crawler', 30, 34))).status).toBe(422);
    const llm = await get(searchUrl(api, 'topic:llm', 10, 3));
    expect(JSON.parse(llm.body.toString()).items).toHaveLength(5);
    expect(llm.headers.link).not.toContain('rel="next"');
  });
});

describe('GitHub fixture: READMEs', () => {
  it('serves the same exact bytes as API JSON, API raw and raw host; 404 without README; 304 on ETag', async () => {
    fx = await startGithubFixture();
    const { api, raw } = fx.bases;
    for (const slug of ['alice/bom-readme', 'bob/crlf-rst', 'carol/latin1']) {
      const stored = fx.readme(slug)!;
      const json = await get(`${api}/repos/${slug}/readme`, { accept: 'application/vnd.github+json' });
      const decoded = decodeReadmeJson(JSON.parse(json.body.toString()));
      expect(decoded.kind === 'file' && decoded.bytes.equals(stored.bytes)).toBe(true);
      expect(decoded.kind === 'file' && decoded.name).toBe(stored.name);
      const apiRaw = await get(`${api}/repos/${slug}/readme`, { accept: 'application/vnd.github.raw' });
      expect(apiRaw.body.equals(stored.bytes)).toBe(true);
      const rawHost = await get(`${raw}/${slug}/HEAD/${stored.name}`);
      expect(rawHost.body.equals(stored.bytes)).toBe(true);
      expect(rawHost.headers['content-type']).toBe('text/plain; charset=utf-8');
      const again = await get(`${raw}/${slug}/HEAD/${stored.name}`, {
        'if-none-match': rawHost.headers.etag,
      });
      expect(again.status).toBe(304);
      const againApi = await get(`${api}/repos/${slug}/readme`, { 'if-none-match': json.headers.etag });
      expect(againApi.status).toBe(304);
    }
    expect(fx.readme('alice/bom-readme')!.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect((await get(`${raw}/carol/latin1/HEAD/README.md`)).status).toBe(404); // names are case-sensitive
    expect((await get(`${api}/repos/dave/no-readme/readme`)).status).toBe(404);
    expect((await get(`${raw}/dave/no-readme/HEAD/README.md`)).status).toBe(404);
    expect((await get(`${api}/repos/nobody/nothing/readme`)).status).toBe(404);
    // Generated search results have READMEs, except every 9th from the 4th.
    expect(fx.readme(fx.searchRepo('topic:llm', 1))).not.toBeNull();
    expect(fx.readme(fx.searchRepo('topic:llm', 4))).toBeNull();
  });
});

describe('GitHub fixture: tokens and limits', () => {
  it('checks tokens, requires a User-Agent, and logs the Authorization seen', async () => {
    fx = await startGithubFixture({ tokens: ['good'] });
    const u = `${fx.bases.api}/repos/gina/plain/readme`;
    expect((await get(u, { authorization: 'Bearer good' })).status).toBe(200);
    expect((await get(u, { authorization: 'token good' })).status).toBe(200);
    expect((await get(u, { authorization: 'Bearer bad' })).status).toBe(401);
    expect((await request(u)).statusCode).toBe(403);
    expect(fx.log.map((e) => e.authorization)).toEqual(['Bearer good', 'token good', 'Bearer bad', null]);
  });

  it('enforces primary limits with GitHub’s headers, records early requests as violations', async () => {
    fx = await startGithubFixture({ tokens: ['t'], limits: { core: { limit: 2, windowMs: 60_000 } } });
    const u = `${fx.bases.api}/repos/gina/plain/readme`;
    const auth = { authorization: 'Bearer t', 'x-test-request-id': 'r' };
    const first = await get(u, auth);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    });
    expect(Number(first.headers['x-ratelimit-reset']) * 1000).toBeGreaterThan(Date.now() + 50_000);
    expect((await get(u, auth)).headers['x-ratelimit-remaining']).toBe('0');
    expect(fx.violations).toEqual([]);
    const over = await get(u, auth);
    expect(over.status).toBe(403);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    expect(fx.violations).toMatchObject([{ kind: 'primary', identity: 't', requestId: 'r' }]);
    // Anonymous requests have their own window.
    expect((await get(u)).status).toBe(200);
  });

  it('answers every Nth request with a secondary limit and Retry-After; a request inside it is a violation', async () => {
    fx = await startGithubFixture({ secondaryEvery: 3, secondaryStatus: 429 });
    const u = `${fx.bases.api}/repos/gina/plain/readme`;
    expect([(await get(u)).status, (await get(u)).status]).toEqual([200, 200]);
    const limited = await get(u);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.body.toString()).toMatch(/secondary rate limit/);
    expect(fx.violations).toEqual([]);
    expect((await get(u)).status).toBe(429);
    expect(fx.violations).toMatchObject([{ kind: 'secondary' }]);
  });
});
