/**
 * Articles: which URLs are articles (`articlePatterns`), and an article's main content as
 * Markdown with its title, author and dates (`page-content.ts`, whose libraries load on first
 * use, so a crawl without Markdown neither loads nor pays for them).
 */
import { CONTENT_DEFAULTS } from './content.js';
import { extractContent } from './page-content.js';

/** Defaults of article extraction: those of main-content extraction (`content.ts`). */
export const ARTICLE_DEFAULTS = CONTENT_DEFAULTS;

/** What {@link extractArticle} found in a page. */
export interface Article {
  /** Headline: JSON-LD, `og:title`/Dublin Core, else the page's title; null if none. */
  title: string | null;
  /** Author: JSON-LD, `<meta name="author">`, Dublin Core creator, or the page's byline; null if none. */
  author: string | null;
  /** Publication date (ISO 8601, UTC): JSON-LD, `article:published_time`, `<time>`; null if none. */
  published: string | null;
  /** Last modification (ISO 8601, UTC): JSON-LD `dateModified`, `article:modified_time`; null if none. */
  updated: string | null;
  /**
   * Main content as Markdown, starting with `# title`, links and images absolute; null when no
   * main content was found.
   */
  markdown: string | null;
  /** Canonical http(s) URLs of the links in `markdown`, each once, in order (to follow like HTML links). */
  links: string[];
}

/**
 * Compiles `articlePatterns` (regular expressions as strings, e.g. `'/\\d{4}/\\d{2}/'`).
 * @throws SyntaxError naming the pattern and its index when one is not a valid expression.
 */
export function compileArticlePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p, i) => {
    try {
      return new RegExp(p);
    } catch (e) {
      throw new SyntaxError(
        `articlePatterns[${i}] ${JSON.stringify(p)} is not a valid regular expression: ${(e as Error).message}`,
      );
    }
  });
}

/**
 * Whether a URL is an article: one of the patterns matches its path and query (not the host, so
 * `/post/` cannot match a host name).
 * @param url an absolute URL; one that does not parse is not an article.
 */
export function isArticleUrl(url: string, patterns: readonly RegExp[]): boolean {
  if (patterns.length === 0) return false;
  let target: string;
  try {
    const u = new URL(url);
    target = u.pathname + u.search;
  } catch {
    return false;
  }
  return patterns.some((re) => re.test(target));
}

// ---------------------------------------------------------------------------------------------
// Extraction

/**
 * Extracts an article's main content as Markdown and its metadata: `extractContent` of
 * `page-content.ts` (see there), in the shape articles have had since before every page could
 * have Markdown (`updated` is the page's `modified`).
 * @param html the decoded page.
 * @param pageUrl the page's URL after redirects.
 */
export function extractArticle(html: string, pageUrl: string): Article {
  const c = extractContent(html, pageUrl);
  return {
    title: c.title,
    author: c.author,
    published: c.published,
    updated: c.modified,
    markdown: c.markdown,
    links: c.links,
  };
}
