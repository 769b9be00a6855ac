/**
 * Fault kind 18, URLs in legacy-charset pages: hrefs with non-ASCII paths and queries in
 * windows-1251, Shift_JIS and GBK pages are requested as a browser does (WHATWG URL: the query in
 * the page's encoding, the path in UTF-8); the fixture answers only at those exact paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { legacyUrlFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([legacyUrlFaults()]);
});
afterAll(() => site.server.close());

describe('URLs in legacy-charset pages (kind 18)', () => {
  it('requests every link exactly as the WHATWG URL Standard resolves it', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    expect(
      site.server.requests
        .filter((r) => r.path.startsWith('/lu/'))
        .map((r) => r.path)
        .sort(),
    ).toEqual(Object.keys(site.expected).sort());
  });
});
