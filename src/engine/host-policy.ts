/**
 * What the server's answers do to its host (the politeness policy): rate-limit headers pause it,
 * 429 and 503 slow it down, robots.txt's Crawl-delay widens its gap, a retryable failure waits
 * (exponential backoff, or the server's Retry-After), every wait capped by `--max-retry-after`;
 * any other answer lets a slow-down decay. The decisions are pure functions, unit-tested on their
 * own; {@link HostPolicy} applies them to the frontier, which enforces them.
 */
import type { FrontierQueue } from '../frontier/frontier-queue.js';
import { type HopResponse, responseHeader } from '../http/fetcher.js';
import {
  backoffMs,
  parseRetryAfter,
  RETRYABLE_STATUS,
  rateLimitPauseMs,
  SLOW_DOWN_STATUS,
} from '../http/retry-policy.js';
import { ROBOTS_DEFAULTS } from '../http/robots.js';

/** The crawl options the policy reads. */
export interface HostPolicyOptions {
  /** Tries after the first one for a retryable failure (`--retries`). */
  retries: number;
  /** Wait before the first retry, ms; doubles with each retry, plus up to 50% jitter. */
  retryBackoff: number;
  /** Longest wait the server may impose (Retry-After, rate-limit reset, Crawl-delay), ms. */
  maxRetryAfter: number;
}

type Headers = HopResponse['headers'];

/**
 * Pause asked for by rate-limit headers: `X-RateLimit-Remaining: 0` (or `RateLimit-Remaining`)
 * with `X-RateLimit-Reset` (or `RateLimit-Reset`), capped at `maxMs`.
 * @returns ms to pause the host, or null when the headers ask for no pause.
 */
export function rateLimitPause(headers: Headers, maxMs: number, nowMs = Date.now()): number | null {
  const pause = rateLimitPauseMs(
    responseHeader(headers, 'x-ratelimit-remaining') ?? responseHeader(headers, 'ratelimit-remaining'),
    responseHeader(headers, 'x-ratelimit-reset') ?? responseHeader(headers, 'ratelimit-reset'),
    nowMs,
  );
  return pause !== null && pause > 0 ? Math.min(pause, maxMs) : null;
}

/** What a final status asks for when it is worth another try (408, 429, 500, 502, 503, 504). */
export interface RetryableStatus {
  /** 429 or 503: the host is asked to slow down. */
  slowDown: boolean;
  /** The server's Retry-After (seconds or HTTP-date), ms; null when absent or unreadable. */
  retryAfterMs: number | null;
}

/** @returns what a retryable status asks for, or null when the status is final. */
export function retryableStatus(
  status: number,
  headers: Headers,
  nowMs = Date.now(),
): RetryableStatus | null {
  if (!RETRYABLE_STATUS.has(status)) return null;
  return {
    slowDown: SLOW_DOWN_STATUS.has(status),
    retryAfterMs: parseRetryAfter(responseHeader(headers, 'retry-after'), nowMs),
  };
}

/**
 * Whether an outcome lets the host's slow-down decay: an answer with any status but 429/503 (a
 * 404 does not mean "too fast"); no answer at all (null: network error, robots.txt) does not.
 */
export function letsSlowDownDecay(status: number | null): boolean {
  return status !== null && !SLOW_DOWN_STATUS.has(status);
}

/**
 * Wait before the next try of a failed URL.
 * @param attempt failed tries before this one (0 on the first try).
 * @param retryAfterMs the server's wait (Retry-After), ms, or null for the exponential backoff.
 * @returns ms to wait (capped at `maxRetryAfter`), or null when the failure is final: not
 *   retryable, or no retries left.
 */
export function retryDelay(
  attempt: number,
  retryable: boolean,
  retryAfterMs: number | null,
  opts: HostPolicyOptions,
  random: () => number = Math.random,
): number | null {
  if (!retryable || attempt >= opts.retries) return null;
  return backoffMs(attempt + 1, opts.retryBackoff, retryAfterMs, opts.maxRetryAfter, random);
}

/** robots.txt's Crawl-delay as the host's gap, ms (capped), or null when it sets none. */
export function crawlDelayGap(crawlDelayMs: number | null, maxMs: number): number | null {
  return crawlDelayMs !== null && crawlDelayMs > 0 ? Math.min(crawlDelayMs, maxMs) : null;
}

/**
 * Wait before an unavailable robots.txt (5xx, 429, unreachable) is fetched again, and the URLs it
 * blocked are retried, ms: 60 s or `maxMs`, whichever is shorter.
 */
export function robotsRetryWait(maxMs: number): number {
  return Math.min(ROBOTS_DEFAULTS.errorRetryMs, maxMs);
}

/** Applies the decisions above to the frontier's host slots. One per worker. */
export class HostPolicy {
  /** Hosts whose Crawl-delay was applied (once per host). */
  private readonly crawlDelaySet = new Set<string>();

  /** @param onWait told each pause imposed by Retry-After or rate-limit headers, ms (metrics). */
  constructor(
    private readonly frontier: FrontierQueue,
    private readonly opts: HostPolicyOptions,
    private readonly onWait?: (ms: number) => void,
  ) {}

  /** Any hop's response (redirects too): rate-limit headers pause the host. */
  afterHop(host: string, headers: Headers): void {
    const pause = rateLimitPause(headers, this.opts.maxRetryAfter);
    if (pause !== null) {
      this.frontier.pauseHost(host, pause, 'rate-limit');
      this.onWait?.(pause);
    }
  }

  /**
   * A final status: when retryable, 429/503 slow the host down — by one step, never beyond the
   * server's Retry-After when it gives one (that wait is the retry's pause). @returns what it asks for.
   */
  afterStatus(host: string, status: number, headers: Headers): RetryableStatus | null {
    const r = retryableStatus(status, headers);
    if (r?.slowDown) {
      const ra = r.retryAfterMs;
      const reason = ra === null ? String(status) : `${status} Retry-After ${Math.round(ra / 1000)}s`;
      this.frontier.slowDown(host, ra ?? undefined, reason);
    }
    if (r?.retryAfterMs != null) this.onWait?.(Math.min(r.retryAfterMs, this.opts.maxRetryAfter));
    return r;
  }

  /**
   * A block page came (`http/block-page.ts`): the host is slowed down as for a 429, by one step,
   * never beyond the server's Retry-After when it gives one (that wait is the retry's pause).
   * @param rule the rule that recognised it, for status (`blocked captcha`).
   * @returns the Retry-After asked for, ms, or null.
   */
  afterBlock(host: string, headers: Headers, rule: string): number | null {
    const ra = parseRetryAfter(responseHeader(headers, 'retry-after'), Date.now());
    this.frontier.slowDown(host, ra ?? undefined, `blocked ${rule}`);
    if (ra !== null) this.onWait?.(Math.min(ra, this.opts.maxRetryAfter));
    return ra;
  }

  /** robots.txt was read for the host: its Crawl-delay becomes the host's gap (once). */
  afterRobots(host: string, crawlDelayMs: number | null): void {
    if (this.crawlDelaySet.has(host)) return;
    const gap = crawlDelayGap(crawlDelayMs, this.opts.maxRetryAfter);
    if (gap === null) return;
    this.crawlDelaySet.add(host);
    this.frontier.setCrawlDelay(host, gap);
  }

  /** See {@link retryDelay}. */
  retryDelay(attempt: number, retryable: boolean, retryAfterMs: number | null): number | null {
    return retryDelay(attempt, retryable, retryAfterMs, this.opts);
  }

  /** See {@link robotsRetryWait}. */
  get robotsRetryWait(): number {
    return robotsRetryWait(this.opts.maxRetryAfter);
  }
}
