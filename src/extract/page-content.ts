/**
 * Everything a corpus keeps of an HTML page, read from one DOM: its metadata (title, description,
 * author, dates, language, canonical URL, site name) and its main content as Markdown headed by
 * its title, with the Markdown's word count and links. Pages too big to extract get metadata only.
 */
import { extractMainMarkdown, headOf, parseDocument, withinLimits } from './content.js';
import { parseDateIso } from './dates.js';
import { pageLanguage } from './language.js';
import { baseOf, type PageMetadata, readPageMetadata } from './page-metadata.js';

/**
 * What {@link extractContent} found in a page: its metadata (`PageMetadata`: null fields are ones
 * the page does not state; `title`, `author` and `published` fall back to Readability's guesses and
 * `<title>`, `language` to the language identified in the main text) and its main content.
 */
export interface PageContent extends PageMetadata {
  /**
   * The main content as GFM Markdown, starting with `# title` when the page has a title, links
   * and images absolute; null when no content was found or the page is too big to extract.
   */
  markdown: string | null;
  /** The Markdown's text without the headline (links' targets and images out). */
  text: string;
  /** Words of `text`. */
  words: number;
  /** Canonical http(s) URLs of the links in `markdown`, each once, in order. */
  links: string[];
  /** True when the main content is the page without navigation (Readability found too little). */
  fallback: boolean;
}

/** Whitespace collapsed and trimmed; null when empty or not a string. */
function clean(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** Options of {@link extractContent}. */
export interface ContentOptions {
  /** The response's `Content-Language` header, a declared language after `<html lang>`. */
  contentLanguage?: string | null;
  /** Site names learned from the host's other titles (`host-title-parts.ts`), removed from the title. */
  siteNames?: readonly string[];
}

/**
 * Extracts a page's metadata (`page-metadata.ts`, read before the main-content choice changes the
 * DOM) and main content (see the module comment). Never throws for odd input: a library failure
 * yields `markdown: null`.
 * @param html the decoded page.
 * @param pageUrl the page's URL after redirects (links are resolved against `<base href>` or it).
 */
export function extractContent(html: string, pageUrl: string, options: ContentOptions = {}): PageContent {
  const full = withinLimits(html);
  const document = parseDocument(full ? html : headOf(html));
  const base = baseOf(document, pageUrl);
  document.url = base; // what Readability resolves links against, as absolutize does
  const meta = readPageMetadata(document, pageUrl, options.contentLanguage, options.siteNames);
  const out: PageContent = {
    ...meta,
    markdown: null,
    text: '',
    words: 0,
    links: [],
    fallback: false,
  };
  if (full) {
    const m = extractMainMarkdown(document, html, base, meta.title);
    out.title ??= clean(m.guess.title);
    out.author ??= clean(m.guess.byline);
    out.published ??= parseDateIso(m.guess.publishedTime);
    out.links = m.links;
    out.text = m.text;
    out.words = m.words;
    out.fallback = m.fallback;
    out.markdown = m.markdown;
  }
  out.language = pageLanguage(meta.language, out.text);
  // The headline, once: Readability drops the heading it takes for the title.
  if (out.markdown !== null && out.title !== null && !out.markdown.startsWith('# '))
    out.markdown = `# ${out.title}\n\n${out.markdown}`;
  return out;
}
