/**
 * Fault kind 4, size: `--max-bytes` holds for a declared length, an undeclared (chunked) one and
 * a decompression bomb; a body of exactly the limit passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { sizeFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([sizeFaults()]);
});
afterAll(() => site.server.close());

describe('size limit (kind 4)', () => {
  it('stops a large Content-Length, a large chunked body and a gzip bomb with too-large, not retried; exactly --max-bytes passes', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const msg = (p: string) => crawl.items.find((i) => i.url.endsWith(p))!.error.message;
    expect(msg('/s/content-length.bin')).toBe('Content-Length 262144 exceeds 65536 bytes');
    expect(msg('/s/content-length-small.bin')).toBe('Content-Length 66536 exceeds 65536 bytes');
    expect(msg('/s/chunked.html')).toBe('body exceeds 65536 bytes');
    expect(msg('/s/bomb.html')).toBe('body larger than 65536 bytes after decompression');
    // The item still says what the server sent (issue 15: it was null).
    const type = (p: string) => crawl.items.find((i) => i.url.endsWith(p))!.contentType;
    expect(type('/s/content-length.bin')).toBe('application/octet-stream');
    expect(type('/s/content-length-small.bin')).toBe('application/octet-stream');
    expect(type('/s/chunked.html')).toBe('text/html');
    expect(type('/s/bomb.html')).toBe('text/html');
  });
});
