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
    const [a1, a2] = s.requestsFor('/ra/seconds.html');
    // The four are fetched together, so the host waits for the longest pause asked (the capped one);
    // then the retries go one per penalty gap (three 429/503 grew it to 1 s): at most CAP + 2 s.
    const late = CAP + 2000;
    expect(a2.at - a1.at).toBeGreaterThanOrEqual(1000); // Retry-After: 1
    expect(a2.at - a1.at).toBeLessThan(late);
    const [d1, d2] = s.requestsFor('/ra/date.html');
    expect(probe.retryAfterDate).not.toBeNull();
    expect(d2.wall).toBeGreaterThanOrEqual(probe.retryAfterDate!); // no earlier than the date asked
    expect(d2.at - d1.at).toBeLessThan(late);
    const [h1, h2] = s.requestsFor('/ra/huge.html');
    expect(h2.at - h1.at).toBeGreaterThanOrEqual(CAP); // Retry-After: 86400 capped at --max-retry-after
    expect(h2.at - h1.at).toBeLessThan(late);
    // X-RateLimit-Remaining: 0 with X-RateLimit-Reset (epoch seconds) pauses the host until then
    const [after] = s.requestsFor('/ra/after-rate-limit.html');
    expect(after.wall).toBeGreaterThanOrEqual(probe.rateLimitReset! * 1000);
    // and no other request reaches the host meanwhile (once the pause is known)
    const [limited] = s.requestsFor('/ra/rate-limit.html');
    const during = s.requests.filter(
      (q) => q.at > (limited.closedAt ?? 0) + 50 && q.wall < probe.rateLimitReset! * 1000,
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
      // base × 2^(n-1) plus up to 50 % jitter (and a little scheduling slack)
      [200, 400, 800].forEach((base, i) => {
        expect(g[i]).toBeGreaterThanOrEqual(base);
        expect(g[i]).toBeLessThan(base * 1.5 + 100);
      });
    } finally {
      await s.close();
    }
  });

  it('slows a host down after 429/503 (the gap grows, then decays) and never exceeds --host-concurrency', async () => {
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
      // never more than --host-concurrency at the server (p0 and p1 overlap: usually exactly 2)
      expect(s.maxConcurrent).toBeLessThanOrEqual(2);
      // after the two 503s the host's gap is 500 ms (250 doubled), then × 0.8 per success
      const after = s.requests.slice(3).map((q) => q.at);
      expect(
        s.requests
          .slice(3, 5)
          .map((q) => q.path)
          .sort(),
      ).toEqual(['/p0.html', '/p1.html']);
      const g = gaps(after);
      const msg = `gaps ${g.map(Math.round).join(' ')}`;
      g.forEach((gap, i) => {
        expect(gap, msg).toBeGreaterThanOrEqual(500 * 0.8 ** i - 5);
      });
      // decayed: the last gap is due at 500 × 0.8^8 ≈ 84 ms (generous bound for a loaded machine)
      expect(g[g.length - 1], msg).toBeLessThan(250);
    } finally {
      await s.close();
    }
  });
});
