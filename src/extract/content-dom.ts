/**
 * The DOM content extraction works on — the light DOM of `light-dom.ts`, under the names the
 * extraction code uses — and small helpers over it.
 */
import {
  ELEMENT_NODE,
  type LightDocument,
  type LightElement,
  type LightNode,
  TEXT_NODE,
} from './light-dom.js';

export { ELEMENT_NODE, TEXT_NODE };

/** A DOM node (element, text, comment, document). */
export type DomNode = LightNode;

/** A DOM element. */
export type DomElement = LightElement;

/** A DOM document. */
export type DomDocument = LightDocument;

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
