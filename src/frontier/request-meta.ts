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
  /**
   * `false`: a navigation file (robots.txt, a sitemap) fetched whatever the scope; as a round
   * request it does not widen the scope.
   */
  scope?: false;
  /**
   * When the source says the resource last changed (epoch ms: a sitemap's `<lastmod>`, a feed
   * entry's `updated`): a URL fetched before is fetched again when this is later than its last
   * fetch (continuous collection).
   */
  lastmod?: number;
}

/** Largest metadata accepted from a state line, as JSON characters (a longer one is damage). */
export const MAX_META_JSON_CHARS = 128 * 1024;

/** Header names never accepted from state: credentials are added at send time, never stored. */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/**
 * The metadata as it is written in a state line (after `depth<TAB>url<TAB>`): JSON, which has no
 * raw tab or newline, so the line stays one line with three fields.
 */
export function encodeRequestMeta(meta: RequestMeta): string {
  return JSON.stringify(meta);
}

/**
 * Metadata read back from a state line, checked field by field as a source's request is (types,
 * no credential header, no unknown key).
 * @returns the metadata, or null when the text is not valid metadata.
 */
export function parseRequestMeta(text: string): RequestMeta | null {
  if (text.length === 0 || text.length > MAX_META_JSON_CHARS) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  for (const [k, x] of Object.entries(o)) {
    const ok =
      (k === 'label' && typeof x === 'string') ||
      (k === 'headers' && isHeaderRecord(x)) ||
      (k === 'priority' && Number.isSafeInteger(x)) ||
      k === 'userData' ||
      ((k === 'store' || k === 'robots' || k === 'scope') && x === false) ||
      (k === 'lastmod' && Number.isSafeInteger(x) && (x as number) >= 0) ||
      (k === 'everyRound' && x === true);
    if (!ok) return null;
  }
  return Object.keys(o).length > 0 ? (o as RequestMeta) : null;
}

function isHeaderRecord(x: unknown): boolean {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  for (const [k, v] of Object.entries(x)) {
    if (typeof v !== 'string' || k !== k.toLowerCase() || CREDENTIALS.has(k)) return false;
  }
  return true;
}
