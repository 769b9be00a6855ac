/**
 * Retry policy: which failures are retried, how long to wait (exponential backoff with jitter,
 * or the server's Retry-After per RFC 9110 §10.2.3), and which responses slow a host down.
 */

/** HTTP statuses retried: 408, 429, 500, 502, 503, 504 (other 4xx are final). */
export const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Statuses that mean "you are too fast": the host's politeness gap grows. */
export const SLOW_DOWN_STATUS = new Set([429, 503]);

const HTTP_DATE_SHAPE = /(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec).*\d\d:\d\d:\d\d/i;

/**
 * Parse a Retry-After header value: delay-seconds or an HTTP-date.
 * @param value header value or null.
 * @param nowMs current wall-clock time, ms since epoch (for the HTTP-date form).
 * @returns the delay in ms (≥ 0), or null when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | null {
  if (value == null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Date.parse alone is lenient ("1.5", "-1" and "x 1" are dates in 2001): require the shape of
  // an HTTP-date (IMF-fixdate, RFC 850 or asctime: a month name and hh:mm:ss).
  if (!HTTP_DATE_SHAPE.test(v)) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - nowMs);
}

/**
 * Delay before retry number `attempt` (1 = first retry): `base × 2^(attempt-1)`, plus up to 50%
 * random jitter, or the server's Retry-After when given; both capped at `maxMs`.
 * @param attempt 1-based retry number.
 * @param baseMs first backoff, ms.
 * @param retryAfterMs the server's Retry-After in ms, or null.
 * @param maxMs cap, ms.
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  retryAfterMs: number | null,
  maxMs: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, maxMs);
  const exp = baseMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(maxMs, exp + random() * 0.5 * exp);
}

/**
 * Pause implied by rate-limit headers: `X-RateLimit-Remaining: 0` (or `RateLimit-Remaining`)
 * with `X-RateLimit-Reset` as epoch seconds (or, when small, seconds from now).
 * @returns ms to pause the host, or null when the headers do not ask for a pause.
 */
export function rateLimitPauseMs(
  remaining: string | null | undefined,
  reset: string | null | undefined,
  nowMs = Date.now(),
): number | null {
  if (remaining == null || reset == null) return null;
  if (Number(remaining.trim()) !== 0) return null;
  const r = Number(reset.trim());
  if (!Number.isFinite(r) || r < 0) return null;
  // Epoch seconds are > 1e9; smaller values are "seconds until reset" (IETF RateLimit draft).
  const ms = r > 1e9 ? r * 1000 - nowMs : r * 1000;
  return Math.max(0, ms);
}
