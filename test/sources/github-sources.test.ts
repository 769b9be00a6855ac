/**
 * The built-in GitHub sources as a source sees its pages: the requests of a round, what a trending
 * page, a search page and a README answer become (items' data, follows, stored bytes, 404s), and
 * the hooks (token to the API only, the budget each request spends, the bases in scope).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GithubSearchOptionsSchema, GithubTrendingOptionsSchema } from '../../src/config/github-options.js';
import { ResponsePage } from '../../src/sources/page.js';
import { builtinSource, isBuiltin } from '../../src/sources/registry.js';
import type { HandleResult, RequestSpec, SourceContext, SourceDefinition } from '../../src/sources/source.js';
import { trendingPage } from '../fixtures/github-pages.js';

const WEB = 'https://github.com';
const API = 'https://api.github.com';
const RAW = 'https://raw.githubusercontent.com';
const TOKEN_ENV = 'G10_TEST_TOKEN';

const trending = builtinSource('github-trending') as SourceDefinition;
const search = builtinSource('github-search') as SourceDefinition;

function ctx(schema: { parse(v: unknown): unknown }, raw: Record<string, unknown>) {
  const warnings: string[] = [];
  const c: SourceContext = {
    options: schema.parse({ github: { tokenEnv: TOKEN_ENV }, ...raw }) as Record<string, unknown>,
    seeds: [],
    log: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
    worker: { id: 'w-0', index: 0, count: 1 },
  };
  return { c, warnings };
}

function page(
  url: string,
  status: number,
  body: string | Buffer,
  label: string,
  userData?: unknown,
  headers = {},
) {
  return new ResponsePage({
    url,
    finalUrl: url,
    status,
    contentType: null,
    headers,
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    depth: 0,
    label,
    userData,
  });
}

const specs = (r: HandleResult | undefined) => (r?.follow ?? []) as RequestSpec[];

afterEach(() => {
  delete process.env[TOKEN_ENV];
});

describe('github-trending', () => {
  it('is a built-in whose results are checked like a user source; 404s and 401s reach handle', () => {
    expect(trending.name).toBe('github-trending');
    expect(isBuiltin(trending)).toBe(false);
    expect(trending.statuses).toEqual([404, 401]);
  });

  it('a round: every language × period, web pages (robots.txt applies), not stored', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, { languages: ['', 'python'], since: ['daily', 'weekly'] });
    const seeds = (await trending.seeds?.(c)) as RequestSpec[];
    expect(seeds.map((s) => s.url)).toEqual([
      `${WEB}/trending?since=daily`,
      `${WEB}/trending?since=weekly`,
      `${WEB}/trending/python?since=daily`,
      `${WEB}/trending/python?since=weekly`,
    ]);
    for (const s of seeds) {
      expect(s).toMatchObject({ label: 'trending', store: false });
      expect(s.robots).toBeUndefined();
    }
  });

  it('a listed page: one README request per listed repository, with what the listing said', async () => {
    const { c, warnings } = ctx(GithubTrendingOptionsSchema, {});
    const html = trendingPage(
      [
        {
          slug: 'alice/tool',
          language: 'Python',
          stars: 1234,
          starsInPeriod: 56,
          sponsor: true,
          builtBy: ['zed'],
        },
        { slug: 'bob/lib', stars: 7 },
      ],
      { layout: 'normal', since: 'daily', web: WEB, language: '' },
    );
    const url = `${WEB}/trending?since=daily`;
    const r = await trending.handle(page(url, 200, html, 'trending', { language: '', since: 'daily' }), c);
    expect(r?.data).toMatchObject({ repos: 2, trending: { language: '', since: 'daily' } });
    const follow = specs(r);
    // No token: the raw host, first name.
    expect(follow.map((f) => f.url)).toEqual([
      `${RAW}/alice/tool/HEAD/README.md`,
      `${RAW}/bob/lib/HEAD/README.md`,
    ]);
    expect(follow[0]).toMatchObject({
      label: 'readme',
      robots: false,
      userData: {
        repo: 'alice/tool',
        via: 'raw',
        name: 'README.md',
        hops: 0,
        listing: { position: 1, page: url, stars: 1234, starsInPeriod: 56, language: 'Python' },
      },
    });
    expect(warnings).toEqual([]);
  });

  it('with a token: the API README request (one per repository, any name)', async () => {
    process.env[TOKEN_ENV] = 'secret';
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    const html = trendingPage([{ slug: 'alice/tool' }], {
      layout: 'normal',
      since: 'daily',
      web: WEB,
      language: '',
    });
    const r = await trending.handle(page(`${WEB}/trending?since=daily`, 200, html, 'trending'), c);
    expect(specs(r)[0]).toMatchObject({
      url: `${API}/repos/alice/tool/readme`,
      headers: { accept: 'application/vnd.github+json' },
      userData: { via: 'api', name: null },
    });
    expect(JSON.stringify(r)).not.toContain('secret');
  });

  it('a changed layout: one warning naming the page, the word "trending", nothing followed', async () => {
    const { c, warnings } = ctx(GithubTrendingOptionsSchema, {});
    const html = trendingPage([{ slug: 'alice/tool' }], {
      layout: 'changed',
      since: 'daily',
      web: WEB,
      language: '',
    });
    const url = `${WEB}/trending?since=daily`;
    const r = await trending.handle(page(url, 200, html, 'trending'), c);
    expect(specs(r)).toEqual([]);
    expect(r?.data).toMatchObject({ repos: 0, layoutChanged: true });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(url);
    expect(warnings[0]).toMatch(/trending.*layout may have changed/);
  });

  it('the explicit empty state: no warning, nothing followed', async () => {
    const { c, warnings } = ctx(GithubTrendingOptionsSchema, {});
    const html = trendingPage([], { layout: 'empty', since: 'daily', web: WEB, language: 'go' });
    const r = await trending.handle(page(`${WEB}/trending/go?since=daily`, 200, html, 'trending'), c);
    expect(r?.data).toMatchObject({ repos: 0, empty: true });
    expect(specs(r)).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('READMEs', () => {
  const ud = (via: string, name: string | null, listing = { position: 1 }) => ({
    repo: 'alice/tool',
    via,
    name,
    hops: 0,
    listing,
  });

  it('raw: the body as served (BOM, CRLF, Latin-1 untouched), its own extension, data.repo and listing', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('a\r\nb'),
      Buffer.from([0xe9]),
    ]);
    const url = `${RAW}/alice/tool/HEAD/README.rst`;
    const r = await trending.handle(page(url, 200, bytes, 'readme', ud('raw', 'README.rst')), c);
    expect(Buffer.from(r?.file?.body as Uint8Array).equals(bytes)).toBe(true);
    expect(r?.file?.extension).toBe('rst');
    expect(r?.title).toBe('alice/tool');
    expect(r?.data).toEqual({
      repo: 'alice/tool',
      position: 1,
      readme: { name: 'README.rst', path: 'README.rst', via: 'raw', bytes: bytes.length },
    });
  });

  it('api JSON: base64 content decoded to the exact bytes, named by the response', async () => {
    const { c } = ctx(GithubSearchOptionsSchema, { topics: ['x'] });
    const bytes = Buffer.from([0x23, 0x20, 0xe8, 0x0d, 0x0a]);
    const json = JSON.stringify({
      type: 'file',
      encoding: 'base64',
      size: 5,
      name: 'readme.markdown',
      path: 'readme.markdown',
      content: `${bytes.toString('base64')}\n`,
    });
    const r = await search.handle(
      page(
        `${API}/repos/alice/tool/readme`,
        200,
        json,
        'readme',
        ud('api', null, { query: 'topic:x', rank: 3 } as never),
      ),
      c,
    );
    expect(Buffer.from(r?.file?.body as Uint8Array).equals(bytes)).toBe(true);
    expect(r?.file?.extension).toBe('markdown');
    expect(r?.data).toMatchObject({
      repo: 'alice/tool',
      query: 'topic:x',
      rank: 3,
      readme: { name: 'readme.markdown', via: 'api' },
    });
  });

  it('a README without an extension is stored without one', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    const r = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README`, 200, 'x', 'readme', ud('raw', 'README')),
      c,
    );
    expect(r?.file?.extension).toBeUndefined();
  });

  it('raw 404: the next name, then "no README" (not-found) after the last', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {
      readmeNames: ['README.md', 'readme.rst'],
      readmePaths: [],
    });
    const first = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README.md`, 404, '404: Not Found', 'readme', ud('raw', 'README.md')),
      c,
    );
    expect(first?.missing).toMatch(/alice\/tool has no README\.md; trying readme\.rst/);
    expect(specs(first).map((f) => f.url)).toEqual([`${RAW}/alice/tool/HEAD/readme.rst`]);
    expect(specs(first)[0].userData).toMatchObject({ name: 'readme.rst', listing: { position: 1 } });
    const last = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/readme.rst`, 404, '', 'readme', ud('raw', 'readme.rst')),
      c,
    );
    expect(last?.missing).toBe('alice/tool has no README (tried README.md, readme.rst)');
    expect(specs(last)).toEqual([]);
    expect(last?.data).toMatchObject({ repo: 'alice/tool', readme: null });
  });

  it('raw 404 past the names: the other places GitHub shows a README from (.github/, docs/), then none', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, { readmeNames: ['README.md'] });
    const r = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README.md`, 404, '', 'readme', ud('raw', 'README.md')),
      c,
    );
    expect(specs(r).map((f) => f.url)).toEqual([`${RAW}/alice/tool/HEAD/.github/README.md`]);
    const r2 = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/.github/README.md`, 404, '', 'readme', ud('raw', '.github/README.md')),
      c,
    );
    expect(specs(r2).map((f) => f.url)).toEqual([`${RAW}/alice/tool/HEAD/docs/README.md`]);
    const found = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/docs/README.md`, 200, '# Docs\n', 'readme', ud('raw', 'docs/README.md')),
      c,
    );
    expect(found?.data).toMatchObject({ readme: { name: 'README.md', path: 'docs/README.md', via: 'raw' } });
    expect(found?.file?.extension).toBe('md');
    const none = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/docs/README.md`, 404, '', 'readme', ud('raw', 'docs/README.md')),
      c,
    );
    expect(none?.missing).toBe(
      'alice/tool has no README (tried README.md, .github/README.md, docs/README.md)',
    );
  });

  it('raw: a symbolic link (served as its target path) is not stored; the file it points to is', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    const link = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README.md`, 200, 'docs/guide/README.md', 'readme', ud('raw', 'README.md')),
      c,
    );
    expect(link?.store).toBe(false);
    expect(link?.file).toBeUndefined();
    expect(link?.data).toMatchObject({
      readme: null,
      symlink: { path: 'README.md', target: 'docs/guide/README.md' },
    });
    expect(specs(link)).toMatchObject([
      {
        url: `${RAW}/alice/tool/HEAD/docs/guide/README.md`,
        userData: { name: 'docs/guide/README.md', links: ['README.md'], listing: { position: 1 } },
      },
    ]);
    const target = await trending.handle(
      page(
        `${RAW}/alice/tool/HEAD/docs/guide/README.md`,
        200,
        '# Guide\n',
        'readme',
        specs(link)[0].userData,
      ),
      c,
    );
    expect(target?.store).toBeUndefined();
    expect(Buffer.from(target?.file?.body as Uint8Array).toString()).toBe('# Guide\n');
    expect(target?.data).toMatchObject({
      readme: { name: 'README.md', path: 'docs/guide/README.md', symlinks: ['README.md'] },
    });
    // A one-line README that is text, not a path, is the README.
    const text = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README.md`, 200, 'Nothing here yet.', 'readme', ud('raw', 'README.md')),
      c,
    );
    expect(text?.file).toBeDefined();
  });

  it('api: a README over the inline size (no content) is not stored; its download_url is, exact', async () => {
    const { c } = ctx(GithubSearchOptionsSchema, { topics: ['x'] });
    const json = JSON.stringify({
      type: 'file',
      encoding: 'none',
      size: 2_000_000,
      name: 'README.md',
      path: 'README.md',
      content: '',
      download_url: `${RAW}/alice/tool/main/README.md`,
    });
    const r = await search.handle(
      page(`${API}/repos/alice/tool/readme`, 200, json, 'readme', ud('api', null)),
      c,
    );
    expect(r?.store).toBe(false);
    expect(r?.file).toBeUndefined();
    expect(r?.data).toMatchObject({ readme: null, tooLarge: { size: 2_000_000 } });
    expect(specs(r)).toMatchObject([
      { url: `${RAW}/alice/tool/main/README.md`, userData: { via: 'raw', name: 'README.md', named: true } },
    ]);
    const big = Buffer.alloc(2_000_000, 0x61);
    const got = await search.handle(
      page(`${RAW}/alice/tool/main/README.md`, 200, big, 'readme', specs(r)[0].userData),
      c,
    );
    expect(Buffer.from(got?.file?.body as Uint8Array).equals(big)).toBe(true);
    expect(got?.data).toMatchObject({ readme: { name: 'README.md', via: 'raw', bytes: 2_000_000 } });
    // Not there after all: no other name is tried for a file the API named.
    const gone = await search.handle(
      page(`${RAW}/alice/tool/main/README.md`, 404, '', 'readme', specs(r)[0].userData),
      c,
    );
    expect(specs(gone)).toEqual([]);
    expect(gone?.missing).toBe('alice/tool has no README');
  });

  it('api 404: one item, no README, nothing more asked', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    const r = await trending.handle(
      page(`${API}/repos/alice/tool/readme`, 404, '{"message":"Not Found"}', 'readme', ud('api', null)),
      c,
    );
    expect(r?.missing).toBe('alice/tool has no README');
    expect(specs(r)).toEqual([]);
  });

  it('discover: README links to other repositories become README requests, depth-limited', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, { discover: true, discoverDepth: 1 });
    const text = `See [x](${WEB}/carol/other) and [issues](${WEB}/carol/other/issues), [user](${WEB}/carol).`;
    const r = await trending.handle(
      page(`${RAW}/alice/tool/HEAD/README.md`, 200, text, 'readme', ud('raw', 'README.md')),
      c,
    );
    expect(specs(r).map((f) => f.url)).toEqual([`${RAW}/carol/other/HEAD/README.md`]);
    expect(specs(r)[0].userData).toMatchObject({ hops: 1, listing: { discoveredFrom: 'alice/tool' } });
    const deeper = { ...ud('raw', 'README.md'), hops: 1 };
    const r2 = await trending.handle(
      page(`${RAW}/carol/other/HEAD/README.md`, 200, text, 'readme', deeper),
      c,
    );
    expect(r2?.follow).toBeUndefined();
  });
});

describe('github-search', () => {
  it('a round: one API request per topic (random order) and the query, every round, not stored', async () => {
    const { c } = ctx(GithubSearchOptionsSchema, {
      topics: ['a', 'b', 'c'],
      query: 'stars:>10',
      perPage: 50,
    });
    const seeds = (await search.seeds?.(c)) as RequestSpec[];
    expect(seeds.map((s) => new URL(s.url).searchParams.get('q')).sort()).toEqual([
      'stars:>10',
      'topic:a',
      'topic:b',
      'topic:c',
    ]);
    for (const s of seeds) {
      expect(s.url).toMatch(
        /^https:\/\/api\.github\.com\/search\/repositories\?q=.*&sort=stars&order=desc&per_page=50$/,
      );
      expect(s).toMatchObject({ label: 'search', robots: false, everyRound: true, store: false });
    }
  });

  const body = (n: number, from = 1) =>
    JSON.stringify({
      total_count: 5000,
      incomplete_results: false,
      items: Array.from({ length: n }, (_, i) => ({
        full_name: `o${from + i}/r${from + i}`,
        stargazers_count: 10,
        default_branch: 'main',
      })),
    });

  it('a result page: README requests with query and rank; the next page from Link only, within searchPages', async () => {
    const { c } = ctx(GithubSearchOptionsSchema, { topics: ['x'], perPage: 2, searchPages: 2 });
    const url = `${API}/search/repositories?q=topic%3Ax&sort=stars&order=desc&per_page=2`;
    const next = `${url}&page=2`;
    const r = await search.handle(
      page(url, 200, body(2), 'search', { query: 'topic:x', page: 1 }, { link: `<${next}>; rel="next"` }),
      c,
    );
    const follow = specs(r);
    expect(
      follow.filter((f) => f.label === 'readme').map((f) => (f.userData as { listing: unknown }).listing),
    ).toEqual([
      { query: 'topic:x', rank: 1, stars: 10, language: null, description: null, defaultBranch: 'main' },
      { query: 'topic:x', rank: 2, stars: 10, language: null, description: null, defaultBranch: 'main' },
    ]);
    expect(follow.filter((f) => f.label === 'search')).toMatchObject([
      { url: next, everyRound: true, userData: { page: 2 } },
    ]);
    // Page 2 is the last allowed: its next link is not followed; no Link, no guess.
    const r2 = await search.handle(
      page(
        next,
        200,
        body(2, 3),
        'search',
        { query: 'topic:x', page: 2 },
        { link: `<${url}&page=3>; rel="next"` },
      ),
      c,
    );
    expect(specs(r2).filter((f) => f.label === 'search')).toEqual([]);
    const r3 = await search.handle(page(url, 200, body(2), 'search', { query: 'topic:x', page: 1 }), c);
    expect(specs(r3).filter((f) => f.label === 'search')).toEqual([]);
  });

  it('never past the 1,000-result cap', async () => {
    const { c } = ctx(GithubSearchOptionsSchema, { topics: ['x'], perPage: 100, searchPages: 50 });
    const base = `${API}/search/repositories?q=topic%3Ax&sort=stars&order=desc&per_page=100`;
    const r = await search.handle(
      page(
        `${base}&page=10`,
        200,
        body(1),
        'search',
        { page: 10 },
        { link: `<${base}&page=11>; rel="next"` },
      ),
      c,
    );
    expect(specs(r).filter((f) => f.label === 'search')).toEqual([]);
  });
});

describe('GitHub hooks', () => {
  it('authorize: the token to API URLs only, read from the named variable at send time', async () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {});
    expect(await trending.authorize?.({ url: `${API}/repos/a/b/readme`, label: 'readme' }, c)).toEqual({});
    process.env[TOKEN_ENV] = 'ghp_x';
    expect(await trending.authorize?.({ url: `${API}/repos/a/b/readme`, label: 'readme' }, c)).toEqual({
      authorization: 'Bearer ghp_x',
    });
    expect(await trending.authorize?.({ url: `${RAW}/a/b/HEAD/README.md`, label: 'readme' }, c)).toEqual({});
    expect(await trending.authorize?.({ url: `${WEB}/trending`, label: 'trending' }, c)).toEqual({});
  });

  it('rateBudget: search and core per credential (a hash, never the token), raw anonymous, web none', () => {
    const { c } = ctx(GithubSearchOptionsSchema, { topics: ['x'] });
    const key = (url: string) => search.rateBudget?.({ url, label: undefined }, c);
    expect(key(`${API}/search/repositories?q=x`)).toEqual({ identity: 'anonymous', resource: 'search' });
    process.env[TOKEN_ENV] = 'ghp_secret';
    const k = key(`${API}/repos/a/b/readme`);
    expect(k).toMatchObject({ resource: 'core' });
    expect(k?.identity).toMatch(/^token-[0-9a-f]{16}$/);
    expect(JSON.stringify(k)).not.toContain('ghp_secret');
    expect(key(`${RAW}/a/b/HEAD/README.md`)).toEqual({ identity: 'anonymous', resource: 'raw' });
    expect(key(`${WEB}/trending`)).toBeNull();
  });

  it('scope: the three bases, so API and raw requests pass a prefix scope', () => {
    const { c } = ctx(GithubTrendingOptionsSchema, {
      github: { tokenEnv: TOKEN_ENV, api: 'https://ghe.example/api/v3' },
    });
    expect(trending.scope?.(c)).toEqual([`${WEB}/`, 'https://ghe.example/api/v3/', `${RAW}/`]);
  });
});
