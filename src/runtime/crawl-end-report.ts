/**
 * How a crawl or a run is stopped from outside, and what it reports at its end: the exit code,
 * whether it completed, and its counts (what the summary line prints and the library returns).
 */
import type { CrawlTotals } from './summary-line.js';

/** How a crawl is stopped from outside. */
export interface StopControl {
  /** Stop gracefully when this aborts (the library). */
  signal?: AbortSignal;
  /** Handle SIGINT/SIGTERM (the command line; the library leaves signals to its caller). */
  handleSignals: boolean;
}

/** Counts at the end of a crawl or run. */
export interface EndTotals extends CrawlTotals {
  /** Body bytes received this run (after decompression). */
  bytes: number;
  sourceWarnings: number;
  sourceErrors: number;
}

/** The end of a crawl or run. */
export interface CrawlEnd {
  /**
   * 0 completed or stopped, 1 runtime failure (or a parked worker type in `run`), 75 stopped by a
   * full disk (DISK_FULL_EXIT_CODE).
   */
  code: number;
  /** What failed, one line for the user (printed by the command line), or null. */
  failure: string | null;
  /** Nothing was left (rather than stopped early). */
  completed: boolean;
  /** A signal or the caller (AbortSignal) stopped it, rather than it ending by itself. */
  stopped?: boolean;
  totals: EndTotals;
}
