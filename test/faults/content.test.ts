/**
 * Fault kind 10, content: non-HTML stored and not parsed, binary labelled text/html survives,
 * empty bodies recorded, soft-404 pages deduplicated by content hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { contentFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([contentFaults()]);
});
afterAll(() => site.server.close());

describe('content (kind 10)', () => {
  it('stores non-HTML unparsed, survives binary HTML, records empty bodies, dedups soft-404s', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    // the two soft-404 pages: one stored (with its title), the other points to it
    const o = site.server.origin;
    const [a, b] = ['/ct/soft-404-a.html', '/ct/soft-404-b.html'].map(
      (p) => crawl.items.find((i) => i.url === o + p)!,
    );
    const [orig, copy] = a.data?.duplicateOf ? [b, a] : [a, b];
    expect(orig).toMatchObject({ title: 'Page not found' });
    expect(orig.file).toBeDefined();
    expect(copy.data).toEqual({ duplicateOf: orig.url });
    expect(copy.file).toBeUndefined();
  });
});
