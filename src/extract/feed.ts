/**
 * Reads web feeds — RSS 2.0, RSS 1.0 (RDF), Atom 1.0 (and 0.3), JSON Feed 1.0/1.1 — into their
 * entries' URLs, titles and dates, leniently, as feed readers do with the broken feeds of the wild.
 *
 * htmlparser2's own `parseFeed` was not enough (it takes an Atom entry's first `<link>` whatever
 * its `rel`, ignores `xml:base`, permalink `<guid>`s and `<published>`, and misses prefixed roots),
 * so this walks htmlparser2's lenient DOM itself. That DOM survives what a conformant XML parser
 * refuses (HTML entities, undeclared prefixes, a stray `&`), never fetches a DTD or expands a
 * declared entity, and is built from the body decoded by its charset (BOM, Content-Type, or the
 * XML declaration when the server said nothing or `text/html`).
 */
import type { ChildNode, Element } from 'domhandler';
import { decodeHTML } from 'entities/decode';
import { parseDocument } from 'htmlparser2';
import { decodeBody } from '../http/charset.js';
import { canonicalize } from '../url/canonicalize.js';
import { parseDateIso } from './dates.js';

/** Which format a feed was written in. */
export type FeedKind = 'rss' | 'rdf' | 'atom' | 'json';

/** One entry of a feed. */
export interface FeedEntry {
  /** Canonical absolute http(s) URL of the entry's page, resolved against `xml:base` / the feed URL. */
  url: string;
  /** Plain-text title (entities decoded, markup removed, whitespace collapsed), or null. */
  title: string | null;
  /** When it was first published (ISO 8601, UTC), or null. */
  published: string | null;
  /** When it was last updated (ISO 8601, UTC), or null. */
  updated: string | null;
}

/** What {@link readFeed} found. */
export interface Feed {
  kind: FeedKind;
  /** The feed's own title, or null. */
  title: string | null;
  /** Entries with a URL, each URL once (the first occurrence wins), in feed order. */
  entries: FeedEntry[];
  /** The next page of a paged feed (RFC 5005 `rel="next"`, JSON Feed `next_url`), or null. */
  next: string | null;
  /** Entries dropped: no usable URL, or a URL already seen in this feed. */
  skipped: number;
}

/** Longest title kept, in characters (a runaway `<title>` must not swell the item line). */
const TITLE_MAX_CHARS = 1024;

/** ASCII whitespace runs. */
const WHITESPACE = /[\t\n\f\r ]+/g;

/**
 * Reads a feed from its body bytes (after Content-Encoding removal).
 *
 * - The format is found by the root element (`rss`, `feed`, `RDF`, whatever their prefix; also
 *   when wrapped in something else) or, for a body starting with `{`, by JSON Feed's `version`.
 * - An entry's URL: Atom — the `<link>` with `rel="alternate"` (preferring `type="text/html"`),
 *   else one without `rel`; RSS 2.0 — `<link>`, else a `<guid>` that is a permalink
 *   (`isPermaLink` not `"false"`) and an http(s) URL, else an `atom:link` as in Atom; RSS 1.0 —
 *   `<link>` or `rdf:about`; JSON Feed — `url`, else `external_url`. Relative URLs resolve
 *   against the `xml:base` in scope (itself resolved outwards) and finally `feedUrl`.
 * - Dates: `published`/`issued`/`pubDate`/`dc:date`/`date_published` and
 *   `updated`/`modified`/`atom:updated`/`dc:modified`/`date_modified`, read by `parseDate`.
 *
 * @param body the response body.
 * @param contentType the Content-Type header, or null (only its charset is used).
 * @param feedUrl the feed's URL after redirects.
 * @returns the feed, or null when the body is not a feed of a known kind.
 */
export function readFeed(body: Buffer, contentType: string | null, feedUrl: string): Feed | null {
  const { text } = decodeBody(body, contentType, false);
  const start = text.search(/\S/);
  if (start >= 0 && text[start] === '{') return readJsonFeed(text, feedUrl);
  return readXmlFeed(text, feedUrl);
}

// ---------------------------------------------------------------------------------------------
// XML feeds

/** Lowercase local name of an element: `atom:Link` → `link`. */
function local(el: Element): string {
  const name = el.name;
  const colon = name.indexOf(':');
  return (colon < 0 ? name : name.slice(colon + 1)).toLowerCase();
}

function isElement(node: ChildNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

function childElements(el: { children: ChildNode[] }): Element[] {
  return el.children.filter(isElement);
}

/** First child element with one of the local names (in the order of `names`' preference). */
function firstChild(el: Element, ...names: string[]): Element | undefined {
  const kids = childElements(el);
  for (const name of names) {
    const found = kids.find((k) => local(k) === name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The text of an element and its descendants, CDATA included, entities decoded once. */
function textOf(el: Element | undefined): string {
  if (el === undefined) return '';
  let out = '';
  const walk = (nodes: ChildNode[]): void => {
    for (const n of nodes) {
      if (n.type === 'text') out += n.data;
      else if ('children' in n) walk(n.children);
    }
  };
  walk(el.children);
  return out.indexOf('&') >= 0 ? decodeHTML(out) : out;
}

/** A title as plain text: markup (escaped HTML titles) removed, whitespace collapsed; null if empty. */
function plainTitle(el: Element | undefined): string | null {
  let text = textOf(el);
  if (/<[a-z/!]/i.test(text)) {
    text = text.replace(/<[^>]*>/g, '');
    if (text.indexOf('&') >= 0) text = decodeHTML(text);
  }
  text = text.replace(WHITESPACE, ' ').trim();
  if (text === '') return null;
  return text.length > TITLE_MAX_CHARS ? text.slice(0, TITLE_MAX_CHARS) : text;
}

/** An attribute by name, case-insensitively, entities decoded. */
function attr(el: Element, name: string): string | undefined {
  let value = el.attribs[name];
  if (value === undefined) {
    const key = Object.keys(el.attribs).find((k) => k.toLowerCase() === name);
    if (key === undefined) return undefined;
    value = el.attribs[key];
  }
  return value.indexOf('&') >= 0 ? decodeHTML(value) : value;
}

/** The base URL in scope inside `el`: its `xml:base` resolved against the one outside. */
function baseIn(el: Element, outer: string): string {
  const xmlBase = attr(el, 'xml:base');
  if (xmlBase === undefined || xmlBase.trim() === '') return outer;
  try {
    return new URL(xmlBase.trim(), outer).href;
  } catch {
    return outer;
  }
}

/** The feed's root element: a top-level rss/feed/RDF, or the first one anywhere (wrapped feeds). */
function findRoot(nodes: ChildNode[]): Element | undefined {
  const isRoot = (el: Element) => {
    const name = local(el);
    return name === 'rss' || name === 'feed' || name === 'rdf';
  };
  const queue: ChildNode[] = [...nodes];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const n = queue[i];
    if (!isElement(n)) continue;
    if (isRoot(n)) return n;
    queue.push(...n.children);
  }
  return undefined;
}

/** The href of the Atom-style `<link>` for an entry's page (alternate, else no rel). */
function atomAlternate(el: Element): string | undefined {
  let noRel: string | undefined;
  let alternate: string | undefined;
  for (const link of childElements(el)) {
    if (local(link) !== 'link') continue;
    const href = attr(link, 'href');
    if (href === undefined || href.trim() === '') continue;
    const rel = (attr(link, 'rel') ?? '').trim().toLowerCase();
    if (rel === 'alternate') {
      const type = (attr(link, 'type') ?? '').toLowerCase();
      if (alternate === undefined || type.startsWith('text/html')) alternate = href;
      if (type.startsWith('text/html')) break;
    } else if (rel === '' && noRel === undefined) {
      noRel = href;
    }
  }
  return alternate ?? noRel;
}

/** The href of a feed-level `<link rel="next">` (RFC 5005), if any. */
function nextLink(el: Element): string | undefined {
  for (const link of childElements(el)) {
    if (local(link) === 'link' && (attr(link, 'rel') ?? '').trim().toLowerCase() === 'next') {
      return attr(link, 'href');
    }
  }
  return undefined;
}

interface RawEntry {
  href: string | undefined;
  base: string;
  title: string | null;
  published: string | null;
  updated: string | null;
}

function readXmlFeed(text: string, feedUrl: string): Feed | null {
  const doc = parseDocument(text, { xmlMode: true, decodeEntities: false });
  const root = findRoot(doc.children);
  if (root === undefined) return null;
  const rootName = local(root);
  const kind: FeedKind = rootName === 'feed' ? 'atom' : rootName === 'rdf' ? 'rdf' : 'rss';
  const rootBase = baseIn(root, feedUrl);
  // RSS 2.0 keeps items in <channel>; RSS 1.0 beside it; broken feeds anywhere under the root.
  const channel = kind === 'atom' ? root : (firstChild(root, 'channel') ?? root);
  const channelBase = baseIn(channel, rootBase);
  const itemName = kind === 'atom' ? 'entry' : 'item';
  const items = childElements(channel).filter((e) => local(e) === itemName);
  if (kind !== 'atom' && channel !== root) {
    items.push(...childElements(root).filter((e) => local(e) === 'item'));
  }
  const raw = items.map((item) =>
    kind === 'atom' ? atomEntry(item, channelBase) : rssEntry(item, channelBase),
  );
  const next = nextLink(channel);
  return {
    kind,
    title: plainTitle(firstChild(channel, 'title')),
    ...uniqueEntries(raw),
    next: next === undefined ? null : canonicalize(next, channelBase),
  };
}

function atomEntry(item: Element, outer: string): RawEntry {
  const base = baseIn(item, outer);
  return {
    href: atomAlternate(item),
    base,
    title: plainTitle(firstChild(item, 'title')),
    published: parseDateIso(textOf(firstChild(item, 'published', 'issued', 'created'))),
    updated: parseDateIso(textOf(firstChild(item, 'updated', 'modified'))),
  };
}

function rssEntry(item: Element, outer: string): RawEntry {
  const base = baseIn(item, outer);
  // the plain <link> with text; an atom:link (local name "link" too) has an href instead
  const linkText = childElements(item)
    .filter((e) => e.name.toLowerCase() === 'link')
    .map((e) => textOf(e).trim())
    .find((t) => t !== '');
  let href: string | undefined = linkText;
  if (href === undefined) {
    const guid = firstChild(item, 'guid');
    const guidText = textOf(guid).trim();
    if (guid !== undefined && attr(guid, 'ispermalink')?.trim().toLowerCase() !== 'false') {
      if (/^https?:\/\//i.test(guidText)) href = guidText;
    }
  }
  href ??= atomAlternate(item) ?? attr(item, 'rdf:about');
  return {
    href,
    base,
    title: plainTitle(firstChild(item, 'title')),
    published: parseDateIso(textOf(firstChild(item, 'pubdate', 'date', 'published', 'issued'))),
    updated: parseDateIso(textOf(firstChild(item, 'updated', 'modified'))),
  };
}

/** Resolves and canonicalizes the entries' URLs, keeping each URL's first entry. */
function uniqueEntries(raw: RawEntry[]): { entries: FeedEntry[]; skipped: number } {
  const entries: FeedEntry[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const r of raw) {
    const url = r.href === undefined ? null : canonicalize(r.href.trim(), r.base);
    if (url === null || seen.has(url)) {
      skipped++;
      continue;
    }
    seen.add(url);
    entries.push({ url, title: r.title, published: r.published, updated: r.updated });
  }
  return { entries, skipped };
}

// ---------------------------------------------------------------------------------------------
// JSON Feed (https://www.jsonfeed.org/version/1.1/)

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function readJsonFeed(text: string, feedUrl: string): Feed | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (json === null || typeof json !== 'object') return null;
  const feed = json as Record<string, unknown>;
  if (!str(feed.version)?.includes('jsonfeed.org/version/') || !Array.isArray(feed.items)) return null;
  const raw: RawEntry[] = [];
  for (const item of feed.items) {
    if (item === null || typeof item !== 'object') continue;
    const it = item as Record<string, unknown>;
    const title = str(it.title);
    raw.push({
      href: str(it.url) ?? str(it.external_url),
      base: feedUrl,
      title: title === undefined ? null : title.replace(WHITESPACE, ' ').trim().slice(0, TITLE_MAX_CHARS),
      published: parseDateIso(str(it.date_published)),
      updated: parseDateIso(str(it.date_modified)),
    });
  }
  const title = str(feed.title);
  const next = str(feed.next_url);
  return {
    kind: 'json',
    title: title === undefined ? null : title.trim(),
    ...uniqueEntries(raw),
    next: next === undefined ? null : canonicalize(next, feedUrl),
  };
}
