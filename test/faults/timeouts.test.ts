/**
 * Fault kind 3, timeouts: a server that trickles bytes and one that never answers are cut off at
 * `--timeout` (error `timeout`), retried once, and the crawl finishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { startSilentServer, timeoutFaults } from '../fixtures/fault-routes.js';

/** --timeout of FAULT_FLAGS, ms. */
const LIMIT = 3000;
/**
 * How much earlier than the limit the server may see a request it holds end: the crawler's clock
 * starts before the request reaches the server (connect, and a busy machine's scheduling, which
 * may run the server's handler late: hundreds of ms with two suites on two cores). A cut at the
 * start or at a fraction of --timeout still fails.
 */
const EARLY = 500;
/**
 * The trickle and the hang never end by themselves: a connection the server sees closed before
 * this was cut by the crawler. Far above the limit, so a loaded machine's lateness never matters;
 * the cut's precision is the timer's, not something to measure here.
 */
const CUT_BEFORE = 10 * LIMIT;

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([timeoutFaults()]);
});
afterAll(() => site.server.close());

describe('timeouts (kind 3)', () => {
  it('cuts a trickling and a silent response at --timeout, twice each (1 retry), and finishes', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    for (const p of ['/t/trickle.html', '/t/hang.html']) {
      for (const r of site.server.requestsFor(p)) {
        // server-side: the client hung up at the limit, although bytes kept coming (trickle): the
        // limit bounds the whole request, not the silence between bytes
        const held = (r.closedAt ?? Number.POSITIVE_INFINITY) - r.at;
        expect(held, p).toBeGreaterThanOrEqual(LIMIT - EARLY);
        expect(held, p).toBeLessThan(CUT_BEFORE);
      }
    }
    const item = crawl.items.find((i) => i.url.endsWith('/t/trickle.html'))!;
    expect(item.error.message).toBe(`no complete response within ${LIMIT} ms`);
  });

  it('records a host that accepts connections and never answers (robots.txt included) and finishes', async () => {
    const silent = await startSilentServer('127.0.0.2');
    // Nothing here ever answers, so a short --timeout cannot cut an answer a busy machine delays
    // (FAULT_FLAGS' 3 s is for the sites that do answer): four timeouts of 1 s, not of 3 s.
    const quick = ['--timeout', '1s'];
    try {
      const crawl = await crawlFaults(`${silent.origin}/`, ['--no-robots', ...quick]);
      expect(crawl.result.code).toBe(69); // the only seed failed: nothing collected
      expect(crawl.items).toHaveLength(1);
      expect(crawl.items[0]).toMatchObject({
        url: `${silent.origin}/`,
        status: null,
        error: { kind: 'timeout' },
      });
      expect(silent.requests()).toBe(2);

      // with robots.txt obeyed, the silent robots.txt is no verdict: the page is not fetched, and
      // its item says the host did not answer (timeout), after the same retry
      const withRobots = await crawlFaults(`${silent.origin}/`, ['--max-retry-after', '1s', ...quick]);
      expect(withRobots.result.code).toBe(69);
      expect(withRobots.items).toHaveLength(1);
      expect(withRobots.items[0]).toMatchObject({ status: null, error: { kind: 'timeout' } });
      expect(withRobots.items[0].error.message).toMatch(
        /^no complete response within \d+ ms; fetching robots\.txt$/,
      );
      expect(silent.requests()).toBe(4); // robots.txt twice, the page never
    } finally {
      await silent.close();
    }
  });
});
