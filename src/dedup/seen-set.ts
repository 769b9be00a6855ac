/**
 * What the crawl engine asks of a seen-set: remember every URL once, so none is queued twice.
 * {@link FingerprintSet} (64-bit fingerprints in memory) is the embedded implementation; a shared
 * (Redis) set implements the same.
 */

/** A set of canonical URLs (by fingerprint: a collision drops a URL, with ~n²/2⁶⁵ odds). */
export interface SeenSet {
  /** URLs remembered. */
  readonly size: number;
  /** Remember `url`. @returns true when it was new. */
  add(url: string): boolean;
  /** Whether `url` was remembered. */
  has(url: string): boolean;
}
