import { describe, expect, it } from 'vitest';
import { FetchError } from '../../src/http/fetch-error.js';
import {
  ROBOTS_DEFAULTS,
  RobotsCache,
  type RobotsFetch,
  type RobotsOptions,
  sitemapsInRobotsTxt,
} from '../../src/http/robots.js';

type Reply = { status: number; location?: string; body?: string } | Error;

/** A fake one-hop fetcher: a table of URL → reply (or a function of the call count), recording calls. */
function fakeFetch(routes: Record<string, Reply | ((n: number) => Reply)>) {
  const calls: string[] = [];
  const fetch: RobotsFetch = async (url) => {
    calls.push(url);
    await new Promise((r) => setTimeout(r, 1));
    const route = routes[url];
    const reply = typeof route === 'function' ? route(calls.filter((c) => c === url).length) : route;
    if (reply === undefined) return { status: 404, location: null, body: '' };
    if (reply instanceof Error) throw reply;
    return { status: reply.status, location: reply.location ?? null, body: reply.body ?? '' };
  };
  return { fetch, calls };
}

function cache(fetch: RobotsFetch, extra: Partial<RobotsOptions> = {}) {
  return new RobotsCache({ userAgent: 'collector/0.1 (+https://example.org/bot)', fetch, ...extra });
}

function robotsAt(body: string, origin = 'https://example.com') {
  const { fetch, calls } = fakeFetch({ [`${origin}/robots.txt`]: { status: 200, body } });
  return { robots: cache(fetch), calls };
}

async function allowed(robots: RobotsCache, url: string): Promise<boolean> {
  return (await robots.check(url)).allowed;
}

describe('RobotsCache: rule matching', () => {
  it('longest match wins; Allow wins a tie', async () => {
    const { robots } = robotsAt(
      [
        'User-agent: *',
        'Disallow: /docs/',
        'Allow: /docs/public/',
        'Disallow: /docs/public/secret',
        'Allow: /page',
        'Disallow: /page',
      ].join('\n'),
    );
    expect(await allowed(robots, 'https://example.com/')).toBe(true);
    expect(await allowed(robots, 'https://example.com/docs/a')).toBe(false);
    expect(await allowed(robots, 'https://example.com/docs/public/a')).toBe(true);
    expect(await allowed(robots, 'https://example.com/docs/public/secret.html')).toBe(false);
    expect(await allowed(robots, 'https://example.com/page')).toBe(true);
    expect(await robots.check('https://example.com/docs/x')).toEqual({
      allowed: false,
      crawlDelayMs: null,
      reason: 'disallowed',
    });
  });

  it('`*` wildcard and `$` end anchor', async () => {
    const { robots } = robotsAt(
      [
        'User-agent: *',
        'Disallow: /*.pdf$',
        'Disallow: /*/private/',
        'Disallow: /search?*q=',
        'Allow: /public*.pdf$',
      ].join('\n'),
    );
    expect(await allowed(robots, 'https://example.com/a/b.pdf')).toBe(false);
    expect(await allowed(robots, 'https://example.com/a/b.pdf?x=1')).toBe(true); // $ anchors the whole path+query
    expect(await allowed(robots, 'https://example.com/a/b.pdfx')).toBe(true);
    expect(await allowed(robots, 'https://example.com/x/y/private/z')).toBe(false);
    expect(await allowed(robots, 'https://example.com/private/z')).toBe(true); // needs a segment before
    expect(await allowed(robots, 'https://example.com/search?lang=en&q=x')).toBe(false);
    expect(await allowed(robots, 'https://example.com/search?lang=en')).toBe(true);
    expect(await allowed(robots, 'https://example.com/public/doc.pdf')).toBe(true); // longer Allow
  });

  it('percent-encoding is compared case-insensitively and non-ASCII patterns match', async () => {
    const { robots } = robotsAt('User-agent: *\nDisallow: /caf%c3%a9\nDisallow: /日本');
    expect(await allowed(robots, 'https://example.com/café')).toBe(false);
    expect(await allowed(robots, 'https://example.com/%E6%97%A5%E6%9C%AC/x')).toBe(false);
    expect(await allowed(robots, 'https://example.com/cafe')).toBe(true);
  });

  it('the group naming our product token beats `*`, case-insensitively; groups are merged', async () => {
    const { robots } = robotsAt(
      [
        'User-agent: *',
        'Disallow: /',
        '',
        'User-agent: otherbot',
        'Allow: /',
        '',
        'User-agent: Collector/2.0',
        'Disallow: /private',
        'Crawl-delay: 2.5',
        '',
        'User-agent: COLLECTOR',
        'Disallow: /tmp',
      ].join('\n'),
    );
    expect(robots.productToken).toBe('collector');
    expect(await robots.check('https://example.com/docs')).toEqual({ allowed: true, crawlDelayMs: 2500 });
    expect(await robots.check('https://example.com/private/x')).toEqual({
      allowed: false,
      crawlDelayMs: 2500,
      reason: 'disallowed',
    });
    expect(await allowed(robots, 'https://example.com/tmp/y')).toBe(false);
  });

  it('falls back to `*` when no group names us, and does not match by substring', async () => {
    const { robots } = robotsAt(
      [
        'User-agent: collector-bot',
        'Disallow: /',
        '',
        'User-agent: *',
        'Disallow: /admin',
        'Crawl-delay: 1',
      ].join('\n'),
    );
    expect(await robots.check('https://example.com/page')).toEqual({ allowed: true, crawlDelayMs: 1000 });
    expect(await allowed(robots, 'https://example.com/admin/x')).toBe(false);
  });

  it('a group naming us with no Crawl-delay does not inherit the `*` delay', async () => {
    const { robots } = robotsAt('User-agent: *\nCrawl-delay: 10\n\nUser-agent: collector\nDisallow:\n');
    expect(await robots.check('https://example.com/a')).toEqual({ allowed: true, crawlDelayMs: null });
  });

  it('several user-agent lines share one group; a BOM does not hide the first line', async () => {
    const { robots } = robotsAt('\uFEFFUser-agent: collector\r\nUser-agent: other\r\nDisallow: /x\r\n');
    expect(await allowed(robots, 'https://example.com/x')).toBe(false);
  });

  it('/robots.txt itself is always allowed, without fetching', async () => {
    const { robots, calls } = robotsAt('User-agent: *\nDisallow: /');
    expect(await robots.check('https://example.com/robots.txt')).toEqual({
      allowed: true,
      crawlDelayMs: null,
    });
    expect(calls).toEqual([]);
    expect(await allowed(robots, 'https://example.com/other')).toBe(false);
    expect(await allowed(robots, 'https://example.com/robots.txt')).toBe(true);
  });

  it('non-http URLs are allowed; invalid URLs reject', async () => {
    const { robots, calls } = robotsAt('User-agent: *\nDisallow: /');
    expect(await allowed(robots, 'ftp://example.com/x')).toBe(true);
    await expect(robots.check('not a url')).rejects.toThrow(TypeError);
    expect(calls).toEqual([]);
  });

  it('origins are scheme://host:port; each has its own robots.txt', async () => {
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': { status: 200, body: 'User-agent: *\nDisallow: /' },
      'http://example.com/robots.txt': { status: 200, body: '' },
      'https://example.com:8443/robots.txt': { status: 404 },
    });
    const robots = cache(fetch);
    expect(await allowed(robots, 'https://example.com/a')).toBe(false);
    expect(await allowed(robots, 'https://EXAMPLE.com:443/b')).toBe(false);
    expect(await allowed(robots, 'http://example.com/a')).toBe(true);
    expect(await allowed(robots, 'https://example.com:8443/a')).toBe(true);
    expect(calls.sort()).toEqual([
      'http://example.com/robots.txt',
      'https://example.com/robots.txt',
      'https://example.com:8443/robots.txt',
    ]);
  });

  it('rules past maxBytes are ignored, and a cut line is dropped', async () => {
    const body = `User-agent: *\nDisallow: /a\n${'# padding\n'.repeat(100)}Disallow: /b\nAllow: /docs`;
    const { fetch } = fakeFetch({ 'https://example.com/robots.txt': { status: 200, body } });
    const robots = cache(fetch, { maxBytes: body.length - 2 }); // cuts 'Allow: /docs' to 'Allow: /do'
    expect(await allowed(robots, 'https://example.com/a')).toBe(false);
    expect(await allowed(robots, 'https://example.com/b')).toBe(false);
    const small = cache(fetch, { maxBytes: 40 });
    expect(await allowed(small, 'https://example.com/a')).toBe(false);
    expect(await allowed(small, 'https://example.com/b')).toBe(true);
  });
});

describe('RobotsCache: fetch outcomes', () => {
  it('404 and other 4xx → allow all', async () => {
    for (const status of [404, 401, 403, 410]) {
      const { fetch } = fakeFetch({
        'https://example.com/robots.txt': { status, body: 'User-agent: *\nDisallow: /' },
      });
      expect(await cache(fetch).check('https://example.com/x')).toEqual({
        allowed: true,
        crawlDelayMs: null,
      });
    }
  });

  it('503 → disallow all, then fetched again after errorRetryMs', async () => {
    let t = 1_000_000;
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': (n) =>
        n === 1 ? { status: 503 } : { status: 200, body: 'User-agent: *\nDisallow: /private' },
    });
    const robots = cache(fetch, { errorRetryMs: 500, now: () => t });
    const unavailable = { allowed: false, crawlDelayMs: null, reason: 'unavailable', status: 503 };
    expect(await robots.check('https://example.com/a')).toEqual(unavailable);
    t += 499;
    expect(await robots.check('https://example.com/a')).toEqual(unavailable);
    expect(robots.peek('https://example.com/a')).toEqual(unavailable);
    expect(calls.length).toBe(1);
    t += 1;
    expect(robots.peek('https://example.com/a')).toBeUndefined();
    expect(await robots.check('https://example.com/a')).toEqual({ allowed: true, crawlDelayMs: null });
    expect(await allowed(robots, 'https://example.com/private')).toBe(false);
    expect(calls.length).toBe(2);
  });

  it('an unavailable robots.txt is listed with its retry time and taken back after a restart, not fetched before', async () => {
    let t = 1_000_000;
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': (n) => (n === 1 ? { status: 503 } : { status: 200, body: '' }),
      'https://ok.example/robots.txt': { status: 200, body: '' },
    });
    const before = cache(fetch, { errorRetryMs: 60_000, now: () => t });
    await before.check('https://example.com/a');
    await before.check('https://ok.example/a');
    expect(before.unavailableOrigins()).toEqual([{ origin: 'https://example.com', until: 1_060_000 }]);
    // the restart, 10 s later: a new cache takes the verdict back
    t += 10_000;
    const after = cache(fetch, { errorRetryMs: 60_000, now: () => t });
    for (const u of before.unavailableOrigins()) after.restoreUnavailable(u.origin, u.until);
    after.restoreUnavailable('https://gone.example', t - 1); // already past: ignored
    expect(after.unavailableOrigins()).toEqual([{ origin: 'https://example.com', until: 1_060_000 }]);
    expect(after.sitemaps('https://example.com/')).toEqual([]);
    expect((await after.check('https://example.com/a')).reason).toBe('unavailable');
    expect(calls.filter((c) => c.startsWith('https://example.com')).length).toBe(1);
    t = 1_060_000;
    expect(after.unavailableOrigins()).toEqual([]); // its time is up: nothing to save any more
    expect((await after.check('https://example.com/a')).allowed).toBe(true);
    expect(calls.filter((c) => c.startsWith('https://example.com')).length).toBe(2);
    // a saved time beyond errorRetryMs from now is cut to it (a damaged or hostile file)
    const capped = cache(fetch, { errorRetryMs: 60_000, now: () => t });
    capped.restoreUnavailable('https://example.com', t + 10 * 60_000);
    expect(capped.unavailableOrigins()[0].until).toBe(t + 60_000);
  });

  it('restoreUnavailable leaves an origin with a verdict of its own alone, and a time already past takes no place in the cache', async () => {
    const t = 1_000_000;
    const { fetch, calls } = fakeFetch({
      'https://ok.example/robots.txt': { status: 200, body: 'User-agent: *\nDisallow: /p' },
    });
    const robots = cache(fetch, { errorRetryMs: 60_000, maxOrigins: 1, now: () => t });
    expect(await allowed(robots, 'https://ok.example/a')).toBe(true);
    robots.restoreUnavailable('https://ok.example', t + 30_000); // fetched since: its own verdict wins
    expect(robots.unavailableOrigins()).toEqual([]);
    expect(await allowed(robots, 'https://ok.example/a')).toBe(true);
    robots.restoreUnavailable('https://gone.example', t); // up now: ignored, so nothing is evicted
    robots.restoreUnavailable('https://old.example', t - 1);
    expect(await allowed(robots, 'https://ok.example/a')).toBe(true);
    expect(calls).toEqual(['https://ok.example/robots.txt']);
  });

  it('429 is treated like 5xx, not like 4xx', async () => {
    const { fetch } = fakeFetch({ 'https://example.com/robots.txt': { status: 429 } });
    expect((await cache(fetch).check('https://example.com/a')).reason).toBe('unavailable');
  });

  it('no answer (refused, DNS, timeout) → no verdict: unreachable with the cause, not cached', async () => {
    const refused = new FetchError('network', 'https://example.com/robots.txt', 'connection refused (x)');
    const { fetch, calls } = fakeFetch({ 'https://example.com/robots.txt': refused });
    const robots = cache(fetch);
    expect(await robots.check('https://example.com/a')).toEqual({
      allowed: false,
      crawlDelayMs: null,
      reason: 'unreachable',
      cause: { kind: 'network', message: 'connection refused (x)' },
    });
    // The next check (the URL's retry) asks again: nothing is cached for an unreachable host.
    expect(robots.peek('https://example.com/b')).toBeUndefined();
    expect((await robots.check('https://example.com/b')).allowed).toBe(false);
    expect(calls.length).toBe(2);
    const dns = fakeFetch({
      'https://gone.invalid/robots.txt': new FetchError(
        'dns',
        'https://gone.invalid/robots.txt',
        'name not resolved',
      ),
    });
    expect((await cache(dns.fetch).check('https://gone.invalid/a')).cause?.kind).toBe('dns');
    const silent = fakeFetch({
      'https://slow.example/robots.txt': new FetchError(
        'timeout',
        'https://slow.example/robots.txt',
        'no complete response',
      ),
    });
    expect((await cache(silent.fetch).check('https://slow.example/a')).cause?.kind).toBe('timeout');
  });

  it('an answer that cannot be used (too large, undecodable) is unavailable, not unreachable', async () => {
    const big = new FetchError('too-large', 'https://example.com/robots.txt', 'body exceeds', 200);
    const { fetch } = fakeFetch({ 'https://example.com/robots.txt': big });
    expect((await cache(fetch).check('https://example.com/a')).reason).toBe('unavailable');
  });

  it('unreachable after a copy expired: the stale copy is used meanwhile (RFC 9309 §2.4)', async () => {
    let t = 0;
    const refused = new FetchError('network', 'https://example.com/robots.txt', 'connection refused');
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': (n) =>
        n === 1 ? { status: 200, body: 'User-agent: *\nDisallow: /p' } : refused,
    });
    const robots = cache(fetch, { ttlMs: 1000, errorRetryMs: 100, now: () => t });
    expect(await allowed(robots, 'https://example.com/a')).toBe(true);
    t = 1000;
    expect(await robots.check('https://example.com/a')).toEqual({ allowed: true, crawlDelayMs: null });
    expect(await allowed(robots, 'https://example.com/p')).toBe(false);
    expect(calls.length).toBe(2);
    // kept errorRetryMs longer, then asked again
    t = 1099;
    expect(robots.peek('https://example.com/a')?.allowed).toBe(true);
    t = 1100;
    expect(robots.peek('https://example.com/a')).toBeUndefined();
  });

  it('unreachable after an unavailable verdict expired: unreachable with the cause, not the old 503', async () => {
    let t = 0;
    const refused = new FetchError('network', 'https://example.com/robots.txt', 'connection refused');
    const { fetch } = fakeFetch({
      'https://example.com/robots.txt': (n) => (n === 1 ? { status: 503 } : refused),
    });
    const robots = cache(fetch, { errorRetryMs: 100, now: () => t });
    expect((await robots.check('https://example.com/a')).reason).toBe('unavailable');
    t = 100;
    expect(await robots.check('https://example.com/a')).toEqual({
      allowed: false,
      crawlDelayMs: null,
      reason: 'unreachable',
      cause: { kind: 'network', message: 'connection refused' },
    });
  });

  it('a fetch that rejects with something not an Error is unreachable, its value as the message', async () => {
    const robots = cache(() => Promise.reject(null));
    expect((await robots.check('https://example.com/a')).cause).toEqual({ kind: 'network', message: 'null' });
  });

  it('entries expire after ttlMs and are refreshed on the next check', async () => {
    let t = 0;
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': (n) => ({
        status: 200,
        body: n === 1 ? 'User-agent: *\nDisallow: /' : '',
      }),
    });
    const robots = cache(fetch, { ttlMs: 1000, now: () => t });
    expect(await allowed(robots, 'https://example.com/a')).toBe(false);
    t = 999;
    expect(robots.peek('https://example.com/a')?.allowed).toBe(false);
    t = 1000;
    expect(robots.peek('https://example.com/a')).toBeUndefined();
    expect(await allowed(robots, 'https://example.com/a')).toBe(true);
    expect(calls.length).toBe(2);
  });

  it('follows a redirect chain (relative and cross-host) and applies it to the original origin', async () => {
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': { status: 301, location: 'https://www.example.com/robots.txt' },
      'https://www.example.com/robots.txt': { status: 302, location: '/r2' },
      'https://www.example.com/r2': { status: 307, location: 'r3' },
      'https://www.example.com/r3': { status: 308, location: 'https://cdn.example.net/robots' },
      'https://cdn.example.net/robots': { status: 302, location: '//cdn.example.net/final' },
      'https://cdn.example.net/final': { status: 200, body: 'User-agent: *\nDisallow: /nope' },
    });
    const robots = cache(fetch);
    expect(await allowed(robots, 'https://example.com/nope')).toBe(false);
    expect(await allowed(robots, 'https://example.com/yes')).toBe(true);
    expect(calls.length).toBe(6); // 5 redirects followed
  });

  it('more than maxRedirects redirects → allow all', async () => {
    const routes: Record<string, Reply> = {
      'https://example.com/robots.txt': { status: 301, location: '/r1' },
    };
    for (let i = 1; i <= 6; i++)
      routes[`https://example.com/r${i}`] = { status: 301, location: `/r${i + 1}` };
    routes['https://example.com/r7'] = { status: 200, body: 'User-agent: *\nDisallow: /' };
    const { fetch, calls } = fakeFetch(routes);
    const robots = cache(fetch);
    expect(await robots.check('https://example.com/a')).toEqual({ allowed: true, crawlDelayMs: null });
    expect(calls.length).toBe(ROBOTS_DEFAULTS.maxRedirects + 1);
  });

  it('a redirect loop or a 3xx without Location → allow all', async () => {
    const loop = fakeFetch({ 'https://example.com/robots.txt': { status: 302, location: '/robots.txt' } });
    expect(await allowed(cache(loop.fetch), 'https://example.com/a')).toBe(true);
    const nowhere = fakeFetch({ 'https://example.com/robots.txt': { status: 302 } });
    expect(await allowed(cache(nowhere.fetch), 'https://example.com/a')).toBe(true);
  });

  it('an unreachable redirect target → unreachable', async () => {
    const { fetch } = fakeFetch({
      'https://example.com/robots.txt': { status: 301, location: 'https://gone.example.com/robots.txt' },
      'https://gone.example.com/robots.txt': new Error('getaddrinfo ENOTFOUND gone.example.com'),
    });
    const verdict = await cache(fetch).check('https://example.com/a');
    expect(verdict.reason).toBe('unreachable');
    expect(verdict.cause?.message).toMatch(/ENOTFOUND/);
  });
});

describe('RobotsCache: concurrency and bounds', () => {
  it('concurrent checks for one origin share one fetch', async () => {
    const { fetch, calls } = fakeFetch({
      'https://example.com/robots.txt': { status: 200, body: 'User-agent: *\nDisallow: /b' },
    });
    const robots = cache(fetch);
    const urls = Array.from({ length: 50 }, (_, i) => `https://example.com/${i % 2 ? 'a' : 'b'}/${i}`);
    const verdicts = await Promise.all(urls.map((u) => robots.check(u)));
    expect(calls).toEqual(['https://example.com/robots.txt']);
    expect(verdicts.filter((v) => v.allowed).length).toBe(25);
  });

  it('peek is undefined until fetched, then answers synchronously', async () => {
    const { robots } = robotsAt('User-agent: *\nDisallow: /b\nCrawl-delay: 0.25');
    expect(robots.peek('https://example.com/a')).toBeUndefined();
    await robots.check('https://example.com/a');
    expect(robots.peek('https://example.com/a')).toEqual({ allowed: true, crawlDelayMs: 250 });
    expect(robots.peek('https://example.com/b')).toEqual({
      allowed: false,
      crawlDelayMs: 250,
      reason: 'disallowed',
    });
  });

  it('evicts the least recently used origin past maxOrigins', async () => {
    const { fetch, calls } = fakeFetch({});
    const robots = cache(fetch, { maxOrigins: 2 });
    await robots.check('https://a.example/x');
    await robots.check('https://b.example/x');
    await robots.check('https://a.example/y'); // a is now the most recent
    await robots.check('https://c.example/x'); // evicts b
    expect(robots.peek('https://a.example/x')).toBeDefined();
    expect(robots.peek('https://b.example/x')).toBeUndefined();
    expect(robots.peek('https://c.example/x')).toBeDefined();
    expect(calls.length).toBe(3);
  });

  it('rejects nonsensical options', () => {
    const { fetch } = fakeFetch({});
    expect(() => cache(fetch, { ttlMs: -1 })).toThrow(RangeError);
    expect(() => cache(fetch, { maxBytes: Number.NaN })).toThrow(RangeError);
  });
});

describe('RobotsCache: edge cases (mutation testing)', () => {
  it('the product token is the first token of the user agent, spaces trimmed; none → `*`', () => {
    const { fetch } = fakeFetch({});
    expect(new RobotsCache({ userAgent: '  Collector/1.0 (+x)', fetch }).productToken).toBe('collector');
    expect(new RobotsCache({ userAgent: '123bot/1.0', fetch }).productToken).toBe('*');
  });

  it('names the option that is negative, and accepts 0', () => {
    const { fetch } = fakeFetch({});
    for (const name of ['ttlMs', 'errorRetryMs', 'maxRedirects', 'maxBytes', 'maxOrigins'] as const) {
      expect(() => cache(fetch, { [name]: -1 })).toThrow(
        `robots: ${name} must be a non-negative number, got -1`,
      );
      expect(() => cache(fetch, { [name]: 0 })).not.toThrow();
    }
  });

  it('peek: non-http URLs and /robots.txt itself are allowed before anything is fetched; http is checked', async () => {
    const { robots, calls } = robotsAt('User-agent: *\nDisallow: /', 'http://example.com');
    expect(robots.peek('ftp://example.com/x')).toEqual({ allowed: true, crawlDelayMs: null });
    expect(robots.peek('http://example.com/robots.txt')).toEqual({ allowed: true, crawlDelayMs: null });
    expect(robots.peek('http://example.com/x')).toBeUndefined();
    expect(await allowed(robots, 'http://example.com/x')).toBe(false);
    expect(robots.peek('http://example.com/x')?.allowed).toBe(false);
    expect(calls).toEqual(['http://example.com/robots.txt']);
  });

  it('/robots.txt itself carries the Crawl-delay once it is known', async () => {
    const { robots } = robotsAt('User-agent: *\nCrawl-delay: 2\nDisallow: /');
    await robots.check('https://example.com/x');
    expect(await robots.check('https://example.com/robots.txt')).toEqual({
      allowed: true,
      crawlDelayMs: 2000,
    });
  });

  it('Crawl-delay: only a positive finite number counts', async () => {
    for (const value of ['0', '-1', 'Infinity', 'abc']) {
      const { robots } = robotsAt(`User-agent: *\nCrawl-delay: ${value}\nDisallow: /x`);
      expect((await robots.check('https://example.com/a')).crawlDelayMs, value).toBeNull();
    }
  });

  it('status boundaries: 1xx unavailable, 300 a redirect, 400 and 499 allow all, 500 unavailable', async () => {
    const rules = 'User-agent: *\nDisallow: /';
    const verdict = async (status: number) => {
      // the answer's own body allows everything: only following its Location disallows
      const { fetch } = fakeFetch({
        'https://example.com/robots.txt': { status, location: '/real-robots.txt', body: '' },
        'https://example.com/real-robots.txt': { status: 200, body: rules },
      });
      return cache(fetch).check('https://example.com/a');
    };
    expect((await verdict(100)).reason).toBe('unavailable');
    expect((await verdict(199)).reason).toBe('unavailable');
    expect((await verdict(300)).reason).toBe('disallowed'); // followed to the real file
    expect((await verdict(399)).reason).toBe('disallowed');
    expect(await verdict(400)).toEqual({ allowed: true, crawlDelayMs: null }); // not followed
    expect(await verdict(499)).toEqual({ allowed: true, crawlDelayMs: null });
    expect((await verdict(500)).reason).toBe('unavailable');
  });

  it('"allow all" after a 4xx lasts ttlMs, not errorRetryMs', async () => {
    let t = 0;
    const { fetch, calls } = fakeFetch({ 'https://example.com/robots.txt': { status: 404 } });
    const robots = cache(fetch, { now: () => t, ttlMs: 100_000, errorRetryMs: 1000 });
    await robots.check('https://example.com/a');
    t = 50_000;
    await robots.check('https://example.com/b');
    expect(calls).toHaveLength(1);
  });

  it('redirects: blank or unparsable Location → allow all, fetched once; only http(s) targets are followed', async () => {
    for (const location of ['  ', 'http://[bad']) {
      const { fetch, calls } = fakeFetch({
        'https://example.com/robots.txt': { status: 302, location, body: 'User-agent: *\nDisallow: /' },
      });
      expect(await allowed(cache(fetch), 'https://example.com/a'), location).toBe(true);
      expect(calls, location).toEqual(['https://example.com/robots.txt']);
    }
    const ftp = fakeFetch({
      'https://example.com/robots.txt': { status: 301, location: 'ftp://example.com/r.txt' },
    });
    expect(await allowed(cache(ftp.fetch), 'https://example.com/a')).toBe(true);
    expect(ftp.calls).toEqual(['https://example.com/robots.txt']);
    const toHttp = fakeFetch({
      'https://example.com/robots.txt': { status: 301, location: 'http://example.com/robots.txt' },
      'http://example.com/robots.txt': { status: 200, body: 'User-agent: *\nDisallow: /' },
    });
    expect(await allowed(cache(toHttp.fetch), 'https://example.com/a')).toBe(false);
  });

  it('maxBytes: a body that fits in bytes is whole, even without a final newline; past it, the cut line is dropped', async () => {
    const body = 'User-agent: *\nDisallow: /x'; // 26 bytes
    const at = (maxBytes: number) => {
      const { fetch } = fakeFetch({ 'https://example.com/robots.txt': { status: 200, body } });
      return cache(fetch, { maxBytes });
    };
    expect(await allowed(at(26), 'https://example.com/x')).toBe(false); // exactly fits
    expect(await allowed(at(30), 'https://example.com/x')).toBe(false);
    expect(await allowed(at(25), 'https://example.com/x')).toBe(true); // 'Disallow: /' cut: dropped
    expect(await allowed(at(25), 'https://example.com/y')).toBe(true);
    // a multi-byte body over the limit in bytes but not in characters
    const wide = `User-agent: *\nDisallow: /é\n${'#'.repeat(10)}\nDisallow: /x`;
    const { fetch } = fakeFetch({ 'https://example.com/robots.txt': { status: 200, body: wide } });
    const robots = cache(fetch, { maxBytes: Buffer.byteLength(wide) - 1 });
    expect(await allowed(robots, 'https://example.com/x')).toBe(true);
    expect(await allowed(robots, 'https://example.com/%C3%A9')).toBe(false);
    // a single line past the limit: nothing is left
    const one = fakeFetch({
      'https://example.com/robots.txt': { status: 200, body: 'Disallow: /'.repeat(10) },
    });
    expect(await allowed(cache(one.fetch, { maxBytes: 20 }), 'https://example.com/a')).toBe(true);
    // an ASCII body of 2× the limit is cut (the characters-vs-bytes shortcut only skips short ones)
    const long = fakeFetch({
      'https://example.com/robots.txt': {
        status: 200,
        body: `User-agent: *\n${'#'.repeat(20)}\nDisallow: /x\n`,
      },
    });
    expect(await allowed(cache(long.fetch, { maxBytes: 30 }), 'https://example.com/x')).toBe(true);
  });
});

describe('Sitemap: lines', () => {
  const body = [
    '\uFEFFSitemap: https://example.com/sitemap_index.xml',
    'User-agent: *',
    'Disallow: /private/',
    'sitemap:/relative-sitemap.xml',
    'Sitemap: https://example.com/sitemap_index.xml',
    'Sitemap: ftp://example.com/nope.xml',
    'SITEMAP: https://cdn.example.net/s.xml.gz',
  ].join('\r\n');

  it('reads them anywhere in the file, resolved, http(s) only, each once', () => {
    expect(sitemapsInRobotsTxt(body, 'https://example.com/robots.txt')).toEqual([
      'https://example.com/sitemap_index.xml',
      'https://example.com/relative-sitemap.xml',
      'https://cdn.example.net/s.xml.gz',
    ]);
  });

  it('are kept by the cache once robots.txt was fetched, and do not change the rules', async () => {
    const { robots } = robotsAt(body);
    expect(robots.sitemaps('https://example.com/any')).toBeUndefined(); // not fetched yet
    expect(await allowed(robots, 'https://example.com/private/x')).toBe(false);
    expect(robots.sitemaps('https://example.com/any')).toEqual([
      'https://example.com/sitemap_index.xml',
      'https://example.com/relative-sitemap.xml',
      'https://cdn.example.net/s.xml.gz',
    ]);
  });

  it('are empty when robots.txt is missing or unavailable', async () => {
    const { fetch } = fakeFetch({
      'https://a.example/robots.txt': { status: 404 },
      'https://b.example/robots.txt': { status: 503 },
    });
    const robots = cache(fetch);
    await robots.check('https://a.example/x');
    await robots.check('https://b.example/x');
    expect(robots.sitemaps('https://a.example/')).toEqual([]);
    expect(robots.sitemaps('https://b.example/')).toEqual([]);
  });
});
