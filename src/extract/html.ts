/**
 * HTML extraction in one streaming pass (htmlparser2 `Parser`, no DOM): the links a crawler may
 * follow, the title, the robots `nofollow` directive and the declared `<meta>` charset.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';
import { Parser } from 'htmlparser2';
import { canonicalize } from '../url/canonicalize.js';

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
}

/**
 * Longest title kept, in UTF-16 code units; an unterminated `<title>` would otherwise swallow the
 * rest of the document into the item line.
 */
const TITLE_MAX_CHARS = 1024;

/** Tags whose attributes are read, so whose entities must be decoded. */
const DECODED_TAGS = new Set(['a', 'area', 'link', 'base', 'meta']);

/** Decode character references in attribute values in place (HTML attribute rules). */
function decodeAttribs(attribs: Record<string, string>): void {
  for (const k in attribs) {
    const v = attribs[k];
    if (v.indexOf('&') >= 0) attribs[k] = decodeHTMLAttribute(v);
  }
}

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
 * Links come from `<a href>`, `<area href>`, and `<link href>` whose `rel` contains `next`, `prev`
 * or `alternate`. Each is resolved with {@link canonicalize} (so whitespace and newlines inside
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
 * Never throws: garbage or binary input yields whatever could be parsed.
 *
 * @param html the decoded document text.
 * @param pageUrl the document's URL (after redirects), used as the base for relative links.
 */
export function extractHtml(html: string, pageUrl: string): HtmlExtract {
  let base = pageUrl;
  let baseSeen = false;
  let title: string | null = null;
  let titleText = '';
  let inTitle = false;
  let svgDepth = 0;
  let nofollow = false;
  let metaCharset: string | null = null;
  const links: string[] = [];
  const seenLinks = new Set<string>();
  // Raw hrefs already resolved against the current base: menus and footers repeat them a lot.
  let seenHrefs = new Set<string>();

  const addLink = (href: string): void => {
    if (seenHrefs.has(href)) return;
    seenHrefs.add(href);
    const url = canonicalize(href, base);
    if (url !== null && !seenLinks.has(url)) {
      seenLinks.add(url);
      links.push(url);
    }
  };

  const finishTitle = (): void => {
    inTitle = false;
    const raw = titleText.indexOf('&') >= 0 ? decodeHTML(titleText) : titleText;
    const text = raw.replace(ASCII_WHITESPACE, ' ').trim();
    title = text.length > TITLE_MAX_CHARS ? text.slice(0, TITLE_MAX_CHARS) : text;
    titleText = '';
  };

  const parser = new Parser(
    {
      onopentag(name, rawAttribs) {
        // Entities are decoded only in the few attributes read (the tokenizer runs with
        // decodeEntities off: about 30% less parse time).
        const attribs = rawAttribs;
        if (DECODED_TAGS.has(name)) decodeAttribs(attribs);
        switch (name) {
          case 'a':
          case 'area':
            if (!nofollow && attribs.href !== undefined) addLink(attribs.href);
            break;
          case 'link':
            if (
              !nofollow &&
              attribs.href !== undefined &&
              attribs.rel !== undefined &&
              hasFollowedRel(attribs.rel)
            ) {
              addLink(attribs.href);
            }
            break;
          case 'base':
            if (!baseSeen && attribs.href !== undefined) {
              baseSeen = true;
              const resolved = canonicalize(attribs.href, pageUrl);
              if (resolved !== null && resolved !== base) {
                base = resolved;
                seenHrefs = new Set();
              }
            }
            break;
          case 'meta':
            if (metaCharset === null) {
              if (attribs.charset !== undefined) {
                metaCharset = attribs.charset.trim() || null;
              } else if (
                attribs.content !== undefined &&
                attribs['http-equiv'] !== undefined &&
                attribs['http-equiv'].trim().toLowerCase() === 'content-type'
              ) {
                metaCharset = charsetFromContentType(attribs.content);
              }
            }
            if (
              !nofollow &&
              attribs.content !== undefined &&
              attribs.name !== undefined &&
              attribs.name.trim().toLowerCase() === 'robots' &&
              robotsSaysNofollow(attribs.content)
            ) {
              nofollow = true;
            }
            break;
          case 'title':
            if (title === null && !inTitle && svgDepth === 0) inTitle = true;
            break;
          case 'svg':
            svgDepth++;
            break;
        }
      },
      ontext(text) {
        if (inTitle && titleText.length < TITLE_MAX_CHARS * 4) titleText += text;
      },
      onclosetag(name) {
        if (name === 'title') {
          if (inTitle) finishTitle();
        } else if (name === 'svg' && svgDepth > 0) {
          svgDepth--;
        }
      },
    },
    { decodeEntities: false },
  );

  try {
    parser.write(html);
    parser.end();
  } catch {
    // htmlparser2 is not known to throw on any input; this guard keeps a parser bug from
    // failing the fetch — the partial result is still useful.
  }
  if (inTitle) finishTitle();

  return { title, links: nofollow ? [] : links, nofollow, metaCharset };
}
