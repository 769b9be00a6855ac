/**
 * Fault kind 17, no Content-Type: the body is sniffed by the WHATWG MIME Sniffing Standard §7.1
 * (HTML patterns after leading whitespace, `<!--` too), parsed when HTML, and the sniffed type is
 * in `data.sniffedType`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { sniffFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([sniffFaults()]);
});
afterAll(() => site.server.close());

describe('MIME sniffing (kind 17)', () => {
  it('parses untyped HTML by the standard patterns, and leaves the rest unparsed', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
  });
});
