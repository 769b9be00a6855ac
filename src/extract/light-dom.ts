/**
 * A light DOM for content extraction: the subset of the WHATWG DOM Standard that our extraction
 * code (`content-dom.ts`), Mozilla's Readability and Turndown use, over a compact tree. A node
 * holds its parent, its siblings and (for elements and documents) its first and last child; an
 * element holds its names and its attributes as one flat `[name, value, …]` array. `childNodes`
 * and `children` are real arrays, built on first read and kept until the node's children change:
 * a caller holding one keeps a snapshot while it mutates the tree (Readability re-reads
 * `children` after each move, as it does for DOMs without live collections). An element's
 * `textContent` is kept too, until its subtree changes: Readability and Turndown read the text of
 * nearly every node in turn, which would otherwise walk each subtree once per ancestor.
 *
 * The tree is built by `light-dom-parse.ts` (htmlparser2's events), serialized by
 * `light-dom-serialize.ts` and queried by `light-dom-select.ts` (css-select).
 *
 * Where the document model departs from the DOM Standard, it does as linkedom 0.18 did, whose
 * DOM the extraction's rules were measured on:
 * - `createElement` keeps the name as given (Readability's `createElement("DIV")` is a `DIV`);
 *   `tagName`/`nodeName` are the name uppercased, as in an HTML document;
 * - `getElementsByTagName(name)` matches the name as created or uppercased;
 * - `document.head` and `document.body` are the document element's first child when it is a
 *   `head`, and the `head`'s next element sibling when it is a `body`, each created there when it
 *   is not (htmlparser2, unlike the HTML Standard's tree builder, synthesizes neither);
 *   `document.title` is the text of the head's first `title`;
 * - the document has no URL of its own: `documentURI` is null and `baseURI` the first `<base>`'s
 *   `href` as written (null without one), until the URL links resolve against is set (`url`),
 *   which both then answer (Readability resolves links against `baseURI`, and keeps in-page
 *   `#` links when it equals `documentURI`);
 * - `style` reads the `style` attribute's declarations as written (`display`, `visibility`…):
 *   names case-sensitive, values trimmed, the last one wins;
 * - `querySelector`/`querySelectorAll` do not look inside `<template>` elements (their content
 *   is not in the document), while `textContent` and `getElementsByTagName` do.
 *
 * Where linkedom departed from the standards, this follows them: `getAttribute('class')` is null
 * without a class attribute and the attribute's value as written (linkedom answered '' and a
 * rewritten token list); a new attribute is appended (linkedom put it first); `innerHTML` and
 * `outerHTML` are the HTML Standard's serialization (see `light-dom-serialize.ts`).
 */

import { type Matcher, matcher, type SelectElement } from './light-dom-select.js';
import { serializeChildren, serializeNode } from './light-dom-serialize.js';

/** `Node.ELEMENT_NODE`. */
export const ELEMENT_NODE = 1;
/** `Node.TEXT_NODE`. */
export const TEXT_NODE = 3;
/** `Node.COMMENT_NODE`. */
export const COMMENT_NODE = 8;
/** `Node.DOCUMENT_NODE`. */
export const DOCUMENT_NODE = 9;

/** The children of a node that has none (never changed). */
const NO_NODES: readonly LightNode[] = Object.freeze([]);
/** The attributes of an element that has none, shared until one is set. */
const NO_ATTRIBUTES: readonly string[] = Object.freeze([]);

/** Names uppercased once each (an element's `tagName`), and lowercased. */
const upperNames = new Map<string, string>();
const lowerNames = new Map<string, string>();

function upper(name: string): string {
  let u = upperNames.get(name);
  if (u === undefined) {
    u = name.toUpperCase();
    if (upperNames.size < 10_000) upperNames.set(name, u);
  }
  return u;
}

function lower(name: string): string {
  let l = lowerNames.get(name);
  if (l === undefined) {
    l = name.toLowerCase();
    if (lowerNames.size < 10_000) lowerNames.set(name, l);
  }
  return l;
}

/** The first element among `n` and its next siblings; null when none is one. */
function elementOnFrom(n: LightNode | null): LightElement | null {
  while (n !== null && n.nodeType !== ELEMENT_NODE) n = n.nextSibling;
  return n as LightElement | null;
}

/** The first element among `n` and its previous siblings; null when none is one. */
function elementBackFrom(n: LightNode | null): LightElement | null {
  while (n !== null && n.nodeType !== ELEMENT_NODE) n = n.previousSibling;
  return n as LightElement | null;
}

/** A DOM error (the DOM Standard's `DOMException` names: `NotFoundError`, `HierarchyRequestError`). */
export class LightDomError extends Error {
  constructor(
    readonly domName: string,
    message: string,
  ) {
    super(`${domName}: ${message}`);
    this.name = 'LightDomError';
  }
}

/**
 * A node (DOM Standard §4.4 `Node`): its parent and siblings, and for elements and documents its
 * first and last child (null for text and comments).
 */
export abstract class LightNode {
  readonly parentNode: LightParent | null = null;
  readonly previousSibling: LightNode | null = null;
  readonly nextSibling: LightNode | null = null;
  readonly firstChild: LightNode | null = null;
  readonly lastChild: LightNode | null = null;

  /**
   * @param nodeType the DOM's node type (an own field, not a getter: Readability and Turndown read
   *   it on every node, at call sites that see every kind of node).
   * @param nodeName `#text`, `#comment`, `#document`, or an element's uppercased name.
   * @param owner the document the node belongs to (a document's own is itself).
   */
  constructor(
    readonly nodeType: number,
    readonly nodeName: string,
    protected readonly owner: LightDocument,
  ) {}

  /** The document the node belongs to; null for a document. */
  get ownerDocument(): LightDocument | null {
    return this.owner;
  }

  /** The children, as an array that stays as it is when the tree changes (none for text and comments). */
  get childNodes(): readonly LightNode[] {
    return NO_NODES;
  }

  /** The parent when it is an element (not the document). */
  get parentElement(): LightElement | null {
    const p = this.parentNode;
    return p !== null && p.nodeType === ELEMENT_NODE ? (p as LightElement) : null;
  }

  /** Whether the node is in its document (its root is a document). */
  get isConnected(): boolean {
    let n: LightNode = this;
    while (n.parentNode !== null) n = n.parentNode;
    return n.nodeType === DOCUMENT_NODE;
  }

  get previousElementSibling(): LightElement | null {
    return elementBackFrom(this.previousSibling);
  }

  get nextElementSibling(): LightElement | null {
    return elementOnFrom(this.nextSibling);
  }

  /** A text or comment node's data; null for elements and documents. */
  get nodeValue(): string | null {
    return null;
  }

  abstract get textContent(): string | null;
  abstract set textContent(value: string | null);

  hasChildNodes(): boolean {
    return this.firstChild !== null;
  }

  /** Removes the node from its parent (nothing when it has none). */
  remove(): void {
    if (this.parentNode !== null) unlink(this);
  }

  /** Replaces the node by `nodes` (strings as text) in its parent (DOM Standard `ChildNode.replaceWith`). */
  replaceWith(...nodes: (LightNode | string)[]): void {
    const parent = this.parentNode;
    if (parent === null) return;
    let next = this.nextSibling;
    while (next !== null && nodes.includes(next)) next = next.nextSibling;
    const list = detachAll(this.owner, nodes);
    if (this.parentNode === parent) unlink(this);
    for (const n of list) parent.insertBefore(n, next);
  }

  /** Inserts `nodes` (strings as text) before this node in its parent (DOM Standard `ChildNode.before`). */
  before(...nodes: (LightNode | string)[]): void {
    const parent = this.parentNode;
    if (parent === null) return;
    let prev = this.previousSibling;
    while (prev !== null && nodes.includes(prev)) prev = prev.previousSibling;
    const list = detachAll(this.owner, nodes);
    const next = prev === null ? parent.firstChild : prev.nextSibling;
    for (const n of list) parent.insertBefore(n, next);
  }

  /** Inserts `nodes` (strings as text) after this node in its parent (DOM Standard `ChildNode.after`). */
  after(...nodes: (LightNode | string)[]): void {
    const parent = this.parentNode;
    if (parent === null) return;
    let next = this.nextSibling;
    while (next !== null && nodes.includes(next)) next = next.nextSibling;
    for (const n of detachAll(this.owner, nodes)) parent.insertBefore(n, next);
  }

  /** A copy of the node (with its descendants when `deep`), outside any tree. */
  abstract cloneNode(deep?: boolean): LightNode;

  /** Whether `node` is this node or one of its descendants. */
  contains(node: LightNode | null): boolean {
    for (let n = node; n !== null; n = n.parentNode) if (n === this) return true;
    return false;
  }
}

/**
 * `nodes` as nodes (strings as text nodes), each taken out of where it is: what the DOM
 * Standard's "convert nodes into a node" does before inserting them together.
 */
function detachAll(document: LightDocument, nodes: readonly (LightNode | string)[]): LightNode[] {
  return nodes.map((n) => {
    if (typeof n === 'string') return new LightText(document, n);
    if (n.parentNode !== null) unlink(n);
    return n;
  });
}

/** A text or comment node (DOM Standard `CharacterData`). */
export abstract class LightCharacterData extends LightNode {
  /** The node's text (`data`). */
  private text: string;

  constructor(nodeType: number, nodeName: string, ownerDocument: LightDocument, data: string) {
    super(nodeType, nodeName, ownerDocument);
    this.text = data;
  }

  /** The node's text. Setting it drops its ancestors' `textContent` as kept. */
  get data(): string {
    return this.text;
  }

  set data(value: string) {
    this.text = value;
    if (this.parentNode !== null) this.parentNode.textChanged();
  }

  override get ownerDocument(): LightDocument {
    return this.owner;
  }

  override get nodeValue(): string {
    return this.data;
  }

  override set nodeValue(value: string | null) {
    this.data = value ?? '';
  }

  get textContent(): string {
    return this.data;
  }

  set textContent(value: string | null) {
    this.data = value ?? '';
  }

  get length(): number {
    return this.data.length;
  }
}

/** A text node. */
export class LightText extends LightCharacterData {
  constructor(ownerDocument: LightDocument, data: string) {
    super(TEXT_NODE, '#text', ownerDocument, data);
  }

  cloneNode(): LightText {
    return new LightText(this.owner, this.data);
  }
}

/** A comment node. */
export class LightComment extends LightCharacterData {
  constructor(ownerDocument: LightDocument, data: string) {
    super(COMMENT_NODE, '#comment', ownerDocument, data);
  }

  cloneNode(): LightComment {
    return new LightComment(this.owner, this.data);
  }
}

/** A node's tree links, as the mutation functions below write them (read-only to everyone else). */
type Links = {
  parentNode: LightParent | null;
  previousSibling: LightNode | null;
  nextSibling: LightNode | null;
  firstChild: LightNode | null;
  lastChild: LightNode | null;
};
const links = (node: LightNode): Links => node as unknown as Links;

/** Links a detached `node` into `parent` before `ref` (a child of `parent`; null: at the end). */
function link(parent: LightParent, node: LightNode, ref: LightNode | null): void {
  const prev = ref === null ? parent.lastChild : ref.previousSibling;
  const n = links(node);
  n.parentNode = parent;
  n.previousSibling = prev;
  n.nextSibling = ref;
  if (prev === null) links(parent).firstChild = node;
  else links(prev).nextSibling = node;
  if (ref === null) links(parent).lastChild = node;
  else links(ref).previousSibling = node;
  parent.childrenChanged();
}

/** Unlinks `node` from its parent (which it has). */
function unlink(node: LightNode): void {
  const parent = node.parentNode as LightParent;
  const prev = node.previousSibling;
  const next = node.nextSibling;
  if (prev === null) links(parent).firstChild = next;
  else links(prev).nextSibling = next;
  if (next === null) links(parent).lastChild = prev;
  else links(next).previousSibling = prev;
  const n = links(node);
  n.parentNode = null;
  n.previousSibling = null;
  n.nextSibling = null;
  parent.childrenChanged();
}

/** Appends a node made by the parser (new, detached) to `parent`: {@link link} at the end. */
export function appendParsed(parent: LightParent, node: LightNode): void {
  link(parent, node, null);
}

/** The node after `node` in tree order, within `root`'s descendants; null after the last. */
function following(node: LightNode, root: LightNode): LightNode | null {
  if (node.firstChild !== null) return node.firstChild;
  return followingSkipping(node, root);
}

/** The node after `node` and its descendants in tree order, within `root`'s descendants. */
function followingSkipping(node: LightNode, root: LightNode): LightNode | null {
  let n: LightNode = node;
  while (n !== root) {
    if (n.nextSibling !== null) return n.nextSibling;
    n = n.parentNode as LightNode;
  }
  return null;
}

/** An element or document: a node with children (DOM Standard `ParentNode`). */
export abstract class LightParent extends LightNode {
  /** `childNodes` as last built; null once the children change. */
  private nodesCache: LightNode[] | null = null;
  /** `children` as last built; null once the children change. */
  private elementsCache: LightElement[] | null = null;

  /**
   * `textContent` as last computed (elements only); null once a descendant changes. Kept so that
   * what reads the text of every node in turn (Readability's byline check, Turndown's blank test)
   * does not walk each subtree again: when an element has it, every element below it has it too
   * (it is computed for a whole subtree at once and dropped from a node up through its ancestors),
   * so dropping it stops at the first ancestor without one.
   */
  protected textCache: string | null = null;

  /** Drops the arrays built of the children (called on every change to them), and the text kept. */
  childrenChanged(): void {
    this.nodesCache = null;
    this.elementsCache = null;
    this.textChanged();
  }

  /** Drops the text kept by this node and its ancestors (a descendant's text changed). */
  textChanged(): void {
    for (let p: LightParent | null = this; p !== null && p.textCache !== null; p = p.parentNode)
      p.textCache = null;
  }

  override get childNodes(): readonly LightNode[] {
    let nodes = this.nodesCache;
    if (nodes === null) {
      nodes = [];
      for (let n = this.firstChild; n !== null; n = n.nextSibling) nodes.push(n);
      this.nodesCache = nodes;
    }
    return nodes;
  }

  /** The element children, as an array that stays as it is when the tree changes. */
  get children(): readonly LightElement[] {
    let elements = this.elementsCache;
    if (elements === null) {
      elements = [];
      for (let n = this.firstChild; n !== null; n = n.nextSibling)
        if (n.nodeType === ELEMENT_NODE) elements.push(n as LightElement);
      this.elementsCache = elements;
    }
    return elements;
  }

  get firstElementChild(): LightElement | null {
    return elementOnFrom(this.firstChild);
  }

  get lastElementChild(): LightElement | null {
    return elementBackFrom(this.lastChild);
  }

  get childElementCount(): number {
    return this.children.length;
  }

  /**
   * Inserts `node` before `ref` (at the end when null), first removing it from where it is
   * (DOM Standard "pre-insert").
   * @throws LightDomError `NotFoundError` when `ref` is not a child of this node;
   *   `HierarchyRequestError` when `node` is a document or contains this node.
   */
  insertBefore<T extends LightNode>(node: T, ref: LightNode | null): T {
    if (ref !== null && ref.parentNode !== this)
      throw new LightDomError('NotFoundError', 'the node before which to insert is not a child of this node');
    if (node.nodeType === DOCUMENT_NODE)
      throw new LightDomError('HierarchyRequestError', 'a document cannot be inserted');
    if (node.firstChild !== null && node.contains(this))
      throw new LightDomError(
        'HierarchyRequestError',
        'a node cannot be inserted into itself or its descendants',
      );
    if (node === ref) return node;
    if (node.parentNode !== null) unlink(node);
    link(this, node, ref);
    return node;
  }

  appendChild<T extends LightNode>(node: T): T {
    return this.insertBefore(node, null);
  }

  /**
   * Removes `child`.
   * @throws LightDomError `NotFoundError` when it is not a child of this node.
   */
  removeChild<T extends LightNode>(child: T): T {
    if (child.parentNode !== this)
      throw new LightDomError('NotFoundError', 'the node to remove is not a child of this node');
    unlink(child);
    return child;
  }

  /**
   * Puts `node` where `child` is and removes `child` (DOM Standard "replace").
   * @returns `child`.
   * @throws LightDomError as {@link insertBefore} does, or when `child` is not a child of this node.
   */
  replaceChild<T extends LightNode>(node: LightNode, child: T): T {
    if (child.parentNode !== this)
      throw new LightDomError('NotFoundError', 'the node to replace is not a child of this node');
    if (node === child) return child;
    let ref = child.nextSibling;
    if (ref === node) ref = node.nextSibling;
    unlink(child);
    this.insertBefore(node, ref);
    return child;
  }

  /** Inserts `nodes` (strings as text) before the first child. */
  prepend(...nodes: (LightNode | string)[]): void {
    const list = detachAll(this.owner, nodes);
    const ref = this.firstChild;
    for (const n of list) this.insertBefore(n, ref);
  }

  /** Appends `nodes` (strings as text). */
  append(...nodes: (LightNode | string)[]): void {
    for (const n of detachAll(this.owner, nodes)) this.insertBefore(n, null);
  }

  /** Removes all children, then appends `nodes`. */
  replaceChildren(...nodes: (LightNode | string)[]): void {
    while (this.lastChild !== null) unlink(this.lastChild);
    this.append(...nodes);
  }

  /**
   * The descendant elements named `name` as created or uppercased (`'*'`: all), in tree order.
   */
  getElementsByTagName(name: string): LightElement[] {
    const out: LightElement[] = [];
    const all = name === '*';
    for (let n = this.firstChild; n !== null; n = following(n, this))
      if (n.nodeType === ELEMENT_NODE) {
        const el = n as LightElement;
        if (all || el.localName === name || el.tagName === name) out.push(el);
      }
    return out;
  }

  /**
   * The first descendant element matching `selectors` (not inside a `<template>`), or null.
   * @throws SyntaxError when `selectors` is not a valid selector list.
   */
  querySelector(selectors: string): LightElement | null {
    const matches = matcher(
      selectors,
      this.nodeType === ELEMENT_NODE ? (this as unknown as LightElement) : null,
    );
    for (let n = this.firstChild; n !== null; ) {
      if (n.nodeType === ELEMENT_NODE) {
        const el = n as LightElement;
        if (matches(el)) return el;
        if (el.lowerName === 'template') {
          n = followingSkipping(n, this);
          continue;
        }
      }
      n = following(n, this);
    }
    return null;
  }

  /**
   * The descendant elements matching `selectors` (not inside a `<template>`), in tree order, as
   * a new array.
   * @throws SyntaxError when `selectors` is not a valid selector list.
   */
  querySelectorAll(selectors: string): LightElement[] {
    const matches = matcher(
      selectors,
      this.nodeType === ELEMENT_NODE ? (this as unknown as LightElement) : null,
    );
    const out: LightElement[] = [];
    for (let n = this.firstChild; n !== null; ) {
      if (n.nodeType === ELEMENT_NODE) {
        const el = n as LightElement;
        if (matches(el)) out.push(el);
        if (el.lowerName === 'template') {
          n = followingSkipping(n, this);
          continue;
        }
      }
      n = following(n, this);
    }
    return out;
  }
}

/** An attribute as `Element.attributes` lists it: a copy of its name and value. */
export class LightAttr {
  constructor(
    readonly name: string,
    readonly value: string,
  ) {}

  cloneNode(): LightAttr {
    return new LightAttr(this.name, this.value);
  }
}

/** The last value of CSS property `name` in a `style` attribute's declarations (see the module comment); '' when none. */
export function styleProperty(declarations: string | null, name: string): string {
  if (declarations === null || !declarations.includes(name)) return '';
  let value = '';
  for (const rule of declarations.split(/\s*;\s*/)) {
    const colon = rule.indexOf(':');
    if (colon < 0 || rule.slice(0, colon).trim() !== name) continue;
    const v = rule.slice(colon + 1).trim();
    if (v !== '') value = v;
  }
  return value;
}

/** An element's `style`: the properties read from its `style` attribute (see the module comment). */
export class LightStyle {
  constructor(private readonly declarations: string | null) {}

  get display(): string {
    return styleProperty(this.declarations, 'display');
  }

  get visibility(): string {
    return styleProperty(this.declarations, 'visibility');
  }

  getPropertyValue(name: string): string {
    return styleProperty(this.declarations, name);
  }
}

/** Elements with a `src` property, and with a `srcset` one (as created: `createElement('IMG')` is not an image). */
const SRC_ELEMENTS: ReadonlySet<string> = new Set(['img', 'iframe', 'script', 'source']);
const SRCSET_ELEMENTS: ReadonlySet<string> = new Set(['img', 'source']);

/** The style of an element without a `style` attribute. */
const NO_STYLE = new LightStyle(null);

/** An element (DOM Standard §4.9 `Element`, with the HTML `innerHTML`/`outerHTML`). */
export class LightElement extends LightParent {
  /** The name as created: lowercase from the parser, as given to `createElement`. */
  readonly localName: string;
  /** The name uppercased (`tagName`, `nodeName`). */
  readonly tagName: string;
  /** The name lowercased (what selectors and the serializer compare). */
  readonly lowerName: string;
  /** Attributes as `[name, value, name, value, …]` in order; {@link NO_ATTRIBUTES} until one is set. */
  private attributeList: string[];

  /**
   * @param name the element's name as created.
   * @param attrs its attributes as `[name, value, …]` (taken, not copied).
   */
  constructor(ownerDocument: LightDocument, name: string, attrs: string[] = NO_ATTRIBUTES as string[]) {
    const tagName = upper(name);
    super(ELEMENT_NODE, tagName, ownerDocument);
    this.localName = name;
    this.tagName = tagName;
    this.lowerName = lower(name);
    this.attributeList = attrs;
  }

  /** The attributes as `[name, value, name, value, …]`, in order (what the serializer writes). */
  get attrs(): readonly string[] {
    return this.attributeList;
  }

  override get ownerDocument(): LightDocument {
    return this.owner;
  }

  getAttribute(name: string): string | null {
    const a = this.attributeList;
    for (let i = 0; i < a.length; i += 2) if (a[i] === name) return a[i + 1];
    return null;
  }

  hasAttribute(name: string): boolean {
    const a = this.attributeList;
    for (let i = 0; i < a.length; i += 2) if (a[i] === name) return true;
    return false;
  }

  hasAttributes(): boolean {
    return this.attributeList.length > 0;
  }

  /** Sets an attribute: in place when present, else appended. */
  setAttribute(name: string, value: string): void {
    const v = String(value);
    const a = this.attributeList;
    for (let i = 0; i < a.length; i += 2)
      if (a[i] === name) {
        a[i + 1] = v;
        return;
      }
    if (a === NO_ATTRIBUTES) this.attributeList = [name, v];
    else a.push(name, v);
  }

  removeAttribute(name: string): void {
    const a = this.attributeList;
    for (let i = 0; i < a.length; i += 2)
      if (a[i] === name) {
        a.splice(i, 2);
        return;
      }
  }

  getAttributeNames(): string[] {
    const names: string[] = [];
    for (let i = 0; i < this.attributeList.length; i += 2) names.push(this.attributeList[i]);
    return names;
  }

  getAttributeNode(name: string): LightAttr | null {
    const v = this.getAttribute(name);
    return v === null ? null : new LightAttr(name, v);
  }

  /** Sets an attribute from an {@link LightAttr}; returns the one it replaced, or null. */
  setAttributeNode(attr: LightAttr): LightAttr | null {
    const previous = this.getAttributeNode(attr.name);
    this.setAttribute(attr.name, attr.value);
    return previous;
  }

  /** The attributes, in order, as copies (a new array on each read). */
  get attributes(): LightAttr[] {
    const out: LightAttr[] = [];
    for (let i = 0; i < this.attributeList.length; i += 2)
      out.push(new LightAttr(this.attributeList[i], this.attributeList[i + 1]));
    return out;
  }

  get id(): string {
    return this.getAttribute('id') ?? '';
  }

  set id(value: string) {
    this.setAttribute('id', value);
  }

  get className(): string {
    return this.getAttribute('class') ?? '';
  }

  set className(value: string) {
    this.setAttribute('class', value);
  }

  /**
   * The `src` attribute as written ('' when absent) of the elements that reflect it (`img`,
   * `iframe`, `script`, `source`: HTML Standard, without resolving it, the document having no
   * URL); undefined on others.
   */
  get src(): string | undefined {
    return SRC_ELEMENTS.has(this.localName) ? (this.getAttribute('src') ?? '') : undefined;
  }

  /** The `srcset` attribute as written ('' when absent) of `img` and `source`; undefined on others. */
  get srcset(): string | undefined {
    return SRCSET_ELEMENTS.has(this.localName) ? (this.getAttribute('srcset') ?? '') : undefined;
  }

  get style(): LightStyle {
    const declarations = this.getAttribute('style');
    return declarations === null ? NO_STYLE : new LightStyle(declarations);
  }

  /**
   * The text of the descendant text nodes, in tree order. Kept, with that of every element below,
   * until the subtree changes (see `textCache`).
   */
  get textContent(): string {
    if (this.textCache !== null) return this.textCache;
    // iterative, post-order: nesting depth never overflows the stack
    const outer: string[] = [];
    let text = '';
    let parent: LightElement = this;
    let n: LightNode | null = this.firstChild;
    for (;;) {
      if (n === null) {
        // the end of parent's children
        parent.textCache = text;
        if (parent === this) return text;
        text = (outer.pop() as string) + text;
        n = parent.nextSibling;
        parent = parent.parentNode as LightElement;
        continue;
      }
      if (n.nodeType === TEXT_NODE) text += (n as LightText).data;
      else if (n.nodeType === ELEMENT_NODE) {
        const el = n as LightElement;
        if (el.textCache !== null) text += el.textCache;
        else if (el.firstChild !== null) {
          outer.push(text);
          text = '';
          parent = el;
          n = el.firstChild;
          continue;
        } else el.textCache = '';
      }
      n = n.nextSibling;
    }
  }

  /** Replaces the children by one text node of `value` (none when empty or null). */
  set textContent(value: string | null) {
    this.replaceChildren();
    if (value !== null && value !== '') link(this, new LightText(this.owner, String(value)), null);
  }

  get innerHTML(): string {
    return serializeChildren(this);
  }

  /** Replaces the children by `html` parsed (as the document was: `light-dom-parse.ts`). */
  set innerHTML(html: string) {
    this.replaceChildren();
    this.owner.parseInto(this, String(html));
  }

  get outerHTML(): string {
    return serializeNode(this);
  }

  /** Whether the element matches `selectors`. */
  matches(selectors: string): boolean {
    return matcher(selectors, this)(this);
  }

  /** The element itself or its nearest ancestor element matching `selectors`, or null. */
  closest(selectors: string): LightElement | null {
    const matches: Matcher = matcher(selectors, this);
    for (let el: LightElement | null = this; el !== null; el = el.parentElement)
      if (matches(el as SelectElement)) return el;
    return null;
  }

  cloneNode(deep = false): LightElement {
    const copy = shallowCopy(this);
    if (!deep) return copy;
    // iterative: nesting depth never overflows the stack
    let from: LightNode | null = this.firstChild;
    let into: LightParent = copy;
    while (from !== null) {
      const c = from.nodeType === ELEMENT_NODE ? shallowCopy(from as LightElement) : from.cloneNode();
      link(into, c, null);
      if (from.firstChild !== null) {
        from = from.firstChild;
        into = c as LightElement;
        continue;
      }
      while (from !== null && from !== this && from.nextSibling === null) {
        from = from.parentNode;
        into = into.parentNode as LightParent;
      }
      from = from === this || from === null ? null : from.nextSibling;
    }
    return copy;
  }
}

function shallowCopy(el: LightElement): LightElement {
  const attrs = el.attrs.length === 0 ? (NO_ATTRIBUTES as string[]) : [...el.attrs];
  return new LightElement(el.ownerDocument, el.localName, attrs);
}

/** How a document parses HTML into one of its elements (its `innerHTML`): `light-dom-parse.ts`. */
export type FragmentParser = (parent: LightParent, html: string) => void;

/**
 * A document (DOM Standard §4.5 `Document`, HTML `document.head`/`body`/`title` as the module
 * comment says). Documents are made by `light-dom-parse.ts`, which gives each the parser of its
 * elements' `innerHTML`.
 */
export class LightDocument extends LightParent {
  /** @param parseInto appends the nodes of `html` to an element of this document. */
  constructor(readonly parseInto: FragmentParser) {
    super(DOCUMENT_NODE, '#document', null as unknown as LightDocument);
    (this as unknown as { owner: LightDocument }).owner = this;
  }

  override get ownerDocument(): null {
    return null;
  }

  /** The first element child (htmlparser2 makes no `<html>` when the page has none). */
  get documentElement(): LightElement | null {
    return this.firstElementChild;
  }

  /** The document element's first child when it is a `head`; else one created there. Null without a document element. */
  get head(): LightElement | null {
    const root = this.documentElement;
    if (root === null) return null;
    let head = root.firstElementChild;
    if (head === null || head.tagName !== 'HEAD') {
      head = this.createElement('head');
      root.insertBefore(head, root.firstChild);
    }
    return head;
  }

  /** The head's next element sibling when it is a `body`; else one created there. Null without a document element. */
  get body(): LightElement | null {
    const head = this.head;
    if (head === null) return null;
    let body = head.nextElementSibling;
    if (body === null || body.tagName !== 'BODY') {
      body = this.createElement('body');
      head.after(body);
    }
    return body;
  }

  /** The text of the head's first `title` element; '' without one. */
  get title(): string {
    return this.head?.getElementsByTagName('title')[0]?.textContent ?? '';
  }

  /**
   * The absolute URL the document's links resolve against (its `<base href>` resolved, or the
   * page's URL), when its reader sets it; null by default. Readability, given none, tries and
   * fails to resolve each link (an exception each, ~4 µs).
   */
  url: string | null = null;

  /** {@link url} when set; else the first `<base>` element's `href` as written, null without one. */
  get baseURI(): string | null {
    return this.url ?? this.querySelector('base')?.getAttribute('href') ?? null;
  }

  /** {@link url}: null unless set. */
  get documentURI(): string | null {
    return this.url;
  }

  get textContent(): null {
    return null;
  }

  set textContent(_value: string | null) {
    // setting a document's textContent does nothing (DOM Standard)
  }

  /** An element named `name` as given (see the module comment). */
  createElement(name: string): LightElement {
    return new LightElement(this, String(name));
  }

  createTextNode(data: string): LightText {
    return new LightText(this, String(data));
  }

  createComment(data: string): LightComment {
    return new LightComment(this, String(data));
  }

  /** A new empty document with the same parser (`deep` copies are not supported). */
  cloneNode(): LightDocument {
    return new LightDocument(this.parseInto);
  }
}
