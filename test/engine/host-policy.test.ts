import { describe, expect, it } from 'vitest';
import {
  crawlDelayGap,
  HostPolicy,
  letsSlowDownDecay,
  rateLimitPause,
  retryableStatus,
  retryDelay,
  robotsRetryWait,
} from '../../src/engine/host-policy.js';
import { HostSlots } from '../../src/engine/host-slots.js';
import { Frontier } from '../../src/frontier/frontier.js';

const OPTS = { retries: 3, retryBackoff: 1000, maxRetryAfter: 60_000 };
const NOW = Date.UTC(2030, 0, 1);

describe('host policy: decisions', () => {
  it('pauses a host for X-RateLimit-Reset once Remaining is 0, capped; RateLimit-* too', () => {
    expect(rateLimitPause({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' }, 60_000, NOW)).toBe(
      30_000,
    );
    const epoch = String(NOW / 1000 + 20);
    expect(rateLimitPause({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch }, 60_000, NOW)).toBe(
      20_000,
    );
    expect(rateLimitPause({ 'ratelimit-remaining': '0', 'ratelimit-reset': '5' }, 60_000, NOW)).toBe(5000);
    expect(rateLimitPause({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' }, 60_000, NOW)).toBe(
      60_000,
    );
    expect(
      rateLimitPause({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '30' }, 60_000, NOW),
    ).toBeNull();
    expect(rateLimitPause({ 'x-ratelimit-remaining': '0' }, 60_000, NOW)).toBeNull();
    expect(
      rateLimitPause({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' }, 60_000, NOW),
    ).toBeNull();
  });

  it('retries 408, 429 and 5xx with the server Retry-After; 429 and 503 also slow the host down', () => {
    expect(retryableStatus(503, { 'retry-after': '7' }, NOW)).toEqual({ slowDown: true, retryAfterMs: 7000 });
    expect(retryableStatus(429, {}, NOW)).toEqual({ slowDown: true, retryAfterMs: null });
    expect(retryableStatus(500, {}, NOW)).toEqual({ slowDown: false, retryAfterMs: null });
    expect(retryableStatus(408, {}, NOW)).toEqual({ slowDown: false, retryAfterMs: null });
    for (const final of [200, 301, 404, 410, 501]) expect(retryableStatus(final, {}, NOW)).toBeNull();
  });

  it('lets a slow-down decay on any answer but 429/503, and not without an answer', () => {
    expect([200, 304, 404, 500].map(letsSlowDownDecay)).toEqual([true, true, true, true]);
    expect([429, 503, null].map(letsSlowDownDecay)).toEqual([false, false, false]);
  });

  it('waits before a retry: exponential backoff, or the server wait, both capped; none when final', () => {
    const noJitter = () => 0;
    expect([0, 1, 2].map((a) => retryDelay(a, true, null, OPTS, noJitter))).toEqual([1000, 2000, 4000]);
    expect(retryDelay(0, true, null, OPTS, () => 0.999)).toBeCloseTo(1499.5);
    expect(retryDelay(0, true, 5000, OPTS, noJitter)).toBe(5000);
    expect(retryDelay(0, true, 3_600_000, OPTS, noJitter)).toBe(60_000);
    expect(retryDelay(3, true, null, OPTS, noJitter)).toBeNull();
    expect(retryDelay(0, false, 5000, OPTS, noJitter)).toBeNull();
    expect(retryDelay(0, true, null, { ...OPTS, retries: 0 }, noJitter)).toBeNull();
  });

  it('takes robots.txt Crawl-delay as the gap (capped), and retries an unavailable robots.txt within 60 s', () => {
    expect(crawlDelayGap(2000, 60_000)).toBe(2000);
    expect(crawlDelayGap(600_000, 60_000)).toBe(60_000);
    expect(crawlDelayGap(0, 60_000)).toBeNull();
    expect(crawlDelayGap(null, 60_000)).toBeNull();
    expect(robotsRetryWait(600_000)).toBe(60_000);
    expect(robotsRetryWait(2000)).toBe(2000);
  });
});

describe('host policy: applied to the frontier', () => {
  function make() {
    const clock = { t: 1000 };
    const frontier = new Frontier({ delayMs: 100, jitter: 0, hostConcurrency: 1, now: () => clock.t });
    return { clock, frontier, policy: new HostPolicy(frontier, OPTS) };
  }

  it('a rate-limit pause holds the host until the reset', () => {
    const { clock, frontier, policy } = make();
    frontier.push('http://a.example/1', 0);
    policy.afterHop('a.example', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' });
    expect(frontier.next()).toBeNull();
    clock.t += 4999;
    expect(frontier.next()).toBeNull();
    clock.t += 1;
    expect(frontier.next()?.url).toBe('http://a.example/1');
  });

  it('a 503 widens the host gap, a 404 does not', () => {
    const { frontier, policy } = make();
    expect(policy.afterStatus('a.example', 404, {})).toBeNull();
    expect(frontier.gapFor('a.example')).toBe(100);
    expect(policy.afterStatus('a.example', 503, { 'retry-after': '2' })).toEqual({
      slowDown: true,
      retryAfterMs: 2000,
    });
    expect(frontier.gapFor('a.example')).toBeGreaterThan(100);
  });

  it("a 503 with Retry-After slows the host by steps no larger in sum than the server's wait, and says why", () => {
    const { frontier, policy } = make();
    for (let i = 0; i < 40; i++) policy.afterStatus('a.example', 503, { 'retry-after': '2' });
    expect(frontier.gapFor('a.example')).toBe(100 + 2000);
    expect(frontier.politeness()[0]).toMatchObject({ host: 'a.example', reason: '503 Retry-After 2s' });
    policy.afterStatus('b.example', 429, {});
    expect(frontier.gapFor('b.example')).toBe(100 + 250);
    expect(frontier.politeness().find((p) => p.host === 'b.example')?.reason).toBe('429');
  });

  it('applies a host Crawl-delay once', () => {
    const { frontier, policy } = make();
    policy.afterRobots('a.example', 3000);
    expect(frontier.gapFor('a.example')).toBe(3000);
    policy.afterRobots('a.example', 9000);
    expect(frontier.gapFor('a.example')).toBe(3000);
    policy.afterRobots('b.example', null);
    expect(frontier.gapFor('b.example')).toBe(100);
  });
});

/**
 * The crawler's calls for one host, replayed on a fake clock: each request is taken when the
 * frontier says its host is ready and lasts {@link REQUEST_MS}; its answer goes through the policy
 * and the host slots in the order `hop-loop.ts`, `attempt.ts` and `crawler.ts` make them (rate
 * headers, status, early release or retry). What is asserted is the frontier's decision, the wait
 * before each request, so no machine load can move it (`politeness.test.ts` checks the same
 * mechanisms end to end, as lower bounds on the server's clock).
 */
describe('host policy: a 429/503 slow-down as the crawler applies it (fake clock)', () => {
  const REQUEST_MS = 30;
  const HOST = 'a.example';

  /** Crawl `/` then `/p0`…`/p4` (one at a time, --delay 0, no jitter); `/p0` answers `first` once. */
  function crawl(first: number): { path: string; wait: number }[] {
    const clock = { t: 0 };
    const frontier = new Frontier({ delayMs: 0, jitter: 0, hostConcurrency: 1, now: () => clock.t });
    const policy = new HostPolicy(frontier, { retries: 1, retryBackoff: 1, maxRetryAfter: 10_000 });
    const slots = new HostSlots(frontier);
    const log: { path: string; wait: number }[] = [];
    frontier.push(`http://${HOST}/`, 0);
    let p0Answered = false;
    for (;;) {
      const wait = frontier.nextReadyIn();
      if (wait === Number.POSITIVE_INFINITY) break;
      clock.t += wait;
      const entry = frontier.next();
      expect(entry).not.toBeNull();
      if (entry === null) break;
      const path = new URL(entry.url).pathname;
      log.push({ path, wait });
      clock.t += REQUEST_MS;
      const status = path === '/p0' && !p0Answered ? first : 200;
      if (path === '/p0') p0Answered = true;
      policy.afterHop(HOST, {});
      const retryable = policy.afterStatus(HOST, status, {});
      const delay = policy.retryDelay(entry.attempt, retryable !== null, retryable?.retryAfterMs ?? null);
      if (delay !== null) {
        slots.retry(entry, delay, true);
        continue;
      }
      slots.releaseEarly(entry, letsSlowDownDecay(status));
      if (path === '/') for (let i = 0; i < 5; i++) frontier.push(`http://${HOST}/p${i}`, 1);
      slots.release(entry, letsSlowDownDecay(status));
    }
    return log;
  }

  it.for([503, 429])(
    'after a %i the host waits 250 ms from the end of the last request, then × 0.8 per success',
    (code) => {
      const log = crawl(code);
      expect(log.map((l) => l.path)).toEqual(['/', '/p0', '/p0', '/p1', '/p2', '/p3', '/p4']);
      // The retry waits the slow-down's 250 ms from the 429/503's end (more than its 1–1.5 ms
      // backoff). Each success then shrinks the gap by × 0.8, once; the next request waits the
      // larger of the gap when the last one started (counted from its start) and the shrunk gap
      // (counted from its end): max(250 - 30, 200), max(200 - 30, 160), max(160 - 30, 128),
      // max(128 - 30, 102.4).
      const waits = log.slice(2).map((l) => l.wait);
      expect(waits).toHaveLength(5);
      [250, 220, 170, 130, 102.4].forEach((w, i) => {
        expect(waits[i], `wait before request ${i + 2}`).toBeCloseTo(w, 6);
      });
    },
  );

  it('without a 429/503 there is no slow-down: a 500 waits its backoff only, a 404 nothing', () => {
    const after500 = crawl(500).slice(2);
    expect(after500[0].wait).toBeGreaterThanOrEqual(1);
    expect(after500[0].wait).toBeLessThanOrEqual(1.5);
    expect(after500.slice(1).map((l) => l.wait)).toEqual([0, 0, 0, 0]);
    const after404 = crawl(404);
    expect(after404.map((l) => l.path)).toEqual(['/', '/p0', '/p1', '/p2', '/p3', '/p4']);
    expect(after404.map((l) => l.wait)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
