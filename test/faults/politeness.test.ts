/**
 * Each politeness and backoff mechanism alone decides an outcome: its own fixture server (its
 * own host), no other mechanism in play (`--delay 0`, no jitter, one request at a time, robots.txt
 * off unless it is the mechanism, a 50 ms retry backoff), so removing the mechanism from the
 * crawler makes its test fail by a wide margin (a wait of seconds becomes milliseconds).
 *
 * Timing is read on the server, as lower bounds that hold however loaded the machine is: a pause
 * the crawler starts when it gets a response is counted from that request's arrival (`at`), one
 * it starts when a request ends is counted from the moment the server ended it (`endedAt`); the
 * crawler can only be later. The tests run concurrently, each with its own server and crawl. The
 * exact schedules (backoff doubling, penalty decay, jitter) are pinned by the unit tests of
 * `retry-policy.ts` and `frontier.ts` with a fake clock.
 */
import type http from 'node:http';
import { describe, expect, it, type TestContext } from 'vitest';
import { crawlArgs, readItems, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { type FixtureServer, html, page, type Route, startServer } from '../fixtures/site-server.js';

/** Flags that switch every other mechanism off; a test's own flags come after and win. */
const ALONE = [
  '--jitter',
  '0',
  '--host-concurrency',
  '1',
  '--retries',
  '1',
  '--retry-backoff',
  '50ms',
  '--max-retry-after',
  '10s',
];

/**
 * Start a fixture server of its own (a host no other test touches), closed when test `ctx` ends
 * (its own hook: with concurrent tests, the global `onTestFinished` may belong to another test).
 */
async function serve(
  ctx: TestContext,
  routes: Record<string, Route>,
  fallback?: Route,
): Promise<FixtureServer> {
  const s = await startServer(routes, fallback);
  ctx.onTestFinished(() => s.close());
  return s;
}

/** A crawl of these tiny sites that has not ended by then is waiting on something uncapped. */
const DEADLINE_MS = 45_000;

/**
 * Crawl `seed` alone with {@link ALONE} and `flags` (robots.txt off unless `robots`); the crawl
 * must end by itself within {@link DEADLINE_MS} and succeed.
 */
async function crawl(seed: string, flags: string[] = [], robots = false) {
  const out = tempDir('collector-alone-');
  const child = startCli(crawlArgs(seed, out, ...ALONE, ...(robots ? [] : ['--no-robots']), ...flags));
  const kill = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  const r = await waitExit(child);
  clearTimeout(kill);
  expect(r.signal, `the crawl did not end within ${DEADLINE_MS} ms`).toBeNull();
  expect(r.code, r.stderr).toBe(0);
  return readItems(out);
}

/** A route that answers `first` once, then `then`. */
function once(first: Route, then: Route): Route {
  let n = 0;
  return (req, res) => (n++ === 0 ? first : then)(req, res);
}

/** A status-only answer with headers (computed per request when a function is given). */
function answer(status: number, headers: Record<string, string> | (() => Record<string, string>)): Route {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, {
      'content-type': 'text/html',
      ...(typeof headers === 'function' ? headers() : headers),
    });
    res.end(page(`HTTP ${status}`));
  };
}

/** The two requests for `path`: the failed try and the retry. */
function twoTries(s: FixtureServer, path: string) {
  const tries = s.requestsFor(path);
  expect(tries).toHaveLength(2);
  return tries as [(typeof tries)[0], (typeof tries)[0]];
}

describe.concurrent('Retry-After alone decides when a failed URL is tried again', () => {
  it('delay-seconds: a 500 with Retry-After: 2 is retried no earlier than 2 s later (backoff alone: 50 ms)', async (ctx) => {
    const s = await serve(ctx, { '/r.html': once(answer(500, { 'retry-after': '2' }), html(page('Back'))) });
    const items = await crawl(`${s.origin}/r.html`);
    expect(items.map((i) => [i.status, i.title])).toEqual([[200, 'Back']]);
    const [first, retry] = twoTries(s, '/r.html');
    expect(retry.at - first.at).toBeGreaterThanOrEqual(2000);
  });

  it('HTTP-date: retried no earlier than the date asked', async (ctx) => {
    let date = 0;
    const s = await serve(ctx, {
      '/r.html': once(
        answer(500, () => {
          date = Math.ceil((Date.now() + 2000) / 1000) * 1000; // a whole second, 2–3 s ahead
          return { 'retry-after': new Date(date).toUTCString() };
        }),
        html(page('Back')),
      ),
    });
    const items = await crawl(`${s.origin}/r.html`);
    expect(items.map((i) => i.status)).toEqual([200]);
    const [first, retry] = twoTries(s, '/r.html');
    expect(retry.wall).toBeGreaterThanOrEqual(date);
    expect(retry.at - first.at).toBeGreaterThanOrEqual(1000);
  });

  it('a day-long Retry-After is capped at --max-retry-after (1 s): waited, and the crawl ends', async (ctx) => {
    const s = await serve(ctx, {
      '/r.html': once(answer(500, { 'retry-after': '86400' }), html(page('Back'))),
    });
    const items = await crawl(`${s.origin}/r.html`, ['--max-retry-after', '1s']);
    expect(items.map((i) => i.status)).toEqual([200]);
    const [first, retry] = twoTries(s, '/r.html');
    expect(retry.at - first.at).toBeGreaterThanOrEqual(1000);
    expect(retry.at - first.at).toBeLessThan(15_000); // a day, uncapped
  });
});

describe.concurrent('rate-limit headers alone pause the host until the reset', () => {
  /**
   * `/` links `limited.html`, which answers with `headers`, and `next.html`, queued behind it:
   * without a pause `next.html` follows `limited.html` at once (no page to parse in between).
   */
  async function pausedFor(ctx: TestContext, headers: () => Record<string, string>) {
    const s = await serve(ctx, {
      '/': html(page('Home', ['limited.html', 'next.html'])),
      '/limited.html': (req, res) => html(page('Limited'), 200, headers())(req, res),
      '/next.html': html(page('Next')),
    });
    const items = await crawl(`${s.origin}/`);
    expect(items.map((i) => i.status)).toEqual([200, 200, 200]);
    expect(s.requests.map((q) => q.path)).toEqual(['/', '/limited.html', '/next.html']);
    const [limited, next] = s.requests.slice(1);
    return { gap: next.at - limited.at, next };
  }

  it('X-RateLimit-Reset in seconds from now (Remaining: 0, Reset: 2): no request for 2 s', async (ctx) => {
    const { gap } = await pausedFor(ctx, () => ({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }));
    expect(gap).toBeGreaterThanOrEqual(2000);
  });

  it('X-RateLimit-Reset as epoch seconds: no request before that second', async (ctx) => {
    let reset = 0;
    const { next } = await pausedFor(ctx, () => {
      reset = Math.ceil(Date.now() / 1000) + 2;
      return { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) };
    });
    expect(next.wall).toBeGreaterThanOrEqual(reset * 1000);
  });

  it('RateLimit-Remaining / RateLimit-Reset (IETF draft names): no request for 2 s', async (ctx) => {
    const { gap } = await pausedFor(ctx, () => ({ 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }));
    expect(gap).toBeGreaterThanOrEqual(2000);
  });
});

describe.concurrent('429/503 alone slow the host down', () => {
  it.for([503, 429])(
    'after a %i the host waits 250 ms from the end of a request, and stays slowed while the gap decays',
    async (code, ctx) => {
      const leaves = ['p0.html', 'p1.html', 'p2.html', 'p3.html', 'p4.html'];
      const s = await serve(
        ctx,
        { '/': html(page('Slow down', leaves)), '/p0.html': once(answer(code, {}), html(page('p0'))) },
        (req, res) => html(page(req.url ?? ''))(req, res),
      );
      const items = await crawl(`${s.origin}/`, ['--retry-backoff', '1ms']);
      expect(items.filter((i) => i.status === 200)).toHaveLength(6);
      // one at a time: /, p0 (the slow-down), p0 again, p1..p4
      expect(s.requests.map((q) => q.path)).toEqual([
        '/',
        '/p0.html',
        '/p0.html',
        ...leaves.slice(1).map((l) => `/${l}`),
      ]);
      // The crawler's decisions, each a lower bound on the server's clock (it can only be later):
      // the retry waits at least 250 ms from the 429/503's end (max of --delay 0 and 250), and
      // every later request at least 100 ms from the previous one's end (the gap shrinks by × 0.8
      // per success: 200, 160, 128, 102.4). Without the slow-down the gaps are the 1 ms backoff,
      // then 0. The exact schedule is host-policy.test.ts's, on a fake clock.
      const after = s.requests.slice(1);
      const gaps = after.slice(1).map((q, k) => q.at - (after[k].endedAt as number));
      expect(gaps[0], 'the retry').toBeGreaterThanOrEqual(250);
      gaps.slice(1).forEach((gap, k) => {
        expect(gap, `gap before ${after[k + 2].path}`).toBeGreaterThanOrEqual(100);
      });
    },
  );
});

describe.concurrent('the per-host delay alone spaces requests', () => {
  it('--delay is counted from the end of a slow request, not only from its start', async (ctx) => {
    const s = await serve(ctx, {
      '/': html(page('Home', ['slow.html', 'next.html'])),
      // answers after 1.5 s: a 1 s gap counted from the start alone has run out by then
      '/slow.html': (req, res) => {
        setTimeout(() => html(page('Slow'))(req, res), 1500);
      },
      '/next.html': html(page('Next')),
    });
    const items = await crawl(`${s.origin}/`, ['--delay', '1s']);
    expect(items.map((i) => i.status)).toEqual([200, 200, 200]);
    expect(s.requests.map((q) => q.path)).toEqual(['/', '/slow.html', '/next.html']);
    const [slow, next] = s.requests.slice(1);
    expect(next.at - (slow.endedAt as number)).toBeGreaterThanOrEqual(1000);
  });
});

describe.concurrent('robots.txt Crawl-delay alone spaces requests', () => {
  /** A site whose robots.txt asks `crawlDelay` seconds; returns the gap from `a.html`'s end to `b.html`. */
  async function spaced(ctx: TestContext, crawlDelay: string, ...flags: string[]) {
    const s = await serve(ctx, {
      '/robots.txt': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`User-agent: *\nCrawl-delay: ${crawlDelay}\n`);
      },
      '/': html(page('Home', ['a.html', 'b.html'])),
      '/a.html': html(page('A')),
      '/b.html': html(page('B')),
    });
    const items = await crawl(`${s.origin}/`, flags, true);
    expect(items.map((i) => i.status)).toEqual([200, 200, 200]);
    expect(s.requests.map((q) => q.path)).toEqual(['/robots.txt', '/', '/a.html', '/b.html']);
    const [a, b] = s.requests.slice(2);
    return b.at - (a.endedAt as number);
  }

  it('Crawl-delay: 2 keeps 2 s between requests (--delay 0)', async (ctx) => {
    expect(await spaced(ctx, '2')).toBeGreaterThanOrEqual(2000);
  });

  it('a Crawl-delay of 100 s is capped at --max-retry-after (1 s)', async (ctx) => {
    const gap = await spaced(ctx, '100', '--max-retry-after', '1s');
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(15_000);
  });
});
