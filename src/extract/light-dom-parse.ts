/**
 * HTML to a light DOM (`light-dom.ts`) through htmlparser2's `Parser`, in HTML mode with linkedom
 * 0.18's options (`decodeEntities: true`, `lowerCaseAttributeNames: false`), building the tree
 * linkedom built: one node per parser event, where the parser's open elements say.
 * - Element names are lowercased by the parser; attribute names are kept as written; an
 *   attribute written twice keeps its first value; attributes stay in source order.
 * - Nothing is synthesized: no `<html>`, `<head>` or `<body>` when the page has none (see
 *   `document.head`/`body` in `light-dom.ts`), and text or comments before `<html>` are children
 *   of the document.
 * - End tags are implied as htmlparser2 implies them (a `<p>` closes an open `<p>`, `<li>` an
 *   `<li>`, a block start closes a paragraph…); void elements (`br`, `img`, `meta`…) never hold
 *   children; `<x/>` is self-closing only inside `<svg>` and `<math>`.
 * - Each `ontext` event is a text node of its own: text is split where a character reference
 *   was decoded (`a &amp; b` is three text nodes), as linkedom's was. Raw text (`script`,
 *   `style`, `textarea`, `title`…) is one node.
 * - Comments, and CDATA sections outside `<svg>`/`<math>`, are comment nodes; the doctype and
 *   processing instructions make no node.
 */
import { type Handler, Parser } from 'htmlparser2';
import {
  appendParsed,
  LightComment,
  LightDocument,
  LightElement,
  type LightParent,
  LightText,
} from './light-dom.js';

/** htmlparser2's options: HTML mode, character references decoded, attribute names as written (linkedom 0.18's). */
export const PARSER_OPTIONS = { decodeEntities: true, lowerCaseAttributeNames: false } as const;

/** The parser's events, building the tree under a node. */
class TreeBuilder implements Partial<Handler> {
  private current: LightParent;

  constructor(
    private readonly document: LightDocument,
    root: LightParent,
  ) {
    this.current = root;
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    let attrs: string[] | undefined;
    for (const key in attribs) {
      if (attrs === undefined) attrs = [key, attribs[key]];
      else attrs.push(key, attribs[key]);
    }
    const el = new LightElement(this.document, name, attrs);
    appendParsed(this.current, el);
    this.current = el;
  }

  onclosetag(): void {
    this.current = this.current.parentNode ?? this.current;
  }

  ontext(data: string): void {
    appendParsed(this.current, new LightText(this.document, data));
  }

  oncomment(data: string): void {
    appendParsed(this.current, new LightComment(this.document, data));
  }
}

/** Appends the nodes of `html` to `parent` (an element's `innerHTML`, a document's content). */
export function parseHtmlInto(parent: LightParent, html: string): void {
  const document =
    parent.nodeType === 9 ? (parent as LightDocument) : (parent.ownerDocument as LightDocument);
  new Parser(new TreeBuilder(document, parent), PARSER_OPTIONS).end(html);
}

/**
 * A document of `html` (see the module comment for its tree). Never throws: any string parses.
 * @param html a whole page, or any part of one.
 */
export function parseHtmlDocument(html: string): LightDocument {
  const document = new LightDocument(parseHtmlInto);
  parseHtmlInto(document, html);
  return document;
}
