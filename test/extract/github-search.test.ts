import { describe, expect, it } from 'vitest';
import {
  nextSearchUrl,
  parseSearchPage,
  searchPosition,
  searchRequests,
  searchUrl,
  topicQuery,
} from '../../src/extract/github-search.js';
import { mulberry32 } from '../fixtures/prng.js';

const API = 'https://api.github.com';
const GHE = 'https://ghe.example/api/v3';

describe('search URLs', () => {
  it('builds the first page without page=, later pages with it, under a prefixed base', () => {
    expect(searchUrl(API, topicQuery('web-scraping'), 10)).toBe(
      'https://api.github.com/search/repositories?q=topic%3Aweb-scraping&sort=stars&order=desc&per_page=10',
    );
    expect(searchUrl(GHE, 'crawler language:go', 100, 3)).toBe(
      'https://ghe.example/api/v3/search/repositories?q=crawler+language%3Ago&sort=stars&order=desc&per_page=100&page=3',
    );
  });

  it('refuses per_page outside 1..100', () => {
    for (const n of [0, 101, 1.5, Number.NaN]) expect(() => searchUrl(API, 'x', n)).toThrow(RangeError);
  });

  it('a round has one request per topic in a random order, then the query', () => {
    const topics = ['a', 'b', 'c', 'd', 'e'];
    const orders = new Set<string>();
    const random = mulberry32(7);
    for (let i = 0; i < 20; i++) {
      const reqs = searchRequests(API, { topics, query: ' stars:>100 ', perPage: 5 }, random);
      expect(reqs.map((r) => r.query).sort()).toEqual([
        'stars:>100',
        'topic:a',
        'topic:b',
        'topic:c',
        'topic:d',
        'topic:e',
      ]);
      expect(reqs.at(-1)?.query).toBe('stars:>100');
      expect(reqs[0].url).toBe(searchUrl(API, reqs[0].query, 5));
      orders.add(reqs.map((r) => r.query).join());
    }
    expect(orders.size).toBeGreaterThan(5);
    expect(topics).toEqual(['a', 'b', 'c', 'd', 'e']); // the configured list is not reordered
    expect(searchRequests(API, { perPage: 5 })).toEqual([]);
  });

  it('searchPosition reads q, page and per_page with the API’s defaults', () => {
    expect(searchPosition(`${API}/search/repositories?q=x`)).toEqual({ query: 'x', page: 1, perPage: 30 });
    expect(searchPosition(`${API}/search/repositories?q=x&page=4&per_page=7`)).toEqual({
      query: 'x',
      page: 4,
      perPage: 7,
    });
    expect(searchPosition(`${API}/search/repositories?page=2`)).toBeNull();
    expect(searchPosition(`${API}/search/repositories?q=x&page=0`)).toBeNull();
  });
});

describe('parseSearchPage', () => {
  const item = (full_name: unknown, extra: object = {}) => ({ full_name, ...extra });
  it('reads repositories with their rank on the page and in the whole list', () => {
    const url = `${API}/search/repositories?q=topic%3Acrawler&per_page=2&page=3`;
    const page = parseSearchPage(
      {
        total_count: 5000,
        incomplete_results: false,
        items: [
          item('a/b', {
            stargazers_count: 10,
            language: 'Go',
            description: 'd',
            default_branch: 'main',
            html_url: 'x',
          }),
          item('c/d', { stargazers_count: 'many', language: null, description: '' }),
        ],
      },
      url,
    );
    expect(page.totalCount).toBe(5000);
    expect(page.incomplete).toBe(false);
    expect(page.invalid).toBe(0);
    expect(page.results).toEqual([
      {
        slug: 'a/b',
        owner: 'a',
        name: 'b',
        rank: 5,
        stars: 10,
        language: 'Go',
        description: 'd',
        defaultBranch: 'main',
        query: 'topic:crawler',
      },
      {
        slug: 'c/d',
        owner: 'c',
        name: 'd',
        rank: 6,
        stars: null,
        language: null,
        description: null,
        defaultBranch: null,
        query: 'topic:crawler',
      },
    ]);
  });

  it('leaves out items without a valid full_name, keeping ranks by position', () => {
    const page = parseSearchPage(
      { items: [item('bad'), null, item('x/y'), item(42), item('sponsors/x')], incomplete_results: true },
      `${API}/search/repositories?q=x&per_page=10`,
    );
    expect(page.results.map((r) => [r.slug, r.rank])).toEqual([['x/y', 3]]);
    expect(page.invalid).toBe(4);
    expect(page.incomplete).toBe(true);
    expect(page.totalCount).toBeNull();
  });

  it('throws on a body that is not a search result, or a URL that is not a search', () => {
    expect(() => parseSearchPage({ message: 'Validation Failed' }, `${API}/search/repositories?q=x`)).toThrow(
      /no "items" array/,
    );
    expect(() => parseSearchPage(null, `${API}/search/repositories?q=x`)).toThrow(TypeError);
    expect(() => parseSearchPage({ items: [] }, `${API}/search/repositories`)).toThrow(/not a search URL/);
  });
});

describe('nextSearchUrl', () => {
  const url = (page: number, per: number, base = API) =>
    `${base}/search/repositories?q=x&per_page=${per}&page=${page}`;
  const link = (next: string) => `<${next}>; rel="next", <${url(99, 10)}>; rel="last"`;

  it('follows rel="next" only, never guessing', () => {
    expect(nextSearchUrl(link(url(2, 10)), url(1, 10), API, 5)).toBe(url(2, 10));
    expect(nextSearchUrl(`<${url(2, 10)}>; rel="last"`, url(1, 10), API, 5)).toBeNull();
    expect(nextSearchUrl(null, url(1, 10), API, 5)).toBeNull();
  });

  it('stops at maxPages', () => {
    expect(nextSearchUrl(link(url(3, 10)), url(2, 10), API, 3)).toBe(url(3, 10));
    expect(nextSearchUrl(link(url(4, 10)), url(3, 10), API, 3)).toBeNull();
  });

  it('stops before page × per_page > 1000', () => {
    expect(nextSearchUrl(link(url(10, 100)), url(9, 100), API, 50)).toBe(url(10, 100));
    expect(nextSearchUrl(link(url(11, 100)), url(10, 100), API, 50)).toBeNull();
    expect(nextSearchUrl(link(url(33, 30)), url(32, 30), API, 50)).toBe(url(33, 30));
    expect(nextSearchUrl(link(url(34, 30)), url(33, 30), API, 50)).toBeNull();
  });

  it('does not follow a next link off the API’s search endpoint; keeps a base prefix', () => {
    expect(
      nextSearchUrl(link('https://evil.example/search/repositories?q=x&page=2'), url(1, 10), API, 5),
    ).toBeNull();
    expect(nextSearchUrl(link(`${API}/user/repos?page=2`), url(1, 10), API, 5)).toBeNull();
    expect(nextSearchUrl(link(url(2, 10, GHE)), url(1, 10, GHE), GHE, 5)).toBe(url(2, 10, GHE));
    expect(nextSearchUrl(link(url(2, 10, 'https://ghe.example')), url(1, 10, GHE), GHE, 5)).toBeNull();
  });
});
