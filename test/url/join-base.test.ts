import { describe, expect, it } from 'vitest';
import { joinBase, parseBase, pathBelowBase } from '../../src/url/join-base.js';

describe('joinBase', () => {
  it('keeps a base path prefix, with or without trailing slash or leading slash in the path', () => {
    for (const base of [
      'https://ghe.example/api/v3',
      'https://ghe.example/api/v3/',
      'https://ghe.example/api/v3//',
    ])
      for (const path of ['/repos/o/r/readme', 'repos/o/r/readme'])
        expect(joinBase(base, path)).toBe('https://ghe.example/api/v3/repos/o/r/readme');
  });

  it('joins under a bare origin', () => {
    expect(joinBase('https://api.github.com', '/search/repositories')).toBe(
      'https://api.github.com/search/repositories',
    );
    expect(joinBase('http://127.0.0.1:8080/', '/a')).toBe('http://127.0.0.1:8080/a');
  });

  it('encodes query parameters in order and leaves out undefined ones', () => {
    expect(
      joinBase('https://api.github.com', '/search/repositories', { q: 'topic:a b', n: 5, x: undefined }),
    ).toBe('https://api.github.com/search/repositories?q=topic%3Aa+b&n=5');
    expect(joinBase('https://x.example', '/p', {})).toBe('https://x.example/p');
  });

  it('rejects bases that are not http(s) or carry a query, fragment or credentials', () => {
    for (const bad of ['api.github.com', 'ftp://x/', 'https://x/?a=1', 'https://x/#f', 'https://u:p@x/'])
      expect(() => joinBase(bad, '/p')).toThrow(TypeError);
    expect(() => parseBase('nope')).toThrow(/base URL "nope"/);
  });
});

describe('pathBelowBase', () => {
  it('gives the path below a prefixed base, or null outside it', () => {
    const base = 'https://ghe.example/api/v3';
    expect(pathBelowBase('https://ghe.example/api/v3/search/repositories?q=x', base)).toBe(
      '/search/repositories',
    );
    expect(pathBelowBase('https://ghe.example/api/v3', base)).toBe('/');
    expect(pathBelowBase('https://ghe.example/api/v30/x', base)).toBeNull();
    expect(pathBelowBase('https://ghe.example/other', base)).toBeNull();
    expect(pathBelowBase('https://other.example/api/v3/x', base)).toBeNull();
    expect(pathBelowBase('http://ghe.example/api/v3/x', base)).toBeNull();
    expect(pathBelowBase('not a url', base)).toBeNull();
  });

  it('takes any path of an origin-only base', () => {
    expect(pathBelowBase('https://github.com/o/r', 'https://github.com/')).toBe('/o/r');
    expect(pathBelowBase('https://GitHub.com:443/o/r', 'https://github.com')).toBe('/o/r');
  });
});
