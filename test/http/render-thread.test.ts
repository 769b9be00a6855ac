/**
 * The render thread (`RenderThread` with the compiled `dist/http/render-worker.js`) against a
 * loopback fixture and Debian's Chromium: pages render through it as through the renderer, the
 * thread and its browser run below the crawl's CPU priority, an abort answers at once, a lost
 * browser and a lost thread fail their pages with BrowserLost, and close ends browser and thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_NICE, chromiumPath, killTree, processTree } from '../../src/http/chromium.js';
import { RenderThread } from '../../src/http/render-thread.js';
import { BrowserLost, type RenderJob } from '../../src/http/renderer.js';
import { type FixtureServer, startServer } from '../fixtures/site-server.js';
import { threadNices } from '../fixtures/thread-nice.js';

const chromium = chromiumPath();
const WORKER = path.resolve('dist/http/render-worker.js');

const APP = `<!doctype html><html><head><title>app</title></head><body><div id="root"></div><script>
(async () => { document.getElementById('root').innerHTML = '<p id="out">' + (await (await fetch('/api/1')).text()) + '</p>'; })();
</script></body></html>`;
const FOREVER = `<!doctype html><html><body><script>fetch('/hang');</script></body></html>`;

const alive = (pid: number) =>
  fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe.skipIf(!chromium)('RenderThread', () => {
  let site: FixtureServer;
  const hanging: Array<{ destroy(): void }> = [];
  beforeAll(async () => {
    site = await startServer({}, (req, res) => {
      if (req.url === '/hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('answer');
    });
  });
  afterAll(async () => {
    for (const r of hanging) r.destroy();
    await site?.close();
  });
  const job = (p: string, body: string, signal?: AbortSignal): RenderJob => ({
    url: `${site.origin}${p}`,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from(body),
    cookies: [],
    signal,
  });
  const open = () =>
    new RenderThread({ concurrency: 2, timeoutMs: 3000, userAgent: 'collector-test' }, WORKER);

  it("renders in a thread below the crawl's CPU priority, its browser too; close ends both", async () => {
    const events: string[] = [];
    const r = new RenderThread(
      { concurrency: 2, timeoutMs: 3000, userAgent: 'collector-test', onBrowser: (e) => events.push(e) },
      WORKER,
    );
    const before = threadNices(process.pid);
    try {
      const page = await r.render(job('/a', APP));
      expect(page.html).toContain('<p id="out">answer</p>');
      expect(page.requests).toBe(1);
      expect(r.rendered).toBe(1);
      expect(page.timedOut).toBe(false);
      const pid = r.pid as number;
      expect(pid).toBeGreaterThan(0);
      expect(events).toEqual(['started']);
      // the thread: a thread of this process that was not there before, at the browser's nice value
      const added = [...threadNices(process.pid)].filter(([t]) => !before.has(t)).map(([, n]) => n);
      expect(added).toContain(BROWSER_NICE);
      expect(threadNices(process.pid).get(process.pid)).toBe(0);
      // the browser's processes, every thread (those Chromium raises itself are put back at the end
      // of a render, once a second at most)
      await new Promise((s) => setTimeout(s, 1100));
      await r.render(job('/a2', APP));
      const nices = processTree(pid).flatMap((p) => [...threadNices(p).values()]);
      expect(nices.length).toBeGreaterThan(1);
      expect(nices.filter((n) => n < BROWSER_NICE)).toEqual([]);
      await r.close();
      const until = Date.now() + 5000;
      while (alive(pid) && Date.now() < until) await new Promise((s) => setTimeout(s, 20));
      expect(alive(pid)).toBe(false);
      expect(r.pid).toBeNull();
      await expect(r.render(job('/b', APP))).rejects.toThrow('renderer closed');
    } finally {
      await r.close();
    }
  });

  it('an abort answers at once; the next page renders', async () => {
    const r = open();
    try {
      const abort = new AbortController();
      const stuck = r.render(job('/stuck', FOREVER, abort.signal));
      await new Promise((s) => setTimeout(s, 300));
      abort.abort();
      await expect(stuck).rejects.toThrow('render aborted');
      expect((await r.render(job('/after', APP))).html).toContain('answer');
    } finally {
      await r.close();
    }
  });

  it('a browser killed while it renders fails its page with BrowserLost through the thread; the next page starts another', async () => {
    const r = open();
    try {
      await r.render(job('/first', APP));
      const first = r.pid as number;
      const stuck = r.render(job('/stuck2', FOREVER));
      await new Promise((s) => setTimeout(s, 300));
      killTree(first);
      await expect(stuck).rejects.toBeInstanceOf(BrowserLost);
      expect((await r.render(job('/next', APP))).html).toContain('answer');
      expect(r.pid).not.toBe(first);
      expect(r.lost).toBe(1);
    } finally {
      await r.close();
    }
  });
});

describe('RenderThread whose thread ends unasked', () => {
  it('fails the page with BrowserLost naming the exit; the next page starts the thread again', async () => {
    const r = new RenderThread(
      { concurrency: 1, timeoutMs: 1000, userAgent: 'collector-test' },
      path.resolve('test/fixtures/render-worker-exit.mjs'),
    );
    const j: RenderJob = {
      url: 'http://127.0.0.1:9/x',
      status: 200,
      contentType: 'text/html',
      body: Buffer.from('x'),
      cookies: [],
    };
    try {
      await expect(r.render(j)).rejects.toThrow(/render thread exited with code 3/);
      await expect(r.render(j)).rejects.toBeInstanceOf(BrowserLost);
    } finally {
      await r.close();
    }
  });
});

it.skipIf(chromium)(
  'render thread tests skipped: chromium is not installed (apt-get install chromium-headless-shell; .ci/run does)',
  () => {},
);
