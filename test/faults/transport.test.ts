/**
 * Fault kind 8, broken transport: a connection reset mid-body, a premature close, malformed
 * chunked encoding, an empty reply and a garbage status line are `network` errors, retried
 * (`--retries 1`: the server sees two requests), then recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { transportFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([transportFaults()]);
});
afterAll(() => site.server.close());

describe('broken transport (kind 8)', () => {
  it('records reset, premature close, bad chunking, empty reply and garbage as network errors after one retry', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
  });
});
