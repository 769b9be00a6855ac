/**
 * Fault kind 7, redirects: followed hop by hop (each hop checked against scope, robots and the
 * seen-set), loops and chains longer than 10 stopped with `redirect-loop`, `finalUrl` set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { redirectFaults, siteRobotsRoutes } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  const group = redirectFaults();
  group.routes = { ...group.routes, ...siteRobotsRoutes() };
  site = await startFaultSite([group]);
});
afterAll(() => site.server.close());

describe('redirects (kind 7)', () => {
  it('follows redirects, records one to an already-seen URL without refetching it, stops loops and long chains, checks every hop', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const o = site.server.origin;
    const err = (p: string) => crawl.items.find((i) => i.url === o + p)!.error.message;
    expect(err('/rd/loop-a.html')).toBe(
      `redirect loop: ${o}/rd/loop-a.html -> ${o}/rd/loop-b.html -> ${o}/rd/loop-a.html`,
    );
    expect(err('/rd/chain-11/0')).toBe('more than 10 redirects');
    expect(err('/rd/out-of-scope.html')).toBe('redirect to http://127.0.0.1:1/elsewhere.html (out-of-scope)');
    expect(err('/rd/to-private.html')).toBe('disallowed by robots.txt');
  });
});
