import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GITHUB_BASES,
  githubAuthHeaders,
  githubBudgetKey,
  githubResource,
} from '../../src/http/github-api.js';

const GHE = { web: 'https://ghe.example', api: 'https://ghe.example/api/v3', raw: 'https://ghe.example/raw' };

describe('githubResource', () => {
  it('maps API paths to GitHub’s resource names, the raw host to raw, web pages to none', () => {
    const b = DEFAULT_GITHUB_BASES;
    expect(githubResource('https://api.github.com/search/repositories?q=x', b)).toBe('search');
    expect(githubResource('https://api.github.com/search/code?q=x', b)).toBe('code_search');
    expect(githubResource('https://api.github.com/graphql', b)).toBe('graphql');
    expect(githubResource('https://api.github.com/repos/o/r/readme', b)).toBe('core');
    expect(githubResource('https://raw.githubusercontent.com/o/r/HEAD/README.md', b)).toBe('raw');
    expect(githubResource('https://github.com/trending', b)).toBeNull();
    expect(githubResource('https://example.org/search/x', b)).toBeNull();
  });

  it('tells apart bases on one host by their path prefix', () => {
    expect(githubResource('https://ghe.example/api/v3/search/repositories', GHE)).toBe('search');
    expect(githubResource('https://ghe.example/api/v3/repos/o/r/readme', GHE)).toBe('core');
    expect(githubResource('https://ghe.example/raw/o/r/HEAD/README.md', GHE)).toBe('raw');
    expect(githubResource('https://ghe.example/search/repositories', GHE)).toBeNull();
  });

  it('githubBudgetKey: raw requests carry no token, so they are anonymous', () => {
    expect(githubBudgetKey('https://ghe.example/raw/o/r/HEAD/README', GHE, 'token-1')).toEqual({
      identity: 'anonymous',
      resource: 'raw',
    });
    expect(githubBudgetKey('https://ghe.example/api/v3/repos/o/r', GHE, 'token-1')).toEqual({
      identity: 'token-1',
      resource: 'core',
    });
    expect(githubBudgetKey('https://ghe.example/trending', GHE, 'token-1')).toBeNull();
  });
});

describe('githubAuthHeaders', () => {
  it('gives the token to API URLs only', () => {
    expect(githubAuthHeaders('https://ghe.example/api/v3/repos/o/r/readme', GHE, 't')).toEqual({
      authorization: 'Bearer t',
    });
    for (const u of [
      'https://ghe.example/trending',
      'https://ghe.example/raw/o/r/HEAD/README.md',
      'https://ghe.example/api/v30/x',
      'http://ghe.example/api/v3/repos/o/r',
      'https://evil.example/api/v3/repos/o/r',
    ])
      expect(githubAuthHeaders(u, GHE, 't'), u).toEqual({});
    expect(githubAuthHeaders('https://ghe.example/api/v3/x', GHE, '')).toEqual({});
    expect(githubAuthHeaders('https://ghe.example/api/v3/x', GHE, null)).toEqual({});
  });
});
