/**
 * Fault kind 13, proxies: `--proxy URL`, `HTTP_PROXY` and `NO_PROXY`, checked with a forward proxy
 * fixture that logs what passed through it. Plain-HTTP targets use the absolute-URI form (what
 * every HTTP proxy accepts), not a CONNECT tunnel.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawlFaults } from '../fixtures/fault-crawl.js';
import { type ForwardProxy, startForwardProxy } from '../fixtures/forward-proxy.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let proxy: ForwardProxy;
let site: FixtureServer;
beforeAll(async () => {
  proxy = await startForwardProxy();
  // on 127.0.0.6, so that NO_PROXY can name it apart from the proxy's 127.0.0.1
  site = await startServer(
    { '/': html(page('Through', ['a.html'])), '/a.html': html(page('A')) },
    undefined,
    '127.0.0.6',
  );
});
afterAll(async () => {
  await proxy.close();
  await site.close();
});
afterEach(() => {
  proxy.log.length = 0;
  site.requests.length = 0;
});

/** The environment with every proxy variable set (lower case wins in undici), or cleared. */
function proxyEnv(httpProxy: string, noProxy: string): NodeJS.ProcessEnv {
  return { HTTP_PROXY: httpProxy, http_proxy: httpProxy, NO_PROXY: noProxy, no_proxy: noProxy };
}

const o = () => site.origin;
const everything = () => [`${o()}/robots.txt`, `${o()}/`, `${o()}/a.html`];

describe('proxy (kind 13)', () => {
  it('--proxy: every request, robots.txt included, goes through the proxy in absolute-URI form', async () => {
    const crawl = await crawlFaults(`${o()}/`, ['--proxy', proxy.url], proxyEnv('', ''));
    expect(crawl.result.code).toBe(0);
    // items are written as their bodies reach the disk: compare in URL order
    expect(crawl.items.map((i) => [i.url, i.status, i.title]).sort()).toEqual([
      [`${o()}/`, 200, 'Through'],
      [`${o()}/a.html`, 200, 'A'],
    ]);
    expect(proxy.log).toEqual(everything().map((target) => ({ method: 'GET', target })));
    expect(site.requests.map((q) => q.path)).toEqual(['/robots.txt', '/', '/a.html']);
  });

  it('HTTP_PROXY from the environment is used', async () => {
    const crawl = await crawlFaults(`${o()}/`, [], proxyEnv(proxy.url, ''));
    expect(crawl.result.code).toBe(0);
    expect(crawl.items).toHaveLength(2);
    expect(proxy.log).toEqual(everything().map((target) => ({ method: 'GET', target })));
  });

  it('NO_PROXY names hosts reached directly', async () => {
    const crawl = await crawlFaults(`${o()}/`, [], proxyEnv(proxy.url, '127.0.0.6'));
    expect(crawl.result.code).toBe(0);
    expect(crawl.items).toHaveLength(2);
    expect(proxy.log).toEqual([]);
    expect(site.requests.map((q) => q.path)).toEqual(['/robots.txt', '/', '/a.html']);
  });
});
