/**
 * Fault kind 15, cookies (RFC 6265): a cookie wall (302 to itself with Set-Cookie) is passed
 * because a per-worker jar sends the cookie back and a hop with new cookies is not a loop; a
 * redirect that sets a new cookie each time still ends at the hop limit; `--no-cookies` turns the
 * jar off; cookie values appear in no item, log or state file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults, expectFaultItems, type FaultSite, startFaultSite } from '../fixtures/fault-crawl.js';
import { cookieFaults, SECRET_COOKIE } from '../fixtures/fault-routes.js';

let site: FaultSite;
beforeAll(async () => {
  site = await startFaultSite([cookieFaults()]);
});
afterAll(() => site.server.close());

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

describe('cookies (kind 15)', () => {
  it('passes a cookie wall, bounds a cookie-minting redirect, and writes cookies nowhere', async () => {
    const crawl = await crawlFaults(site.seed);
    expect(crawl.result.code).toBe(0);
    expectFaultItems(site, crawl);
    const o = site.server.origin;
    const walls = site.server.requestsFor('/ck/wall');
    // the wall's cookie comes back on the second request only (the jar is the worker's: a
    // counter cookie set by a request running beside it may come along, in either order)
    const ok = (r: (typeof walls)[0]) => /(^|; )ok=1(;|$)/.test(r.headers.cookie ?? '');
    expect(walls.map(ok)).toEqual([false, true]);
    expect(crawl.items.find((i) => i.url === `${o}/ck/counter`)!.error.message).toBe(
      'more than 10 redirects',
    );
    // the secret cookie went back to the server, and to no file of the output
    expect(site.server.requests.some((r) => (r.headers.cookie ?? '').includes(SECRET_COOKIE))).toBe(true);
    for (const f of files(crawl.out)) {
      expect({ f, secret: fs.readFileSync(f).includes(SECRET_COOKIE) }).toEqual({ f, secret: false });
    }
  });

  it('--no-cookies: no jar, the wall is a redirect loop', async () => {
    const fresh = await startFaultSite([cookieFaults()]);
    try {
      const crawl = await crawlFaults(fresh.seed, ['--no-cookies']);
      expect(crawl.result.code).toBe(0);
      const wall = crawl.items.find((i) => i.url === `${fresh.server.origin}/ck/wall`)!;
      expect(wall.error.kind).toBe('redirect-loop');
      expect(fresh.server.requests.every((r) => r.headers.cookie === undefined)).toBe(true);
    } finally {
      await fresh.server.close();
    }
  });
});
