/**
 * The `crawl` source (docs sites, blogs): HTML pages yield a title and links
 * (`html-page.ts`); with its options, articles as Markdown, feeds and site sitemaps too
 * (`page-reader.ts`), and with `pageRequisites` (wget `-p`) the images, stylesheets, scripts and
 * icons of each page, and what stylesheets load, as requests labelled {@link REQUISITE_LABEL}.
 * A source like any other (DESIGN §2b), with no `seeds()`: a round is the configured seeds.
 */
import * as z from 'zod';
import { cssUrls } from '../extract/css-urls.js';
import { pageRequisites } from '../extract/requisites.js';
import { decodeBody } from '../http/charset.js';
import { REQUISITE_LABEL } from '../url/scope.js';
import { pageOptionKeys, readPage } from './page-reader.js';
import { defineSource, type HandleResult, type Page, type Request, type SourceContext } from './source.js';

export { isHtml, readHtmlPage, sniffedType } from './html-page.js';

const CSS_TYPE = /^\s*text\/css\b/i;

/** Options of the `crawl` source: the page options of the built-ins, and `pageRequisites`. */
export const CrawlSourceOptions = z.object({
  ...pageOptionKeys('all'),
  /** Follow each page's requisites (images, stylesheets, scripts, icons, fonts). Default false. */
  pageRequisites: z.boolean().default(false),
});

/**
 * A page as the crawl source reads it ({@link readPage}); with requisites on, a stylesheet's
 * `url(...)` and `@import`s are followed, an HTML page's requisites are added to its links, and a
 * requisite that is an HTML page gives its title only (its links are not followed, as wget `-p`
 * does not).
 */
function readCrawlPage(page: Page, ctx: SourceContext): HandleResult {
  if (ctx.options.pageRequisites !== true) return readPage(page, ctx, 'page') as HandleResult;
  if (CSS_TYPE.test(page.contentType ?? '')) {
    const { text } = decodeBody(page.body, page.contentType, false);
    return { follow: asRequisites(cssUrls(text, page.finalUrl)) };
  }
  const result = readPage(page, ctx, 'page') as HandleResult;
  if (page.label === REQUISITE_LABEL) {
    delete result.follow;
    return result;
  }
  if (result.follow !== undefined) {
    const { text } = decodeBody(page.body, page.contentType, true);
    result.follow = [...result.follow, ...asRequisites(pageRequisites(text, page.finalUrl))];
  }
  return result;
}

function asRequisites(urls: string[]): Request[] {
  return urls.map((url) => ({ url, label: REQUISITE_LABEL }));
}

/**
 * The built-in `crawl` source: HTML pages yield a title and links; everything else only an item.
 * Its `handle` is synchronous for every page a user source may hand it (a context without the
 * crawl's options reads pages as the plain crawl); only the sitemaps it reads itself
 * (`sitemaps: true`) are read asynchronously.
 */
export const crawlSource = defineSource<Record<string, unknown>>({
  name: 'crawl',
  threadSafe: true,
  options: CrawlSourceOptions,
  handle: readCrawlPage,
});
