/**
 * Fault kinds 5 and 6, retries and rate limits: which statuses are retried, Retry-After in both
 * forms and capped, 429/503 slowing the host without raising concurrency, X-RateLimit pauses.
 * Timing is measured on the server, where it matters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlFaults,
  expectFaultItems,
  type FaultSite,
  gaps,
  startFaultSite,
} from '../fixtures/fault-crawl.js';
import { type RetryProbe, retryAfterFaults, statusFaults } from '../fixtures/fault-routes.js';
import { html, page, startServer } from '../fixtures/site-server.js';

let statuses: FaultSite;
let waits: FaultSite;
let probe: RetryProbe;
beforeAll(async () => {
  const group = retryAfterFaults();
  probe = group.probe;
  // two hosts, crawled in parallel: each retry holds its whole host back
  statuses = await startFaultSite([statusFaults()], '127.0.0.1');
  waits = await startFaultSite([group], '127.0.0.3');
});
afterAll(async () => {
  await statuses.server.close();
  await waits.server.close();
});

/** --max-retry-after of FAULT_FLAGS, ms. */
const CAP = 2000;

describe('retries and rate limits (kinds 5 and 6)', () => {
  it('retries 408/429/5xx once and not other 4xx; honours Retry-After (seconds, HTTP-date, capped) and X-RateLimit-Reset', async () => {
    // (a 1 s cap on the statuses host keeps its 429/503 penalty short)
    const [a, b] = await Promise.all([
      crawlFaults(statuses.seed, ['--max-retry-after', '1s']),
      crawlFaults(waits.seed),
    ]);
    expect(a.result.code).toBe(0);
    expectFaultItems(statuses, a);
    expect(b.result.code).toBe(0);
    expectFaultItems(waits, b);
    const s = waits.server;
    // Lower bounds only, counted from the failed try's arrival (the crawler got the answer later,
    // so it can only be later): what each mechanism decides alone, and its upper limits, is
    // pinned in politeness.test.ts, where no other mechanism shares the host.
    const [a1, a2] = s.requestsFor('/ra/seconds.html');
    expect(a2.at - a1.at).toBeGreaterThanOrEqual(1000); // Retry-After: 1
    const [, d2] = s.requestsFor('/ra/date.html');
    expect(probe.retryAfterDate).not.toBeNull();
    expect(d2.wall).toBeGreaterThanOrEqual(probe.retryAfterDate!); // no earlier than the date asked
    const [h1, h2] = s.requestsFor('/ra/huge.html');
    expect(h2.at - h1.at).toBeGreaterThanOrEqual(CAP); // Retry-After: 86400 capped at --max-retry-after
    // X-RateLimit-Remaining: 0 with X-RateLimit-Reset (epoch seconds) pauses the host until then
    const [after] = s.requestsFor('/ra/after-rate-limit.html');
    expect(after.wall).toBeGreaterThanOrEqual(probe.rateLimitReset! * 1000);
    // and no other request reaches the host meanwhile, once the crawler has had the answer (it
    // may start one more request before it reads the headers: 500 ms of slack for a busy machine)
    const [limited] = s.requestsFor('/ra/rate-limit.html');
    const during = s.requests.filter(
      (q) => q.at > (limited.endedAt ?? 0) + 500 && q.wall < probe.rateLimitReset! * 1000,
    );
    expect(during.map((q) => q.path)).toEqual([]);
  });

  it('backs off exponentially with jitter between retries', async () => {
    const s = await startServer({ '/': html(page('Always 500'), 500) });
    try {
      const crawl = await crawlFaults(`${s.origin}/`, [
        '--retries',
        '3',
        '--retry-backoff',
        '200ms',
        '--no-robots',
      ]);
      expect(crawl.result.code).toBe(69); // the only seed failed: nothing collected
      expect(crawl.items).toHaveLength(1);
      expect(crawl.items[0]).toMatchObject({
        status: 500,
        error: { kind: 'http-status', message: 'HTTP 500' },
      });
      const g = gaps(s.requestsFor('/').map((q) => q.at));
      expect(g).toHaveLength(3);
      // base × 2^(n-1), plus jitter (the exact draw: retry-policy.test.ts), counted from the failed
      // try's arrival: a lower bound whatever the load
      [200, 400, 800].forEach((base, i) => {
        expect(g[i]).toBeGreaterThanOrEqual(base);
      });
    } finally {
      await s.close();
    }
  });

  it('retries 503s on a host with --host-concurrency 2 and never has more than 2 requests open', async () => {
    const leaves = Array.from({ length: 10 }, (_, i) => `p${i}.html`);
    const first = new Set<string>();
    const s = await startServer({ '/': html(page('Slow down', leaves)) }, (req, res) => {
      const p = req.url ?? '';
      // p0 and p1 answer 503 once, and each request takes 20 ms
      const code = (p === '/p0.html' || p === '/p1.html') && !first.has(p) ? 503 : 200;
      first.add(p);
      setTimeout(() => html(page(p), code)(req, res), 20);
    });
    try {
      const crawl = await crawlFaults(`${s.origin}/`, [
        '--no-robots',
        '--host-concurrency',
        '2',
        '--jitter',
        '0',
        '--retry-backoff',
        '300ms',
      ]);
      expect(crawl.result.code).toBe(0);
      expect(crawl.items).toHaveLength(11);
      expect(crawl.items.every((i) => i.status === 200)).toBe(true);
      expect(s.hits('/p0.html')).toBe(2);
      expect(s.hits('/p1.html')).toBe(2);
      // never more than --host-concurrency at the server: a slowed-down host is never given more
      // concurrency (the gap the 503s set, and its decay: politeness.test.ts, frontier.test.ts)
      expect(s.maxConcurrent).toBeLessThanOrEqual(2);
    } finally {
      await s.close();
    }
  });
});
