import { describe, expect, it } from 'vitest';
import {
  extractTrending,
  parseCount,
  trendingUrl,
  unrecognizedTrendingMessage,
} from '../../src/extract/github-trending.js';
import { type TrendingEntry, trendingPage } from '../fixtures/github-pages.js';

const WEB = 'https://github.com';
const PAGE = 'https://github.com/trending?since=daily';

const ENTRIES: TrendingEntry[] = [
  {
    slug: 'alice/fast-crawler',
    description: 'A fast crawler & friends',
    language: 'Python',
    stars: 12345,
    forks: 1234,
    starsInPeriod: 1021,
    builtBy: ['alice', 'bob'],
    sponsor: true,
  },
  { slug: 'bob/tiny.js', stars: 7, starsInPeriod: 1 },
  { slug: 'carol-x/Rust_Thing', description: 'multi\n   line   text', language: 'Rust', forks: 0 },
];

describe('extractTrending', () => {
  it('lists exactly the entries’ heading repositories, with what each entry shows', () => {
    const r = extractTrending(trendingPage(ENTRIES, { web: WEB }), PAGE, WEB);
    expect(r.kind).toBe('listed');
    if (r.kind !== 'listed') return;
    expect(r.repos.map((x) => x.slug)).toEqual(['alice/fast-crawler', 'bob/tiny.js', 'carol-x/Rust_Thing']);
    expect(r.skipped).toBe(0);
    expect(r.repos[0]).toEqual({
      slug: 'alice/fast-crawler',
      owner: 'alice',
      name: 'fast-crawler',
      position: 1,
      description: 'A fast crawler & friends (release notes)',
      language: 'Python',
      stars: 12345,
      forks: 1234,
      starsInPeriod: 1021,
      period: 'daily',
      page: PAGE,
    });
    expect(r.repos[1]).toMatchObject({
      position: 2,
      description: null,
      language: null,
      stars: 7,
      forks: null,
    });
    expect(r.repos[1]).toMatchObject({ starsInPeriod: 1, period: 'daily' });
    expect(r.repos[2]).toMatchObject({
      description: 'multi line text (release notes)',
      stars: null,
      forks: 0,
    });
    expect(r.repos[2]).toMatchObject({ starsInPeriod: null, period: null });
  });

  it('reads the period of "stars this week / this month"', () => {
    for (const [since, period] of [
      ['weekly', 'weekly'],
      ['monthly', 'monthly'],
    ] as const) {
      const r = extractTrending(trendingPage(ENTRIES, { since }), `${WEB}/trending?since=${since}`, WEB);
      expect(r.kind === 'listed' && r.repos[0].period).toBe(period);
      expect(r.kind === 'listed' && r.repos[0].starsInPeriod).toBe(1021);
    }
  });

  it('never takes menus, buttons, avatars, stargazers, releases, footer or commented-out links', () => {
    const html = trendingPage(ENTRIES, { web: WEB });
    // The distractors are really there...
    for (const d of [
      '/sponsors/alice',
      '/alice/fast-crawler/star',
      '/login?return_to=%2Falice%2Ffast-crawler',
      '/alice/fast-crawler/stargazers',
      'href="/bob"',
      '/ghost/hidden-repo',
      '/trending/python',
      '/orgs/community/discussions',
      'https://github.com/github/docs"',
      'https://github.com/alice/fast-crawler/releases/tag/v1.0',
    ])
      expect(html).toContain(d);
    // ...and none is listed.
    const r = extractTrending(html, PAGE, WEB);
    const slugs = r.kind === 'listed' ? r.repos.map((x) => x.slug) : [];
    expect(slugs).not.toContain('ghost/hidden-repo');
    expect(slugs).not.toContain('github/docs');
    expect(slugs).not.toContain('trending/python');
    expect(slugs).toHaveLength(3);
  });

  it('rejects heading links that are not exactly one repository on the web base', () => {
    const entry = (href: string) =>
      `<article class="Box-row"><h2 class="h3"><a href="${href}">x / y</a></h2></article>`;
    const hrefs = [
      '/alice', // a user
      '/alice/repo/stargazers', // three segments
      'https://github.com/alice/repo/releases', // absolute, releases
      'https://evil.example/alice/repo', // another host
      '/sponsors/alice',
      '/topics/crawler',
      '/features/actions',
      '/marketplace/actions',
      '/apps/x',
      '/orgs/acme',
      '/login?return_to=/alice/repo',
      '/signup',
      '/-bad/repo',
      '/alice/..',
      'javascript:alert(1)',
    ];
    const html = `<html><body>${hrefs.map(entry).join('')}${entry('/ok/repo')}</body></html>`;
    const r = extractTrending(html, PAGE, WEB);
    expect(r).toMatchObject({ kind: 'listed', skipped: hrefs.length });
    expect(r.kind === 'listed' && r.repos.map((x) => [x.slug, x.position])).toEqual([
      ['ok/repo', hrefs.length + 1],
    ]);
  });

  it('accepts absolute and trailing-slash heading links; keeps a repeated repository once', () => {
    const html = `<article class="Box-row"><h2><a href="https://github.com/a/b/">a / b</a></h2></article>
      <article class="Box-row"><h1 class="h3"><a href=" /c/d ">c / d</a></h1></article>
      <article class="Box-row"><h2><a href="/A/B">A / B</a></h2></article>`;
    const r = extractTrending(html, PAGE, WEB);
    expect(r.kind === 'listed' && r.repos.map((x) => x.slug)).toEqual(['a/b', 'c/d']);
    expect(r.kind === 'listed' && r.skipped).toBe(1);
  });

  it('respects a web base with a path prefix', () => {
    const web = 'https://ghe.example/gh';
    const html = `<article class="Box-row"><h2><a href="/gh/a/b">a / b</a></h2></article>
      <article class="Box-row"><h2><a href="/a/b">a / b</a></h2></article>`;
    const r = extractTrending(html, 'https://ghe.example/gh/trending', web);
    expect(r.kind === 'listed' && r.repos.map((x) => x.slug)).toEqual(['a/b']);
  });

  it('tells the explicit empty state from a changed layout', () => {
    expect(extractTrending(trendingPage([], { layout: 'empty', language: 'COBOL' }), PAGE, WEB)).toEqual({
      kind: 'empty',
    });
    expect(extractTrending(trendingPage(ENTRIES, { layout: 'changed' }), PAGE, WEB)).toEqual({
      kind: 'unrecognized',
      entries: 0,
    });
    // A normal page with no entries at all, and a login wall, are not "empty": they warn.
    expect(extractTrending(trendingPage([]), PAGE, WEB).kind).toBe('unrecognized');
    expect(extractTrending('<html><body><form action="/session"></form></body></html>', PAGE, WEB).kind).toBe(
      'unrecognized',
    );
    // The developers page has entries, but they link to users.
    const devs = `<article class="Box-row"><h1 class="h3"><a href="/alice">Alice</a></h1>
      <article class="Box-row"><h1 class="h3"><a href="/bob">Bob</a></h1></article>`;
    expect(extractTrending(devs, PAGE, WEB)).toEqual({ kind: 'unrecognized', entries: 2 });
  });

  it('never throws on garbage', () => {
    for (const s of ['', '<<<>>>', '\u0000\u0001', '<article class="Box-row"><h2><a href=']) {
      expect(() => extractTrending(s, PAGE, WEB)).not.toThrow();
    }
  });
});

describe('trending helpers', () => {
  it('parseCount reads displayed counts', () => {
    expect(parseCount('1,234')).toBe(1234);
    expect(parseCount('  56 ')).toBe(56);
    expect(parseCount('1.2k')).toBe(1200);
    expect(parseCount('12,345,678 stars')).toBe(12345678);
    expect(parseCount('none')).toBeNull();
  });

  it('trendingUrl builds all-language and per-language URLs under the web base', () => {
    expect(trendingUrl(WEB, '', 'daily')).toBe('https://github.com/trending?since=daily');
    expect(trendingUrl(WEB, 'Python', 'weekly')).toBe('https://github.com/trending/python?since=weekly');
    expect(trendingUrl(WEB, 'C++', 'monthly')).toBe('https://github.com/trending/c%2B%2B?since=monthly');
    expect(trendingUrl(WEB, 'Jupyter Notebook', 'daily')).toBe(
      'https://github.com/trending/jupyter-notebook?since=daily',
    );
    expect(trendingUrl('https://ghe.example/gh/', 'c#', 'daily')).toBe(
      'https://ghe.example/gh/trending/c%23?since=daily',
    );
  });

  it('the warning names the page and says "trending"', () => {
    const m = unrecognizedTrendingMessage(PAGE, 0);
    expect(m).toContain(PAGE);
    expect(m).toMatch(/^trending page .* layout may have changed/);
    expect(unrecognizedTrendingMessage(PAGE, 2)).toContain('2 entries without a repository link');
  });
});
