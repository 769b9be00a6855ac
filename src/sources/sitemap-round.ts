/**
 * What a sitemap source fetches in one round: each sitemap and each listed page once, whatever
 * the indexes say (an index listing itself or its parent, a child listed twice or in two indexes,
 * indexes nested too deep or too many), and, on later rounds, not the pages and child sitemaps
 * whose `<lastmod>` says they did not change since we last fetched them.
 */
import type { SitemapEntry } from '../extract/sitemap-parser.js';

/** Bounds of one round; the fixed ones are named here, the caller may lower them. */
export const SITEMAP_ROUND_DEFAULTS = {
  /**
   * Levels of sitemap indexes followed below a seed (the protocol allows one: an index lists
   * urlsets; real sites nest a few more).
   */
  maxIndexDepth: 5,
  /** Sitemap files fetched per round at most (an index may list 50,000; each may list 50,000 URLs). */
  maxSitemaps: 10_000,
} as const;

/** Why a listed child sitemap or page is not fetched this round. */
export interface RoundSkips {
  /** Already fetched or queued this round: a cycle, or the same child listed twice. */
  seen: number;
  /** An index nested deeper than `maxIndexDepth`. */
  tooDeep: number;
  /** Past `maxSitemaps` this round. */
  overLimit: number;
  /** `<lastmod>` not after our last fetch of it. */
  unchanged: number;
}

/** Options of a {@link SitemapRound}. */
export interface SitemapRoundOptions {
  maxIndexDepth?: number;
  maxSitemaps?: number;
  /**
   * When we last fetched a URL successfully (epoch ms), or undefined if never: entries whose
   * `lastmod` is not later are skipped as unchanged. Omit on the first round.
   */
  lastFetched?: (url: string) => number | undefined;
}

/**
 * One round's bookkeeping. Make a new one at the start of every round (sitemaps are fetched
 * again each round, as they change); it holds the URLs seen this round (bounded by the protocol's
 * limits times `maxSitemaps`).
 */
export class SitemapRound {
  private readonly maxIndexDepth: number;
  private readonly maxSitemaps: number;
  private readonly lastFetched: ((url: string) => number | undefined) | undefined;
  private readonly sitemaps = new Set<string>();
  private readonly pages = new Set<string>();
  /** Counts of what was not fetched, for the round's log line. */
  readonly skipped: RoundSkips = { seen: 0, tooDeep: 0, overLimit: 0, unchanged: 0 };

  constructor(opts: SitemapRoundOptions = {}) {
    this.maxIndexDepth = opts.maxIndexDepth ?? SITEMAP_ROUND_DEFAULTS.maxIndexDepth;
    this.maxSitemaps = opts.maxSitemaps ?? SITEMAP_ROUND_DEFAULTS.maxSitemaps;
    this.lastFetched = opts.lastFetched;
  }

  /** Sitemaps claimed this round. */
  get sitemapCount(): number {
    return this.sitemaps.size;
  }

  /**
   * Claims a top-level sitemap (a seed, a robots.txt `Sitemap:` line, `/sitemap.xml`) for this
   * round. Seeds are not skipped by lastmod (they have none).
   * @returns whether to fetch it: false when already claimed this round or over `maxSitemaps`.
   */
  seed(url: string): boolean {
    if (this.sitemaps.has(url)) {
      this.skipped.seen++;
      return false;
    }
    if (this.sitemaps.size >= this.maxSitemaps) {
      this.skipped.overLimit++;
      return false;
    }
    this.sitemaps.add(url);
    return true;
  }

  /**
   * The child sitemaps of an index to fetch: each not yet claimed this round (so a cycle or a
   * duplicate ends here), changed since our last fetch by its `lastmod`, within depth and count.
   * @param entries the index's `<sitemap>` entries.
   * @param depth the index's own depth: 0 for a seed; children are at `depth + 1`.
   */
  children(entries: readonly SitemapEntry[], depth: number): SitemapEntry[] {
    if (depth + 1 > this.maxIndexDepth) {
      this.skipped.tooDeep += entries.length;
      return [];
    }
    const out: SitemapEntry[] = [];
    for (const e of entries) {
      if (this.sitemaps.has(e.url)) {
        this.skipped.seen++;
      } else if (this.unchanged(e)) {
        this.sitemaps.add(e.url); // also unchanged if listed again
        this.skipped.unchanged++;
      } else if (this.sitemaps.size >= this.maxSitemaps) {
        this.skipped.overLimit++;
      } else {
        this.sitemaps.add(e.url);
        out.push(e);
      }
    }
    return out;
  }

  /**
   * The pages of a urlset to fetch: each once this round (a page listed in two sitemaps is
   * fetched once), unless its `lastmod` is not after our last fetch of it.
   */
  pagesOf(entries: readonly SitemapEntry[]): SitemapEntry[] {
    const out: SitemapEntry[] = [];
    for (const e of entries) {
      if (this.pages.has(e.url)) {
        this.skipped.seen++;
        continue;
      }
      this.pages.add(e.url);
      if (this.unchanged(e)) this.skipped.unchanged++;
      else out.push(e);
    }
    return out;
  }

  private unchanged(e: SitemapEntry): boolean {
    return isUnchangedSince(e.lastmod, this.lastFetched?.(e.url));
  }
}

/**
 * Whether a listed `lastmod` says the resource did not change since we fetched it: true only when
 * both are known and `lastmod` ≤ the fetch time. An unknown `lastmod` or a never-fetched URL is
 * "maybe changed". A `lastmod` in the future (clock skew, a lie) counts as changed.
 * @param lastmod epoch ms, or null.
 * @param fetchedAt epoch ms of our last successful fetch, or undefined.
 */
export function isUnchangedSince(lastmod: number | null, fetchedAt: number | undefined): boolean {
  return lastmod !== null && fetchedAt !== undefined && lastmod <= fetchedAt;
}
