/**
 * Fault kind 13, proxies: `--proxy URL`, `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, checked with
 * a forward proxy fixture that logs what passed through it. Plain-HTTP targets use the absolute-URI
 * form (what every HTTP proxy accepts), not a CONNECT tunnel; https targets a CONNECT tunnel.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/cli.js';
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

/**
 * A TLS site on 127.0.0.8 with a self-signed certificate made for this test run (openssl). The
 * crawler trusts it only through NODE_EXTRA_CA_CERTS in its environment: verification stays on.
 */
describe('https through the proxy (CONNECT)', () => {
  let tls: { origin: string; paths: string[]; caFile: string; close: () => Promise<void> };
  beforeAll(async () => {
    const dir = tempDir('collector-tls-');
    const key = path.join(dir, 'key.pem');
    const caFile = path.join(dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          caFile,
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.8',
          '-addext',
          'subjectAltName=IP:127.0.0.8',
        ],
        { stdio: 'pipe' },
      );
    } catch (e) {
      throw new Error(`this test makes its certificate with openssl, which failed: ${(e as Error).message}`);
    }
    const paths: string[] = [];
    const server = https.createServer(
      { key: fs.readFileSync(key), cert: fs.readFileSync(caFile) },
      (req, res) => {
        paths.push(req.url ?? '');
        const body: Record<string, string> = { '/': page('Secure', ['a.html']), '/a.html': page('Secure A') };
        const b = body[req.url ?? ''];
        res.writeHead(b ? 200 : 404, { 'content-type': 'text/html' });
        res.end(b ?? 'not found');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.8', resolve));
    const { port } = server.address() as AddressInfo;
    tls = {
      origin: `https://127.0.0.8:${port}`,
      paths,
      caFile,
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  });
  afterAll(() => tls.close());
  afterEach(() => {
    tls.paths.length = 0;
  });

  const connects = () => [{ method: 'CONNECT', target: new URL(tls.origin).host }];

  it('--proxy: an https site is reached through a CONNECT tunnel, its certificate verified', async () => {
    const env = { ...proxyEnv('', ''), NODE_EXTRA_CA_CERTS: tls.caFile };
    const crawl = await crawlFaults(`${tls.origin}/`, ['--proxy', proxy.url], env);
    expect(crawl.result.code).toBe(0);
    expect(crawl.items.map((i) => [i.url, i.status, i.title]).sort()).toEqual([
      [`${tls.origin}/`, 200, 'Secure'],
      [`${tls.origin}/a.html`, 200, 'Secure A'],
    ]);
    // only tunnels (one connection may carry several requests), never an absolute-URI GET
    expect(proxy.log.length).toBeGreaterThanOrEqual(1);
    expect(new Set(proxy.log.map((q) => JSON.stringify(q)))).toEqual(
      new Set(connects().map((q) => JSON.stringify(q))),
    );
    expect(tls.paths).toEqual(['/robots.txt', '/', '/a.html']);
  });

  it('HTTPS_PROXY from the environment tunnels https too', async () => {
    const env = {
      ...proxyEnv('', ''),
      HTTPS_PROXY: proxy.url,
      https_proxy: proxy.url,
      NODE_EXTRA_CA_CERTS: tls.caFile,
    };
    const crawl = await crawlFaults(`${tls.origin}/`, [], env);
    expect(crawl.result.code).toBe(0);
    expect(crawl.items.map((i) => i.status)).toEqual([200, 200]);
    expect(proxy.log.every((q) => q.method === 'CONNECT')).toBe(true);
    expect(proxy.log.length).toBeGreaterThanOrEqual(1);
  });

  it('without the certificate trusted, the tunnel is made but the site is refused (network error)', async () => {
    const crawl = await crawlFaults(
      `${tls.origin}/`,
      ['--proxy', proxy.url, '--no-robots'],
      proxyEnv('', ''),
    );
    expect(crawl.result.code).toBe(69); // the only seed failed: nothing collected
    expect(crawl.items).toHaveLength(1);
    expect(crawl.items[0]).toMatchObject({ url: `${tls.origin}/`, status: null, error: { kind: 'network' } });
    expect(proxy.log[0]).toEqual(connects()[0]);
    expect(tls.paths).toEqual([]);
  });
});
