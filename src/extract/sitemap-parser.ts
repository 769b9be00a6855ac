/**
 * The push side of the sitemap reader: decoded text chunks in, entries out, for XML sitemaps
 * (`<urlset>`, `<sitemapindex>`) and plain-text ones. `sitemap.ts` feeds it from bytes.
 *
 * XML goes through htmlparser2's `Parser` in XML mode rather than a conformant parser (saxes):
 * real sitemaps are often not well-formed (a stray `&`, an undeclared prefix, text before the
 * root) and a conformant parser must stop at the first such error, while htmlparser2 reads on as
 * lenient sitemap readers do (Google's, lxml with `recover` in Scrapy). It never loads a DTD or
 * an external entity, is already a dependency, and keeps only the unfinished token between
 * chunks.
 */
import { Parser } from 'htmlparser2';
import { canonicalize } from '../url/canonicalize.js';
import { parseDate } from './dates.js';

/** Limits of one sitemap file; the protocol's are the defaults. */
export const SITEMAP_LIMITS = {
  /** Sitemap protocol: at most 50,000 URLs (or child sitemaps) per file. */
  maxUrls: 50_000,
  /** Sitemap protocol: at most 50 MB (52,428,800 bytes) uncompressed per file. */
  maxBytes: 52_428_800,
  /**
   * Longest `<loc>` read, in characters (the protocol allows under 2,048; a little slack for
   * the sites that exceed it). A longer one is skipped with a warning.
   */
  maxLocChars: 8192,
  /**
   * Longest run of input, in characters, with no complete token (a tag, a text piece): past it
   * the file is abandoned, since htmlparser2 keeps an unfinished comment or tag in memory whole.
   */
  maxTokenChars: 1 << 20,
  /** Characters handed to htmlparser2 at a time (it holds the piece a token started in). */
  sliceChars: 64 * 1024,
} as const;

/** One `<url>` of a urlset, one `<sitemap>` of an index, or one line of a text sitemap. */
export interface SitemapEntry {
  /** Canonical absolute http(s) URL (relative `<loc>`s are resolved against the sitemap's URL). */
  url: string;
  /** `<lastmod>` as epoch ms, or null when absent or unreadable (see `parseDate`). */
  lastmod: number | null;
}

/** What kind of file it was: by its root element, or `text` for a plain list. */
export type SitemapKind = 'urlset' | 'sitemapindex' | 'text' | 'unknown';

/** An element's local name, lowercase: `sm:URL` → `url`. Namespaces are not checked. */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return (colon < 0 ? name : name.slice(colon + 1)).toLowerCase();
}

/** A sink for whole entries; returns false to stop (a limit was reached). */
export type EntryListener = (entry: SitemapEntry, isIndex: boolean) => boolean;

/**
 * The push side of the reader: text chunks in, entries out. XML or plain text is decided by the
 * first character that is not whitespace or a BOM (`<` means XML).
 *
 * In XML, an entry is an element whose local name is `url` or `sitemap`, whatever its prefix or
 * namespace (or none), and its `<loc>`/`<lastmod>` are its direct children only, so the
 * `<image:loc>` of an image sitemap extension is not taken for the page. Entities are decoded,
 * CDATA is read as text, whitespace around values is trimmed. In text, each non-blank line is
 * a URL; lines that are not absolute http(s) URLs are skipped.
 */
export class SitemapParser {
  private readonly base: string;
  private readonly emit: EntryListener;
  private mode: 'undecided' | 'xml' | 'text' = 'undecided';
  private parser: Parser | null = null;
  private depth = 0;
  /** Depth of the open `<url>`/`<sitemap>` element, 0 when none is open. */
  private entryDepth = 0;
  private entryIsIndex = false;
  private field: 'loc' | 'lastmod' | null = null;
  private loc = '';
  private lastmod = '';
  private locTooLong = false;
  private pendingLine = '';
  /** The text line being read is too long: the rest of it, up to the next newline, is dropped. */
  private dropRestOfLine = false;
  private charsSinceToken = 0;
  private halted = false;
  /** Local name of the root element, once seen. */
  root: string | null = null;
  /** Entries skipped (no usable `<loc>`). */
  skipped = 0;
  /** Set when a token ran past {@link SITEMAP_LIMITS}.maxTokenChars. */
  tokenTooLong = false;

  /**
   * @param baseUrl the sitemap's URL, base of relative locations.
   * @param emit receives each entry; returning false stops the parser (further writes are ignored).
   */
  constructor(baseUrl: string, emit: EntryListener) {
    this.base = baseUrl;
    this.emit = emit;
  }

  /** Kind decided so far from the root element or the text mode. */
  get kind(): SitemapKind {
    if (this.mode === 'text') return 'text';
    if (this.root === 'urlset' || this.root === 'sitemapindex') return this.root;
    return 'unknown';
  }

  /** Whether the parser stopped (a listener returned false, or a token was too long). */
  get stopped(): boolean {
    return this.halted;
  }

  /**
   * Characters of input held by htmlparser2 between writes: at most the unfinished token plus the
   * chunk it started in. Reads htmlparser2 12's chunk list; -1 if that internal is not found
   * (a test then fails, telling that the memory bound must be checked again).
   */
  bufferedChars(): number {
    if (this.parser === null) return this.pendingLine.length;
    const buffers = (this.parser as unknown as { buffers?: unknown }).buffers;
    if (!Array.isArray(buffers)) return -1;
    let n = 0;
    for (const b of buffers) n += typeof b === 'string' ? b.length : 0;
    return n + this.pendingLine.length;
  }

  /** Feeds the next piece of decoded text. */
  write(text: string): void {
    if (this.halted || text.length === 0) return;
    if (this.mode === 'undecided') {
      const start = text.search(/[^\s\uFEFF]/);
      if (start < 0) return; // only whitespace so far
      text = text.slice(start);
      this.mode = text[0] === '<' ? 'xml' : 'text';
      if (this.mode === 'xml') this.parser = this.createParser();
    }
    if (this.mode === 'text') {
      this.writeText(text);
      return;
    }
    // In slices: htmlparser2 keeps the whole string a token started in, so a body handed over as
    // one large chunk would otherwise be held whole; and the runaway-token check runs per slice.
    for (let at = 0; at < text.length && !this.halted; at += SITEMAP_LIMITS.sliceChars) {
      if (this.charsSinceToken > SITEMAP_LIMITS.maxTokenChars) {
        this.tokenTooLong = true;
        this.halted = true;
        return;
      }
      const slice =
        at === 0 && text.length <= SITEMAP_LIMITS.sliceChars
          ? text
          : text.slice(at, at + SITEMAP_LIMITS.sliceChars);
      this.charsSinceToken += slice.length; // reset by every token the slice completes
      this.parser!.write(slice);
    }
  }

  /** Ends the input (completes the last text line; XML left open is not completed). */
  end(): void {
    if (this.halted) return;
    if (this.mode === 'text') {
      const line = this.pendingLine;
      this.pendingLine = '';
      this.textLine(line);
    }
    // No parser.end(): it would close elements left open by a cut-off file and emit a
    // half-read entry; everything complete was already emitted.
  }

  private writeText(text: string): void {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const line = this.pendingLine + text.slice(from, nl);
      this.pendingLine = '';
      from = nl + 1;
      if (!this.textLine(line)) return;
    }
    this.pendingLine += text.slice(from);
    if (this.pendingLine.length > SITEMAP_LIMITS.maxLocChars) {
      // one absurd line: skip it whole, keeping memory bounded
      this.pendingLine = '';
      if (!this.dropRestOfLine) this.skipped++;
      this.dropRestOfLine = true;
    }
  }

  /** Handles one text line; false when the listener stopped the parser. */
  private textLine(raw: string): boolean {
    if (this.dropRestOfLine) {
      this.dropRestOfLine = false;
      return true;
    }
    const line = raw.trim();
    if (line === '') return true;
    const url = /^https?:\/\//i.test(line) ? canonicalize(line, this.base) : null;
    if (url === null) {
      this.skipped++;
      return true;
    }
    return this.deliver({ url, lastmod: null }, false);
  }

  private deliver(entry: SitemapEntry, isIndex: boolean): boolean {
    if (this.emit(entry, isIndex)) return true;
    this.halted = true;
    this.parser?.pause();
    return false;
  }

  private createParser(): Parser {
    return new Parser(
      {
        onopentag: (name) => {
          this.charsSinceToken = 0;
          this.depth++;
          const local = localName(name);
          if (this.depth === 1) this.root = local;
          if (this.entryDepth === 0) {
            if (local === 'url' || local === 'sitemap') {
              this.entryDepth = this.depth;
              this.entryIsIndex = local === 'sitemap';
              this.loc = '';
              this.lastmod = '';
              this.locTooLong = false;
            }
          } else if (this.depth === this.entryDepth + 1) {
            this.field = local === 'loc' ? 'loc' : local === 'lastmod' ? 'lastmod' : null;
          }
        },
        ontext: (text) => {
          this.charsSinceToken = 0;
          if (this.field === 'loc') {
            if (this.loc.length + text.length > SITEMAP_LIMITS.maxLocChars) this.locTooLong = true;
            else this.loc += text;
          } else if (this.field === 'lastmod' && this.lastmod.length < 100) {
            this.lastmod += text;
          }
        },
        onclosetag: () => {
          this.charsSinceToken = 0;
          if (this.depth === this.entryDepth + 1) this.field = null;
          else if (this.depth === this.entryDepth && this.entryDepth > 0) {
            this.entryDepth = 0;
            this.closeEntry();
          }
          if (this.depth > 0) this.depth--;
        },
        oncomment: () => {
          this.charsSinceToken = 0;
        },
        onprocessinginstruction: () => {
          this.charsSinceToken = 0;
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  private closeEntry(): void {
    const raw = this.loc.trim();
    const url = raw === '' || this.locTooLong ? null : canonicalize(raw, this.base);
    if (url === null) {
      this.skipped++;
      return;
    }
    this.deliver({ url, lastmod: parseDate(this.lastmod) }, this.entryIsIndex);
  }
}
