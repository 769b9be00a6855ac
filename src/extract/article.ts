/**
 * Articles: which URLs are articles (`articlePatterns`), and an article page's main content as
 * Markdown with its title, author and dates. Main content is Mozilla's Readability (Firefox's
 * reader view) over linkedom's light DOM; Markdown is turndown's. All three load on first use,
 * so a crawl without articles neither loads nor pays for them.
 */
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';
import { canonicalize } from '../url/canonicalize.js';
import { parseDateIso } from './dates.js';

const require = createRequire(import.meta.url);

/** Defaults of article extraction. */
export const ARTICLE_DEFAULTS = {
  /**
   * Largest HTML document extracted, in characters: a DOM costs ~10× its source in memory, and
   * pages larger than this are listings or dumps, not articles. Bigger pages get metadata only.
   */
  maxHtmlChars: 2 * 1024 * 1024,
  /**
   * Most elements (start tags) in a document extracted. Readability over linkedom grows faster
   * than linearly with the element count (measured: ~12,000 elements ≈ 0.8 s of CPU, a 1 MB page
   * of 27,000 elements ≈ 6 s), so bigger pages get metadata only, read from their `<head>`.
   */
  maxElements: 10_000,
  /** Characters of a too-big page read for its metadata (its head, or this much of it). */
  headChars: 256 * 1024,
} as const;

/** Start tags, counted to bound the work before building a DOM. */
const START_TAG = /<[a-zA-Z]/g;

/** Whether a document is small enough for main-content extraction. */
function withinLimits(html: string): boolean {
  if (html.length > ARTICLE_DEFAULTS.maxHtmlChars) return false;
  let n = 0;
  START_TAG.lastIndex = 0;
  while (START_TAG.exec(html) !== null) if (++n > ARTICLE_DEFAULTS.maxElements) return false;
  return true;
}

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
// Libraries, loaded on first use

type ReadabilityModule = typeof import('@mozilla/readability');
type LinkedomModule = typeof import('linkedom');
type TurndownCtor = typeof TurndownService;

let libs: { Readability: ReadabilityModule['Readability']; parseHTML: LinkedomModule['parseHTML'] } | null =
  null;
let turndown: TurndownService | null = null;

function libraries() {
  libs ??= {
    Readability: (require('@mozilla/readability') as ReadabilityModule).Readability,
    parseHTML: (require('linkedom') as LinkedomModule).parseHTML,
  };
  return libs;
}

function markdownWriter(): TurndownService {
  if (turndown === null) {
    const Turndown = require('turndown') as TurndownCtor;
    turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    // scripts/styles that survived Readability carry no prose
    turndown.remove(['script', 'style', 'noscript']);
  }
  return turndown;
}

// ---------------------------------------------------------------------------------------------
// Extraction

/**
 * The subset of the DOM used here, which linkedom implements (this project compiles without the
 * DOM library, so these are declared structurally).
 */
interface DomElement {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  readonly textContent: string | null;
}
type Doc = Pick<DomElement, 'querySelector' | 'querySelectorAll'>;

/**
 * Extracts an article's main content as Markdown and its metadata.
 *
 * Metadata is read before Readability alters the document: JSON-LD (`Article`, `BlogPosting`,
 * `NewsArticle`, `TechArticle`... also inside `@graph`), Open Graph / `article:*` meta, Dublin
 * Core, `<meta name="author">`, and `<time datetime>` (preferring one marked `pubdate` or
 * `itemprop="datePublished"`) for the date. Links and images in the Markdown are resolved against
 * `<base href>` or `pageUrl`. Documents over {@link ARTICLE_DEFAULTS}.maxHtmlChars or
 * `maxElements` get metadata only (`markdown: null`), read from their head. Never throws for odd input: a library failure yields `markdown: null`.
 *
 * @param html the decoded page.
 * @param pageUrl the page's URL after redirects.
 */
export function extractArticle(html: string, pageUrl: string): Article {
  const { Readability, parseHTML } = libraries();
  const full = withinLimits(html);
  const source = full ? html : headOf(html);
  const { document } = parseHTML(source) as unknown as { document: Doc };
  const base = baseOf(document, pageUrl);
  const meta = readMetadata(document);
  let markdown: string | null = null;
  const links: string[] = [];
  let title = meta.title;
  let author = meta.author;
  let published = meta.published;
  if (full) {
    try {
      const reader = new Readability<DomElement>(document as never, {
        serializer: (node) => node as unknown as DomElement,
      });
      const parsed = reader.parse();
      if (parsed?.content) {
        absolutize(parsed.content, base, links);
        markdown = markdownWriter()
          .turndown(parsed.content as unknown as TurndownService.Node)
          .trim();
        title ??= clean(parsed.title);
        author ??= clean(parsed.byline);
        published ??= parseDateIso(parsed.publishedTime);
      }
    } catch {
      markdown = null; // a library bug on one page must not fail the page
    }
  }
  title ??= clean(document.querySelector('title')?.textContent);
  // Readability drops the headline it reports as the title: put it back as the document's heading
  if (markdown !== null && title !== null && !markdown.startsWith('# '))
    markdown = `# ${title}\n\n${markdown}`;
  return { title, author, published, updated: meta.updated, markdown, links };
}

/** The head of a document (through `</head>`), or its first {@link ARTICLE_DEFAULTS}.headChars. */
function headOf(html: string): string {
  const end = html.slice(0, ARTICLE_DEFAULTS.headChars).search(/<\/head\s*>/i);
  return end < 0 ? html.slice(0, ARTICLE_DEFAULTS.headChars) : html.slice(0, end);
}

/** The document's base: its first `<base href>` resolved against the page URL, else the page URL. */
function baseOf(document: Doc, pageUrl: string): string {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      const u = new URL(href.trim(), pageUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
    } catch {
      // keep the page URL
    }
  }
  return pageUrl;
}

/** Makes `a[href]` and `img[src]` absolute in place; collects the anchors' canonical URLs. */
function absolutize(root: DomElement, base: string, links: string[]): void {
  const seen = new Set<string>();
  for (const a of Array.from(root.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href')!.trim();
    if (href.startsWith('#')) continue;
    const url = canonicalize(href, base);
    if (url === null) continue;
    a.setAttribute('href', absolute(href, base));
    if (!seen.has(url)) {
      seen.add(url);
      links.push(url);
    }
  }
  for (const img of Array.from(root.querySelectorAll('img[src]'))) {
    img.setAttribute('src', absolute(img.getAttribute('src')!.trim(), base));
  }
}

function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
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
