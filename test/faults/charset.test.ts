/**
 * Fault kind 2, charsets: pages in legacy encodings declared by header, `<meta>` or BOM must give
 * the right title and links; a bogus label falls back to UTF-8.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { charsetFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([charsetFaults()]);
});
afterAll(() => site.server.close());

describe('charsets (kind 2)', () => {
  it('decodes Shift_JIS, EUC-JP, GBK, Big5, windows-1251/1252, ISO-8859-2 and UTF-16 by header, meta or BOM: titles and links right; bogus labels fall back to UTF-8', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    // every page's title and data.encoding, and every child reached through its non-ASCII link
    expectFaultItems(site, crawl);
  });
});
