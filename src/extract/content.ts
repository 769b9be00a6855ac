/**
 * A page's content for a corpus: its main content as GFM Markdown (`markdown.ts`), the text of
 * that Markdown, its word count, and its links. The DOM is our light DOM (`light-dom.ts`), built
 * once from htmlparser2's events; it is prepared
 * (`content-prep.ts`) so that code languages, math, heading levels and lazy images survive; the
 * main content is chosen by Mozilla's Readability (Firefox's reader view), and when Readability
 * finds too little (an index or landing page) the page's body without its navigation, header,
 * footer and asides is taken instead. Libraries load on first use.
 */
import { createRequire } from 'node:module';
import { canonicalize } from '../url/canonicalize.js';
import { all, type DomDocument, type DomElement, type DomNode } from './content-dom.js';
import { INDEX_ATTR, PARENT_ATTR, prepareContent } from './content-prep.js';
import { parseHtmlDocument } from './light-dom-parse.js';
import { toMarkdown } from './markdown.js';
import { countWords, markdownToText } from './markdown-text.js';

const require = createRequire(import.meta.url);

/** Defaults of main-content extraction. */
export const CONTENT_DEFAULTS = {
  /**
   * Largest HTML document extracted, in characters: a DOM costs ~10× its source in memory, and
   * pages larger than this are listings or dumps. Bigger pages get metadata only.
   */
  maxHtmlChars: 2 * 1024 * 1024,
  /**
   * Most elements (start tags) in a document extracted: bigger pages get metadata only, read from
   * their `<head>`. High enough for a documentation set's longest reference pages (the Python
   * docs' `stdtypes` and `os`, 16,000–17,000 elements, 0.3–0.9 s of CPU each); the pages above it
   * are indexes and tables of contents (that set's `genindex-all`, 35,000, took 1.4 s for 27
   * words).
   */
  maxElements: 25_000,
  /** Characters of a too-big page read for its metadata (its head, or this much of it). */
  headChars: 256 * 1024,
  /**
   * Characters of text below which Readability's choice is checked against the page's body
   * without navigation: an index or landing page has little "article" but real content. Kept
   * low: a short news item (AEB's shortest hold 18 words) is an article, not an index.
   */
  fallbackBelowChars: 140,
  /**
   * Readability's `charThreshold`: text below which it tries again with its cleaning rules
   * relaxed (each try re-parses the page). 250 rather than its 500: a short news item or doc page
   * is found on the first, cleaner try (AEB: precision +0.001, p95 time −15%).
   */
  readabilityCharThreshold: 250,
  /** Characters before the page's headline dropped at most (`dropLeadBeforeHeadline`). */
  maxLeadChars: 300,
} as const;

/** Start tags, counted to bound the work before building a DOM. */
const START_TAG = /<[a-zA-Z]/g;

/** Whether a document is small enough for main-content extraction. */
export function withinLimits(html: string): boolean {
  if (html.length > CONTENT_DEFAULTS.maxHtmlChars) return false;
  let n = 0;
  START_TAG.lastIndex = 0;
  while (START_TAG.exec(html) !== null) if (++n > CONTENT_DEFAULTS.maxElements) return false;
  return true;
}

/** The head of a document (through `</head>`), or its first {@link CONTENT_DEFAULTS}.headChars. */
export function headOf(html: string): string {
  const end = html.slice(0, CONTENT_DEFAULTS.headChars).search(/<\/head\s*>/i);
  return end < 0 ? html.slice(0, CONTENT_DEFAULTS.headChars) : html.slice(0, end);
}

type ReadabilityModule = typeof import('@mozilla/readability');
let readability: ReadabilityModule['Readability'] | null = null;

/** Readability, loaded on first use. */
function Readability(): ReadabilityModule['Readability'] {
  readability ??= (require('@mozilla/readability') as ReadabilityModule).Readability;
  return readability;
}

/** `<script>`…`</script>`, with its attributes captured. */
const SCRIPT = /<script\b([^>]*)>[\s\S]*?<\/script\s*>/gi;
/** Scripts that carry content: JSON-LD metadata and MathJax 2's TeX. */
const CONTENT_SCRIPT = /\btype\s*=\s*["']?\s*(?:application\/ld\+json|math\/tex)/i;
/** Style sheets, comments and inline SVG: never content, often most of a page's bytes. */
const NOT_CONTENT = /<style\b[^>]*>[\s\S]*?<\/style\s*>|<!--[\s\S]*?-->|<svg\b[\s\S]*?<\/svg\s*>/gi;

/**
 * The page without what no extraction reads — scripts (but JSON-LD and TeX), style sheets,
 * comments, inline SVG — so the DOM is built for less (on news pages, scripts are often half
 * the bytes).
 */
export function withoutScripts(html: string): string {
  return html
    .replace(SCRIPT, (m, attrs: string) => (CONTENT_SCRIPT.test(attrs) ? m : ''))
    .replace(NOT_CONTENT, '');
}

/** A light DOM (`light-dom.ts`) of `html`, scripts, styles, comments and SVG left out ({@link withoutScripts}). */
export function parseDocument(html: string): DomDocument {
  return parseHtmlDocument(withoutScripts(html));
}

/** What Readability's `parse()` answers, with the content element itself. */
type ReadabilityResult = {
  title?: string | null;
  content?: DomElement | null;
  length?: number | null;
  byline?: string | null;
  publishedTime?: string | null;
};

/** What {@link mainContent} chose. */
export interface MainContent {
  /** The content element (detached from or inside the document), or null when the page has none. */
  root: DomElement | null;
  /** Readability's title guess (the `<title>` cleaned up), for a page without metadata. */
  title: string | null;
  /** Readability's byline, if any. */
  byline: string | null;
  /** Readability's published time, if any (raw). */
  publishedTime: string | null;
  /** True when Readability found too little and the body without navigation was taken. */
  fallback: boolean;
}

/** Elements that are navigation or page chrome, removed when the whole body is the content. */
const CHROME =
  'nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [aria-hidden="true"], [hidden]';

/** The body of a freshly parsed, prepared document without its chrome. */
function bodyWithoutChrome(html: string): DomElement | null {
  const document = parseDocument(html);
  prepareContent(document);
  const body = document.body ?? document.documentElement;
  if (body === null) return null;
  for (const el of all(body, CHROME)) if (el.parentNode) el.remove();
  for (const el of all(body, 'script, style, noscript, template')) el.remove();
  return body;
}

/** Blocks that Readability leaves out when they sit beside the element it chose: it appends only scored siblings and paragraphs. */
const SKIPPED_BLOCKS = new Set([
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'dl',
  'table',
  'pre',
  'blockquote',
]);

/** Share of a block's text inside links above which a skipped block is navigation, not content. */
const MAX_SKIPPED_LINK_DENSITY = 0.5;

function linkDensity(el: DomElement): number {
  const text = (el.textContent ?? '').replace(/\s+/g, '').length;
  if (text === 0) return 1;
  let linked = 0;
  for (const a of all(el, 'a')) linked += (a.textContent ?? '').replace(/\s+/g, '').length;
  return linked / text;
}

/**
 * A block before the first one Readability took that opens the same section of the document: a
 * sub-heading with what follows it, or a code block (a reference page's synopsis).
 */
function leadingSection(el: DomElement): boolean {
  if (el.localName === 'pre') return true;
  if (el.localName !== 'div' && el.localName !== 'section') return false;
  return (
    el.querySelector('h1') === null &&
    el.querySelector('h2, h3, h4, h5, h6') !== null &&
    el.querySelector('pre, p, table') !== null
  );
}

/**
 * Puts back the headings, lists, tables, code blocks and quotes that Readability left out from
 * between the blocks it took from one parent: it keeps a sibling of its chosen element only when
 * that sibling was scored or is a paragraph, so a section's heading or a list between two chosen
 * paragraphs is lost. Blocks between the first and last chosen ones, in document order
 * (`content-prep.ts` numbers them); before the first one, the sections that open the same
 * document ({@link leadingSection}: a reference page's synopsis); after the last one, the run of
 * headings, paragraphs, lists, tables and code that continues it (a README's install commands),
 * up to the first other element. None that is mostly links.
 */
function restoreSkippedBlocks(document: DomDocument, chosen: DomElement): void {
  const kids = Array.from(chosen.children);
  const container = kids.length === 1 && kids[0].getAttribute(PARENT_ATTR) === null ? kids[0] : chosen; // Readability's page div
  const taken = Array.from(container.children);
  const parents = new Set(taken.map((k) => k.getAttribute(PARENT_ATTR)));
  if (parents.size !== 1 || taken.length < 2) return;
  const parentIndex = [...parents][0];
  if (parentIndex === null || parentIndex === undefined) return;
  const order = (el: DomElement) => Number(el.getAttribute(INDEX_ATTR) ?? Number.NaN);
  const first = order(taken[0]);
  const last = order(taken[taken.length - 1]);
  if (!(first < last)) return;
  const parent = document.querySelector(`[${INDEX_ATTR}="${parentIndex}"]`);
  if (parent === null || container.contains(parent)) return;
  const present = new Set(taken.map(order));
  let trailing = true;
  for (const el of Array.from(parent.children)) {
    const i = order(el);
    if (present.has(i)) continue;
    if (i > last) {
      // after the last chosen block: the run of headings, paragraphs, lists, tables and code
      // that continues it, up to the first other element (a box of links, a comment thread)
      if (!trailing) break;
      if (
        !(SKIPPED_BLOCKS.has(el.localName) || el.localName === 'p') ||
        linkDensity(el) > MAX_SKIPPED_LINK_DENSITY
      ) {
        trailing = false;
        continue;
      }
      container.appendChild(el);
      continue;
    }
    if (i > first) {
      if (!SKIPPED_BLOCKS.has(el.localName)) continue;
    } else if (!leadingSection(el)) continue;
    if (linkDensity(el) > MAX_SKIPPED_LINK_DENSITY) continue;
    const before = taken.find((k) => order(k) > i) ?? null;
    container.insertBefore(el, before);
  }
}

/** Whether `el` holds table rows or sections as children (a table or tbody Readability renamed). */
function hasRows(el: DomElement): boolean {
  return Array.from(el.children).some((c) => /^(tr|tbody|thead|tfoot)$/.test(c.localName));
}

/**
 * When Readability chose (almost only) a table — it scores cells, so on a page that is mostly a
 * table of reference it takes the table, or only its `<tbody>`, or the table renamed to a `<div>`,
 * without the header row or the text around it — what it took goes back where it was in the document (the
 * numbers `content-prep.ts` gave every block say where), and the table's section, its nearest
 * ancestor holding a heading, is the content. Returns that section, or null when the choice was
 * not mostly a table.
 */
function recoverTable(document: DomDocument, chosen: DomElement): DomElement | null {
  const rows = all(chosen, 'tr');
  if (rows.length === 0) return null;
  const textOf = (el: DomElement) => (el.textContent ?? '').replace(/\s+/g, '').length;
  const inRows = rows.reduce((n, r) => n + (r.closest('tr') === r ? textOf(r) : 0), 0);
  if (inRows < 0.9 * textOf(chosen)) return null;
  const byIndex = (i: string | null) =>
    i === null
      ? null
      : (document.querySelector(`[${INDEX_ATTR}="${i}"]`) ?? chosen.querySelector(`[${INDEX_ATTR}="${i}"]`));
  /** Puts `el` back in its parent (by number), before the first child numbered after it. */
  const putBack = (el: DomElement, parent: DomElement): void => {
    const i = Number(el.getAttribute(INDEX_ATTR));
    const next = Array.from(parent.children).find((c) => Number(c.getAttribute(INDEX_ATTR)) > i) ?? null;
    parent.insertBefore(el, next);
  };
  // the blocks Readability moved out, back in their parents (a cut-out tbody's rows into the table)
  const page =
    chosen.children.length === 1 && chosen.children[0].getAttribute(INDEX_ATTR) === null
      ? chosen.children[0]
      : chosen;
  const kids = Array.from(page.children);
  const home = (kid: DomElement) => {
    const parent = byIndex(kid.getAttribute(PARENT_ATTR));
    return parent?.isConnected ? parent : null;
  };
  // Nothing is moved unless a table will be found again: a failed recovery must keep the choice whole.
  const bringsTable = (kid: DomElement) =>
    kid.localName === 'table' || hasRows(kid) || kid.querySelector('table') !== null;
  if (!kids.some((kid) => home(kid) !== null && bringsTable(kid))) return null;
  for (const kid of kids) {
    const parent = home(kid);
    if (parent === null) continue;
    if (parent.localName !== 'table' && kid.localName !== 'table' && hasRows(kid)) {
      // the table itself, renamed: its sections and rows go back in a table of that number
      const table = document.createElement('table');
      table.setAttribute(INDEX_ATTR, kid.getAttribute(INDEX_ATTR) ?? '');
      for (const child of Array.from(kid.childNodes)) table.appendChild(child);
      putBack(table, parent);
    } else if (
      parent.localName === 'table' &&
      kid.localName !== 'thead' &&
      kid.localName !== 'tbody' &&
      kid.localName !== 'tfoot'
    ) {
      // a table section Readability renamed: its rows go back in a tbody of that number
      const body = document.createElement('tbody');
      body.setAttribute(INDEX_ATTR, kid.getAttribute(INDEX_ATTR) ?? '');
      for (const row of Array.from(kid.children)) body.appendChild(row);
      putBack(body, parent);
    } else putBack(kid, parent);
  }
  const table = rows.map((r) => r.closest('table')).find((t) => t?.isConnected);
  if (table === undefined || table === null) return null;
  // the table's section: up its wrappers (a caption's div, a scroll box) to one with a heading
  let section = table.parentElement;
  while (
    section !== null &&
    section.localName !== 'body' &&
    section.parentElement !== null &&
    section.querySelector('h1, h2, h3, h4, h5, h6') === null
  )
    section = section.parentElement;
  return section;
}

/**
 * Whether the body without navigation is taken instead of Readability's choice: when that choice
 * holds under {@link CONTENT_DEFAULTS}.fallbackBelowChars characters of text (0: none) and the
 * body holds more than twice as much.
 */
export function preferBody(chosenChars: number, bodyChars: number): boolean {
  return chosenChars < CONTENT_DEFAULTS.fallbackBelowChars && bodyChars > 2 * chosenChars;
}

/**
 * The main content of a page. `document` is prepared and then consumed by Readability (do not
 * use it after this). When Readability's choice holds under
 * {@link CONTENT_DEFAULTS}.fallbackBelowChars characters and the body without navigation holds
 * twice as much, that body is the content (`fallback: true`).
 * @param html the page's source (parsed again only for the fallback).
 * @param title the page's title, whose headline's lead-in is dropped first (`dropLeadBeforeHeadline`).
 */
export function mainContent(document: DomDocument, html: string, title: string | null = null): MainContent {
  prepareContent(document);
  if (title !== null) dropLeadBeforeHeadline(document, title);
  let parsed: ReadabilityResult | null = null;
  try {
    const reader = new (Readability())<DomElement>(document as never, {
      serializer: (node) => node as unknown as DomElement,
      charThreshold: CONTENT_DEFAULTS.readabilityCharThreshold,
    });
    parsed = reader.parse();
  } catch {
    parsed = null; // a library bug on one page must not fail the page
  }
  const chosen = (parsed?.content ?? null) as DomElement | null;
  let root = chosen;
  if (chosen !== null) {
    const recovered = recoverTable(document, chosen);
    if (recovered !== null) root = recovered;
    else restoreSkippedBlocks(document, chosen);
  }
  const length = parsed?.length ?? 0;
  const out: MainContent = {
    root,
    title: parsed?.title ?? null,
    byline: parsed?.byline ?? null,
    publishedTime: parsed?.publishedTime ?? null,
    fallback: false,
  };
  if (chosen === null || length < CONTENT_DEFAULTS.fallbackBelowChars) {
    const body = bodyWithoutChrome(html);
    const bodyLength = (body?.textContent ?? '').replace(/\s+/g, ' ').trim().length;
    if (body !== null && preferBody(chosen === null ? 0 : length, bodyLength)) {
      out.root = body;
      out.fallback = true;
    }
  }
  return out;
}

/**
 * Makes `a[href]` and `img[src]` absolute in place (against `base`); collects the anchors'
 * canonical URLs (each once, in order).
 */
export function absolutize(root: DomElement, base: string): string[] {
  const links: string[] = [];
  const seen = new Set<string>();
  for (const a of all(root, 'a[href]')) {
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
  for (const img of all(root, 'img[src]'))
    img.setAttribute('src', absolute(img.getAttribute('src')!.trim(), base));
  return links;
}

function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/** Letters and digits of a text, lowercased: what two headings are compared by. */
function headingKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * What little comes before the page's headline — an `<h1>` whose text is the title's (or contains
 * it, or is contained in it) — is dropped: a kicker, "Breaking news", a sign-in link, a repeated
 * URL. From the headline up through its ancestors, the siblings before it go as long as all that
 * was dropped holds at most {@link CONTENT_DEFAULTS}.maxLeadChars characters; a level holding more
 * stays, with everything above it. Done before the main-content choice (Readability drops the
 * headline itself as the title). Body text is never before a headline this short.
 * @param title the page's title (metadata's).
 */
export function dropLeadBeforeHeadline(document: DomDocument, title: string): void {
  const key = headingKey(title);
  const body = document.body;
  if (key === '' || body === null) return;
  const h1 = all(body, 'h1').find((h) => {
    const k = headingKey(h.textContent ?? '');
    return k !== '' && (k === key || key.includes(k) || k.includes(key));
  });
  if (h1 === undefined) return;
  let lead = 0;
  for (let el: DomElement = h1; el !== body && el.parentElement !== null; el = el.parentElement) {
    const before: DomNode[] = [];
    let chars = 0;
    for (let sib = el.previousSibling; sib !== null; sib = sib.previousSibling) {
      before.push(sib);
      chars += (sib.textContent ?? '').replace(/\s+/g, '').length;
    }
    if (lead + chars > CONTENT_DEFAULTS.maxLeadChars) return;
    lead += chars;
    for (const n of before) n.remove();
  }
}

/** A page's main content as {@link extractMainMarkdown} gives it. */
export interface MainMarkdown {
  /** GFM Markdown of the main content (no headline added), or null when the page has none. */
  markdown: string | null;
  /** The Markdown's text (`markdownToText`): what words, language and fingerprints are read from. */
  text: string;
  /** Words in `text` (runs of Unicode letters, digits and marks). */
  words: number;
  /** Canonical http(s) URLs of the links in the Markdown, each once, in order. */
  links: string[];
  /** Readability's guesses, for pages without metadata. */
  guess: { title: string | null; byline: string | null; publishedTime: string | null };
  /** Whether the content is the body without navigation (Readability found too little). */
  fallback: boolean;
}

/**
 * The main content of a parsed page as Markdown. Consumes `document` (see {@link mainContent}).
 * Never throws for odd input: a library failure yields `markdown: null`.
 * @param html the page's source (for the fallback).
 * @param base the URL links are resolved against (`baseOf` of `page-metadata.ts`).
 * @param title the page's title (metadata's), if known: its headline's lead-in is dropped.
 */
export function extractMainMarkdown(
  document: DomDocument,
  html: string,
  base: string,
  title: string | null = null,
): MainMarkdown {
  const empty: MainMarkdown = {
    markdown: null,
    text: '',
    words: 0,
    links: [],
    guess: { title: null, byline: null, publishedTime: null },
    fallback: false,
  };
  let main: MainContent;
  try {
    main = mainContent(document, html, title);
  } catch {
    return empty;
  }
  const guess = { title: main.title, byline: main.byline, publishedTime: main.publishedTime };
  if (main.root === null) return { ...empty, guess };
  let markdown: string;
  let links: string[];
  try {
    links = absolutize(main.root, base);
    markdown = toMarkdown(main.root);
  } catch {
    return { ...empty, guess };
  }
  if (markdown === '') return { ...empty, guess, fallback: main.fallback };
  const text = markdownToText(markdown);
  return { markdown, text, words: countWords(text), links, guess, fallback: main.fallback };
}
