/**
 * The exit codes of `collector crawl` and `collector run` (DESIGN §3; docs/operating.md, Exit codes): 0 finished
 * or stopped by a signal, 1 runtime failure, 2 bad usage, {@link NOTHING_COLLECTED_EXIT_CODE}
 * when the crawl ran to its end and collected nothing because every seed failed, and
 * {@link CRAWL_LOST_EXIT_CODE} when a shared crawl's state in Redis was lost; and of
 * `collector export` (docs/export.md): {@link NO_ITEMS_EXIT_CODE} when there is nothing to export.
 */

/**
 * Every seed failed and nothing was collected (connection refused, DNS failure, timeout, an HTTP
 * error status, robots.txt): 69, `EX_UNAVAILABLE` of sysexits(3) ("a service is unavailable"),
 * beside the full disk's 75 (`EX_TEMPFAIL`). wget says 4 (network failure) or 8 (server error)
 * and curl 6 or 7 for the same; one code here, since the items say which.
 */
export const NOTHING_COLLECTED_EXIT_CODE = 69;

/**
 * The shared crawl's state in Redis was lost (its record gone: Redis restarted without
 * persistence, or another Redis at the address; docs/redis.md): 76, `EX_PROTOCOL` of sysexits(3).
 * The machine stops at once rather than crawl again from nothing; what it wrote stays in its --out.
 */
export { CRAWL_LOST_EXIT_CODE } from '../backends/redis/redis-faults.js';
export { SOURCE_STOPPED_EXIT_CODE, sourceStoppedLine } from '../sources/source-stop.js';

/**
 * `collector export` found no item to export in the data directory (no items file, or none with a
 * whole, readable line): the same 69, `EX_UNAVAILABLE`, as a crawl that collected nothing.
 */
export const NO_ITEMS_EXIT_CODE = NOTHING_COLLECTED_EXIT_CODE;

/** The counts the decision reads (a crawl's, or a run's totals). */
export interface CollectedCounts {
  /** Items in the output, earlier runs included. */
  items: number;
  /** Items without an error, earlier runs included. */
  collected: number;
}

/**
 * Whether a run that ended by itself (not by a signal) collected nothing at all: there are items,
 * and every one is an error. A crawl stopped by a signal, or with nothing attempted, is not this.
 */
export function collectedNothing(c: CollectedCounts, stoppedBySignal: boolean): boolean {
  return !stoppedBySignal && c.items > 0 && c.collected === 0;
}

/** The line that says why, e.g. `nothing collected: every seed failed: http://…/: connection refused (…)`. */
export function nothingCollectedLine(failedSeeds: Array<{ url: string; message: string }>): string {
  const why = failedSeeds.map((s) => `${s.url}: ${s.message}`).join('; ');
  return `nothing collected: every seed failed${why ? `: ${why}` : ' (see the items)'}`;
}
