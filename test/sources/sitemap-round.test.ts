import { describe, expect, it } from 'vitest';
import { isUnchangedSince, SitemapRound } from '../../src/sources/sitemap-round.js';

const e = (url: string, lastmod: number | null = null) => ({ url, lastmod });
const urls = (list: { url: string }[]) => list.map((x) => x.url);

describe('SitemapRound', () => {
  it('fetches each sitemap once: a seed twice, an index listing itself, a cycle, a child listed twice', () => {
    const round = new SitemapRound();
    expect(round.seed('http://s/index.xml')).toBe(true);
    expect(round.seed('http://s/index.xml')).toBe(false);
    // index.xml lists itself, a.xml twice and b.xml
    const first = round.children(
      [e('http://s/index.xml'), e('http://s/a.xml'), e('http://s/a.xml'), e('http://s/b.xml')],
      0,
    );
    expect(urls(first)).toEqual(['http://s/a.xml', 'http://s/b.xml']);
    // a.xml is an index too and lists index.xml (cycle) and b.xml (already claimed) and c.xml
    const second = round.children([e('http://s/index.xml'), e('http://s/b.xml'), e('http://s/c.xml')], 1);
    expect(urls(second)).toEqual(['http://s/c.xml']);
    expect(round.skipped.seen).toBe(5);
    expect(round.sitemapCount).toBe(4);
  });

  it('stops nesting below maxIndexDepth', () => {
    const round = new SitemapRound({ maxIndexDepth: 2 });
    expect(urls(round.children([e('http://s/1.xml')], 0))).toEqual(['http://s/1.xml']);
    expect(urls(round.children([e('http://s/2.xml')], 1))).toEqual(['http://s/2.xml']);
    expect(round.children([e('http://s/3.xml'), e('http://s/4.xml')], 2)).toEqual([]);
    expect(round.skipped.tooDeep).toBe(2);
  });

  it('fetches at most maxSitemaps per round', () => {
    const round = new SitemapRound({ maxSitemaps: 3 });
    expect(round.seed('http://s/i.xml')).toBe(true);
    const kids = round.children(
      Array.from({ length: 5 }, (_, i) => e(`http://s/${i}.xml`)),
      0,
    );
    expect(kids).toHaveLength(2);
    expect(round.skipped.overLimit).toBe(3);
    expect(round.seed('http://s/other.xml')).toBe(false);
  });

  it('lists each page once per round, across sitemaps', () => {
    const round = new SitemapRound();
    expect(urls(round.pagesOf([e('http://s/p1'), e('http://s/p2'), e('http://s/p1')]))).toEqual([
      'http://s/p1',
      'http://s/p2',
    ]);
    expect(urls(round.pagesOf([e('http://s/p2'), e('http://s/p3')]))).toEqual(['http://s/p3']);
    expect(round.skipped.seen).toBe(2);
  });

  it('on a later round, skips pages and child sitemaps whose lastmod is not after our last fetch', () => {
    const fetched = new Map([
      ['http://s/old', 2_000],
      ['http://s/edited', 2_000],
      ['http://s/child-old.xml', 2_000],
    ]);
    const round = new SitemapRound({ lastFetched: (u) => fetched.get(u) });
    const pages = round.pagesOf([
      e('http://s/old', 1_000), // unchanged since 2,000
      e('http://s/edited', 3_000), // changed after our fetch
      e('http://s/new', 1_000), // never fetched
      e('http://s/no-lastmod'), // unknown: fetch
    ]);
    expect(urls(pages)).toEqual(['http://s/edited', 'http://s/new', 'http://s/no-lastmod']);
    const kids = round.children([e('http://s/child-old.xml', 2_000), e('http://s/child-new.xml', 5_000)], 0);
    expect(urls(kids)).toEqual(['http://s/child-new.xml']);
    expect(round.skipped.unchanged).toBe(2);
    // listed again in another index: still once
    expect(round.children([e('http://s/child-old.xml', 2_000)], 0)).toEqual([]);
  });
});

describe('isUnchangedSince', () => {
  it('is true only when both are known and lastmod is not later', () => {
    expect(isUnchangedSince(1_000, 1_000)).toBe(true);
    expect(isUnchangedSince(999, 1_000)).toBe(true);
    expect(isUnchangedSince(1_001, 1_000)).toBe(false);
    expect(isUnchangedSince(null, 1_000)).toBe(false);
    expect(isUnchangedSince(1_000, undefined)).toBe(false);
  });
});
