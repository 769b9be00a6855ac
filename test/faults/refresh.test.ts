/**
 * Fault kind 13, declarative refresh (HTML Standard, shared declarative refresh steps): a short
 * refresh is a redirect hop of the page, checked like a 3xx (loop, seen-set, robots); a long one,
 * one without URL, one in <noscript> or one that does not parse leaves the page as it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { refreshFaults, siteRobotsRoutes } from '../fixtures/fault-routes.js';

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
});
