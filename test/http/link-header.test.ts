import { describe, expect, it } from 'vitest';
import { linkTarget, parseLinkHeader } from '../../src/http/link-header.js';

const BASE = 'https://api.github.com/search/repositories?q=x';

describe('parseLinkHeader (RFC 8288)', () => {
  it('parses GitHub’s pagination header', () => {
    const v =
      '<https://api.github.com/search/repositories?q=x&page=2>; rel="next", <https://api.github.com/search/repositories?q=x&page=34>; rel="last"';
    expect(parseLinkHeader(v, BASE).map((l) => [l.rels, l.url])).toEqual([
      [['next'], 'https://api.github.com/search/repositories?q=x&page=2'],
      [['last'], 'https://api.github.com/search/repositories?q=x&page=34'],
    ]);
  });

  it('handles quoted commas and semicolons, escapes, unquoted and multiple rels, relative targets', () => {
    const v =
      '</p?a=1,2>; title="a, b; c \\"q\\""; rel="prev  NEXT", <other>;rel=last ;x=1, <https://x.example/>';
    const links = parseLinkHeader(v, BASE);
    expect(links).toHaveLength(3);
    expect(links[0]).toEqual({
      url: 'https://api.github.com/p?a=1,2',
      rels: ['prev', 'next'],
      params: { title: 'a, b; c "q"', rel: 'prev  NEXT' },
    });
    expect(links[1]).toEqual({
      url: 'https://api.github.com/search/other',
      rels: ['last'],
      params: { rel: 'last', x: '1' },
    });
    expect(links[2].rels).toEqual([]);
  });

  it('stops at garbage, keeping what came before; empty input gives nothing', () => {
    expect(parseLinkHeader('<a>; rel=next, garbage <b>; rel=last', BASE).map((l) => l.rels)).toEqual([
      ['next'],
    ]);
    expect(parseLinkHeader('', BASE)).toEqual([]);
    expect(parseLinkHeader(null, BASE)).toEqual([]);
    expect(parseLinkHeader('<unterminated; rel=next', BASE)).toEqual([]);
  });

  it('linkTarget finds a relation case-insensitively, first one wins', () => {
    const v = '<a>; rel="prev", <b>; rel="Next", <c>; rel=next';
    expect(linkTarget(v, BASE, 'next')).toBe('https://api.github.com/search/b');
    expect(linkTarget(v, BASE, 'last')).toBeNull();
  });
});
