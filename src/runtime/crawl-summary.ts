/**
 * What the library's `crawl()` and `run()` resolve with, and the error they reject with when a
 * crawl failed at run time. A module of its own, light, so the package entry can export the error
 * class without loading the engine.
 */

/** What a crawl or run did. */
export interface CrawlSummary {
  /** Items in the output, this run's and earlier ones (`resume`). */
  items: number;
  /** Items written by this run. */
  itemsThisRun: number;
  /** Items that count as errors (a failed URL, or a body that could not be stored). */
  errors: number;
  /** Body bytes received by this run, after decompression. */
  bytes: number;
  /** Wall-clock duration, seconds. */
  seconds: number;
  /** URLs still queued (a stopped crawl: `resume` continues them). */
  queued: number;
  /** Nothing was left: the crawl ran to its end rather than being stopped. */
  completed: boolean;
  /** Links not followed, by reason (`out-of-scope`, `trap-query`, ...). */
  skipped: Record<string, number>;
  /** Warning and error lines the source logged (see `<out>/logs/`). */
  sourceWarnings: number;
  sourceErrors: number;
  /** The output directory. */
  out: string;
}

/** A crawl or run that failed at run time (exit code 1); the summary of what it did. */
export class CollectorError extends Error {
  constructor(
    message: string,
    readonly summary: CrawlSummary,
  ) {
    super(message);
    this.name = 'CollectorError';
  }
}
