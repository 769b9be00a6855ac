/**
 * Main content to Markdown (GitHub Flavored Markdown, GFM spec 0.29): turndown, with rules of
 * ours for what turndown and its GFM plugins get wrong on real pages — tables as GFM tables (or
 * HTML when GFM cannot express them; the plugins read `HTMLTableElement.rows`, which our light DOM
 * does not have), fenced code with its language for any `<pre>`, inline code that keeps short
 * snippets, math as `$…$`/`$$…$$`, definition lists, heading levels as authored, and escaping
 * that leaves intraword underscores alone. Expects a DOM prepared by `content-prep.ts`.
 */
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';
import { LANG_ATTR } from './code-blocks.js';
import { type DomElement, type DomNode, isElement } from './content-dom.js';
import { ALIGN_ATTR, LEVEL_ATTR } from './content-prep.js';
import { MATH_ATTR } from './math-tex.js';

const require = createRequire(import.meta.url);

type Node = TurndownService.Node;
type El = DomElement & Node;

/** The fence for a code block: backticks, one more than the longest run inside (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** An inline code span of `text` (CommonMark §6.1): delimiters longer than any backtick run inside. */
export function codeSpan(text: string): string {
  const t = text.replace(/\r?\n/g, ' ');
  if (t.trim() === '') return '';
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const d = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${d}${pad}${t}${pad}${d}`;
}

/** A character {@link escapeInline} escapes (or may). */
const INLINE_SPECIAL = /[\\*`[\]_]/;

/** A first character that may start a block ({@link escapeMarkdown}): `-`, `+`, `=`, `#`, `~`, `>`, a digit. */
const BLOCK_START = /^[-+=#~>\d]/;

/**
 * Markdown escaping of text inside a line: backslashes, `*`, backticks, brackets, and `_` only
 * where it could open or close emphasis (GFM never reads an intraword underscore as emphasis, and
 * `ffi\_cif` is not what the page says).
 */
export function escapeInline(s: string): string {
  if (!INLINE_SPECIAL.test(s)) return s;
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\*/g, '\\*')
    .replace(/`/g, '\\`')
    .replace(/\[/g, '\\[')
    .replace(/\]/g, '\\]')
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}_])/gu, (_m, pre: string | undefined) =>
      pre === undefined ? '\\_' : `${pre}\\_`,
    );
}

/**
 * Markdown escaping of a text node (turndown's `escape`): {@link escapeInline}, and what would
 * start a block at the start of a line (`-`, `+ `, `=`, `# `, `~~~`, `>`, `1. `).
 */
export function escapeMarkdown(s: string): string {
  const inline = escapeInline(s);
  if (!BLOCK_START.test(inline)) return inline;
  return inline
    .replace(/^-/g, '\\-')
    .replace(/^\+ /g, '\\+ ')
    .replace(/^(=+)/g, '\\$1')
    .replace(/^(#{1,6}) /g, '\\$1 ')
    .replace(/^~~~/g, '\\~~~')
    .replace(/^>/g, '\\>')
    .replace(/^(\d+)\. /g, '$1\\. ');
}

// ---------------------------------------------------------------------------------------------
// Tables

/** Cell and row separators inside a table's converted content (control characters HTML text never holds). */
const CELL = '\u001f';
const ROW = '\u001e';

/** Block content that a GFM cell cannot hold. */
const BLOCK_IN_CELL = 'pre, ul, ol, dl, table, h1, h2, h3, h4, h5, h6, blockquote, hr';

/** How a table is written: as a GFM table, as HTML (a data table GFM cannot express), or as its cells' blocks (a layout table). */
type TableKind = 'gfm' | 'html' | 'layout';

const tableKinds = new WeakMap<object, TableKind>();

/** The rows of a table (not of tables nested in it). */
function rowsOf(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  const visit = (el: DomElement): void => {
    for (const c of Array.from(el.children)) {
      if (c.localName === 'tr') rows.push(c);
      else if (c.localName === 'thead' || c.localName === 'tbody' || c.localName === 'tfoot') visit(c);
    }
  };
  visit(table);
  return rows;
}

function cellsOf(row: DomElement): DomElement[] {
  return Array.from(row.children).filter((c) => c.localName === 'td' || c.localName === 'th');
}

/**
 * A table is a data table when it has header cells, a caption, or Readability marked it so;
 * a layout table (no header, and one column, one row, or cells holding blocks) is written as its
 * cells' content. A data table with row/column spans, nested tables or block content in
 * cells is kept as HTML; any other is a GFM table.
 */
function tableKind(table: El): TableKind {
  const known = tableKinds.get(table);
  if (known !== undefined) return known;
  const rows = rowsOf(table);
  const cells = rows.map(cellsOf);
  const width = Math.max(0, ...cells.map((c) => c.length));
  const headed =
    table.querySelector('th, thead, caption') !== null ||
    (table as unknown as { _readabilityDataTable?: boolean })._readabilityDataTable === true;
  const blocks = table.querySelector(BLOCK_IN_CELL) !== null;
  const spans = cells.some((r) =>
    r.some((c) => Number(c.getAttribute('colspan') ?? 1) > 1 || Number(c.getAttribute('rowspan') ?? 1) > 1),
  );
  let kind: TableKind;
  if (rows.length === 0 || (!headed && (width <= 1 || rows.length === 1 || blocks))) kind = 'layout';
  else if (spans || blocks) kind = headed ? 'html' : 'layout';
  else kind = 'gfm';
  tableKinds.set(table, kind);
  return kind;
}

function enclosingTable(node: DomNode): El | null {
  let p = node.parentNode;
  while (p !== null && p.nodeName !== 'TABLE') p = p.parentNode;
  return p as El | null;
}

/** A cell's Markdown on one line: line breaks as `<br>`, pipes escaped (GFM §4.10). */
function cellText(content: string): string {
  return content
    .trim()
    .replace(/[ \t]*\n+[ \t]*/g, '<br>')
    .replace(/\|/g, '\\|');
}

/** A cell's alignment (its `align` or `text-align`, kept by `content-prep.ts`), as a GFM delimiter. */
function delimiterOf(cell: DomElement | undefined): string {
  if (cell === undefined) return '---';
  const a = cell.getAttribute(ALIGN_ATTR) ?? '';
  return a === 'center' ? ':---:' : a === 'right' ? '---:' : a === 'left' ? ':---' : '---';
}

/** A GFM table from its rows' cells; the first row is the header, aligned as its cells say. */
function gfmTable(rows: string[][], headCells: DomElement[]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  const [head, ...body] = rows;
  const delimiters = Array.from({ length: width }, (_, i) => delimiterOf(headCells[i]));
  return [line(head), `| ${delimiters.join(' | ')} |`, ...body.map(line)].join('\n');
}

/** A table kept as HTML: its markup with presentational attributes removed. */
function tableHtml(table: DomElement): string {
  return table.outerHTML
    .replace(
      /\s(?:class|id|style|width|height|align|valign|border|cellpadding|cellspacing|bgcolor|data-[\w-]+)="[^"]*"/g,
      '',
    )
    .replace(/>\s+</g, '><');
}

/**
 * A link or image destination (CommonMark §6.3): the URL with parentheses and spaces
 * percent-encoded, then the element's `title` attribute, if any, quoted.
 */
function destination(url: string, el: DomElement): string {
  const title = el.getAttribute('title')?.replace(/\s+/g, ' ').trim();
  return `${url.replace(/[()\s]/g, encodeURIComponent)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Rules

function addRules(td: TurndownService): void {
  td.remove([
    'script',
    'style',
    'noscript',
    'template',
    'button',
    'input',
    'select',
    'textarea',
    'form',
    'svg' as never,
  ]);

  td.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const el = node as unknown as DomElement;
      const level = Number(el.getAttribute(LEVEL_ATTR) ?? el.localName.slice(1)) || 2;
      const text = content.replace(/\s+/g, ' ').trim();
      return text === '' ? '' : `\n\n${'#'.repeat(level)} ${text}\n\n`;
    },
  });

  // List items with a one-space marker (`- `, `1. `); nested content indented by the marker's width.
  td.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const el = node as unknown as DomElement;
      const parent = el.parentElement;
      let prefix = '- ';
      if (parent?.localName === 'ol') {
        const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
        const index = Array.from(parent.children).indexOf(el);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n(?=.)/g, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (el.nextSibling && !body.endsWith('\n') ? '\n' : '');
    },
  });

  td.addRule('codeBlock', {
    filter: 'pre',
    replacement: (_content, node) => {
      const el = node as unknown as DomElement;
      const text = (el.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
      if (text === '') return '';
      const fence = fenceFor(text);
      const lang = el.getAttribute(LANG_ATTR) ?? '';
      return `\n\n${fence}${lang}\n${text}\n${fence}\n\n`;
    },
  });

  td.addRule('inlineCode', {
    filter: (node) => {
      const name = node.nodeName;
      return (
        (name === 'CODE' || name === 'KBD' || name === 'SAMP' || name === 'TT') &&
        !(node as unknown as DomElement).closest('pre')
      );
    },
    replacement: (_content, node) => codeSpan((node as unknown as DomElement).textContent ?? ''),
  });

  td.addRule('math', {
    filter: (node) =>
      isElement(node as unknown as DomNode) && (node as unknown as DomElement).hasAttribute(MATH_ATTR),
    replacement: (_content, node) => {
      const el = node as unknown as DomElement;
      const tex = (el.textContent ?? '').trim();
      if (tex === '') return '';
      return el.getAttribute(MATH_ATTR) === 'display' ? `\n\n$$\n${tex}\n$$\n\n` : `$${tex}$`;
    },
  });

  td.addRule('definitionList', {
    filter: 'dl',
    replacement: (content) => `\n\n${content.replace(/\n{3,}/g, '\n\n').trim()}\n\n`,
  });
  td.addRule('definitionTerm', {
    filter: 'dt',
    replacement: (content, node) => {
      // A term is bold as a whole: emphasis inside it is its text (code spans are kept).
      const el = node as unknown as DomElement;
      const raw =
        el.querySelector('code, kbd, samp, tt') === null ? escapeInline(el.textContent ?? '') : content;
      const t = raw.replace(/\s+/g, ' ').trim();
      return t === '' ? '' : `\n\n**${t}**\n`;
    },
  });
  td.addRule('definitionDescription', {
    filter: 'dd',
    replacement: (content) => {
      const t = content.replace(/^\n+|\s+$/g, '');
      return t === '' ? '' : `:   ${t.replace(/\n(?=.)/g, '\n    ')}\n`;
    },
  });

  td.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const table = enclosingTable(node as unknown as DomNode);
      if (table === null || tableKind(table) !== 'gfm') return `\n\n${content}\n\n`;
      return `${CELL}${cellText(content)}`;
    },
  });
  td.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const table = enclosingTable(node as unknown as DomNode);
      if (table === null || tableKind(table) !== 'gfm') return content;
      return `${ROW}${content.replace(/[^\u001f]*?(?=\u001f|$)/, '')}`;
    },
  });
  td.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  td.addRule('tableCaption', { filter: 'caption', replacement: (content) => `\n\n${content.trim()}\n\n` });
  td.addRule('table', {
    filter: 'table',
    replacement: (content, node) => {
      const table = node as unknown as El;
      const kind = tableKind(table);
      if (kind === 'layout') return `\n\n${content}\n\n`;
      if (kind === 'html') {
        const caption = table.querySelector('caption')?.textContent?.trim();
        return `\n\n${caption ? `${caption}\n\n` : ''}${tableHtml(table)}\n\n`;
      }
      const caption = content.slice(0, Math.max(0, content.indexOf(ROW))).trim();
      const rows = content
        .slice(content.indexOf(ROW))
        .split(ROW)
        .slice(1)
        .map((r) =>
          r
            .split(CELL)
            .slice(1)
            .map((c) => c.trim()),
        );
      if (rows.length === 0) return '';
      const first = rowsOf(table)[0];
      return `\n\n${caption ? `${caption}\n\n` : ''}${gfmTable(rows, first ? cellsOf(first) : [])}\n\n`;
    },
  });

  // An image: its alt text and absolute URL (made absolute before conversion); none without a URL.
  td.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const el = node as unknown as DomElement;
      const src = el.getAttribute('src')?.trim();
      if (!src || src.startsWith('data:')) return '';
      const alt = (el.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim().replace(/[[\]]/g, '\\$&');
      return `![${alt}](${destination(src, el)})`;
    },
  });

  // A link with no text (an icon) says nothing; an in-page link with text is its text.
  td.addRule('link', {
    filter: (node) => node.nodeName === 'A' && (node as unknown as DomElement).getAttribute('href') !== null,
    replacement: (content, node) => {
      const el = node as unknown as DomElement;
      const text = content.trim();
      const href = el.getAttribute('href')!.trim();
      if (text === '') return '';
      if (href === '' || href.startsWith('#') || /^(?:javascript|mailto|tel):/i.test(href)) return content;
      const lead = /^\s/.test(content) ? ' ' : '';
      const trail = /\s$/.test(content) ? ' ' : '';
      return `${lead}[${text}](${destination(href, el)})${trail}`;
    },
  });
}

let writer: TurndownService | null = null;

/** The configured turndown service (created on first use). */
function markdownWriter(): TurndownService {
  if (writer === null) {
    const Turndown = require('turndown') as typeof TurndownService;
    writer = new Turndown({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '*',
      hr: '---',
    });
    (writer as unknown as { escape: (s: string) => string }).escape = escapeMarkdown;
    addRules(writer);
    rulesByName((writer as unknown as { rules: TurndownRules }).rules);
  }
  return writer;
}

/** A turndown rule as its `Rules` holds it (turndown 7). */
interface TurndownRule {
  filter: string | string[] | ((node: Node, options: unknown) => boolean);
}

/** Turndown's `Rules` (turndown 7): its rule lists, searched in this order, and its lookup. */
interface TurndownRules {
  array: TurndownRule[];
  _keep: TurndownRule[];
  _remove: TurndownRule[];
  blankRule: TurndownRule;
  defaultRule: TurndownRule;
  options: unknown;
  forNode(node: Node & { isBlank?: boolean }): TurndownRule;
}

/**
 * Turndown's rule lookup, by element name: turndown tries each rule in turn for every element,
 * lowercasing the element's name once per rule with a name filter; here the rules that can match
 * a name (those naming it, and those filtered by a function) are listed once per name, in
 * turndown's order, and only the functions run per element. The rule found is turndown's (the
 * rules are all added before the first conversion). Without turndown's lists (another version),
 * nothing is replaced.
 */
function rulesByName(rules: TurndownRules): void {
  if (!Array.isArray(rules.array) || !Array.isArray(rules._keep) || !Array.isArray(rules._remove)) return;
  const byName = new Map<string, TurndownRule[]>();
  const candidates = (nodeName: string): TurndownRule[] => {
    const name = nodeName.toLowerCase();
    const out: TurndownRule[] = [];
    for (const rule of [...rules.array, ...rules._keep, ...rules._remove]) {
      const f = rule.filter;
      if (typeof f === 'function') out.push(rule);
      else if (typeof f === 'string' ? f === name : f.includes(name)) {
        out.push(rule);
        break; // a name match always wins: the rules after it are never tried
      }
    }
    return out;
  };
  rules.forNode = function (node) {
    if (node.isBlank) return this.blankRule;
    let list = byName.get(node.nodeName);
    if (list === undefined) {
      list = candidates(node.nodeName);
      if (byName.size >= 1024) byName.clear(); // custom elements' names have no end
      byName.set(node.nodeName, list);
    }
    for (const rule of list) {
      const f = rule.filter;
      if (typeof f !== 'function' || f.call(rule, node, this.options)) return rule;
    }
    return this.defaultRule;
  };
}

/**
 * The Markdown of a prepared content element (see the module comment): GFM, blocks separated by
 * one blank line, no trailing spaces at line ends except hard breaks, trimmed.
 * @param root an element of a light DOM document (`light-dom.ts`), after `prepareContent` and with
 *   links made absolute.
 */
export function toMarkdown(root: DomElement): string {
  const md = markdownWriter().turndown(root as unknown as Node);
  return md.replace(/\n{3,}/g, '\n\n').trim();
}
