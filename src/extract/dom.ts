/**
 * The subset of the DOM that the extractors read, declared structurally: this project compiles
 * without TypeScript's DOM library, and linkedom's `parseHTML(html).document` implements it.
 */

/**
 * An element as the extractors read it (DOM Standard `Element`/`ParentNode`/`Node` members).
 * Attribute names are matched as the parser stored them: linkedom keeps their source case, so
 * `LANG="en"` is not found as `lang`.
 */
export interface DomElement {
  /** The attribute's value, or null when absent (DOM `Element.getAttribute`). */
  getAttribute(name: string): string | null;
  /** First descendant matching a CSS selector list, in document order, or null. */
  querySelector(selectors: string): DomElement | null;
  /** Every descendant matching a CSS selector list, in document order. */
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  /** The element itself or its nearest ancestor matching a CSS selector list, or null (DOM `Element.closest`). */
  closest(selectors: string): DomElement | null;
  /** Text of the element and its descendants, entities decoded by the parser (DOM `Node.textContent`). */
  readonly textContent: string | null;
}

/** A document as the extractors read it: queried from its root, never changed. */
export type Doc = Pick<DomElement, 'querySelector' | 'querySelectorAll'>;
