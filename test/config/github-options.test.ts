import { describe, expect, it } from 'vitest';
import {
  GithubSearchOptionsSchema,
  GithubTrendingOptionsSchema,
  resolveReadmeVia,
} from '../../src/config/github-options.js';

describe('GitHub source options', () => {
  it('trending defaults: github.com bases, GITHUB_TOKEN, all languages, daily, readme auto', () => {
    expect(GithubTrendingOptionsSchema.parse({})).toMatchObject({
      github: {
        web: 'https://github.com',
        api: 'https://api.github.com',
        raw: 'https://raw.githubusercontent.com',
        tokenEnv: 'GITHUB_TOKEN',
      },
      languages: [''],
      since: ['daily'],
      readme: 'auto',
      discover: false,
      discoverDepth: 1,
    });
  });

  it('search: needs topics or a query; perPage 1..100', () => {
    expect(GithubSearchOptionsSchema.safeParse({}).error?.issues[0].message).toBe(
      'github-search needs "topics" or "query"',
    );
    const o = GithubSearchOptionsSchema.parse({ topics: ['llm'], perPage: 100 });
    expect(o).toMatchObject({ perPage: 100, searchPages: 1 });
    expect(GithubSearchOptionsSchema.parse({ query: 'crawler' }).perPage).toBe(30);
    expect(() => GithubSearchOptionsSchema.parse({ topics: ['x'], perPage: 101 })).toThrow();
  });

  it('bases may carry a path; bad bases and token variable names are refused', () => {
    const o = GithubTrendingOptionsSchema.parse({ github: { api: 'https://ghe.example/api/v3' } });
    expect(o.github).toMatchObject({ api: 'https://ghe.example/api/v3', web: 'https://github.com' });
    expect(() => GithubTrendingOptionsSchema.parse({ github: { api: 'api.github.com' } })).toThrow(
      /base URL/,
    );
    expect(() => GithubTrendingOptionsSchema.parse({ github: { tokenEnv: 'ghp_123-abc' } })).toThrow(
      /environment variable/,
    );
    expect(() => GithubTrendingOptionsSchema.parse({ github: { token: 'x' } })).toThrow();
    expect(() => GithubTrendingOptionsSchema.parse({ since: ['yearly'] })).toThrow();
  });

  it('readme auto: the API with a token, the raw host without', () => {
    expect(resolveReadmeVia('auto', true)).toBe('api');
    expect(resolveReadmeVia('auto', false)).toBe('raw');
    expect(resolveReadmeVia('api-raw', false)).toBe('api-raw');
  });
});
