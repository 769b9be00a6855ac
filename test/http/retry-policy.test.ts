import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  parseRetryAfter,
  RETRYABLE_STATUS,
  rateLimitPauseMs,
  SLOW_DOWN_STATUS,
} from '../../src/http/retry-policy.js';

const NOW = Date.UTC(2015, 9, 21, 7, 28, 0); // Wed, 21 Oct 2015 07:28:00 GMT

describe('status sets', () => {
  it('retries 408, 429 and 5xx gateway errors, not other 4xx', () => {
    for (const s of [408, 429, 500, 502, 503, 504]) expect(RETRYABLE_STATUS.has(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 410, 501]) expect(RETRYABLE_STATUS.has(s)).toBe(false);
    expect([...SLOW_DOWN_STATUS].sort()).toEqual([429, 503]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', NOW)).toBe(5000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an HTTP-date in all three RFC 9110 forms, relative to now', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', NOW)).toBe(30_000); // IMF-fixdate
    expect(parseRetryAfter('Wednesday, 21-Oct-15 07:29:00 GMT', NOW)).toBe(60_000); // RFC 850
    // asctime has no zone (V8 reads it as local time): only check it is taken as a date
    const twoDaysBefore = NOW - 2 * 86_400_000;
    const asctime = parseRetryAfter('Wed Oct 21 07:28:10 2015', twoDaysBefore);
    expect(asctime).toBeGreaterThan(86_400_000);
    expect(asctime).toBeLessThan(3 * 86_400_000);
  });

  it('clamps an HTTP-date in the past to 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', NOW)).toBe(0);
  });

  it('returns null when absent or garbage', () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter('', NOW)).toBeNull();
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter('in 5 minutes', NOW)).toBeNull();
    expect(parseRetryAfter('12abc', NOW)).toBeNull();
  });

  it('returns null for numbers that are not delay-seconds (not "now")', () => {
    // Date.parse would read these as dates in 2001, i.e. "retry at once"
    for (const v of ['1.5', '-1', '1 2', 'x 1', '2024-01-01']) expect(parseRetryAfter(v, NOW)).toBeNull();
  });
});

describe('backoffMs', () => {
  const zero = () => 0;
  const max = () => 0.999999;

  it('doubles from the base with each attempt (random → 0)', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffMs(a, 1000, null, 1e9, zero))).toEqual([
      1000, 2000, 4000, 8000, 16000,
    ]);
  });

  it('treats attempt < 1 as the first retry', () => {
    expect(backoffMs(0, 1000, null, 1e9, zero)).toBe(1000);
  });

  it('adds at most 50% jitter', () => {
    for (const a of [1, 2, 3]) {
      const exp = 1000 * 2 ** (a - 1);
      const hi = backoffMs(a, 1000, null, 1e9, max);
      expect(hi).toBeGreaterThan(exp * 1.49);
      expect(hi).toBeLessThan(exp * 1.5);
      expect(backoffMs(a, 1000, null, 1e9, () => 0.5)).toBe(exp * 1.25);
    }
  });

  it('stays within [exp, 1.5 × exp] with the default random source', () => {
    for (let i = 0; i < 200; i++) {
      const v = backoffMs(3, 100, null, 1e9);
      expect(v).toBeGreaterThanOrEqual(400);
      expect(v).toBeLessThan(600);
    }
  });

  it('is capped at maxMs, jitter included', () => {
    expect(backoffMs(20, 1000, null, 30_000, zero)).toBe(30_000);
    expect(backoffMs(5, 1000, null, 20_000, max)).toBe(20_000); // 16000 × 1.5 > cap
  });

  it('uses Retry-After instead of the exponential backoff, capped too', () => {
    expect(backoffMs(1, 1000, 7000, 60_000, max)).toBe(7000);
    expect(backoffMs(5, 1000, 0, 60_000, max)).toBe(0);
    expect(backoffMs(1, 1000, 3_600_000, 60_000, zero)).toBe(60_000);
  });
});

describe('rateLimitPauseMs', () => {
  it('reads an epoch-seconds reset as an absolute time', () => {
    const resetAt = Math.floor(NOW / 1000) + 42;
    expect(rateLimitPauseMs('0', String(resetAt), NOW)).toBe(42_000);
    expect(rateLimitPauseMs('0', String(Math.floor(NOW / 1000) - 10), NOW)).toBe(0); // already past
  });

  it('reads a small reset as seconds from now', () => {
    expect(rateLimitPauseMs('0', '30', NOW)).toBe(30_000);
    expect(rateLimitPauseMs(' 0 ', ' 1.5 ', NOW)).toBe(1500);
    expect(rateLimitPauseMs('0', '0', NOW)).toBe(0);
  });

  it('asks for no pause while requests remain', () => {
    expect(rateLimitPauseMs('1', '30', NOW)).toBeNull();
    expect(rateLimitPauseMs('4999', String(Math.floor(NOW / 1000) + 60), NOW)).toBeNull();
    expect(rateLimitPauseMs('abc', '30', NOW)).toBeNull();
  });

  it('asks for no pause when a header is missing or the reset is unusable', () => {
    expect(rateLimitPauseMs(null, '30', NOW)).toBeNull();
    expect(rateLimitPauseMs('0', null, NOW)).toBeNull();
    expect(rateLimitPauseMs(undefined, undefined, NOW)).toBeNull();
    expect(rateLimitPauseMs('0', 'tomorrow', NOW)).toBeNull();
    expect(rateLimitPauseMs('0', '-5', NOW)).toBeNull();
  });
});

describe('retry policy: boundaries (mutation testing)', () => {
  it('a month name and a time that is no date at all is no Retry-After', () => {
    // the HTTP-date shape matches, Date.parse does not
    expect(parseRetryAfter('jan 99:99:99', NOW)).toBeNull();
  });

  it('a reset of exactly 1e9 is seconds from now; only larger values are epoch seconds', () => {
    expect(rateLimitPauseMs('0', '1000000000', NOW)).toBe(1e12);
    expect(rateLimitPauseMs('0', String(1e9 + 1), NOW)).toBe(0); // 2001: long past
  });
});
