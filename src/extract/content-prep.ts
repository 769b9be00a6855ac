/**
 * Prepares a page's DOM before the main-content choice, so that what Readability removes or
 * rewrites is read first: code blocks' language and displayed text, math's TeX source, heading
 * levels, lazy images, editor-style nested lists, heading permalinks, and page furniture (comment
 * threads, share bars, related-post lists) that can outweigh a short article. Every rule is a
 * general HTML convention; none is keyed to a site.
 */
import {
  all,
  classTokens,
  type DomDocument,
  type DomElement,
  type DomNode,
  isElement,
  TEXT_NODE,
} from './content-dom.js';

/** Attribute carrying a `<pre>`'s code language through Readability (which drops classes). */
export const LANG_ATTR = 'data-collector-lang';
/** Attribute carrying a heading's level (1–6) through Readability (which turns `<h1>` into `<h2>`). */
export const LEVEL_ATTR = 'data-collector-level';
/** Attribute of a math placeholder: `inline` or `display`; its text is the TeX source. */
export const MATH_ATTR = 'data-collector-math';
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

/**
 * Code-language conventions, tried on a `<pre>`, its `<code>` child and up to three wrappers:
 * `language-x`/`lang-x` (HTML Standard's suggestion, Prism, highlight.js, CommonMark renderers),
 * `highlight-x`/`highlight-source-x` (Sphinx, GitHub), `sourceCode x` (Pandoc), `brush: x`
 * (SyntaxHighlighter), and `data-lang`/`data-language` attributes (Hugo, Docusaurus, rustdoc's
 * `language-rust`).
 */
const LANG_CLASS = /^(?:language|lang|highlight-source|highlight-text|highlight|code)-([a-z0-9_+#.-]+)$/;
/**
 * Languages recognised as a bare class token on a `<pre>` or `<code>` (rustdoc's `rust`,
 * highlight.js's and Pandoc's bare names): common names only, so that a styling class is not
 * taken for a language.
 */
const BARE_LANGUAGES = new Set([
  'bash',
  'c',
  'clojure',
  'console',
  'cpp',
  'csharp',
  'css',
  'dart',
  'diff',
  'dockerfile',
  'elixir',
  'erlang',
  'go',
  'graphql',
  'haskell',
  'html',
  'ini',
  'java',
  'javascript',
  'js',
  'json',
  'jsx',
  'julia',
  'kotlin',
  'latex',
  'lua',
  'makefile',
  'markdown',
  'nginx',
  'nix',
  'ocaml',
  'perl',
  'php',
  'powershell',
  'python',
  'r',
  'ruby',
  'rust',
  'scala',
  'scheme',
  'shell',
  'sh',
  'sql',
  'swift',
  'toml',
  'ts',
  'tsx',
  'typescript',
  'xml',
  'yaml',
  'zig',
  'zsh',
]);

/** Class tokens that name no language. */
const NOT_A_LANGUAGE = new Set([
  'default',
  'none',
  'text',
  'plain',
  'plaintext',
  'nohighlight',
  'notranslate',
  'console-output',
  'output',
  'block',
  'wrapper',
  'container',
  'toolbar',
  'line',
  'lines',
  'numbers',
  'inline',
]);

function languageFromTokens(el: DomElement): string | null {
  for (const attr of ['data-lang', 'data-language']) {
    const v = el.getAttribute(attr)?.trim().toLowerCase();
    if (v && /^[a-z0-9_+#.-]{1,30}$/.test(v) && !NOT_A_LANGUAGE.has(v)) return v;
  }
  const cls = el.getAttribute('class') ?? '';
  const brush = /\bbrush:\s*([a-z0-9_+#-]+)/i.exec(cls);
  if (brush) return brush[1].toLowerCase();
  const tokens = classTokens(el);
  for (const t of tokens) {
    const m = LANG_CLASS.exec(t);
    if (m && !NOT_A_LANGUAGE.has(m[1])) return m[1];
  }
  // Pandoc: <pre class="sourceCode python">, <div class="sourceCode" ...><pre class="sourceCode python">
  if (tokens.includes('sourcecode')) {
    const other = tokens.find(
      (t) => t !== 'sourcecode' && /^[a-z][a-z0-9+#-]*$/.test(t) && !NOT_A_LANGUAGE.has(t),
    );
    if (other) return other;
  }
  if (el.localName === 'pre' || el.localName === 'code') {
    const bare = tokens.find((t) => BARE_LANGUAGES.has(t));
    if (bare !== undefined) return bare;
  }
  return null;
}

/** The language of a `<pre>`: its own, its `<code>` child's, else its nearest wrappers' (three up). */
export function codeLanguage(pre: DomElement): string | null {
  const own = languageFromTokens(pre);
  if (own !== null) return own;
  const code = pre.querySelector('code');
  if (code !== null) {
    const fromCode = languageFromTokens(code);
    if (fromCode !== null) return fromCode;
  }
  let up = pre.parentElement;
  for (let i = 0; i < 3 && up !== null && up.localName !== 'body'; i++, up = up.parentElement) {
    const l = languageFromTokens(up);
    if (l !== null) return l;
  }
  return null;
}

/** Elements of a code block that are not its text: line numbers, copy buttons, prompts added by scripts. */
const CODE_CHROME =
  /^(?:linenos?|lineno|line-numbers?|gutter|ln|copy|copybutton|copy-button|clipboard|btn-copy)$/;

/**
 * The text a `<pre>` displays: every descendant's text in order, `<br>` as a line break, line
 * numbers and copy buttons left out; tabs, indentation and blank lines kept; one leading newline
 * dropped (HTML drops it) and trailing blank lines trimmed.
 */
export function displayedText(pre: DomElement): string {
  let out = '';
  const walk = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE) {
      out += node.textContent ?? '';
      return;
    }
    if (!isElement(node)) return;
    const name = node.localName;
    if (name === 'br') {
      out += '\n';
      return;
    }
    if (name === 'button' || name === 'script' || name === 'style') return;
    if (classTokens(node).some((t) => CODE_CHROME.test(t))) return;
    // A line of a code block rendered as one element each (<div class="line">, <span class="line">)
    // keeps its own line break only when the source lacks one.
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) walk(children[i]);
    if ((name === 'div' || name === 'p' || name === 'tr') && !out.endsWith('\n')) out += '\n';
  };
  const children = pre.childNodes;
  for (let i = 0; i < children.length; i++) walk(children[i]);
  return out
    .replace(/^\n/, '')
    .replace(/\u00a0/g, ' ')
    .replace(/\s+$/, '');
}

/** Class tokens of a code block's wrapping table (Pygments' `linenos=table`, Hugo's `lntable`). */
const CODE_TABLE = /highlighttable|code-table|lntable/;

/**
 * A `<pre>` becomes `<pre data-collector-lang=x>` holding only its displayed text: its spans
 * (highlighting), line numbers and buttons are gone before Readability weighs or strips them.
 * A table of line numbers around it (Pygments' `linenos=table`) is replaced by the code alone.
 */
export function markCodeBlock(document: DomDocument, pre: DomElement): void {
  if (pre.parentElement?.closest('pre')) return; // nested pre: part of its outer one
  const lang = codeLanguage(pre);
  const text = displayedText(pre);
  const table = pre.closest('table');
  if (table !== null && classTokens(table).some((t) => CODE_TABLE.test(t))) {
    const clean = document.createElement('pre');
    clean.textContent = text;
    if (lang !== null) clean.setAttribute(LANG_ATTR, lang);
    table.replaceWith(clean);
    return;
  }
  while (pre.firstChild !== null) pre.firstChild.remove();
  pre.textContent = text;
  for (const attr of ['class', 'id', 'style']) pre.removeAttribute(attr);
  if (lang !== null) pre.setAttribute(LANG_ATTR, lang);
}

/** A TeX source written as a placeholder span that Readability keeps and the Markdown writer reads. */
function mathPlaceholder(document: DomDocument, tex: string, display: boolean): DomElement {
  const span = document.createElement('span');
  span.setAttribute(MATH_ATTR, display ? 'display' : 'inline');
  span.textContent = tex.trim();
  return span;
}

/** The TeX annotation of a MathML `<math>` (KaTeX's and MathJax's assistive MathML carry one). */
function texAnnotation(el: DomElement): string | null {
  const a = el.querySelector('annotation[encoding="application/x-tex"], annotation[encoding="TeX"]');
  const tex = a?.textContent?.trim();
  return tex ? tex : null;
}

/** MathJax 2's rendered output and previews (class tokens): the TeX of its scripts is the math. */
const MATHJAX_RENDERED = new Set([
  'mathjax_preview',
  'mathjax',
  'mathjax_display',
  'mathjax_svg',
  'mathjax_chtml',
  'mathjax_svg_display',
]);

/**
 * Math as TeX placeholders: MathJax 2's `<script type="math/tex">` (`; mode=display` for display
 * math), KaTeX's `.katex` (TeX from its MathML annotation; display when inside
 * `.katex-display`), and MathML `<math>` with a TeX annotation (display for `display="block"`
 * or a MathJax 3 `<mjx-container display="true">`). MathML without TeX is left as it is.
 */
export function markMath(document: DomDocument, el: DomElement): void {
  if (el.localName === 'script') {
    const display = /mode\s*=\s*display/i.test(el.getAttribute('type') ?? '');
    el.replaceWith(mathPlaceholder(document, el.textContent ?? '', display));
    return;
  }
  const tex = texAnnotation(el);
  if (tex === null) return;
  if (el.localName === 'math') {
    const container = el.closest('mjx-container');
    const display = el.getAttribute('display') === 'block' || container?.getAttribute('display') === 'true';
    (container ?? el).replaceWith(mathPlaceholder(document, tex, display));
    return;
  }
  const wrap =
    el.parentElement !== null && classTokens(el.parentElement).includes('katex-display')
      ? el.parentElement
      : null;
  (wrap ?? el).replaceWith(mathPlaceholder(document, tex, wrap !== null));
}

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
 * Page furniture named by the usual class and id tokens (whole tokens, lowercased): comment
 * threads (WordPress, Disqus, most themes), share bars, related-post and recommendation lists,
 * newsletter boxes, navigation and pagination, photo captions and credits, bylines and date
 * lines, tag lists, advertisements, text for screen readers only and skip links. Removed before the main-content choice, which otherwise may
 * take a thread longer than the article for the article.
 */
const FURNITURE_TOKEN =
  /^(?:(?:wp-block-)?comments?(?:[-_](?:list|area|section|thread|wrapper|container|block|respond|form|widget|box|count|link|links))?|commentlist|disqus_thread|dsq-comments|respond|comment-respond|reply-title|share|sharing|sharedaddy|share[-_](?:bar|buttons|links|tools|this|icons|box)|social[-_](?:share|sharing|links|buttons|icons|media)|addtoany|a2a_kit|sharethis|related|related[-_](?:posts?|articles?|stories|content|links|entries)|jp-relatedposts|yarpp-related|crp_related|more[-_](?:posts|articles|stories)|recommended[-_]?(?:posts|articles|stories)?|newsletter(?:[-_](?:signup|form|box|subscribe))?|subscribe[-_](?:box|form)|post[-_](?:navigation|nav)|nav[-_]links|nav|navbar|navigation|nav-panel|navheader|navfooter|breadcrumbs?|pagination|pager|caption|wp-caption-text|image-caption|photo-caption|media-caption|credit|image-credit|photo-credit|byline|post-meta|entry-meta|article-meta|dateline|timestamp|posted-on|post-date|entry-date|tags|tag-list|post-tags|entry-tags|tags-links|cat-links|categories|more-stories|recirc|trending|most-popular|popular-posts|outbrain|taboola|ob-widget|ad|ads|advert|advertisement|ad-container|ad-slot|sponsored|copyright|screen-reader-text|screen-reader|sr-only|visually-hidden|skip-link|skip-to-content)$/;

/** Elements that are furniture by their tag: navigation, asides, footers, photo captions. */
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'figcaption']);

/** Text only screen readers get: removed whatever its element, a `<span>` too. */
const HIDDEN_TEXT = /(?:^|\s)(?:sr-only|visually-hidden|screen-reader-text|screenreader-only)(?:\s|$)/i;

/** Elements never removed as furniture (the document, the article's own container, inline code and links). */
const NEVER_FURNITURE = new Set(['html', 'body', 'main', 'span', 'a', 'code', 'pre']);

/** What shows that an element holds the article itself: never removed as furniture. */
const ARTICLE_MARKERS = 'h1, main, [role="main"], [itemprop="articleBody"]';

/**
 * Parts of a class or id (split at `-`, `_` and lower-to-upper case changes) that name furniture
 * wherever they stand in it (`image__caption`, `photoCredit`, `author-bio`, `cookie-notice`):
 * photo captions and credits, author boxes, cookie and consent notices. (Measured on the AEB
 * pages: `ad`, `sponsor` and `promo` as parts remove content containers too, so they count only as
 * whole tokens.)
 */
const FURNITURE_PART = new Set([
  'caption',
  'captions',
  'credit',
  'credits',
  'bio',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
]);

/** The parts of a class or id name (see {@link FURNITURE_PART}). */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[-_\s]+/);
}

/** Whether a class or id names furniture: the whole of it ({@link FURNITURE_TOKEN}) or a part ({@link FURNITURE_PART}). */
function furnitureName(name: string): boolean {
  if (FURNITURE_TOKEN.test(name.toLowerCase())) return true;
  for (const part of nameParts(name)) if (FURNITURE_PART.has(part)) return true;
  return false;
}

/** Whether an element is furniture by its tag, role, id or class tokens (not yet checked for {@link ARTICLE_MARKERS}). */
export function looksLikeFurniture(el: DomElement): boolean {
  if (FURNITURE_TAGS.has(el.localName) || el.getAttribute('role') === 'navigation') return true;
  const id = el.getAttribute('id');
  if (id !== null && furnitureName(id)) return true;
  const cls = el.getAttribute('class');
  return cls?.split(/\s+/).some((t) => t !== '' && furnitureName(t)) === true;
}

/** Line-number gutters beside code (Pygments, highlight.js plugins): not code. */
const GUTTER = new Set(['linenos', 'gutter', 'line-numbers', 'linenodiv']);

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
    if (cls !== null) {
      const tokens = cls.toLowerCase().split(/\s+/);
      if (tokens.includes('katex')) math.push(el);
      else if (tokens.some((t) => MATHJAX_RENDERED.has(t))) rendered.push(el);
      else if (tokens.some((t) => GUTTER.has(t))) gutters.push(el);
      else if (name === 'a' && isPermalink(el)) permalinks.push(el);
    }
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
