/**
 * What the crawl engine asks of a frontier: per-host queues whose politeness (delay, host
 * concurrency, Crawl-delay, Retry-After pauses, 429/503 slow-down) decides when each URL may go.
 * {@link Frontier} is the embedded implementation; a shared (Redis) frontier implements the same.
 */

import type { RequestMeta } from './request-meta.js';

/** One URL handed out by {@link FrontierQueue.next}. */
export interface FrontierEntry {
  /** Canonical URL. */
  url: string;
  /** host[:port] of `url`. */
  host: string;
  /** Link distance from a seed (seeds are 0). */
  depth: number;
  /** Failed attempts so far (0 on the first try). */
  attempt: number;
  /** The request's metadata, set by the engine for a URL that has some (absent otherwise). */
  meta?: RequestMeta;
}

/** One host's politeness beyond the plain `--delay` (status, and saved across restarts). */
export interface HostPoliteness {
  /** host[:port]. */
  host: string;
  /** Gap between request starts now (delay or Crawl-delay, plus the slow-down penalty), ms. */
  gapMs: number;
  /** The 429/503 slow-down part of the gap, ms. */
  penaltyMs: number;
  /** Time left of a pause (Retry-After, rate-limit reset, retry backoff), ms; 0 when none. */
  pausedForMs: number;
  /** robots.txt Crawl-delay, ms (0: none). */
  crawlDelayMs: number;
  /** Why: the last cause, e.g. `503`, `429 Retry-After 5s`, `rate-limit`, `retry`, `crawl-delay`. */
  reason: string;
}

/**
 * A frontier with politeness. It does not deduplicate: a URL is pushed once, after the seen-set
 * said it is new. Every entry handed out by `next` comes back exactly once, through `done` or
 * `retry`.
 */
export interface FrontierQueue {
  /** URLs waiting (not in flight). */
  readonly queued: number;
  /**
   * Of those, the ones this process holds (a shared frontier: leased here, not yet handed out;
   * `queued` also counts work elsewhere, so an idle process waits for it). Absent: `queued`.
   */
  readonly heldHere?: number;
  /** URLs handed out and not yet done or retried. */
  readonly inFlight: number;
  /**
   * Queue a canonical URL at `depth` (breadth-first: lower depths of a host go first). A
   * `priority` above 0 goes before its host's other URLs, below 0 after them (higher first).
   * `meta`: the request's metadata; a shared frontier keeps it with the URL (the embedded one
   * leaves it to the engine, which keeps it in memory).
   */
  push(url: string, depth: number, priority?: number, meta?: RequestMeta): void;
  /**
   * The depth `url` waits at when it was pushed without a priority and has not been handed out
   * since, else null (a linear search of its host's queue at that depth: for rare uses). Absent:
   * the frontier cannot tell (a shared one), as if null.
   */
  plainDepthOf?(url: string): number | null;
  /** The next URL whose host may be served now, or null; its host's politeness clock advances. */
  next(): FrontierEntry | null;
  /** ms until some host becomes ready: 0 when one is ready now, Infinity when nothing is queued. */
  nextReadyIn(): number;
  /**
   * The entry's request is over (its response is in, or it failed for good): its host slot is
   * free and the gap after a completion starts. `answered`: the server answered with anything but
   * 429/503, which lets the host's slow-down penalty decay.
   */
  done(entry: FrontierEntry, answered?: boolean): void;
  /**
   * Put a failed entry back, to go again no earlier than `delayMs` from now; its whole host waits.
   * @param released the entry's slot was already given back with `done`.
   * @param counts whether this try counts against the retries (false: the failure was ours).
   */
  retry(entry: FrontierEntry, delayMs: number, released?: boolean, counts?: boolean, reason?: string): void;
  /** Serve nothing to `host` for `ms` from now (Retry-After, rate-limit reset); `reason` for status. */
  pauseHost(host: string, ms: number, reason?: string): void;
  /**
   * Widen `host`'s gap after a 429/503 by one step (additive; decays × 0.8 with later answers),
   * never above `ceilingMs` (the server's Retry-After) nor the cap; `reason` for status.
   */
  slowDown(host: string, ceilingMs?: number, reason?: string): void;
  /**
   * Hosts slowed, paused or with a Crawl-delay above the delay, longest gap first (at most
   * `limit`). Optional: a frontier without it shows none and saves none across restarts.
   */
  politeness?(limit?: number): HostPoliteness[];
  /** Take back a host's saved slow-down and pause (see `politeness`). Optional, as above. */
  restore?(p: Pick<HostPoliteness, 'host' | 'penaltyMs' | 'pausedForMs' | 'reason'>): void;
  /** The host's robots.txt Crawl-delay, ms: its gap is at least this. */
  setCrawlDelay(host: string, ms: number): void;
}
