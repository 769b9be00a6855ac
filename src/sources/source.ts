/**
 * The Source contract: what a worker type collects and how it reads a response. A source sees
 * only the page it is handed and returns an item's extra fields and the links to follow; it
 * never imports the runtime or a backend (DESIGN §2).
 */

/** A fetched response handed to a source (after redirects and Content-Encoding removal). */
export interface Page {
  /** Canonical requested URL. */
  url: string;
  /** URL of the last hop. */
  finalUrl: string;
  /** HTTP status of the last hop. */
  status: number;
  /** Content-Type header, or null. */
  contentType: string | null;
  /** Response headers of the last hop (lowercase names). */
  headers: Record<string, string | string[] | undefined>;
  /** Body bytes (decompressed, not charset-decoded). */
  body: Buffer;
  /** Link distance from a seed. */
  depth: number;
}

/** What a source extracts from a page. */
export interface SourceResult {
  /** Page title (HTML), written to the item's `title`. */
  title?: string | null;
  /** Absolute canonical URLs to follow; the runtime applies scope, depth and dedup. */
  links?: string[];
  /** Source-specific fields, written under the item's `data`. */
  data?: Record<string, unknown>;
  /**
   * A client-side redirect of the page (declarative refresh with a short delay): an absolute
   * canonical URL the runtime follows as a redirect hop of this page, checked like a 3xx
   * Location; the page itself then yields no item of its own.
   */
  refresh?: string;
  /**
   * A sketch of the page's text (`TextSketch`, ascending word hashes) the runtime's trap defence
   * compares between pages of one URL shape; optional.
   */
  sketch?: number[];
}

/** A worker type's reader of responses. `handle` must not throw for odd input. */
export interface Source {
  /** Name written to each item's `source`. */
  readonly name: string;
  /**
   * Whether `handle` may run in a page thread: the source is then created again there with
   * `createSource(name)`, so it must keep no state the runtime reads and need nothing but the
   * page. Sources that set it get their parsing off the crawler's event loop.
   */
  readonly offThread?: boolean;
  /** Read one successful (2xx) response. */
  handle(page: Page): SourceResult;
}
