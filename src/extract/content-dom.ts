/**
 * The structural subset of the DOM that content extraction uses, which linkedom implements
 * (this project compiles without TypeScript's DOM library, so it is declared here), and small
 * helpers over it.
 */

/** A DOM node (element, text, comment...). */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomElement | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly previousSibling: DomNode | null;
  textContent: string | null;
  remove(): void;
}

/** A DOM element. */
export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly localName: string;
  readonly children: ArrayLike<DomElement>;
  readonly previousElementSibling: DomElement | null;
  readonly nextElementSibling: DomElement | null;
  readonly firstElementChild: DomElement | null;
  readonly parentElement: DomElement | null;
  readonly outerHTML: string;
  readonly isConnected: boolean;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  closest(selectors: string): DomElement | null;
  appendChild(node: DomNode): DomNode;
  insertBefore(node: DomNode, before: DomNode | null): DomNode;
  replaceWith(...nodes: DomNode[]): void;
  contains(node: DomNode | null): boolean;
}

/** A DOM document. */
export interface DomDocument {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
  readonly head: DomElement | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  createElement(tag: string): DomElement;
  createTextNode(text: string): DomNode;
}

/** `Node.ELEMENT_NODE`. */
export const ELEMENT_NODE = 1;
/** `Node.TEXT_NODE`. */
export const TEXT_NODE = 3;

/** Whether a node is an element. */
export function isElement(node: DomNode | null | undefined): node is DomElement {
  return node?.nodeType === ELEMENT_NODE;
}

/** The elements matching `selectors` under `root`, as an array (safe to mutate the DOM while iterating). */
export function all(root: Pick<DomElement, 'querySelectorAll'>, selectors: string): DomElement[] {
  return Array.from(root.querySelectorAll(selectors));
}

/** The lowercase class tokens of an element. */
export function classTokens(el: DomElement): string[] {
  const c = el.getAttribute('class');
  return c === null ? [] : c.toLowerCase().split(/\s+/).filter(Boolean);
}

/** A document or element as the metadata readers query it: from its root, never changed. */
export type Doc = Pick<DomElement, 'querySelector' | 'querySelectorAll'>;
