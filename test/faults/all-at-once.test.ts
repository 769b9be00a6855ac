/**
 * Every fault group of `fault-routes.ts` on ONE site, crawled at once: the crawl finishes, exits 0
 * and writes exactly one item per URL — each the item its group test expects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlFaults,
  expectFaultItems,
  type FaultCrawl,
  type FaultSite,
  startFaultSite,
  summaryLine,
} from '../fixtures/fault-crawl.js';
import { allFaultGroups, CALENDAR_SKIPS, TRAP_SKIPS } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite(allFaultGroups());
});
afterAll(() => site.server.close());

describe('all fault kinds at once (budget 40 s each)', () => {
  it('one process: exit 0, one item per URL, each as expected', async () => {
    // a short cap on waits and on the 429/503 penalty: one host takes every slow-down of the groups
    const crawl = await crawlFaults(site.seed, ['--max-retry-after', '500ms']);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const n = Object.keys(site.expected).length;
    const line = summaryLine(crawl.result);
    expect(line).toMatch(
      new RegExp(`^collector: ${n} items this run \\(${n} total\\), \\d+ errors, 0 queued, `),
    );
    for (const [reason, count] of Object.entries({ ...TRAP_SKIPS, ...CALENDAR_SKIPS })) {
      expect(line).toContain(`${reason} ${count}`);
    }
  });

  it('two processes (URLs split by hash): exit 0, one item per URL, none missing', async () => {
    const fresh = await startFaultSite(allFaultGroups(), '127.0.0.7');
    let crawl: FaultCrawl;
    try {
      crawl = await crawlFaults(fresh.seed, ['--max-retry-after', '500ms', '--processes', '2']);
    } finally {
      await fresh.server.close();
    }
    expect(crawl.result.code).toBe(0);
    const urls = crawl.items.map((i) => i.url as string);
    expect(new Set(urls).size).toBe(urls.length);
    const o = fresh.server.origin;
    const expected = Object.keys(fresh.expected).map((p) => o + p);
    expect(urls).toEqual(expect.arrayContaining(expected));
    // The query-variant limit is counted by the process that discovers a link: with the calendar's
    // pages split between two processes, up to 2 × 5 of them pass. So is the URL-shape budget,
    // and each process watches the near-duplicate months it fetched itself.
    const extra = urls.filter((u) => !expected.includes(u));
    for (const u of extra) expect(u).toMatch(/\/trap\/cal\?page=([6-9]|10)$|\/cal\/202[45]\/\d\d\/$/);
    const line = summaryLine(crawl.result);
    expect(line).toMatch(
      /^collector: \d+ items this run \(\d+ total\), \d+ errors, 0 queued, links skipped: .*trap-length 1.*, 2 processes, out /,
    );
  });
});
