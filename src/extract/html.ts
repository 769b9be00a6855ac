/**
 * HTML extraction in one streaming pass over htmlparser2's `Tokenizer` (no Parser, no DOM): the
 * links a crawler may follow (frames included), the title, the robots `nofollow` directive, the
 * declared `<meta>` charset, a declarative refresh, and optionally a sketch of the text. The
 * tokenizer reports positions; strings are sliced only for the few tags and attributes read, and
 * entities are decoded only in those (2–3× faster than the `Parser`).
 *
 * A UTF-8 document can be given as its bytes: the tokenizer then reads them as Latin-1, one
 * character per byte (a copy, no decoding: 4× faster than UTF-8 decoding, half the memory), and
 * only the strings read are decoded from their bytes. Every character HTML's syntax uses is
 * ASCII, and no byte of a UTF-8 multi-byte sequence is, so the tokens and their positions are the
 * same in both readings.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';
import { Tokenizer } from 'htmlparser2';
import { canonicalize } from '../url/canonicalize.js';
import { canonicalizeIn } from '../url/legacy-query.js';
import { HeadFactsReader } from './head-facts.js';
import type { HeadFacts } from './page-metadata.js';
import { parseRefresh, REFRESH_REDIRECT_MAX_DELAY_S } from './refresh.js';
import { TextSketch } from './text-sketch.js';

/** What {@link extractHtml} finds in one page. */
export interface HtmlExtract {
  /** First `<title>` outside `<svg>`, entities decoded, ASCII whitespace collapsed and trimmed; null if none. */
  title: string | null;
  /** Canonical absolute http(s) URLs, deduplicated within the page, in document order; empty when `nofollow`. */
  links: string[];
  /** True when `<meta name="robots">` says `nofollow` or `none`. */
  nofollow: boolean;
  /** Raw label from the first `<meta charset>` or `<meta http-equiv="content-type" content="...charset=X">`. */
  metaCharset: string | null;
  /**
   * Where the page redirects by declarative refresh (the `Refresh` header, else the first
   * `<meta http-equiv=refresh>` outside `<noscript>`), when its delay is at most
   * {@link REFRESH_REDIRECT_MAX_DELAY_S} and its URL is another http(s) URL; else null (a longer
   * delay makes the URL one of `links`).
   */
  refresh: string | null;
  /** Text sketch (`TextSketch.finish`), when asked for with `sketch`. */
  sketch?: number[];
  /** What the page's metadata is read from (`metadataOf`, page-metadata.ts), when asked for with `head`. */
  head?: HeadFacts;
}

/** Options of {@link extractHtml}. */
export interface HtmlExtractOptions {
  /**
   * WHATWG name of the encoding the document was decoded from: queries of its URLs are encoded
   * in it (WHATWG URL "encoding-parse"). Default UTF-8.
   */
  encoding?: string;
  /** The response's `Refresh` header, processed before any `<meta>` refresh (HTML Standard). */
  refreshHeader?: string | null;
  /** Collect a {@link TextSketch} of the text outside `<script>` and `<style>`. */
  sketch?: boolean;
  /**
   * Collect the {@link HeadFacts} metadata is read from: `<meta>` values, `<html lang>`, the
   * canonical links outside `<body>`, `<base href>` and JSON-LD blocks (head-facts.ts).
   */
  head?: boolean;
}

/**
 * Longest title kept, in UTF-16 code units; an unterminated `<title>` would otherwise swallow the
 * rest of the document into the item line.
 */
const TITLE_MAX_CHARS = 1024;

/** Tags the extractor reads. */
const enum Tag {
  Other,
  A,
  Area,
  Link,
  Base,
  Meta,
  Title,
  Svg,
  Frame,
  Iframe,
  Noscript,
  Script,
  Style,
  Html,
  Body,
}

/** Tag code of a lowercase tag name. */
function tagOf(name: string): Tag {
  switch (name) {
    case 'a':
      return Tag.A;
    case 'area':
      return Tag.Area;
    case 'link':
      return Tag.Link;
    case 'base':
      return Tag.Base;
    case 'meta':
      return Tag.Meta;
    case 'title':
      return Tag.Title;
    case 'svg':
      return Tag.Svg;
    case 'frame':
      return Tag.Frame;
    case 'iframe':
      return Tag.Iframe;
    case 'noscript':
      return Tag.Noscript;
    case 'script':
      return Tag.Script;
    case 'style':
      return Tag.Style;
    case 'html':
      return Tag.Html;
    case 'body':
      return Tag.Body;
    default:
      return Tag.Other;
  }
}

/** Attributes read, per tag. */
const WANTED_ATTRS = new Set([
  'href',
  'src',
  'rel',
  'charset',
  'content',
  'name',
  'http-equiv',
  // metadata (`head`)
  'property',
  'itemprop',
  'lang',
  'xml:lang',
  'type',
]);

/** A character outside ASCII (in the Latin-1 reading of UTF-8 bytes: a byte of a multi-byte sequence). */
const NON_ASCII = /[^\0-\x7f]/;

/** ASCII whitespace as defined by the HTML standard (TAB LF FF CR SPACE). */
const ASCII_WHITESPACE = /[\t\n\f\r ]+/g;

/** Separators inside a robots meta `content` (comma-separated list, spaces tolerated). */
const ROBOTS_SEPARATORS = /[\s,]+/;

/** `rel` values on `<link>` whose `href` is a page worth crawling. */
const FOLLOWED_LINK_RELS = new Set(['next', 'prev', 'alternate']);

/** Whether a `rel` attribute (space-separated tokens, case-insensitive) names a followed relation. */
function hasFollowedRel(rel: string): boolean {
  for (const token of rel.toLowerCase().split(ASCII_WHITESPACE)) {
    if (FOLLOWED_LINK_RELS.has(token)) return true;
  }
  return false;
}

/** Whether a robots meta `content` forbids following links (`nofollow` or `none`). */
function robotsSaysNofollow(content: string): boolean {
  for (const token of content.toLowerCase().split(ROBOTS_SEPARATORS)) {
    if (token === 'nofollow' || token === 'none') return true;
  }
  return false;
}

/**
 * The charset label in a `Content-Type` value, following the HTML standard's "algorithm for
 * extracting a character encoding from a meta element": the first `charset` followed by optional
 * whitespace and `=`; the value is quoted (up to the matching quote) or runs to `;`/whitespace.
 * Returns null when absent or unterminated-quoted.
 */
function charsetFromContentType(content: string): string | null {
  const lower = content.toLowerCase();
  let from = 0;
  for (;;) {
    const at = lower.indexOf('charset', from);
    if (at === -1) return null;
    let i = at + 7;
    while (i < lower.length && lower.charCodeAt(i) <= 0x20) i++;
    if (lower.charCodeAt(i) !== 0x3d /* = */) {
      from = at + 7;
      continue;
    }
    i++;
    while (i < lower.length && lower.charCodeAt(i) <= 0x20) i++;
    const q = content.charCodeAt(i);
    if (q === 0x22 || q === 0x27) {
      const close = content.indexOf(content[i], i + 1);
      return close === -1 ? null : content.slice(i + 1, close) || null;
    }
    let end = i;
    while (end < content.length && content.charCodeAt(end) > 0x20 && content.charCodeAt(end) !== 0x3b) end++;
    return end > i ? content.slice(i, end) : null;
  }
}

/**
 * Extracts links, title, robots `nofollow` and meta charset from an HTML document.
 *
 * Links come from `<a href>`, `<area href>`, `<link href>` whose `rel` contains `next`, `prev`
 * or `alternate`, and `<frame src>` / `<iframe src>` (frame documents are pages of the site). Each
 * is resolved with {@link canonicalize} (so whitespace and newlines inside
 * are handled per WHATWG, fragments dropped, non-http(s) schemes like `mailto:`/`javascript:`
 * skipped). The first `<base href>` (itself resolved against `pageUrl`; ignored if not http(s))
 * becomes the base — but, this being a single streaming pass, only for links *after* it; links
 * before a late `<base>` resolve against `pageUrl` (the HTML standard would apply it to all).
 * Later `<base>` elements are ignored, as in browsers. Links inside `<script>`, `<style>` and
 * comments are not seen.
 *
 * When `<meta name="robots">` contains `nofollow` or `none` (anywhere in the document),
 * `nofollow` is true and `links` is empty. Per-link `rel="nofollow"` is not honoured.
 *
 * In a document of a legacy encoding (`opts.encoding`), URLs are resolved with
 * {@link canonicalizeIn}: their queries are encoded in that encoding, as a browser does.
 *
 * Declarative refresh follows the HTML Standard: the `Refresh` header first, then `<meta
 * http-equiv="refresh">` elements in order; the first that parses wins (even one with no URL,
 * which only reloads the page). A `<meta>` inside `<noscript>` is not seen, as in a browser with
 * scripting (it is the "no JavaScript" fallback). See {@link HtmlExtract.refresh}.
 *
 * Never throws: garbage or binary input yields whatever could be parsed.
 *
 * @param document the decoded document text, or the bytes of a UTF-8 document (its byte order
 *   mark removed; `opts.encoding` is then UTF-8).
 * @param pageUrl the document's URL (after redirects), used as the base for relative links.
 */
export function extractHtml(
  document: string | Buffer,
  pageUrl: string,
  opts: HtmlExtractOptions = {},
): HtmlExtract {
  const bytes = typeof document === 'string' ? null : document;
  const html = bytes === null ? (document as string) : bytes.toString('latin1');
  /** The document's text from `start` to `end` (UTF-16 positions, or byte positions of `bytes`). */
  const text =
    bytes === null
      ? (start: number, end: number): string => html.slice(start, end)
      : (start: number, end: number): string => {
          const s = html.slice(start, end);
          return NON_ASCII.test(s) ? bytes.toString('utf8', start, end) : s;
        };
  const encoding = bytes === null ? (opts.encoding ?? 'UTF-8') : 'UTF-8';
  const resolve =
    encoding === 'UTF-8' ? canonicalize : (href: string, b: string) => canonicalizeIn(href, b, encoding);
  const sketch = opts.sketch ? new TextSketch() : null;
  let base = pageUrl;
  let baseSeen = false;
  let title: string | null = null;
  let titleText = '';
  let inTitle = false;
  let svgDepth = 0;
  let nofollow = false;
  let metaCharset: string | null = null;
  let noscriptDepth = 0;
  /** Inside `<script>` or `<style>`: text that is not the page's words. */
  let rawText = false;
  /** The standard's "will declaratively refresh": only the first refresh that parses counts. */
  let refreshSeen = false;
  let refresh: string | null = null;
  let lateRefresh: string | null = null;
  const links: string[] = [];
  const seenLinks = new Set<string>();
  const head = opts.head ? new HeadFactsReader() : null;
  // Raw hrefs (up to their '#') already resolved against the current base: menus and footers
  // repeat them, and a reference page links to hundreds of anchors of a few pages.
  let seenHrefs = new Set<string>();

  // The open tag being read.
  let tag = Tag.Other;
  let attrName = '';
  let attrValue = '';
  let attribs: Record<string, string> = {};

  const addLink = (raw: string): void => {
    // The first '#' of an href always starts its fragment (WHATWG URL), which canonical URLs drop.
    const hash = raw.indexOf('#');
    const href = hash < 0 ? raw : raw.slice(0, hash);
    if (seenHrefs.has(href)) return;
    seenHrefs.add(href);
    const url = resolve(href, base);
    if (url !== null && !seenLinks.has(url)) {
      seenLinks.add(url);
      links.push(url);
    }
  };

  /** The shared declarative refresh steps, given a `content` or `Refresh` value. */
  const declarativeRefresh = (value: string): void => {
    if (refreshSeen) return;
    const r = parseRefresh(value);
    if (r === null) return;
    refreshSeen = true;
    if (r.url === null) return;
    const url = resolve(r.url, base);
    if (url === null || url === canonicalize(pageUrl)) return;
    if (r.delaySeconds <= REFRESH_REDIRECT_MAX_DELAY_S) refresh = url;
    else lateRefresh = url;
  };
  if (opts.refreshHeader) declarativeRefresh(opts.refreshHeader);

  const finishTitle = (): void => {
    inTitle = false;
    const raw = titleText.indexOf('&') >= 0 ? decodeHTML(titleText) : titleText;
    const text = raw.replace(ASCII_WHITESPACE, ' ').trim();
    title = text.length > TITLE_MAX_CHARS ? text.slice(0, TITLE_MAX_CHARS) : text;
    head?.title(text); // metadata has a bound of its own
    titleText = '';
  };

  /** An open tag is complete: act on it (attribute values are still raw, decoded here). */
  const openTag = (selfClosing: boolean): void => {
    const a = attribs;
    for (const k in a) if (a[k].indexOf('&') >= 0) a[k] = decodeHTMLAttribute(a[k]);
    switch (tag) {
      case Tag.A:
      case Tag.Area:
        if (!nofollow && a.href !== undefined) addLink(a.href);
        break;
      case Tag.Link:
        if (!nofollow && a.href !== undefined && a.rel !== undefined && hasFollowedRel(a.rel))
          addLink(a.href);
        head?.link(a);
        break;
      case Tag.Frame:
      case Tag.Iframe:
        if (!nofollow && a.src !== undefined) addLink(a.src);
        break;
      case Tag.Noscript:
        if (!selfClosing) noscriptDepth++;
        break;
      case Tag.Script:
      case Tag.Style:
        if (!selfClosing) rawText = true;
        if (!selfClosing && tag === Tag.Script) head?.script(a);
        break;
      case Tag.Html:
        head?.html(a);
        break;
      case Tag.Body:
        head?.body();
        break;
      case Tag.Base:
        if (!baseSeen && a.href !== undefined) {
          head?.base(a.href);
          baseSeen = true;
          const resolved = resolve(a.href, pageUrl);
          if (resolved !== null && resolved !== base) {
            base = resolved;
            seenHrefs = new Set();
          }
        }
        break;
      case Tag.Meta:
        if (metaCharset === null) {
          if (a.charset !== undefined) {
            metaCharset = a.charset.trim() || null;
          } else if (
            a.content !== undefined &&
            a['http-equiv'] !== undefined &&
            a['http-equiv'].trim().toLowerCase() === 'content-type'
          ) {
            metaCharset = charsetFromContentType(a.content);
          }
        }
        if (
          noscriptDepth === 0 &&
          a.content &&
          a['http-equiv'] !== undefined &&
          a['http-equiv'].trim().toLowerCase() === 'refresh'
        ) {
          declarativeRefresh(a.content);
        }
        if (
          !nofollow &&
          a.content !== undefined &&
          a.name !== undefined &&
          a.name.trim().toLowerCase() === 'robots' &&
          robotsSaysNofollow(a.content)
        ) {
          nofollow = true;
        }
        head?.meta(a);
        break;
      case Tag.Title:
        if (title === null && !inTitle && svgDepth === 0) inTitle = true;
        break;
      case Tag.Svg:
        if (!selfClosing) svgDepth++;
        break;
    }
  };

  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        // Only short names can be one of ours: skip the slice for the rest.
        tag = end - start <= 8 ? tagOf(html.slice(start, end).toLowerCase()) : Tag.Other;
        if (tag !== Tag.Other) attribs = {};
      },
      onattribname(start, end) {
        if (tag === Tag.Other) return;
        attrName = end - start <= 10 ? html.slice(start, end).toLowerCase() : '';
        attrValue = '';
      },
      onattribdata(start, end) {
        if (tag !== Tag.Other && attrName !== '') attrValue += text(start, end);
      },
      onattribentity() {},
      onattribend() {
        // The first of duplicate attributes wins, as in the HTML spec.
        if (tag !== Tag.Other && WANTED_ATTRS.has(attrName) && attribs[attrName] === undefined) {
          attribs[attrName] = attrValue;
        }
        attrName = '';
      },
      onopentagend() {
        if (tag !== Tag.Other) openTag(false);
        tag = Tag.Other;
      },
      onselfclosingtag() {
        if (tag !== Tag.Other) openTag(true);
        tag = Tag.Other;
      },
      onclosetag(start, end) {
        const len = end - start;
        if (len === 5 && inTitle && html.slice(start, end).toLowerCase() === 'title') finishTitle();
        else if (len === 3 && svgDepth > 0 && html.slice(start, end).toLowerCase() === 'svg') svgDepth--;
        else if (len === 8 && noscriptDepth > 0 && html.slice(start, end).toLowerCase() === 'noscript')
          noscriptDepth--;
        else if (rawText && (len === 6 || len === 5)) {
          const name = html.slice(start, end).toLowerCase();
          if (name === 'script' || name === 'style') rawText = false;
          head?.endScript();
        }
      },
      ontext(start, end) {
        if (inTitle && titleText.length < TITLE_MAX_CHARS * 4) titleText += text(start, end);
        if (head?.readsText) head.text(text(start, end));
        if (sketch !== null && !rawText) {
          if (bytes === null) sketch.add(html, start, end);
          else {
            const s = text(start, end);
            sketch.add(s, 0, s.length);
          }
        }
      },
      ontextentity() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
      isInForeignContext: () => svgDepth > 0,
    },
  );

  try {
    tokenizer.write(html);
    tokenizer.end();
  } catch {
    // htmlparser2 is not known to throw on any input; this guard keeps a tokenizer bug from
    // failing the fetch — the partial result is still useful.
  }
  if (inTitle) finishTitle();

  if (lateRefresh !== null && !nofollow && !seenLinks.has(lateRefresh)) links.push(lateRefresh);
  const out: HtmlExtract = { title, links: nofollow ? [] : links, nofollow, metaCharset, refresh };
  if (sketch !== null) out.sketch = sketch.finish();
  if (head !== null) out.head = head.facts;
  return out;
}
