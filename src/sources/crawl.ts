/**
 * The `crawl` source (docs sites, blogs): HTML pages yield a title and links
 * (`html-page.ts`); with its options, articles as Markdown, feeds and site sitemaps too
 * (`page-reader.ts`). A source like any other (DESIGN §2b), with no `seeds()`: a round is the
 * configured seeds.
 */
import { z } from 'zod';
import { pageOptionKeys, readPage } from './page-reader.js';
import { defineSource, type HandleResult, type Page, type SourceContext } from './source.js';

export { isHtml, readHtmlPage, sniffedType } from './html-page.js';

/**
 * The built-in `crawl` source: HTML pages yield a title and links; everything else only an item.
 * Its `handle` is synchronous for every page a user source may hand it (a context without the
 * crawl's options reads pages as the plain crawl); only the sitemaps it reads itself
 * (`sitemaps: true`) are read asynchronously.
 */
export const crawlSource = defineSource<Record<string, unknown>>({
  name: 'crawl',
  threadSafe: true,
  options: z.object(pageOptionKeys('all')),
  handle: (page: Page, ctx: SourceContext): HandleResult => readPage(page, ctx, 'page') as HandleResult,
});
