/**
 * Fault kind 20, calendar traps: a calendar linking month to month forever, every month a
 * near-empty page of one URL shape, is closed after five near-duplicates in a row (the skipped
 * links counted as `trap-shape`); an archive of 20 years × 12 months with distinct content is
 * crawled whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlFaults,
  expectFaultItems,
  type FaultSite,
  startFaultSite,
  summaryLine,
} from '../fixtures/fault-crawl.js';
import { CALENDAR_SKIPS, calendarFaults, calendarPage } from '../fixtures/fault-routes.js';
import { mulberry32 } from '../fixtures/prng.js';
import { html, page, type Route, startServer } from '../fixtures/site-server.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([calendarFaults()]);
});
afterAll(() => site.server.close());

/** `/cal2/YYYY/MM/` of any month (a calendar without end in both directions). */
function anyMonth(req: { url?: string }): { y: number; m: number } | null {
  const m = /^\/[a-z0-9]+\/(\d{4})\/(\d{2})\/$/.exec(req.url ?? '');
  return m ? { y: Number(m[1]), m: Number(m[2]) } : null;
}

function neighbours(y: number, m: number, prefix: string): string[] {
  const prev = m === 1 ? [y - 1, 12] : [y, m - 1];
  const next = m === 12 ? [y + 1, 1] : [y, m + 1];
  return [prev, next].map(([yy, mm]) => `${prefix}${yy}/${String(mm).padStart(2, '0')}/`);
}

describe('calendar traps (kind 20)', () => {
  it('closes a one-way endless calendar after five near-duplicate months', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    expect(summaryLine(crawl.result)).toContain(`links skipped: trap-shape ${CALENDAR_SKIPS['trap-shape']}`);
  });

  it('closes a calendar linking previous and next months forever', async () => {
    const server = await startServer({ '/cal2/': html(page('Calendar', ['2024/05/'])) }, (req, res) => {
      const at = anyMonth(req);
      if (at === null) return void html(page('Not found'), 404)(req, res);
      html(calendarPage(at.y, at.m, neighbours(at.y, at.m, '/cal2/')))(req, res);
    });
    try {
      const crawl = await crawlFaults(`${server.origin}/cal2/`);
      expect(crawl.result.code).toBe(0);
      const months = crawl.items.filter((i) => /\/\d{4}\/\d{2}\/$/.test(i.url));
      // 1 + 5 near-duplicates, plus what was queued when the shape closed
      expect(months.length).toBeGreaterThanOrEqual(6);
      expect(months.length).toBeLessThanOrEqual(10);
      expect(summaryLine(crawl.result)).toMatch(/links skipped: trap-shape [1-9]\d*, out /);
    } finally {
      await server.close();
    }
  });

  it('crawls a 20-year archive of distinct months whole', async () => {
    const random = mulberry32(14);
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'te', 'vo', 'zi', 'pa', 'qu', 'bel', 'dor', 'fin'];
    const word = () =>
      Array.from(
        { length: 2 + Math.floor(random() * 3) },
        () => syllables[Math.floor(random() * syllables.length)],
      ).join('');
    const routes: Record<string, Route> = {};
    const first = '/arch/2001/01/';
    for (let y = 2001; y <= 2020; y++) {
      for (let m = 1; m <= 12; m++) {
        const posts = Array.from(
          { length: 3 },
          () =>
            `<article><h3>${Array.from({ length: 4 }, word).join(' ')}</h3><p>${Array.from({ length: 25 }, word).join(' ')}</p></article>`,
        ).join('');
        const links = neighbours(y, m, '/arch/').filter((l) => {
          const yy = Number(l.slice(6, 10));
          return yy >= 2001 && yy <= 2020;
        });
        routes[`/arch/${y}/${String(m).padStart(2, '0')}/`] = html(
          page(
            'My blog',
            links,
            `<h2>Archive ${y}-${m}</h2>${posts}<footer>About me. Contact. Feed.</footer>`,
          ),
        );
      }
    }
    routes['/arch/'] = html(page('My blog', [first.slice(6)]));
    const server = await startServer(routes);
    try {
      const crawl = await crawlFaults(`${server.origin}/arch/`);
      expect(crawl.result.code).toBe(0);
      expect(crawl.items).toHaveLength(1 + 240);
      expect(crawl.items.every((i) => i.status === 200 && !i.error)).toBe(true);
      expect(summaryLine(crawl.result)).not.toContain('trap-shape');
    } finally {
      await server.close();
    }
  });
});
