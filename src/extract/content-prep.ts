/**
 * Prepares a page's DOM before the main-content choice, in one pass over its elements, so that
 * what Readability removes or rewrites is read first: code blocks (`code-blocks.ts`), math
 * (`math-tex.ts`), heading levels and permalinks, editor-style nested lists, lazy images, table
 * alignment and block numbers; and page furniture (`furniture.ts`) that can outweigh a short
 * article is removed. Every rule is a general HTML convention; none is keyed to a site.
 */
import { isGutter, markCodeBlock } from './code-blocks.js';
import { all, type DomDocument, type DomElement } from './content-dom.js';
import { ARTICLE_MARKERS, HIDDEN_TEXT, looksLikeFurniture, NEVER_FURNITURE } from './furniture.js';
import { MATHJAX_RENDERED, markMath } from './math-tex.js';

/** Attribute carrying a heading's level (1–6) through Readability (which turns `<h1>` into `<h2>`). */
export const LEVEL_ATTR = 'data-collector-level';
/** Attribute numbering block elements in document order (survives Readability's moves and re-parses). */
export const INDEX_ATTR = 'data-collector-i';
/** Attribute naming a block's parent by its {@link INDEX_ATTR}. */
export const PARENT_ATTR = 'data-collector-p';
/** Attribute carrying a table cell's alignment (`left`, `center`, `right`) through Readability, which drops `align` and `style`. */
export const ALIGN_ATTR = 'data-collector-align';

/** Block elements numbered with {@link INDEX_ATTR} (and their parent with {@link PARENT_ATTR}). */
const NUMBERED_BLOCKS = new Set([
  'div',
  'p',
  'section',
  'article',
  'header',
  'h1',
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
  'figure',
  'details',
  'thead',
  'tbody',
  'tfoot',
  'tr',
]);

/** The class tokens of an element without a class. */
const NO_TOKENS: readonly string[] = [];

/** Whether an anchor is a permalink: to a fragment (or nowhere), with no letter or digit in its text (`¶`, `#`, `§`, an icon). */
function isPermalink(a: DomElement): boolean {
  const href = a.getAttribute('href') ?? '';
  return (href === '' || href.startsWith('#')) && !/[\p{L}\p{N}]/u.test(a.textContent ?? '');
}

/**
 * A heading keeps its level through Readability (which renames `<h1>` to `<h2>` and drops an
 * `<h1>`/`<h2>` whose class or id looks like furniture): the level goes in an attribute, class
 * and id are removed, and its permalink anchors are removed.
 */
export function markHeading(h: DomElement): void {
  h.setAttribute(LEVEL_ATTR, h.localName.slice(1));
  h.removeAttribute('class');
  h.removeAttribute('id');
  for (const a of all(h, 'a')) if (isPermalink(a)) a.remove();
}

/**
 * An editor-style nested list (`<ul><li>a</li><ul><li>b</li></ul></ul>`, invalid HTML that
 * editors write) is moved into the `<li>` before it, as it is displayed (or into a new one).
 */
export function nestSiblingList(document: DomDocument, list: DomElement): void {
  const prev = list.previousElementSibling;
  if (prev !== null && prev.localName === 'li') prev.appendChild(list);
  else {
    const li = document.createElement('li');
    list.parentElement?.insertBefore(li, list);
    li.appendChild(list);
  }
}

/** Image URLs in lazy-loading attributes, most specific first. */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src'];
const LAZY_SRCSET = ['data-srcset', 'data-lazy-srcset', 'srcset'];
/** An image `src` that only holds a place for a lazy-loaded one. */
const PLACEHOLDER_SRC = /\b(?:blank|spacer|pixel|placeholder|lazy)\.(?:gif|png|svg)/i;

/** The largest candidate of a `srcset` (by width or density descriptor), or null. */
export function largestSrcsetUrl(srcset: string): string | null {
  let best: string | null = null;
  let bestSize = -1;
  for (const part of srcset.split(/,\s+/)) {
    const [url, descriptor = '1x'] = part.trim().split(/\s+/);
    if (!url) continue;
    const size = Number.parseFloat(descriptor) * (descriptor.endsWith('w') ? 1 : 1000);
    if (Number.isFinite(size) && size > bestSize) {
      best = url;
      bestSize = size;
    }
  }
  return best;
}

/**
 * A lazy-loaded image gets a real `src`: from `data-src` (and kin) or the largest `srcset`
 * candidate, when `src` is missing, a `data:` placeholder, or a spacer image.
 */
export function resolveLazyImage(img: DomElement): void {
  const src = img.getAttribute('src')?.trim() ?? '';
  if (!(src === '' || src.startsWith('data:') || PLACEHOLDER_SRC.test(src))) return;
  let found: string | null = null;
  for (const a of LAZY_SRC) {
    const v = img.getAttribute(a)?.trim();
    if (v && !v.startsWith('data:')) {
      found = v;
      break;
    }
  }
  if (found === null)
    for (const a of LAZY_SRCSET) {
      const v = img.getAttribute(a);
      if (v) found = largestSrcsetUrl(v);
      if (found !== null) break;
    }
  if (found !== null) img.setAttribute('src', found);
}

/**
 * Prepares a document for the main-content choice (see the module comment), in one pass over its
 * elements: line-number gutters out, code blocks read, math read, furniture out (except what
 * holds the article, and anything inside code), headings marked, lists nested, lazy images
 * resolved. Mutates `document`.
 */
export function prepareContent(document: DomDocument): void {
  const gutters: DomElement[] = [];
  const pres: DomElement[] = [];
  const math: DomElement[] = [];
  const rendered: DomElement[] = [];
  const furniture: DomElement[] = [];
  const headings: DomElement[] = [];
  const lists: DomElement[] = [];
  const images: DomElement[] = [];
  const permalinks: DomElement[] = [];
  let index = 0;
  for (const el of all(document, '*')) {
    const name = el.localName;
    if (NUMBERED_BLOCKS.has(name)) {
      el.setAttribute(INDEX_ATTR, String(++index));
      const parent = el.parentElement;
      if (parent !== null) {
        let pi = parent.getAttribute(INDEX_ATTR);
        if (pi === null) {
          pi = String(++index);
          parent.setAttribute(INDEX_ATTR, pi);
        }
        el.setAttribute(PARENT_ATTR, pi);
      }
    }
    if (name === 'td' || name === 'th') {
      const align = (
        el.getAttribute('align') ??
        /text-align:\s*(\w+)/i.exec(el.getAttribute('style') ?? '')?.[1] ??
        ''
      ).toLowerCase();
      if (align === 'left' || align === 'center' || align === 'right') el.setAttribute(ALIGN_ATTR, align);
    }
    if (name === 'pre') pres.push(el);
    else if (name === 'script') {
      if ((el.getAttribute('type') ?? '').startsWith('math/tex')) math.push(el);
      continue;
    } else if (name === 'math') math.push(el);
    else if (name.length === 2 && name[0] === 'h' && name[1] >= '1' && name[1] <= '6') headings.push(el);
    else if (name === 'img') images.push(el);
    else if (
      (name === 'ul' || name === 'ol') &&
      (el.parentElement?.localName === 'ul' || el.parentElement?.localName === 'ol')
    )
      lists.push(el);
    const cls = el.getAttribute('class');
    const tokens = cls === null ? NO_TOKENS : cls.toLowerCase().split(/\s+/);
    if (tokens.includes('katex')) math.push(el);
    else if (tokens.some((t) => MATHJAX_RENDERED.has(t))) rendered.push(el);
    else if (isGutter(tokens)) gutters.push(el);
    else if (name === 'a' && isPermalink(el)) permalinks.push(el);
    if (!NEVER_FURNITURE.has(name) ? looksLikeFurniture(el) : cls !== null && HIDDEN_TEXT.test(cls))
      furniture.push(el);
  }
  for (const g of gutters) g.remove();
  for (const pre of pres) if (pre.isConnected) markCodeBlock(document, pre);
  for (const r of rendered) r.remove();
  for (const m of math) if (m.isConnected) markMath(document, m);
  for (const el of furniture) {
    if (!el.isConnected || el.querySelector(ARTICLE_MARKERS) !== null || el.closest('pre, code') !== null)
      continue;
    el.remove();
  }
  for (const h of headings) if (h.isConnected) markHeading(h);
  for (const a of permalinks) if (a.isConnected) a.remove();
  for (const list of lists) if (list.isConnected) nestSiblingList(document, list);
  for (const img of images) if (img.isConnected) resolveLazyImage(img);
}
