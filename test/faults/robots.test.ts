/**
 * Fault kind 9, robots.txt (RFC 9309) end to end. robots.txt is per origin, so each case has its
 * own server; the cases run concurrently.
 */
import { describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, startFaultSite } from '../fixtures/fault-crawl.js';
import { robotsFaults } from '../fixtures/fault-routes.js';
import { type FixtureServer, html, page, type Route, startServer } from '../fixtures/site-server.js';

function text(body: string, status = 200): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };
}

/** A site of `/` linking `leaves`, each a page, plus the given robots.txt route. */
async function site(robots: Route, leaves: string[] = ['a.html', 'b.html']): Promise<FixtureServer> {
  const routes: Record<string, Route> = { '/robots.txt': robots, '/': html(page('Home', leaves)) };
  for (const l of leaves) routes[`/${l.replace(/^\//, '')}`] = html(page(`Leaf ${l}`));
  return startServer(routes);
}

function statusOf(items: Array<Record<string, any>>): Record<string, string> {
  return Object.fromEntries(
    items.map((i) => [
      new URL(i.url).pathname + new URL(i.url).search,
      i.error ? i.error.kind : String(i.status),
    ]),
  );
}

describe.concurrent('robots.txt (kind 9)', () => {
  it('4xx robots.txt: everything allowed', async () => {
    const s = await site(text('Forbidden', 403));
    try {
      const crawl = await crawlFaults(`${s.origin}/`);
      expect(statusOf(crawl.items)).toEqual({ '/': '200', '/a.html': '200', '/b.html': '200' });
      expect(s.hits('/robots.txt')).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('5xx robots.txt: everything disallowed as unavailable, robots.txt fetched again at the retry', async () => {
    const s = await site(text('down', 503));
    try {
      const crawl = await crawlFaults(`${s.origin}/`, ['--max-retry-after', '1s']);
      // The only seed failed: nothing collected.
      expect(crawl.result.code).toBe(69);
      expect(crawl.items).toHaveLength(1);
      expect(crawl.items[0]).toMatchObject({
        status: null,
        error: {
          kind: 'robots-disallowed',
          message: 'robots.txt unavailable (HTTP 503): the site is disallowed until it can be read',
        },
      });
      expect(s.hits('/robots.txt')).toBe(2); // first try and the retry
      expect(s.hits('/')).toBe(0);
      const [r1, r2] = s.requestsFor('/robots.txt');
      expect(r2.at - r1.at).toBeGreaterThanOrEqual(1000); // "retry later": after --max-retry-after
    } finally {
      await s.close();
    }
  });

  it('5xx robots.txt that recovers: the retry is allowed', async () => {
    let n = 0;
    const s = await site((req, res) =>
      (n++ === 0 ? text('down', 500) : text('User-agent: *\nAllow: /\n'))(req, res),
    );
    try {
      const crawl = await crawlFaults(`${s.origin}/`, ['--max-retry-after', '1s']);
      expect(statusOf(crawl.items)).toEqual({ '/': '200', '/a.html': '200', '/b.html': '200' });
      expect(s.hits('/robots.txt')).toBe(2);
      expect(s.hits('/')).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('a redirected robots.txt is followed; its rules apply', async () => {
    const fs = await startFaultSite([robotsFaults()]);
    try {
      const crawl = await crawlFaults(fs.seed);
      expect(crawl.result.code).toBe(0);
      expectFaultItems(fs, crawl);
      expect(fs.server.hits('/robots.txt')).toBe(1);
      expect(fs.server.hits('/robots-real.txt')).toBe(1);
    } finally {
      await fs.server.close();
    }
  });

  it('Crawl-delay spaces requests on the server even with --host-concurrency 4 and --delay 0', async () => {
    const s = await site(text('User-agent: *\nCrawl-delay: 0.3\n'), ['a.html', 'b.html', 'c.html', 'd.html']);
    try {
      const crawl = await crawlFaults(`${s.origin}/`);
      expect(crawl.items).toHaveLength(5);
      const pages = s.requests.filter((q) => q.path !== '/robots.txt');
      expect(pages).toHaveLength(5);
      expect(pages[0].path).toBe('/');
      // The leaves are found in `/`, so each is sent after `/`'s answer, which left the server
      // at or after `/`'s arrival. The first leaf goes 300 ms after that answer, each later one
      // 300 ms after the one before it starts (4 may be in flight): the k-th send is at least
      // 300 × k ms after `/` arrived, and so is the k-th arrival (each arrives after its send,
      // however long a busy machine holds it). An exact lower bound, whatever the load: gaps
      // between two arrivals are not, since a request held in transit may reach the server just
      // before the next. Without Crawl-delay all four leaves arrive within a few ms of `/`; with
      // the gap only from a request's end, all four 300 ms after it.
      const leaves = pages
        .slice(1)
        .map((q) => q.at - pages[0].at)
        .sort((a, b) => a - b);
      leaves.forEach((t, i) => {
        expect(t, `leaf arrivals after /: ${leaves.map(Math.round).join(' ')} ms`).toBeGreaterThanOrEqual(
          300 * (i + 1) - 1,
        );
      });
    } finally {
      await s.close();
    }
  });

  it('--no-robots: robots.txt neither fetched nor obeyed', async () => {
    const s = await site(text('User-agent: *\nDisallow: /\n'));
    try {
      const crawl = await crawlFaults(`${s.origin}/`, ['--no-robots']);
      expect(statusOf(crawl.items)).toEqual({ '/': '200', '/a.html': '200', '/b.html': '200' });
      expect(s.hits('/robots.txt')).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a robots.txt larger than --max-bytes is still read (RFC 9309: at least 500 KiB are parsed)', async () => {
    // 100 KB of comments, then the rule: over the faults' --max-bytes of 64 KiB.
    const robots = `${'# padding\n'.repeat(10_000)}User-agent: *\nDisallow: /b.html\n`;
    const s = await site(text(robots));
    try {
      const crawl = await crawlFaults(`${s.origin}/`);
      expect(crawl.result.code).toBe(0);
      expect(statusOf(crawl.items)).toEqual({ '/': '200', '/a.html': '200', '/b.html': 'robots-disallowed' });
      expect(s.hits('/robots.txt')).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('our group is chosen over *, the longest match wins, * and $ wildcards work', async () => {
    const robots = [
      'User-agent: *',
      'Disallow: /',
      '',
      'User-agent: collector',
      'Disallow: /docs/',
      'Allow: /docs/public/',
      'Disallow: /*.pdf$',
      '',
    ].join('\n');
    const s = await site(text(robots), [
      'docs/a.html',
      'docs/public/b.html',
      'file.pdf',
      'file.pdf?x=1',
      'other.html',
    ]);
    try {
      const crawl = await crawlFaults(`${s.origin}/`);
      expect(statusOf(crawl.items)).toEqual({
        '/': '200',
        '/docs/a.html': 'robots-disallowed',
        '/docs/public/b.html': '200',
        '/file.pdf': 'robots-disallowed',
        '/file.pdf?x=1': '200',
        '/other.html': '200',
      });
      expect(s.hits('/docs/a.html') + s.hits('/file.pdf')).toBe(0);
    } finally {
      await s.close();
    }
  });
});
