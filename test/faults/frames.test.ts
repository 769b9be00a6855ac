/** Fault kind 14, frames: `<frame src>` and `<iframe src>` documents are followed like links,
 * within the scope (an iframe on another origin is not). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlFaults,
  expectFaultItems,
  type FaultSite,
  startFaultSite,
  summaryLine,
} from '../fixtures/fault-crawl.js';
import { frameFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([frameFaults()]);
});
afterAll(() => site.server.close());

describe('frames (kind 14)', () => {
  it('fetches frame and iframe documents in scope', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    expect(summaryLine(crawl.result)).toContain('links skipped: out-of-scope 1');
  });
});
