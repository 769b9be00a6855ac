/**
 * Fault kind 19, session ids in URLs: a site minting new `;jsessionid=`, `PHPSESSID`, `sid`,
 * `ASPSESSIONID…` and ASP.NET `(S(…))` ids on every page is a finite set of URLs once they are
 * removed in canonicalization; `--keep-param` keeps one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { sessionFaults } from '../fixtures/fault-routes.js';
import { html, page, startServer } from '../fixtures/site-server.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([sessionFaults()]);
});
afterAll(() => site.server.close());

describe('session ids (kind 19)', () => {
  it('fetches each page once whatever ids its links carry', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    expect(site.server.requests.filter((r) => /sessionid|sid=|\(S\(/i.test(r.path))).toEqual([]);
  });

  it('removes them from seeds, redirect and refresh targets as well as from links', async () => {
    const sid = '0123456789ABCDEF0123456789ABCDEF';
    const server = await startServer({
      '/seed/index.html': html(page('Seed', ['go', 'refresh.html'])),
      '/seed/refresh.html': html(
        `<meta http-equiv="refresh" content="0; url=landing.html;jsessionid=${sid}"><title>Refresh</title>`,
      ),
      '/seed/landing.html': html(page('Landing')),
      '/seed/go': (_req, res) => {
        res.writeHead(302, { location: `target.html?PHPSESSID=${sid}` });
        res.end();
      },
      '/seed/target.html': html(page('Target')),
    });
    try {
      const o = server.origin;
      const crawl = await crawlFaults(`${o}/seed/index.html;jsessionid=${sid}`);
      expect(crawl.items.map((i) => [i.url, i.finalUrl, i.status]).sort()).toEqual([
        [`${o}/seed/go`, `${o}/seed/target.html`, 200],
        [`${o}/seed/index.html`, `${o}/seed/index.html`, 200],
        [`${o}/seed/refresh.html`, `${o}/seed/landing.html`, 200],
      ]);
      const paths = server.requests.map((r) => r.path).filter((p) => p !== '/robots.txt');
      expect(paths.sort()).toEqual([
        '/seed/go',
        '/seed/index.html',
        '/seed/landing.html',
        '/seed/refresh.html',
        '/seed/target.html',
      ]);
    } finally {
      await server.close();
    }
  });

  it('--keep-param keeps a parameter that only looks like a session id', async () => {
    const sid = '0123456789abcdef0123456789abcdef';
    const server = await startServer({
      '/keep/': html(page('Keep', [`section.html?sid=${sid}`])),
      [`/keep/section.html?sid=${sid}`]: html(page('Section')),
    });
    try {
      const crawl = await crawlFaults(`${server.origin}/keep/`, ['--keep-param', 'SID']);
      expect(crawl.items.map((i) => [i.url, i.status])).toEqual([
        [`${server.origin}/keep/`, 200],
        [`${server.origin}/keep/section.html?sid=${sid}`, 200],
      ]);
    } finally {
      await server.close();
    }
  });
});
