/**
 * What a page's metadata is read from (`HeadFacts`, page-metadata.ts), gathered from the tags and
 * text one streaming pass over the markup reports (html.ts): `<meta>` values, `<html lang>`, the
 * canonical links outside `<body>`, `<base href>`, the title and the JSON-LD blocks. No DOM.
 */
import { isJsonLdType } from './json-ld.js';
import type { HeadFacts } from './page-metadata.js';

/**
 * Most characters of JSON-LD text kept from one page (all blocks together); a block that does not
 * fit is skipped. Metadata sits in the first blocks; some sites embed whole catalogues.
 */
export const JSON_LD_MAX_CHARS = 1024 * 1024;

/** A `rel` value naming the canonical relation (RFC 6596). */
const CANONICAL_REL = /(?:^|[\t\n\f\r ])canonical(?:[\t\n\f\r ]|$)/i;

/** Attributes as the streaming pass gives them: lowercase names, entities decoded. */
type Attributes = Record<string, string>;

/** Gathers one page's {@link HeadFacts} as its tags go by, in document order. */
export class HeadFactsReader {
  readonly facts: HeadFacts = {
    metas: new Map(),
    contentLanguage: null,
    lang: null,
    xmlLang: null,
    title: null,
    base: null,
    canonical: [],
    jsonLd: [],
  };
  private inBody = false;
  private jsonLdChars = 0;
  /** The JSON-LD block being read, or null. */
  private block: string | null = null;
  /** The block being read does not fit in {@link JSON_LD_MAX_CHARS}: it is skipped. */
  private blockTooBig = false;

  /** `<html>`: its `lang` and `xml:lang`. */
  html(a: Attributes): void {
    this.facts.lang ??= a.lang ?? null;
    this.facts.xmlLang ??= a['xml:lang'] ?? null;
  }

  /** `<body>`: canonical links from here on are not the page's (Google ignores them). */
  body(): void {
    this.inBody = true;
  }

  /** The first `<base href>`, as written. */
  base(href: string): void {
    this.facts.base = href;
  }

  /** The first `<title>`'s text (entities decoded, whitespace collapsed). */
  title(text: string): void {
    this.facts.title = text;
  }

  /** `<link>`: a canonical one outside `<body>`. */
  link(a: Attributes): void {
    if (!this.inBody && a.href !== undefined && a.rel !== undefined && CANONICAL_REL.test(a.rel))
      this.facts.canonical.push(a.href);
  }

  /**
   * `<meta content>`: by its key (the first present of `property`, `name`, `itemprop`, trimmed,
   * lowercased; the first of each key kept), and the first `http-equiv="content-language"`.
   */
  meta(a: Attributes): void {
    if (a.content === undefined) return;
    const key = (a.property ?? a.name ?? a.itemprop ?? '').trim().toLowerCase();
    if (key !== '' && !this.facts.metas.has(key)) this.facts.metas.set(key, a.content);
    if (
      this.facts.contentLanguage === null &&
      a['http-equiv'] !== undefined &&
      a['http-equiv'].trim().toLowerCase() === 'content-language'
    )
      this.facts.contentLanguage = a.content;
  }

  /** An opening `<script>`: a JSON-LD one's text is read until it closes. */
  script(a: Attributes): void {
    if (a.type !== undefined && isJsonLdType(a.type)) this.block = '';
  }

  /** Whether {@link text} keeps what it is given (inside a JSON-LD block): text need not be made otherwise. */
  get readsText(): boolean {
    return this.block !== null;
  }

  /** A run of the document's text: kept while inside a JSON-LD block. */
  text(chunk: string): void {
    if (this.block === null) return;
    if (this.jsonLdChars + this.block.length + chunk.length <= JSON_LD_MAX_CHARS) this.block += chunk;
    else this.blockTooBig = true;
  }

  /** A `</script>` (or `</style>`): the JSON-LD block being read, if any, is complete. */
  endScript(): void {
    if (this.block === null) return;
    if (!this.blockTooBig) this.facts.jsonLd.push(this.block);
    this.jsonLdChars += this.block.length;
    this.block = null;
    this.blockTooBig = false;
  }
}
