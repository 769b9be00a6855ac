/**
 * Fault kind 1, compression: every Content-Encoding a server may send, and the broken ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { compressionFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([compressionFaults()]);
});
afterAll(() => site.server.close());

describe('compression (kind 1)', () => {
  it('decodes gzip, x-gzip, deflate (zlib and raw), br and multi-member gzip; keeps unlabelled, unknown and nested codings raw; truncated gzip is a decode error', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    // the truncated stream's error names the cause
    const trunc = crawl.items.find((i) => i.url.endsWith('/c/truncated.html'))!;
    expect(trunc.error.message).toMatch(/corrupt compressed body/);
    expect(trunc.bytes).toBe(0);
    expect(trunc.sha256).toBeNull();
  });
});
