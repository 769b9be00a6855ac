/**
 * Prepares a page's DOM before the main-content choice, so that what Readability removes or
 * rewrites is read first: code blocks' language and displayed text, math's TeX source, heading
 * levels, lazy images, editor-style nested lists, heading permalinks, and page furniture (comment
 * threads, share bars, related-post lists) that can outweigh a short article. Every rule is a
 * general HTML convention; none is keyed to a site.
 */
import { all, classTokens, type DomDocument, type DomElement, type DomNode, isElement, TEXT_NODE } from './content-dom.js';

/** Attribute carrying a `<pre>`'s code language through Readability (which drops classes). */
export const LANG_ATTR = 'data-collector-lang';
/** Attribute carrying a heading's level (1–6) through Readability (which turns `<h1>` into `<h2>`). */
export const LEVEL_ATTR = 'data-collector-level';
/** Attribute of a math placeholder: `inline` or `display`; its text is the TeX source. */
export const MATH_ATTR = 'data-collector-math';

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
  'bash', 'c', 'clojure', 'console', 'cpp', 'csharp', 'css', 'dart', 'diff', 'dockerfile', 'elixir',
  'erlang', 'go', 'graphql', 'haskell', 'html', 'ini', 'java', 'javascript', 'js', 'json', 'jsx',
  'julia', 'kotlin', 'latex', 'lua', 'makefile', 'markdown', 'nginx', 'nix', 'ocaml', 'perl', 'php',
  'powershell', 'python', 'r', 'ruby', 'rust', 'scala', 'scheme', 'shell', 'sh', 'sql', 'swift',
  'toml', 'ts', 'tsx', 'typescript', 'xml', 'yaml', 'zig', 'zsh',
]);

/** Class tokens that name no language. */
const NOT_A_LANGUAGE = new Set([
  'default', 'none', 'text', 'plain', 'plaintext', 'nohighlight', 'notranslate', 'console-output',
  'output', 'block', 'wrapper', 'container', 'toolbar', 'line', 'lines', 'numbers', 'inline',
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
    const other = tokens.find((t) => t !== 'sourcecode' && /^[a-z][a-z0-9+#-]*$/.test(t) && !NOT_A_LANGUAGE.has(t));
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
const CODE_CHROME = /^(?:linenos?|lineno|line-numbers?|gutter|ln|copy|copybutton|copy-button|clipboard|btn-copy)$/;

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
  return out.replace(/^\n/, '').replace(/\u00a0/g, ' ').replace(/\s+$/, '');
}

/**
 * Every `<pre>` becomes `<pre data-collector-lang=x>` holding only its displayed text: its spans
 * (highlighting), line numbers and buttons are gone before Readability weighs or strips them.
 * A table of line numbers beside a `<pre>` (Pygments' `linenos=table`) is reduced to the code.
 */
export function markCodeBlocks(document: DomDocument): void {
  // Line-number columns beside code (Pygments' linenos=table, highlight.js plugins) are not code.
  for (const gutter of all(document, 'td.linenos, td.gutter, td.line-numbers, .linenodiv')) gutter.remove();
  for (const pre of all(document, 'pre')) {
    if (pre.parentElement?.closest('pre')) continue; // nested pre: part of its outer one
    const lang = codeLanguage(pre);
    const text = displayedText(pre);
    const table = pre.closest('table');
    if (table !== null && classTokens(table).some((t) => /highlighttable|code-table|lntable/.test(t))) {
      const clean = document.createElement('pre');
      clean.textContent = text;
      if (lang !== null) clean.setAttribute(LANG_ATTR, lang);
      table.replaceWith(clean);
      continue;
    }
    while (pre.firstChild !== null) pre.firstChild.remove();
    pre.textContent = text;
    for (const attr of ['class', 'id', 'style']) pre.removeAttribute(attr);
    if (lang !== null) pre.setAttribute(LANG_ATTR, lang);
  }
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

/**
 * Math as TeX placeholders: MathJax 2's `<script type="math/tex">` (`; mode=display` for display
 * math; the rendered copies beside it removed), KaTeX's `.katex` (TeX from its MathML
 * annotation; display when inside `.katex-display`), and MathML `<math>` with a TeX annotation
 * (`display="block"` for display). MathML without TeX is left as it is (its text).
 */
export function markMath(document: DomDocument): void {
  for (const s of all(document, 'script[type^="math/tex"]')) {
    const display = /mode\s*=\s*display/i.test(s.getAttribute('type') ?? '');
    s.replaceWith(mathPlaceholder(document, s.textContent ?? '', display));
  }
  // MathJax's rendered output and previews: the TeX kept above is the math.
  for (const el of all(document, '.MathJax_Preview, .MathJax, .MathJax_Display, .MathJax_SVG, .MathJax_CHTML, .MathJax_SVG_Display'))
    el.remove();
  for (const k of all(document, '.katex')) {
    if (!k.parentNode) continue;
    const tex = texAnnotation(k);
    if (tex === null) continue;
    const displayWrap = k.parentElement !== null && classTokens(k.parentElement).includes('katex-display') ? k.parentElement : null;
    (displayWrap ?? k).replaceWith(mathPlaceholder(document, tex, displayWrap !== null));
  }
  for (const m of all(document, 'math')) {
    if (!m.parentNode) continue;
    const tex = texAnnotation(m);
    if (tex === null) continue;
    const container = m.closest('mjx-container');
    const display = m.getAttribute('display') === 'block' || container?.getAttribute('display') === 'true';
    (container ?? m).replaceWith(mathPlaceholder(document, tex, display));
  }
}

/**
 * Headings keep their level through Readability (which renames `<h1>` to `<h2>` and drops an
 * `<h1>`/`<h2>` whose class or id looks like furniture): the level goes in an attribute, and
 * class and id are removed. Permalink anchors in a heading — a link to a fragment whose text has
 * no letter or digit (`¶`, `#`, `§`, an icon) — are removed.
 */
export function markHeadings(document: DomDocument): void {
  for (const h of all(document, 'h1, h2, h3, h4, h5, h6')) {
    h.setAttribute(LEVEL_ATTR, h.localName.slice(1));
    h.removeAttribute('class');
    h.removeAttribute('id');
    for (const a of all(h, 'a')) {
      const href = a.getAttribute('href') ?? '';
      const text = a.textContent ?? '';
      if ((href === '' || href.startsWith('#')) && !/[\p{L}\p{N}]/u.test(text)) a.remove();
    }
  }
  // Sphinx/MkDocs-style permalinks outside headings (e.g. on captions and definitions)
  for (const a of all(document, 'a.headerlink, a.anchorjs-link, a.header-anchor, a.anchor-link'))
    if (!/[\p{L}\p{N}]/u.test(a.textContent ?? '')) a.remove();
}

/**
 * An editor-style nested list (`<ul><li>a</li><ul><li>b</li></ul></ul>`, invalid HTML that
 * editors write) is moved into the `<li>` before it, as it is displayed.
 */
export function nestSiblingLists(document: DomDocument): void {
  for (const list of all(document, 'ul > ul, ul > ol, ol > ul, ol > ol')) {
    const prev = list.previousElementSibling;
    if (prev !== null && prev.localName === 'li') prev.appendChild(list);
    else {
      const li = document.createElement('li');
      list.parentElement?.insertBefore(li, list);
      li.appendChild(list);
    }
  }
}

/** Image URLs in lazy-loading attributes, most specific first. */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src'];
const LAZY_SRCSET = ['data-srcset', 'data-lazy-srcset', 'srcset'];

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
 * Lazy-loaded images get a real `src`: from `data-src` (and kin) or the largest `srcset`
 * candidate, when `src` is missing, a `data:` placeholder, or a tiny spacer.
 */
export function resolveLazyImages(document: DomDocument): void {
  for (const img of all(document, 'img')) {
    const src = img.getAttribute('src')?.trim() ?? '';
    const placeholder = src === '' || src.startsWith('data:') || /\b(?:blank|spacer|pixel|placeholder|lazy)\.(?:gif|png|svg)/i.test(src);
    if (!placeholder) continue;
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
}

/**
 * Page furniture named by the usual class and id tokens (whole tokens, lowercased): comment
 * threads (WordPress, Disqus, most themes), share bars, related-post lists, newsletter boxes.
 * Removed before the main-content choice, which otherwise may take a thread longer than the
 * article for the article.
 */
const FURNITURE_TOKEN =
  /^(?:(?:wp-block-)?comments?(?:[-_](?:list|area|section|thread|wrapper|container|block|respond|form|widget|box|count|link|links))?|commentlist|disqus_thread|dsq-comments|respond|comment-respond|reply-title|share|sharing|sharedaddy|share[-_](?:bar|buttons|links|tools|this|icons|box)|social[-_](?:share|sharing|links|buttons|icons|media)|addtoany|a2a_kit|sharethis|related|related[-_](?:posts?|articles?|stories|content|links|entries)|jp-relatedposts|yarpp-related|crp_related|more[-_](?:posts|articles|stories)|recommended[-_]?(?:posts|articles|stories)?|newsletter(?:[-_](?:signup|form|box|subscribe))?|subscribe[-_](?:box|form)|post[-_](?:navigation|nav)|nav[-_]links|nav|navbar|navigation|nav-panel|navheader|navfooter|breadcrumbs?|pagination|pager)$/;

/** Containers that hold the article itself: never removed as furniture. */
const ARTICLE_MARKERS = 'h1, main, [role="main"], [itemprop="articleBody"]';

/** Whether an element is named as furniture by its id or class tokens. */
function isFurniture(el: DomElement): boolean {
  const id = el.getAttribute('id')?.toLowerCase();
  if (id !== undefined && FURNITURE_TOKEN.test(id)) return true;
  return classTokens(el).some((t) => FURNITURE_TOKEN.test(t));
}

/** Navigation: `<nav>` and `role="navigation"` (site menus, sidebars, "on this page" lists). */
function isNavigation(el: DomElement): boolean {
  return el.localName === 'nav' || el.getAttribute('role') === 'navigation';
}

/**
 * Removes page furniture ({@link FURNITURE_TOKEN}) and navigation: block elements named as
 * comment threads, share bars, related-post lists, newsletter boxes or navigation, except one that holds the article itself
 * (an `<h1>`, `<main>`, `itemprop=articleBody`) and anything inside code.
 */
export function removeFurniture(document: DomDocument): void {
  for (const el of all(document, '[class], [id], nav, [role="navigation"]')) {
    if (!el.parentNode) continue; // inside something removed already
    const name = el.localName;
    if (name === 'body' || name === 'html' || name === 'main' || name === 'span' || name === 'a' || name === 'code' || name === 'pre')
      continue;
    if (!(isFurniture(el) || isNavigation(el)) || el.querySelector(ARTICLE_MARKERS) !== null || el.closest('pre, code') !== null) continue;
    el.remove();
  }
}

/**
 * Everything above, in order: furniture out, code and math read, headings marked, lists nested,
 * lazy images resolved. Mutates `document`.
 */
export function prepareContent(document: DomDocument): void {
  markCodeBlocks(document);
  markMath(document);
  removeFurniture(document);
  markHeadings(document);
  nestSiblingLists(document);
  resolveLazyImages(document);
}
