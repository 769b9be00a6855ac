/**
 * A hub that a page also links, end to end over the built CLI: `crawl --sitemaps` where the seed
 * page links the sitemap that robots.txt names. The seed's hubs go before its links, and the
 * queued plain link takes the sitemap's label, so the sitemap is read as one (the page only it
 * lists is crawled) and fetched once; a resume reads the label back from the frontier log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let site: FixtureServer;

beforeAll(async () => {
  const origin = () => site.origin;
  const text = (body: string, type: string) => (_q: unknown, r: import('node:http').ServerResponse) => {
    r.writeHead(200, { 'content-type': type });
    r.end(body);
  };
  site = await startServer(
    {
      '/': html(page('Home', ['/a.html', '/maps/site.xml', '/b.html'])),
      '/robots.txt': (q, r) =>
        text(`User-agent: *\nAllow: /\nSitemap: ${origin()}/maps/site.xml\n`, 'text/plain')(q, r),
      '/maps/site.xml': (q, r) =>
        text(`<urlset><url><loc>${origin()}/only-in-sitemap.html</loc></url></urlset>`, 'application/xml')(
          q,
          r,
        ),
    },
    (req, res) => html(page(`Page ${req.url}`))(req, res),
  );
});
afterAll(() => site.close());

describe('a sitemap robots.txt names and the seed page links', () => {
  it('is read as a sitemap, fetched once, and the page only it lists is crawled', async () => {
    const out = tempDir();
    // A politeness gap long enough for robots.txt to be read before the next request of the host.
    const r = await runCli([
      'crawl',
      `${site.origin}/`,
      '--sitemaps',
      '--out',
      out,
      '--delay',
      '400',
      '--jitter',
      '0',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const items = readItems(out);
    const urls = items.map((i) => i.url);
    expect(urls).toContain(`${site.origin}/only-in-sitemap.html`);
    expect(urls.filter((u) => u === `${site.origin}/maps/site.xml`)).toHaveLength(1);
    expect(new Set(urls).size).toBe(urls.length);
    expect(site.requestsFor('/maps/site.xml')).toHaveLength(1);
  });
});
