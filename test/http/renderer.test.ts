/**
 * The renderer in Debian's chromium against a loopback fixture: the document is answered from the
 * fetched body (never requested by the browser), the page's requests go out with the worker's
 * cookies and are counted, images are never loaded, a page that never settles is read at the time
 * limit, a killed or hung browser fails its pages with BrowserLost and is started again, an idle
 * browser is closed. One browser serves most tests.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageRendering } from '../../src/engine/page-render.js';
import { BROWSER_NICE, chromiumPath, killTree, processTree } from '../../src/http/chromium.js';
import { BrowserLost, Renderer, type RenderJob } from '../../src/http/renderer.js';
import { type FixtureServer, startServer } from '../fixtures/site-server.js';
import { threadNices } from '../fixtures/thread-nice.js';

const chromium = chromiumPath();

/** A page whose script fetches `/api/n` twice (same host) and writes the answers, with an image. */
const APP = `<!doctype html><html><head><title>app</title><link rel="stylesheet" href="/app.css"></head><body><div id="root"></div>
<script>
(async () => {
  const a = await (await fetch('/api/1')).text();
  const b = await (await fetch('/api/2')).text();
  document.getElementById('root').innerHTML = '<p id="out">' + a + ' ' + b + '</p><img src="/logo.png">';
})();
</script></body></html>`;

const FOREVER = `<!doctype html><html><body><div id="clock"></div><script>
setInterval(() => { document.getElementById('clock').textContent = 'tick ' + Date.now(); }, 30);
fetch('/hang');
</script></body></html>`;

const alive = (pid: number) =>
  fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe.skipIf(!chromium)('Renderer', () => {
  let site: FixtureServer;
  let renderer: Renderer;
  const hanging: Array<{ destroy(): void }> = [];
  let onApi: (() => void) | null = null;
  beforeAll(async () => {
    site = await startServer({}, (req, res) => {
      if (req.url === '/hang') {
        hanging.push(res);
        return;
      }
      if (req.url?.startsWith('/api/')) {
        onApi?.();
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`answer${req.url.slice(5)}${req.headers.cookie ? `+${req.headers.cookie}` : ''}`);
        return;
      }
      res.writeHead(404);
      res.end();
    });
    // 3 s a page: ample for these pages on a loaded machine; the page that never settles waits it out.
    renderer = new Renderer({ concurrency: 2, timeoutMs: 3000, userAgent: 'collector-test' });
  });
  afterAll(async () => {
    await renderer?.close();
    for (const r of hanging) r.destroy();
    await site?.close();
  });

  const job = (path: string, body: string): RenderJob => ({
    url: `${site.origin}${path}`,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from(body),
    cookies: [{ name: 'sid', value: 'abc', domain: '127.0.0.1', path: '/', secure: false, httpOnly: true }],
  });

  it('answers the document itself, sends the cookies, counts the requests, loads no image or style sheet', async () => {
    const page = await renderer.render(job('/doc', APP));
    expect(page.html).toContain('<p id="out">answer1+sid=abc answer2+sid=abc</p>');
    expect(page.timedOut).toBe(false);
    expect(page.requests).toBe(2);
    expect(page.sameHostRequests).toBe(2);
    expect(page.blocked).toBeGreaterThanOrEqual(1); // the style sheet (and, in a full chromium, its favicon request)
    expect(site.hits('/doc')).toBe(0);
    expect(site.hits('/logo.png')).toBe(0);
    expect(site.hits('/app.css')).toBe(0);
    expect(site.requestsFor('/api/1')[0]?.headers['user-agent']).toBe('collector-test');
  });

  it("runs every browser thread below the crawl's CPU priority", async () => {
    await renderer.render(job('/nice', APP));
    // Chromium sets some threads' priority itself (as root, above ours): they are put back at the
    // end of a render, once a second at most.
    await new Promise((r) => setTimeout(r, 1100));
    await renderer.render(job('/nice2', APP));
    const tree = processTree(renderer.pid as number);
    expect(tree.length).toBeGreaterThan(1); // the browser and its renderer at least
    const nices = tree.flatMap((p) => [...threadNices(p).values()]);
    expect(nices.length).toBeGreaterThan(tree.length);
    expect(nices.filter((n) => n < BROWSER_NICE)).toEqual([]);
    expect([...threadNices(process.pid).values()].every((n) => n < BROWSER_NICE)).toBe(true);
  });

  it("a page's requests to its host make the host wait delay × requests", async () => {
    const paused: Array<[string, number]> = [];
    const rendering = new PageRendering({
      mode: 'auto',
      renderer,
      fetcher: { cookiesFor: () => [] },
      frontier: { pauseHost: (host, ms) => paused.push([host, ms]) },
      delayMs: 300,
      signal: new AbortController().signal,
    });
    const host = new URL(site.origin).host;
    await rendering.render(host, `${site.origin}/paced`, 200, 'text/html', Buffer.from(APP));
    expect(paused).toEqual([[host, 600]]);
  });

  it('a page that never settles is read as it stands at the time limit', async () => {
    const page = await renderer.render(job('/forever', FOREVER));
    expect(page.timedOut).toBe(true);
    expect(page.html).toMatch(/tick \d+/);
    // the next page renders as usual
    expect((await renderer.render(job('/after', APP))).html).toContain('answer1');
  });

  it('a browser killed while it renders fails its page with BrowserLost; the next page starts another', async () => {
    const before = renderer.pid as number;
    expect(alive(before)).toBe(true);
    onApi = () => {
      onApi = null;
      killTree(before);
    };
    await expect(renderer.render(job('/killed', APP))).rejects.toBeInstanceOf(BrowserLost);
    expect(renderer.lost).toBe(1);
    const page = await renderer.render(job('/again', APP));
    expect(page.html).toContain('answer2');
    expect(renderer.pid).not.toBe(before);
  });
});

describe.skipIf(!chromium)('Renderer, hung or idle', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startServer({}, (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x');
    });
  });
  afterAll(async () => {
    await site?.close();
  });
  const page = (path: string): RenderJob => ({
    url: `${site.origin}${path}`,
    status: 200,
    contentType: 'text/html',
    body: Buffer.from('<p>static</p>'),
    cookies: [],
  });

  it('a hung browser is killed by PID after the time limit and its grace; an idle one is closed', async () => {
    const renderer = new Renderer({
      concurrency: 1,
      // wide enough for a loaded machine's first page (a new tab); the stopped browser costs 4 s
      timeoutMs: 3000,
      hungGraceMs: 1000,
      idleCloseMs: 300,
      userAgent: 'collector-test',
    });
    try {
      await renderer.render(page('/first'));
      const hungPid = renderer.pid as number;
      const tree = processTree(hungPid);
      for (const pid of tree) {
        try {
          process.kill(pid, 'SIGSTOP');
        } catch {
          // a short-lived helper process already gone
        }
      }
      await expect(renderer.render(page('/stuck'))).rejects.toBeInstanceOf(BrowserLost);
      // SIGKILL is delivered, not awaited: each process is gone within moments.
      const gone = Date.now() + 5000;
      while (tree.some(alive) && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
      for (const pid of tree) expect(alive(pid), `pid ${pid}`).toBe(false);
      await renderer.render(page('/next'));
      const idlePid = renderer.pid as number;
      expect(idlePid).not.toBe(hungPid);
      const until = Date.now() + 15_000;
      while (alive(idlePid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(renderer.pid).toBeNull();
      expect(alive(idlePid)).toBe(false);
    } finally {
      await renderer.close();
    }
  });
});

it.skipIf(chromium)(
  'renderer tests skipped: chromium is not installed (apt-get install chromium; .ci/run does)',
  () => {},
);
