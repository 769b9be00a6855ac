/**
 * Fault kind 16, odd headers: 36 KB of headers accepted (limit 256 KiB, beyond it `too-large`),
 * a folded header line accepted as RFC 9112 §5.2 says (the fold becomes a space), and raw bytes in
 * `Location` read as UTF-8 when they are UTF-8, else percent-encoded as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { headerFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([headerFaults()]);
});
afterAll(() => site.server.close());

describe('odd headers (kind 16)', () => {
  it('accepts large and folded headers, refuses huge ones as too-large, reads Location bytes', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const o = site.server.origin;
    const item = (p: string) => crawl.items.find((i) => i.url === o + p)!;
    expect(item('/hd/folded.html').contentType).toBe('text/html; charset=utf-8');
    expect(item('/hd/huge-headers.html').error.message).toBe(
      `response headers larger than ${256 * 1024} bytes`,
    );
  });

  it('--max-header-bytes lowers the limit', async () => {
    const crawl = await crawlFaults(site.seed, ['--max-header-bytes', '16KB']);
    const big = crawl.items.find((i) => i.url === `${site.server.origin}/hd/big-headers.html`)!;
    expect(big.error.kind).toBe('too-large');
  });
});
