/**
 * An HTML page as the built-in sources read it: decoded by its charset, its title, links and a
 * declarative refresh; other content types are stored, not parsed. A response without a usable
 * Content-Type is sniffed (WHATWG MIME Sniffing §7.1).
 */
import { HostTitleParts } from '../extract/host-title-parts.js';
import { extractHtml } from '../extract/html.js';
import { metadataOf, statedMetadata } from '../extract/page-metadata.js';
import { decodeSniffed, sniffEncoding, UTF8 } from '../http/charset.js';
import { headerUrl } from '../http/location.js';
import { isUnknownType, sniffUnknownType } from '../http/mime-sniff.js';
import { calendarShape } from '../url/shape-budget.js';
import type { HandleResult, Page } from './source.js';

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** A UTF-8 byte order mark. */
function hasUtf8Bom(body: Buffer): boolean {
  return body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
}

/**
 * The type of a response whose Content-Type is missing or unknown (`unknown/unknown`, ...), by
 * the WHATWG MIME Sniffing Standard §7.1: HTML when, after leading whitespace, the bytes start
 * with an HTML pattern (`<!DOCTYPE HTML`, `<html`, `<head`, `<title`, `<!--`, `<p`, ... then a
 * space or `>`). One departure: after a UTF-8 BOM the HTML patterns are tried too (the standard
 * would say text/plain; a page with a BOM and no type is still a page). Null when the type is
 * known (no sniffing) or the body is empty.
 */
export function sniffedType(contentType: string | null, body: Buffer): string | null {
  if (!isUnknownType(contentType) || body.length === 0) return null;
  if (hasUtf8Bom(body)) {
    const after = sniffUnknownType(body.subarray(3));
    if (after === 'text/html') return after;
  }
  return sniffUnknownType(body);
}

/** Whether a response is HTML: by Content-Type, or by sniffing when that is missing or unknown. */
export function isHtml(contentType: string | null, body: Buffer): boolean {
  const sniffed = sniffedType(contentType, body);
  if (sniffed !== null) return sniffed === 'text/html';
  return HTML_TYPES.test(contentType ?? '');
}

/** A header value read like `Location`: raw UTF-8 bytes in it are UTF-8 (see `headerUrl`). */
function headerValue(v: string | string[] | undefined): string | null {
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? null : headerUrl(first);
}

/** The `Content-Language` header's value (several headers joined with `, `), or null. */
export function contentLanguageOf(headers: Page['headers']): string | null {
  const v = headers['content-language'];
  return Array.isArray(v) ? v.join(', ') : (v ?? null);
}

/** The site names this thread has learned from the titles of each host's pages. */
const hostTitles = new HostTitleParts();

/**
 * The site names learned so far from the titles of `url`'s host (see `host-title-parts.ts`):
 * what the page's own metadata cannot say on Sphinx, MkDocs or most blogs.
 */
export function learnedSiteNames(url: string): readonly string[] {
  return hostTitles.namesOf(hostOf(url));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * An HTML page's title, links (absolute, canonical: the engine takes them as they are) and
 * declarative refresh (`<meta http-equiv=refresh>` or a `Refresh` header), its metadata in `data`
 * (`title`, `description`, `author`, `published`, `modified`, `language`, `canonical`, `siteName`:
 * those its markup states, read in the same pass by `metadataOf` of page-metadata.ts — the
 * declared language only, and no body hints; the title without the site name the host's earlier
 * titles taught, see {@link learnedSiteNames}), `data.encoding` when the page is not UTF-8 and
 * `data.sniffedType` when its type was sniffed; nothing else for other content. A text sketch for
 * the trap defence on date-like (calendar) URLs only.
 */
export function readHtmlPage(
  page: Pick<Page, 'url' | 'contentType' | 'headers' | 'body' | 'finalUrl'>,
): HandleResult {
  const sniffed = sniffedType(page.contentType, page.body);
  const data: Record<string, unknown> = {};
  if (sniffed !== null) data.sniffedType = sniffed;
  const html = sniffed !== null ? sniffed === 'text/html' : HTML_TYPES.test(page.contentType ?? '');
  if (!html) return sniffed !== null ? { data } : {};
  // A UTF-8 page is read from its bytes (extractHtml decodes only the strings it keeps).
  let document: string | Buffer;
  const sniff = sniffEncoding(page.body, page.contentType, true);
  let encoding = sniff.encoding;
  if (encoding === UTF8) document = hasUtf8Bom(page.body) ? page.body.subarray(3) : page.body;
  else ({ text: document, encoding } = decodeSniffed(page.body, sniff));
  const x = extractHtml(document, page.finalUrl, {
    encoding,
    refreshHeader: headerValue(page.headers.refresh),
    // Only date-like URLs (a calendar's) are compared by the trap defence.
    sketch: calendarShape(page.url) !== null,
    head: true,
  });
  if (x.head !== undefined) {
    const host = hostOf(page.finalUrl);
    hostTitles.observe(host, x.head.title);
    const learned = hostTitles.namesOf(host);
    const meta = metadataOf(x.head, page.finalUrl, contentLanguageOf(page.headers), undefined, learned);
    Object.assign(data, statedMetadata(meta));
  }
  if (encoding !== 'UTF-8') data.encoding = encoding;
  const result: HandleResult = { title: x.title, follow: x.links };
  if (Object.keys(data).length > 0) result.data = data;
  if (x.refresh !== null) result.refresh = x.refresh;
  if (x.sketch !== undefined) result.sketch = x.sketch;
  return result;
}
