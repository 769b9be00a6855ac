/**
 * What the frontier keeps about a request beyond its URL and depth: the metadata a source gave it
 * (label, extra headers, priority, userData, and the store/robots/everyRound flags). A plain URL
 * has none (no object is made for it); a request with metadata carries one through the frontier,
 * the handoff to its owner and the state files, so it survives `--resume`. Credentials never go
 * here: a source adds them at send time (`authorize`).
 */

/** The persisted part of a source's request. Every field is absent when it has its default. */
export interface RequestMeta {
  /** Routes the response back to the source (`page.label`); written to the item. */
  label?: string;
  /** Extra request headers, lowercase names (never `authorization`, `cookie`: see `authorize`). */
  headers?: Record<string, string>;
  /** Higher goes first among its host's queued URLs (default 0; negative: after the others). */
  priority?: number;
  /** Any JSON value: carried to the page (`page.userData`) and the item. */
  userData?: unknown;
  /** `false`: the body is not stored under `files/` (the item is still written). */
  store?: false;
  /** `false`: an API call robots.txt does not govern; its hops skip the robots.txt check. */
  robots?: false;
  /**
   * `true`: fetched again in every round (a hub page: a listing, a feed, a sitemap), past the
   * crawl-wide seen-set; at most once per round of the process that owns it.
   */
  everyRound?: true;
}
