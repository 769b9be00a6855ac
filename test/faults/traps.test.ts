/**
 * Fault kind 12, crawl traps: an endless calendar, a relative-link loop and URLs that keep
 * growing end because each is cut by its limit; the cut links are counted as skipped (not errors)
 * in the summary line and logged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlFaults,
  expectFaultItems,
  type FaultSite,
  startFaultSite,
  summaryLine,
} from '../fixtures/fault-crawl.js';
import { TRAP_SKIPS, trapFaults } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([trapFaults()]);
});
afterAll(() => site.server.close());

describe('crawl traps (kind 12)', () => {
  it('terminates on a trap site and counts skipped links by reason', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    expect(crawl.items.filter((i) => i.error)).toEqual([]);
    const line = summaryLine(crawl.result);
    const n = Object.keys(site.expected).length;
    expect(line).toBe(
      `collector: ${n} items this run (${n} total), 0 errors, 0 queued, links skipped: ` +
        `trap-length ${TRAP_SKIPS['trap-length']}, trap-repeat ${TRAP_SKIPS['trap-repeat']}, ` +
        `trap-query ${TRAP_SKIPS['trap-query']}, out ${crawl.out}`,
    );
    // each cut link is logged with its reason
    const log = fs
      .readFileSync(path.join(crawl.out, 'logs', 'crawl-0.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const o = site.server.origin;
    expect(
      log
        .filter((l) => l.msg === 'trap link skipped')
        .map((l) => [l.reason, l.url])
        .sort(),
    ).toEqual([
      ['trap-length', `${o}/trap/grow/${'y'.repeat(256)}`],
      ['trap-query', `${o}/trap/cal?page=6`],
      ['trap-repeat', `${o}/trap/ab/a/b/a/b/a/b/`],
    ]);
    const done = log.find((l) => l.msg === 'frontier empty');
    expect(done.skipped).toMatchObject(TRAP_SKIPS);
  });
});
