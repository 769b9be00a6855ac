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
