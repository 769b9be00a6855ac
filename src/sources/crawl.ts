/**
 * The `crawl` source (docs sites, blogs): decodes HTML by its charset, takes the title and the
 * links; other content types are stored, not parsed. A source like any other (DESIGN §2b), with
 * no options and no `seeds()`: a round is the configured seeds.
 */
import { extractHtml } from '../extract/html.js';
import { decodeBody } from '../http/charset.js';
import { defineSource, type HandleResult, type Page } from './source.js';

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/**
 * Whether a response is HTML: by Content-Type, or, when that is missing, by the body starting
 * with `<!doctype html` or `<html` (after whitespace/BOM).
 */
export function isHtml(contentType: string | null, body: Buffer): boolean {
  if (contentType) return HTML_TYPES.test(contentType);
  const head = body
    .subarray(0, 256)
    .toString('latin1')
    .replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
    .trimStart();
  return /^<(!doctype\s+html|html)[\s>]/i.test(head);
}

/**
 * An HTML page's title and links (absolute, canonical: the engine takes them as they are), and
 * `data.encoding` when the page is not UTF-8; nothing for other content.
 */
export function readHtmlPage(page: Pick<Page, 'contentType' | 'body' | 'finalUrl'>): HandleResult {
  if (!isHtml(page.contentType, page.body)) return {};
  const { text, encoding } = decodeBody(page.body, page.contentType, true);
  const html = extractHtml(text, page.finalUrl);
  const data: Record<string, unknown> | undefined = encoding !== 'UTF-8' ? { encoding } : undefined;
  return { title: html.title, follow: html.links, data };
}

/** The built-in `crawl` source: HTML pages yield a title and links; everything else only an item. */
export const crawlSource = defineSource({
  name: 'crawl',
  threadSafe: true,
  handle: readHtmlPage,
});
