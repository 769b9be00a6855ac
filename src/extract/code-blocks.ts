/**
 * Code blocks as a reader sees them: a `<pre>`'s language by the usual class conventions and its
 * displayed text (highlighting flattened, line numbers and copy buttons left out), written onto
 * the `<pre>` before the main-content choice strips classes and spans.
 */
import {
  classTokens,
  type DomDocument,
  type DomElement,
  type DomNode,
  isElement,
  TEXT_NODE,
} from './content-dom.js';

/** Attribute carrying a `<pre>`'s code language through Readability (which drops classes). */
export const LANG_ATTR = 'data-collector-lang';

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

/** Line-number gutters beside code (Pygments, highlight.js plugins): not code. */
const GUTTER = new Set(['linenos', 'gutter', 'line-numbers', 'linenodiv']);

/** Whether class tokens name a line-number gutter beside code. */
export function isGutter(tokens: readonly string[]): boolean {
  return tokens.some((t) => GUTTER.has(t));
}
