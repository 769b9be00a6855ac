/** The sitemap, feed and discovery readers on a local copy of a real blog's shape (WordPress + Yoast). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeed } from '../../src/extract/feed.js';
import { discoverFeeds } from '../../src/extract/feed-links.js';
import { readSitemap } from '../../src/extract/sitemap.js';
import { sitemapsInRobotsTxt } from '../../src/http/robots.js';
import { SitemapRound } from '../../src/sources/sitemap-round.js';
import { startRealBlog } from '../fixtures/real-blog.js';
import type { FixtureServer } from '../fixtures/site-server.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await startRealBlog();
});
afterAll(async () => {
  await server.close();
});

async function get(path: string) {
  const res = await fetch(server.origin + path);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
}

describe('a real blog’s feed and sitemaps, round-tripped', () => {
  it('robots.txt → index → children → every page once; feed entries are all in the sitemap', async () => {
    const robots = await get('/robots.txt');
    const seeds = sitemapsInRobotsTxt(robots.body.toString(), `${server.origin}/robots.txt`);
    expect(seeds).toEqual([`${server.origin}/sitemap_index.xml`]);

    const round = new SitemapRound();
    const queue = seeds.filter((s) => round.seed(s)).map((url) => ({ url, depth: 0 }));
    const pages: string[] = [];
    const kinds: string[] = [];
    while (queue.length > 0) {
      const { url, depth } = queue.shift()!;
      const res = await get(new URL(url).pathname);
      const sm = await readSitemap([res.body], { url, contentType: res.contentType });
      expect(sm.warnings).toEqual([]);
      kinds.push(sm.kind);
      for (const c of round.children(sm.sitemaps, depth)) queue.push({ url: c.url, depth: depth + 1 });
      pages.push(...round.pagesOf(sm.urls).map((e) => e.url));
    }
    expect(kinds).toEqual(['sitemapindex', 'urlset', 'urlset', 'urlset', 'urlset']);
    expect(pages).toHaveLength(1 + 8 + 3 + 5 + 3);
    expect(pages.some((u) => u.includes('/wp-content/'))).toBe(false); // image:loc not taken for pages

    const home = await get('/');
    const feeds = discoverFeeds(home.body.toString(), `${server.origin}/`);
    expect(feeds.map((f) => [f.url, f.title])).toEqual([
      [`${server.origin}/feed/`, 'Crawl Notes » Feed'],
      [`${server.origin}/comments/feed/`, 'Crawl Notes » Comments Feed'],
    ]);

    const res = await get('/feed/');
    const feed = readFeed(res.body, res.contentType, feeds[0].url)!;
    expect(feed.kind).toBe('rss');
    expect(feed.title).toBe('Crawl Notes – Engineering blog');
    expect(feed.entries).toHaveLength(8);
    expect(feed.entries[1]).toEqual({
      url: `${server.origin}/2024/02/27/politeness-is-a-data-structure/`,
      title: 'Politeness is a data structure – not a sleep()',
      published: '2024-02-27T08:30:00.000Z',
      updated: null,
    });
    expect(feed.entries[4].title).toBe('Sitemaps are messy, and that’s OK');
    for (const e of feed.entries) expect(pages).toContain(e.url);
  });

  it('reads the same feed when it is served as text/html', () => {
    const text = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><item><title>T &#8211; x</title><link>https://blog.example.com/a/</link></item></channel></rss>',
    );
    expect(
      readFeed(text, 'text/html; charset=UTF-8', 'https://blog.example.com/feed/')!.entries[0].title,
    ).toBe('T – x');
  });
});
