/**
 * HTML serialization of a light DOM (`light-dom.ts`): an element's `innerHTML` and `outerHTML`, by
 * the HTML Standard's "serializing HTML fragments" algorithm (§13.3, with scripting disabled):
 * elements as `<name attr="value">…</name>`, void elements without an end tag or children, text
 * escaped (`&amp;`, `&nbsp;`, `&lt;`, `&gt;`) except inside `style`, `script`, `xmp`, `iframe`,
 * `noembed`, `noframes` and `plaintext`, attribute values escaped in attribute mode (`&amp;`,
 * `&nbsp;`, `&quot;`, `&lt;`, `&gt;`), comments as `<!--data-->`. The walk is iterative: a page's
 * nesting depth (unclosed tags) never overflows the stack.
 */

/** A node as the serializer reads it (`light-dom.ts` nodes are these). */
export interface SerialNode {
  readonly nodeType: number;
  readonly parentNode: SerialNode | null;
  readonly firstChild: SerialNode | null;
  readonly nextSibling: SerialNode | null;
  /** A text or comment node's data. */
  readonly data?: string;
  /** An element's name as created (`div`, or `DIV` when created so). */
  readonly localName?: string;
  /** An element's name lowercased: what the void and raw-text lists are checked against. */
  readonly lowerName?: string;
  /** An element's attributes as `[name, value, name, value, …]`, in order. */
  readonly attrs?: readonly string[];
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const COMMENT_NODE = 8;

/** Elements that "serialize as void" (HTML Standard §13.3): no end tag, children not written. */
export const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  'area',
  'base',
  'basefont',
  'bgsound',
  'br',
  'col',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements whose text children are written as they are (raw text; `noscript` is not, scripting being disabled). */
const RAW_TEXT_PARENTS: ReadonlySet<string> = new Set([
  'style',
  'script',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'plaintext',
]);

const TEXT_SPECIAL = /[&<>\u00a0]/;
const TEXT_ESCAPE = /[&<>\u00a0]/g;
const ATTR_SPECIAL = /[&"<>\u00a0]/;
const ATTR_ESCAPE = /[&"<>\u00a0]/g;
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '\u00a0': '&nbsp;',
  '"': '&quot;',
  '<': '&lt;',
  '>': '&gt;',
};
const entity = (c: string): string => ENTITY[c];

/** Text escaped as the HTML Standard's serializer does outside attributes. */
export function escapeText(text: string): string {
  return TEXT_SPECIAL.test(text) ? text.replace(TEXT_ESCAPE, entity) : text;
}

/** An attribute value escaped as the HTML Standard's serializer does ("attribute mode"). */
export function escapeAttribute(value: string): string {
  return ATTR_SPECIAL.test(value) ? value.replace(ATTR_ESCAPE, entity) : value;
}

/** An element's start tag: `<name a="v" b="w">`. */
function startTag(el: SerialNode): string {
  let tag = `<${el.localName}`;
  const attrs = el.attrs ?? [];
  for (let i = 0; i < attrs.length; i += 2) tag += ` ${attrs[i]}="${escapeAttribute(attrs[i + 1])}"`;
  return `${tag}>`;
}

/** Whether an element's children are written: not for a void element. */
function hasSerializedChildren(el: SerialNode): boolean {
  return !VOID_ELEMENTS.has(el.lowerName ?? '');
}

/** One leaf node (text or comment) as HTML; elements are handled by the walk. */
function leaf(node: SerialNode): string {
  if (node.nodeType === TEXT_NODE) {
    const parent = node.parentNode;
    const raw =
      parent !== null && parent.nodeType === ELEMENT_NODE && RAW_TEXT_PARENTS.has(parent.lowerName ?? '');
    return raw ? (node.data ?? '') : escapeText(node.data ?? '');
  }
  if (node.nodeType === COMMENT_NODE) return `<!--${node.data ?? ''}-->`;
  return '';
}

/**
 * The HTML of `root`'s children (its `innerHTML`), HTML Standard §13.3 "serializing HTML fragments".
 * @param root an element or document.
 */
export function serializeChildren(root: SerialNode): string {
  let out = '';
  let node = root.firstChild;
  while (node !== null) {
    if (node.nodeType === ELEMENT_NODE) {
      out += startTag(node);
      if (hasSerializedChildren(node)) {
        if (node.firstChild !== null) {
          node = node.firstChild;
          continue;
        }
        out += `</${node.localName}>`;
      }
    } else out += leaf(node);
    // up through the elements this node ends, writing their end tags
    while (node !== null && node.nextSibling === null) {
      node = node.parentNode;
      if (node === root || node === null) return out;
      out += `</${node.localName}>`;
    }
    node = node === null ? null : node.nextSibling;
  }
  return out;
}

/** The HTML of a node with its children (an element's `outerHTML`). */
export function serializeNode(node: SerialNode): string {
  if (node.nodeType !== ELEMENT_NODE) return leaf(node);
  if (!hasSerializedChildren(node)) return startTag(node);
  return `${startTag(node)}${serializeChildren(node)}</${node.localName}>`;
}
