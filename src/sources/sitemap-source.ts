/**
 * The `sitemap` source (like Scrapy's sitemap spider): its seeds are sitemap or sitemap-index
 * URLs, or a site's robots.txt whose `Sitemap:` lines it reads. Every sitemap is read again each
 * round (nested indexes, gzip, plain text, the protocol's limits: `extract/sitemap.ts`); each
 * listed page is fetched once, and again on a later round only when its `<lastmod>` is later than
 * its last fetch. Pages are read as the crawl reads them, their links not followed by default
 * (`follow: all` or `articles` follows them).
 */
import * as z from 'zod';
import { pageOptionKeys, readPage } from './page-reader.js';
import { defineSource } from './source.js';

/** A seed whose path is `/robots.txt` is read for its `Sitemap:` lines; any other is a sitemap. */
function isRobotsTxt(url: string): boolean {
  return new URL(url).pathname === '/robots.txt';
}

export const sitemapSource = defineSource<Record<string, unknown>>({
  name: 'sitemap',
  threadSafe: true,
  options: z.object(pageOptionKeys('none')),
  handle: (page, ctx) =>
    readPage(page, ctx, page.depth === 0 && isRobotsTxt(page.url) ? 'robots' : 'sitemap'),
});
