/**
 * Fault kind 11, URL oddities, end to end: hrefs written every which way reach the one canonical
 * URL each (fetched once). IDN hosts cannot resolve offline: their canonical form is checked here
 * at unit level, and end to end only that such a link is counted and not fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/url/canonicalize.js';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { urlFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([urlFaults()]);
});
afterAll(() => site.server.close());

describe('URL oddities (kind 11)', () => {
  it('canonicalizes relative, protocol-relative, percent-encoded, non-ASCII, whitespace and dot-dot hrefs: one fetch each', async () => {
    const crawl = await crawlFaults(site.seed, ['--quiet']);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    // every request was for a distinct URL (robots.txt aside)
    const paths = site.server.requests.map((q) => q.path).filter((p) => p !== '/robots.txt');
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('counts the IDN link as out of scope (not fetched)', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.stderr).toMatch(/links skipped: out-of-scope 1\b/);
  });

  it('canonicalizes IDN hosts to punycode and their paths to UTF-8 percent-escapes', () => {
    expect(canonicalize('http://Bücher.example/')).toBe('http://xn--bcher-kva.example/');
    expect(canonicalize('HTTP://BÜCHER.EXAMPLE:80/ä?q=ü#x')).toBe(
      'http://xn--bcher-kva.example/%C3%A4?q=%C3%BC',
    );
    expect(canonicalize('//münchen.de/a', 'https://example.org/')).toBe('https://xn--mnchen-3ya.de/a');
    expect(canonicalize('http://xn--bcher-kva.example/')).toBe('http://xn--bcher-kva.example/');
    expect(canonicalize('http://日本.jp/パス')).toBe('http://xn--wgv71a.jp/%E3%83%91%E3%82%B9');
    expect(canonicalize('http://ex ample.com/')).toBeNull();
  });
});
