/**
 * Articles: which URLs are articles (`articlePatterns`), and an article page's main content as
 * Markdown with its title, author and dates. Main content is Mozilla's Readability (Firefox's
 * reader view) over linkedom's light DOM; Markdown is turndown's. All three load on first use,
 * so a crawl without articles neither loads nor pays for them.
 */
import { CONTENT_DEFAULTS } from './content.js';
import { parseDateIso } from './dates.js';
import { extractContent } from './page-content.js';

/** Defaults of article extraction: those of main-content extraction (`content.ts`). */
export const ARTICLE_DEFAULTS = CONTENT_DEFAULTS;

/** What {@link extractArticle} found in a page. */
export interface Article {
  /** Headline: JSON-LD, `og:title`/Dublin Core, else the page's title; null if none. */
  title: string | null;
  /** Author: JSON-LD, `<meta name="author">`, Dublin Core creator, or the page's byline; null if none. */
  author: string | null;
  /** Publication date (ISO 8601, UTC): JSON-LD, `article:published_time`, `<time>`; null if none. */
  published: string | null;
  /** Last modification (ISO 8601, UTC): JSON-LD `dateModified`, `article:modified_time`; null if none. */
  updated: string | null;
  /**
   * Main content as Markdown, starting with `# title`, links and images absolute; null when no
   * main content was found.
   */
  markdown: string | null;
  /** Canonical http(s) URLs of the links in `markdown`, each once, in order (to follow like HTML links). */
  links: string[];
}

/**
 * Compiles `articlePatterns` (regular expressions as strings, e.g. `'/\\d{4}/\\d{2}/'`).
 * @throws SyntaxError naming the pattern and its index when one is not a valid expression.
 */
export function compileArticlePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p, i) => {
    try {
      return new RegExp(p);
    } catch (e) {
      throw new SyntaxError(
        `articlePatterns[${i}] ${JSON.stringify(p)} is not a valid regular expression: ${(e as Error).message}`,
      );
    }
  });
}

/**
 * Whether a URL is an article: one of the patterns matches its path and query (not the host, so
 * `/post/` cannot match a host name).
 * @param url an absolute URL; one that does not parse is not an article.
 */
export function isArticleUrl(url: string, patterns: readonly RegExp[]): boolean {
  if (patterns.length === 0) return false;
  let target: string;
  try {
    const u = new URL(url);
    target = u.pathname + u.search;
  } catch {
    return false;
  }
  return patterns.some((re) => re.test(target));
}

// ---------------------------------------------------------------------------------------------
// Extraction

/**
 * The subset of the DOM used by the metadata readers, which linkedom implements (this project
 * compiles without the DOM library, so these are declared structurally).
 */
interface DomElement {
  getAttribute(name: string): string | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  readonly textContent: string | null;
}
type Doc = Pick<DomElement, 'querySelector' | 'querySelectorAll'>;

/**
 * Extracts an article's main content as Markdown and its metadata: `extractContent` of
 * `page-content.ts` (see there), in the shape articles have had since before every page could
 * have Markdown (`updated` is the page's `modified`).
 * @param html the decoded page.
 * @param pageUrl the page's URL after redirects.
 */
export function extractArticle(html: string, pageUrl: string): Article {
  const c = extractContent(html, pageUrl);
  return {
    title: c.title,
    author: c.author,
    published: c.published,
    updated: c.modified,
    markdown: c.markdown,
    links: c.links,
  };
}

/** Whitespace collapsed and trimmed; null when empty or not a string. */
function clean(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

interface Metadata {
  title: string | null;
  author: string | null;
  published: string | null;
  updated: string | null;
}

/**
 * `<meta>` content by `property`/`name`/`itemprop`, first match of the keys in order (and, if
 * given, accepted by `accept`).
 */
function metaContent(document: Doc, keys: readonly string[], accept?: (v: string) => boolean): string | null {
  const byKey = new Map<string, string>();
  for (const m of Array.from(document.querySelectorAll('meta[content]'))) {
    const key = (m.getAttribute('property') ?? m.getAttribute('name') ?? m.getAttribute('itemprop') ?? '')
      .trim()
      .toLowerCase();
    if (key !== '' && !byKey.has(key)) byKey.set(key, m.getAttribute('content')!);
  }
  for (const k of keys) {
    const v = clean(byKey.get(k));
    if (v !== null && (accept === undefined || accept(v))) return v;
  }
  return null;
}

/** An article's metadata from its `<head>` and JSON-LD (moving to `page-metadata.ts`). */
export function readMetadata(document: Doc): Metadata {
  const ld = jsonLdArticle(document);
  const timeEl =
    document.querySelector('time[pubdate][datetime], time[itemprop="datePublished"][datetime]') ??
    document.querySelector('article time[datetime], main time[datetime]') ??
    document.querySelector('time[datetime]');
  return {
    title:
      clean(ld?.headline) ??
      clean(ld?.name) ??
      metaContent(document, ['og:title', 'dc.title', 'twitter:title']),
    author:
      ldAuthor(ld?.author) ??
      // article:author is often a profile URL, not a name
      metaContent(
        document,
        ['author', 'dc.creator', 'article:author', 'parsely-author'],
        (v) => !/^https?:/i.test(v),
      ) ??
      clean(document.querySelector('[rel~="author"], [itemprop="author"] [itemprop="name"]')?.textContent),
    published:
      parseDateIso(clean(ld?.datePublished)) ??
      parseDateIso(
        metaContent(document, [
          'article:published_time',
          'datepublished',
          'dc.date',
          'date',
          'parsely-pub-date',
        ]),
      ) ??
      parseDateIso(timeEl?.getAttribute('datetime')),
    updated:
      parseDateIso(clean(ld?.dateModified)) ??
      parseDateIso(metaContent(document, ['article:modified_time', 'datemodified', 'og:updated_time'])),
  };
}

/** schema.org types that describe an article (`Article`, `BlogPosting`, `TechArticle`...), then any page. */
const ARTICLE_TYPES = [/Article|BlogPosting|NewsArticle|Report|Posting/, /WebPage/];

type LdObject = Record<string, unknown>;

/** The first JSON-LD object of an article type (top level, in an array, or in `@graph`). */
function jsonLdArticle(document: Doc): LdObject | null {
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]'))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse((script.textContent ?? '').replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, ''));
    } catch {
      continue;
    }
    const candidates: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of [...candidates]) {
      if (c !== null && typeof c === 'object' && Array.isArray((c as LdObject)['@graph'])) {
        candidates.push(...((c as LdObject)['@graph'] as unknown[]));
      }
    }
    for (const kind of ARTICLE_TYPES) {
      const found = candidates.find((c): c is LdObject => {
        if (c === null || typeof c !== 'object') return false;
        const type = (c as LdObject)['@type'];
        const types = Array.isArray(type) ? type : [type];
        return types.some((t) => typeof t === 'string' && kind.test(t));
      });
      if (found !== undefined) return found;
    }
  }
  return null;
}

/** A JSON-LD author: a string, `{ name }`, or a list of them (names joined with ", "). */
function ldAuthor(author: unknown): string | null {
  const list = Array.isArray(author) ? author : [author];
  const names = list
    .map((a) =>
      typeof a === 'string' ? clean(a) : a && typeof a === 'object' ? clean((a as LdObject).name) : null,
    )
    .filter((n): n is string => n !== null);
  return names.length > 0 ? names.join(', ') : null;
}
