/**
 * Fault kind 13, declarative refresh (HTML Standard, shared declarative refresh steps): a short
 * refresh is a redirect hop of the page, checked like a 3xx (loop, seen-set, robots); a long one,
 * one without URL, one in <noscript> or one that does not parse leaves the page as it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { refreshFaults, siteRobotsRoutes } from '../fixtures/fault-routes.js';
import { html, page, startServer } from '../fixtures/site-server.js';

let site: FaultSite;
beforeAll(async () => {
  const group = refreshFaults();
  group.routes = { ...group.routes, ...siteRobotsRoutes() };
  site = await startFaultSite([group]);
});
afterAll(() => site.server.close());

describe('meta refresh (kind 13)', () => {
  it('follows short refreshes as hops of the page, in every spelling, and checks each hop', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const o = site.server.origin;
    const item = (p: string) => crawl.items.find((i) => i.url === o + p)!;
    expect(item('/mr/loop-a.html').error.message).toBe(
      `redirect loop: ${o}/mr/loop-a.html -> ${o}/mr/loop-b.html -> ${o}/mr/loop-a.html`,
    );
    expect(item('/mr/to-private.html').error.message).toBe('disallowed by robots.txt');
    // the refreshing page's body is not kept: the item is the target's
    expect(item('/mr/zero.html').file).toMatch(/landing\.html$/);
  });

  it('a hop not made before the page budget ends: the refresh is recorded as it is', async () => {
    const o = site.server.origin;
    const before = site.server.hits('/mr/landing.html');
    const crawl = await crawlFaults(`${o}/mr/zero.html`, ['--max-pages', '1']);
    expect(crawl.result.code).toBe(0);
    expect(crawl.items).toHaveLength(1);
    expect(crawl.items[0]).toMatchObject({
      url: `${o}/mr/zero.html`,
      finalUrl: `${o}/mr/landing.html`,
      status: 200,
      data: {
        redirectTo: `${o}/mr/landing.html`,
        note: 'refresh redirect not followed: the crawl ended first',
      },
    });
    expect(site.server.hits('/mr/landing.html')).toBe(before);
  });

  it("the hop waits for its host's politeness gap, like any request", async () => {
    const server = await startServer({
      '/p/': html(page('Index', ['refresh.html'])),
      '/p/refresh.html': html('<meta http-equiv="refresh" content="0; url=landing.html"><title>R</title>'),
      '/p/landing.html': html(page('Landing')),
    });
    try {
      const o = server.origin;
      const crawl = await crawlFaults(`${o}/p/`, ['--delay', '300', '--no-robots']);
      expect(crawl.items.map((i) => [i.url, i.finalUrl]).sort()).toEqual([
        [`${o}/p/`, `${o}/p/`],
        [`${o}/p/refresh.html`, `${o}/p/landing.html`],
      ]);
      const [refreshing] = server.requestsFor('/p/refresh.html');
      const [hop] = server.requestsFor('/p/landing.html');
      // a lower bound only (a loaded machine makes the gap longer, never shorter)
      expect(hop.at - refreshing.at).toBeGreaterThanOrEqual(295);
    } finally {
      await server.close();
    }
  });
});
