/**
 * The `crawl` source (docs sites, blogs): decodes HTML by its charset, takes the title and the
 * links; other content types are stored, not parsed.
 */
import { extractHtml } from '../extract/html.js';
import { decodeBody } from '../http/charset.js';
import type { Page, Source, SourceResult } from './source.js';

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

/** Crawl source: HTML pages yield a title and links; everything else only an item. */
export class CrawlSource implements Source {
  readonly name: string = 'crawl';
  readonly offThread: boolean = true;

  handle(page: Page): SourceResult {
    if (!isHtml(page.contentType, page.body)) return {};
    const { text, encoding } = decodeBody(page.body, page.contentType, true);
    const html = extractHtml(text, page.finalUrl);
    const data: Record<string, unknown> | undefined = encoding !== 'UTF-8' ? { encoding } : undefined;
    return { title: html.title, links: html.links, data };
  }
}
