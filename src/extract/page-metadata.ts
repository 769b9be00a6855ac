/**
 * The metadata of any HTML page: title, description, author, dates, declared language, canonical
 * URL and site name, read from schema.org JSON-LD, Open Graph, Twitter cards, Dublin Core, the
 * HTML standard's own elements and the `Content-Language` header. Reads the DOM only; never
 * changes it.
 */
import { decodeHTMLStrict } from 'entities/decode';
import type { Doc, DomElement } from './content-dom.js';
import { parseDateIso } from './dates.js';
import {
  ARTICLE_TYPE,
  deref,
  firstOfType,
  isJsonLdType,
  type LdGraph,
  type LdNode,
  parseJsonLd,
  WEB_PAGE_TYPE,
  WEB_SITE_TYPE,
} from './json-ld.js';
import { normalizeLanguageTag } from './language.js';
import { siteSuffixes, stripSiteName } from './page-title.js';

export type { Doc, DomElement } from './content-dom.js';

/** Defaults of metadata reading. */
export const PAGE_METADATA_DEFAULTS = {
  /**
   * Longest text value kept (title, description, author, site name), in UTF-16 code units; longer
   * ones are cut there. An unterminated `<title>` or a description stuffed with the whole article
   * would otherwise fill the item line.
   */
  maxTextChars: 2048,
} as const;

/** What {@link readPageMetadata} found in a page; each field is null when the page does not say. */
export interface PageMetadata {
  /**
   * Title: JSON-LD `headline`/`name`, `og:title`, Dublin Core title, `twitter:title`, `<title>`,
   * else the first `<h1>`; entities decoded, whitespace collapsed, a leading or trailing site name
   * removed (see `stripSiteName` in `page-title.ts`).
   */
  title: string | null;
  /** Summary: `<meta name="description">`, `og:description`, `twitter:description`, JSON-LD `description`. */
  description: string | null;
  /**
   * Author(s): JSON-LD `author` (names joined with `", "`), `<meta name="author">`, Dublin Core
   * creator, `article:author` (unless a URL), `parsely-author`, else a `rel=author` link's text.
   */
  author: string | null;
  /**
   * Publication instant, ISO 8601 in UTC (`2024-05-01T10:00:00.000Z`): JSON-LD `datePublished`,
   * `article:published_time`, `datePublished`/Dublin Core date meta, else a `<time datetime>`.
   */
  published: string | null;
  /**
   * Last modification, ISO 8601 in UTC: JSON-LD `dateModified`, `article:modified_time`,
   * `og:updated_time`, `dateModified`/Dublin Core `modified` meta, else `<time itemprop=dateModified>`.
   */
  modified: string | null;
  /**
   * Declared language, BCP 47 (`normalizeLanguageTag`): `<html lang>`, `<html xml:lang>`,
   * `<meta http-equiv="content-language">`, else the `Content-Language` header. Declared only:
   * `pageLanguage` (language.ts) falls back to the text when there is none.
   */
  language: string | null;
  /**
   * The page's `<link rel="canonical">` (RFC 6596), resolved against the document's base URL,
   * fragment removed; http(s) only. Null when there is none, when links disagree (Google ignores
   * them all then), or when it is in `<body>` (Google ignores those). `og:url` is not a fallback:
   * it is a sharing hint that templates often point at the home page on every page.
   */
  canonical: string | null;
  /** The site's name: `og:site_name`, JSON-LD `publisher.name`, JSON-LD `WebSite` name, `application-name`. */
  siteName: string | null;
}

/** The fields of {@link PageMetadata}, in the order items carry them. */
export const METADATA_FIELDS = [
  'title',
  'description',
  'author',
  'published',
  'modified',
  'language',
  'canonical',
  'siteName',
] as const satisfies readonly (keyof PageMetadata)[];

/** The fields a page states (not null), for an item's `data`. */
export function statedMetadata(meta: PageMetadata): Partial<Record<keyof PageMetadata, string>> {
  const out: Partial<Record<keyof PageMetadata, string>> = {};
  for (const key of METADATA_FIELDS) {
    const v = meta[key];
    if (v !== null) out[key] = v;
  }
  return out;
}

/**
 * What a page's metadata is read from in its markup, mostly its `<head>`: found by one streaming
 * pass (`extractHtml`'s `head` option, html.ts) or from a DOM ({@link headFactsOf}).
 */
export interface HeadFacts {
  /**
   * `<meta content>` values by key — the first present of `property`, `name`, `itemprop`, trimmed
   * and lowercased — the first of each key.
   */
  metas: Map<string, string>;
  /** The first `<meta http-equiv="content-language">`'s `content`, if any. */
  contentLanguage: string | null;
  /** `<html lang>`, if any. */
  lang: string | null;
  /** `<html xml:lang>`, if any. */
  xmlLang: string | null;
  /** The first `<title>`'s text (entities decoded), if any. */
  title: string | null;
  /** The first `<base href>`, as written, if any. */
  base: string | null;
  /** The `href` of each `<link rel="canonical">` outside `<body>`, as written, in document order. */
  canonical: string[];
  /** The text of each `<script type="application/ld+json">`, in document order. */
  jsonLd: string[];
}

/**
 * Metadata only a page's body holds, asked for when the head does not say (read from a DOM;
 * a streaming pass over the head has none).
 */
export interface BodyHints {
  /** The first `<h1>` with text. */
  h1(): string | null;
  /** The first `rel=author` link's or `itemprop=author` name's text. */
  authorText(): string | null;
  /** The `datetime` of the `<time>` of publication (see {@link publishedTime}). */
  published(): string | null;
  /** The `datetime` of `<time itemprop="dateModified">`. */
  modified(): string | null;
}

/** The {@link HeadFacts} of a DOM. */
export function headFactsOf(document: Doc): HeadFacts {
  const metas = Array.from(document.querySelectorAll('meta[content]'));
  const pragma = metas.find((m) => m.getAttribute('http-equiv')?.trim().toLowerCase() === 'content-language');
  const root = document.querySelector('html');
  const jsonLd: string[] = [];
  for (const script of Array.from(document.querySelectorAll('script[type]')))
    if (isJsonLdType(script.getAttribute('type')!)) jsonLd.push(script.textContent ?? '');
  return {
    metas: metaIndex(metas),
    contentLanguage: pragma?.getAttribute('content') ?? null,
    lang: root?.getAttribute('lang') ?? null,
    xmlLang: root?.getAttribute('xml:lang') ?? null,
    title: document.querySelector('title')?.textContent ?? null,
    base: document.querySelector('base[href]')?.getAttribute('href') ?? null,
    canonical: Array.from(document.querySelectorAll('link[rel][href]'))
      .filter((l) => CANONICAL_REL.test(l.getAttribute('rel')!) && l.closest('body') === null)
      .map((l) => l.getAttribute('href')!),
    jsonLd,
  };
}

/** The {@link BodyHints} of a DOM. */
function bodyHintsOf(document: Doc): BodyHints {
  return {
    h1: () => firstText(document, 'h1'),
    authorText: () => firstText(document, '[rel~="author"], [itemprop="author"] [itemprop="name"]'),
    published: () => publishedTime(document),
    modified: () =>
      document.querySelector('time[itemprop="dateModified"][datetime]')?.getAttribute('datetime') ?? null,
  };
}

/** No body to read: metadata from the head alone. */
const NO_BODY: BodyHints = {
  h1: () => null,
  authorText: () => null,
  published: () => null,
  modified: () => null,
};

/** A `rel` value naming the canonical relation. */
const CANONICAL_REL = /(?:^|\s)canonical(?:\s|$)/i;

/**
 * Reads a page's metadata from its DOM. Never throws for odd input; a field the page does not
 * state, or states in a form that does not parse, is null. The rules are {@link metadataOf}'s,
 * with the body's headline, author link and `<time>` elements as last resorts.
 *
 * @param document the page's DOM (`parseDocument` of `content.ts`), or that of its head only.
 * @param pageUrl the page's absolute URL after redirects: base of relative URLs, and its host
 *   tells the site's name apart from the title.
 * @param contentLanguage the response's `Content-Language` header, if any.
 * @param learnedNames site names the crawl learned from its host's other titles
 *   (`host-title-parts.ts`): removed from the title like the ones the page states.
 */
export function readPageMetadata(
  document: Doc,
  pageUrl: string,
  contentLanguage?: string | null,
  learnedNames: readonly string[] = [],
): PageMetadata {
  return metadataOf(headFactsOf(document), pageUrl, contentLanguage, bodyHintsOf(document), learnedNames);
}

/**
 * A page's metadata from what its markup states. Never throws for odd input; a field the page
 * does not state, or states in a form that does not parse, is null.
 *
 * Sources and their order per field are on {@link PageMetadata}. JSON-LD (schema.org, W3C JSON-LD
 * 1.1) is read from the first node of an article type (`Article`, `NewsArticle`, `BlogPosting`...,
 * top level, in `@graph` or as `mainEntity`), else of a page type (`WebPage`, `AboutPage`...), with
 * `@id` references followed (Yoast's `"author": { "@id": ... }`). `<meta>` keys are Open Graph
 * `property`, `name` or `itemprop`, case-insensitive (ogp.me, Twitter cards, DCMI's
 * "Expressing Dublin Core metadata using HTML" `DC.*`/`DCTERMS.*`). Text values have entities that
 * survived the parser decoded once more (strict: `&#8217;`, `&amp;`, only with their `;`), the way
 * Readability unescapes metadata: JSON-LD is raw script text and CMSs double-encode attributes.
 * Dates go through `parseDateIso` (dates.ts). Language follows the HTML standard's order (`lang`
 * on `<html>`, the `content-language` pragma unless it lists several, then the protocol's, unless
 * it lists several), with `xml:lang` read when `lang` is absent and an empty or invalid value
 * skipped rather than meaning "unknown".
 *
 * @param facts what the markup states ({@link HeadFacts}).
 * @param pageUrl the page's absolute URL after redirects (see {@link readPageMetadata}).
 * @param contentLanguage the response's `Content-Language` header, if any.
 * @param body the body's last resorts; none by default (a streaming pass over the head).
 * @param learnedNames site names learned from the host's other titles (see {@link readPageMetadata}).
 */
export function metadataOf(
  facts: HeadFacts,
  pageUrl: string,
  contentLanguage?: string | null,
  body: BodyHints = NO_BODY,
  learnedNames: readonly string[] = [],
): PageMetadata {
  const ld = parseJsonLd(facts.jsonLd);
  const article = firstOfType(ld, ARTICLE_TYPE);
  const page = firstOfType(ld, WEB_PAGE_TYPE);
  const main = article ?? page;
  const meta = facts.metas;
  const siteNames = [
    text(meta.get('og:site_name')),
    ldName(ld, main?.publisher),
    ldName(ld, firstOfType(ld, WEB_SITE_TYPE)),
    text(meta.get('application-name')),
  ].filter((n): n is string => n !== null);
  return {
    title: readTitle(facts, body, main, [...siteNames, ...learnedNames], pageUrl),
    description:
      first(meta, ['description', 'og:description', 'twitter:description']) ??
      text(main?.description) ??
      text(page?.description),
    author:
      ldAuthor(ld, main?.author) ??
      // article:author is often a profile URL, not a name
      first(
        meta,
        ['author', 'dc.creator', 'dcterms.creator', 'article:author', 'parsely-author'],
        (v) => !/^https?:/i.test(v),
      ) ??
      text(body.authorText()),
    published:
      parseDateIso(text(main?.datePublished)) ??
      parseDateIso(
        first(meta, [
          'article:published_time',
          'datepublished',
          'dc.date',
          'dcterms.date',
          'dcterms.issued',
          'date',
          'parsely-pub-date',
        ]),
      ) ??
      parseDateIso(body.published()),
    modified:
      parseDateIso(text(main?.dateModified)) ??
      parseDateIso(
        first(meta, [
          'article:modified_time',
          'og:updated_time',
          'datemodified',
          'dcterms.modified',
          'dc.date.modified',
        ]),
      ) ??
      parseDateIso(body.modified()),
    language: declaredLanguage(facts, contentLanguage),
    canonical: readCanonical(facts, pageUrl),
    siteName: siteNames[0] ?? null,
  };
}

/**
 * The `datetime` of the page's `<time>` of publication: the first marked `pubdate` or
 * `itemprop="datePublished"`, else the first inside `<article>` or `<main>`, else the first.
 * Queried only when JSON-LD and `<meta>` give no date.
 */
function publishedTime(document: Doc): string | null {
  const times = Array.from(document.querySelectorAll('time[datetime]'));
  const el =
    times.find((t) => t.getAttribute('pubdate') !== null || t.getAttribute('itemprop') === 'datePublished') ??
    times.find((t) => t.closest('article, main') !== null) ??
    times[0];
  return el?.getAttribute('datetime') ?? null;
}

/**
 * A metadata string as shown to a reader: entities that survived parsing decoded once (strict),
 * whitespace collapsed and trimmed, cut at {@link PAGE_METADATA_DEFAULTS}.maxTextChars; null when
 * empty or not a string.
 */
function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let t = (value.includes('&') ? decodeHTMLStrict(value) : value).replace(/\s+/g, ' ').trim();
  if (t.length > PAGE_METADATA_DEFAULTS.maxTextChars) {
    t = t.slice(0, PAGE_METADATA_DEFAULTS.maxTextChars);
    // never leave half of a surrogate pair
    if (/[\ud800-\udbff]$/.test(t)) t = t.slice(0, -1);
  }
  return t === '' ? null : t;
}

/** `<meta content>` values by key (`property`, `name` or `itemprop`, lowercased), the first of each key. */
function metaIndex(metas: readonly DomElement[]): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const m of metas) {
    const key = (m.getAttribute('property') ?? m.getAttribute('name') ?? m.getAttribute('itemprop') ?? '')
      .trim()
      .toLowerCase();
    if (key !== '' && !byKey.has(key)) byKey.set(key, m.getAttribute('content')!);
  }
  return byKey;
}

/** The first of the keys with a non-empty value (accepted by `accept`, if given), as {@link text}. */
function first(
  meta: Map<string, string>,
  keys: readonly string[],
  accept?: (v: string) => boolean,
): string | null {
  for (const k of keys) {
    const v = text(meta.get(k));
    if (v !== null && (accept === undefined || accept(v))) return v;
  }
  return null;
}

/** The first element matching the selectors whose text is not empty, as {@link text}. */
function firstText(document: Doc, selectors: string): string | null {
  for (const el of Array.from(document.querySelectorAll(selectors))) {
    const t = text(el.textContent);
    if (t !== null) return t;
  }
  return null;
}

/** A JSON-LD thing's name: a string, or the `name` of a node (references followed); the first of a list. */
function ldName(ld: LdGraph, value: unknown): string | null {
  for (const v of [deref(ld, value)].flat()) {
    const name =
      typeof v === 'string' ? text(v) : v !== null && typeof v === 'object' ? text((v as LdNode).name) : null;
    if (name !== null) return name;
  }
  return null;
}

/** A JSON-LD author: a string, `{ name }`, an `@id` reference, or a list of them (names joined with ", "). */
function ldAuthor(ld: LdGraph, author: unknown): string | null {
  const names = [deref(ld, author)]
    .flat()
    .map((a) =>
      typeof a === 'string' ? text(a) : a !== null && typeof a === 'object' ? text((a as LdNode).name) : null,
    )
    .filter((n): n is string => n !== null);
  return names.length > 0 ? text([...new Set(names)].join(', ')) : null;
}

/** The title (sources in order, see {@link PageMetadata}.title) without its site name. */
function readTitle(
  facts: HeadFacts,
  body: BodyHints,
  main: LdNode | null,
  siteNames: readonly string[],
  pageUrl: string,
): string | null {
  const meta = facts.metas;
  const titles = [
    text(main?.headline),
    text(main?.name),
    text(meta.get('og:title')),
    text(meta.get('dc.title')),
    text(meta.get('dcterms.title')),
    text(meta.get('twitter:title')),
    text(facts.title),
  ].filter((t): t is string => t !== null);
  const title = titles[0] ?? body.h1();
  if (title === null) return null;
  const names = [...siteNames, ...siteSuffixes(titles)];
  return stripSiteName(title, { names, pageUrl });
}

/**
 * The declared language (see {@link PageMetadata}.language). The `content-language` pragma and
 * the header name the page's language only when they name one: a list means several audiences
 * (HTML Standard §4.2.5.3, "content language state"; RFC 9110 §8.5), and is skipped.
 */
function declaredLanguage(facts: HeadFacts, contentLanguage: string | null | undefined): string | null {
  const single = (v: string | null | undefined) => (typeof v === 'string' && !v.includes(',') ? v : null);
  return (
    normalizeLanguageTag(facts.lang) ??
    normalizeLanguageTag(facts.xmlLang) ??
    normalizeLanguageTag(single(facts.contentLanguage)) ??
    normalizeLanguageTag(single(contentLanguage))
  );
}

/** An http(s) URL resolved against a base, fragment removed; null when it does not resolve. */
function resolveHttp(href: string, base: string): URL | null {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u;
  } catch {
    return null;
  }
}

/**
 * The document's base URL (HTML Standard, "document base URL"): its first `<base href>` resolved
 * against the page URL when that gives an http(s) URL, else the page URL.
 */
export function baseOf(document: Doc, pageUrl: string): string {
  return baseUrl(document.querySelector('base[href]')?.getAttribute('href') ?? null, pageUrl);
}

/** The document base URL given its first `<base href>` (see {@link baseOf}). */
function baseUrl(href: string | null, pageUrl: string): string {
  return (href ? resolveHttp(href, pageUrl)?.href : undefined) ?? pageUrl;
}

/**
 * The canonical URL (see {@link PageMetadata}.canonical), per Google's reading of RFC 6596: one
 * or more `<link rel="canonical">` outside `<body>` that agree ("5 common mistakes with
 * rel=canonical", Google Search Central, 2013).
 */
function readCanonical(facts: HeadFacts, pageUrl: string): string | null {
  const hrefs = facts.canonical.filter((h) => h.trim() !== '');
  if (hrefs.length === 0) return null;
  const base = baseUrl(facts.base, pageUrl);
  const urls = new Set(hrefs.map((h) => resolveHttp(h, base)?.href ?? null));
  return urls.size === 1 ? [...urls][0] : null;
}
