/**
 * Feed discovery (RSS Autodiscovery, https://www.rssboard.org/rss-autodiscovery, and the same
 * convention for Atom and JSON Feed): the `<link rel="alternate" type="…feed type…" href>` of an
 * HTML page's head, so a crawl can add a site's feeds to what it fetches.
 */
import { Parser } from 'htmlparser2';
import { canonicalize } from '../url/canonicalize.js';

/** Media types that announce a feed, and the format each names. */
export const FEED_TYPES: Readonly<Record<string, 'rss' | 'atom' | 'json'>> = {
  'application/rss+xml': 'rss',
  'application/atom+xml': 'atom',
  'application/feed+json': 'json',
};

/** One announced feed. */
export interface FeedLink {
  /** Canonical absolute http(s) URL (resolved against `<base href>` or the page URL). */
  url: string;
  /** The format its `type` names. */
  format: 'rss' | 'atom' | 'json';
  /** The link's `title` attribute (e.g. "Comments feed"), or null. */
  title: string | null;
}

/** Whether a `rel` value (space-separated tokens, any case) contains `alternate`. */
function isAlternate(rel: string): boolean {
  return rel
    .toLowerCase()
    .split(/[\t\n\f\r ]+/)
    .includes('alternate');
}

/**
 * The feeds an HTML page announces, each URL once, in document order.
 *
 * Reads `<link>` elements whose `rel` contains `alternate` and whose `type` (parameters and case
 * ignored) is one of {@link FEED_TYPES}. The first `<base href>` before them sets the base. The
 * scan stops at `<body>`, as autodiscovery links belong in the head and that keeps the cost to
 * the head's bytes on every page. Never throws.
 *
 * @param html the decoded document.
 * @param pageUrl the page's URL after redirects.
 */
export function discoverFeeds(html: string, pageUrl: string): FeedLink[] {
  const found: FeedLink[] = [];
  const seen = new Set<string>();
  let base = pageUrl;
  let baseSeen = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'body') {
          parser.pause();
          return;
        }
        if (name === 'base' && !baseSeen && attribs.href !== undefined) {
          baseSeen = true;
          base = canonicalize(attribs.href, pageUrl) ?? pageUrl;
          return;
        }
        if (name !== 'link' || attribs.href === undefined || attribs.rel === undefined) return;
        if (!isAlternate(attribs.rel)) return;
        const type = (attribs.type ?? '').split(';')[0].trim().toLowerCase();
        const format = FEED_TYPES[type];
        if (format === undefined) return;
        const url = canonicalize(attribs.href, base);
        if (url === null || seen.has(url)) return;
        seen.add(url);
        const title = attribs.title?.trim();
        found.push({ url, format, title: title ? title : null });
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  try {
    parser.end(html);
  } catch {
    // htmlparser2 is not known to throw; a bug there must not fail the page
  }
  return found;
}
