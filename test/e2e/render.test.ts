/**
 * `--render` end to end against a single-page application written for it (test/fixtures/spa-site.ts)
 * and Debian's chromium: `auto` renders exactly the app's pages (not the plain site's) and collects
 * their content and client-side links; `never` stores the shell; `always` renders plain pages too;
 * a browser killed in the middle of a crawl is started again and its page fetched again, each URL
 * still one item. Chromium only ever loads pages of the two loopback fixture servers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, processTree } from '../../src/http/chromium.js';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { SPA_SHELL, type SpaSite, startSpaSite } from '../fixtures/spa-site.js';

const chromium = chromiumPath();

/** The item of each URL path (`/app/guide`), asserting every URL has exactly one. */
function byPath(out: string): Map<string, Record<string, any>> {
  const items = readItems(out);
  const urls = items.map((i) => i.url);
  expect(new Set(urls).size).toBe(urls.length);
  return new Map(items.map((i) => [new URL(i.url).pathname, i]));
}

/** A crawl of the app (and the plain site it links to) with `--render auto`, 2 s per page at most. */
const autoArgs = (site: SpaSite, out: string) =>
  crawlArgs(`${site.app.origin}/app/`, out, '--scope', 'any', '--render', 'auto', '--render-timeout', '2s');

const stored = (out: string, item: Record<string, any> | undefined) =>
  fs.readFileSync(path.join(out, item?.file as string), 'utf8');

describe.skipIf(!chromium)('--render against a single-page application', () => {
  let site: SpaSite;
  beforeAll(async () => {
    site = await startSpaSite();
  });
  afterAll(async () => {
    await site?.close();
  });

  it('auto renders exactly the app shells and collects their content and client-side links', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(autoArgs(site, out));
    expect(r.code, r.stderr).toBe(0);
    const items = byPath(out);
    const app = ['/app/', '/app/guide', '/app/guide/install', '/app/api', '/app/broken', '/app/forever'];
    expect([...items.keys()].sort()).toEqual([...app, '/plain/', '/plain/1.html'].sort());
    for (const p of app) {
      expect(items.get(p)?.data?.rendered, p).toBe(true);
      expect(['empty-root', 'noscript', 'script-weight', 'host'], p).toContain(
        items.get(p)?.data?.renderedBy,
      );
    }
    for (const p of ['/plain/', '/plain/1.html']) {
      expect(items.get(p)?.data?.rendered, p).toBeUndefined();
      expect(items.get(p)?.title).toBe(p === '/plain/' ? 'Plain 0' : 'Plain 1');
    }
    // Content from the JSON endpoint (sent the session cookie of the worker's jar), from the DOM.
    const guide = items.get('/app/guide');
    expect(guide?.title).toBe('Guide');
    expect(stored(out, guide)).toContain('The guide explains how rendering works.');
    expect(items.get('/app/guide/install')?.title).toBe('Install');
    expect(items.get('/app/')?.title).toBe('App home');
    // The route that throws is stored as its DOM stands; the one that never settles at the limit.
    expect(items.get('/app/broken')?.data?.scriptErrors).toBe(1);
    expect(items.get('/app/broken')?.error).toBeUndefined();
    expect(items.get('/app/forever')?.data?.renderTimedOut).toBe(true);
    expect(stored(out, items.get('/app/forever'))).toMatch(/tick \d+/);
    // The browser never fetched a document (each was fetched once, by HTTP) nor an image.
    expect(site.app.hits('/app/guide')).toBe(1);
    expect(site.app.hits('/assets/logo.png')).toBe(0);
    expect(site.app.requests.some((q) => q.path.startsWith('/api/page') && !q.headers.cookie)).toBe(false);
  });

  it("status.json counts the browser's memory while it renders", async () => {
    // The route that never settles keeps the browser busy for the whole 6 s limit: status.json,
    // written every 2 s, is written at least twice while it runs.
    const out = path.join(tempDir(), 'out');
    const child = startCli(
      crawlArgs(`${site.app.origin}/app/forever`, out, '--render', 'always', '--render-timeout', '6s'),
    );
    const seen: Array<{ pssMB: number; browserMB?: number; rendered?: number }> = [];
    let exited = false;
    const exit = waitExit(child).finally(() => {
      exited = true;
    });
    while (!exited) {
      try {
        seen.push(JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8')).workers[0]);
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await exit).code).toBe(0);
    expect(
      seen.some((w) => (w.browserMB ?? 0) > 20),
      JSON.stringify(seen),
    ).toBe(true);
    expect(
      seen.some((w) => w.pssMB > 20),
      JSON.stringify(seen),
    ).toBe(true);
    const last = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
    expect(last.state).toBe('finished');
    expect(last.workers[0].rendered).toBe(1);
    expect(last.workers[0].pagesPerSec).toBe(0); // ended: it fetches nothing
  });

  it('never stores the shells: no links found, no browser', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs(`${site.app.origin}/app/`, out, '--scope', 'any'));
    expect(r.code, r.stderr).toBe(0);
    const items = byPath(out);
    expect([...items.keys()]).toEqual(['/app/']);
    expect(items.get('/app/')?.data?.rendered).toBeUndefined();
    expect(items.get('/app/')?.title).toBe('Loading…');
    expect(stored(out, items.get('/app/'))).toBe(SPA_SHELL);
  });

  it('always renders plain pages too', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs(`${site.plain.origin}/plain/`, out, '--render', 'always'));
    expect(r.code, r.stderr).toBe(0);
    const items = byPath(out);
    expect([...items.keys()].sort()).toEqual(['/plain/', '/plain/1.html']);
    for (const i of items.values()) expect(i.data).toMatchObject({ rendered: true, renderedBy: 'always' });
  });
});

describe.skipIf(!chromium)('a browser killed in the middle of a crawl', () => {
  let site: SpaSite;
  let collector: number | null = null;
  let killed: number[] = [];
  beforeAll(async () => {
    let done = false;
    site = await startSpaSite({
      pages: () => ({
        '/app/': { title: 'Home', text: 'Home.', links: ['/app/a', '/app/b', '/app/c'] },
        '/app/a': { title: 'A', text: 'Page A.', links: [] },
        '/app/b': { title: 'B', text: 'Page B.', links: [] },
        '/app/c': { title: 'C', text: 'Page C.', links: [] },
      }),
      // While the browser renders /app/b, its whole process tree is killed by PID.
      onApi: (p) => {
        if (p !== '/app/b' || done || collector === null) return;
        done = true;
        killed = processTree(collector).filter((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('chromium');
          } catch {
            return false;
          }
        });
        for (const pid of killed) process.kill(pid, 'SIGKILL');
      },
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('is started again, its page fetched again: each URL one item, with its content', async () => {
    const out = path.join(tempDir(), 'out');
    const child = startCli(crawlArgs(`${site.app.origin}/app/`, out, '--render', 'always'));
    collector = child.pid ?? null;
    const r = await waitExit(child);
    expect(r.code, r.stderr).toBe(0);
    expect(killed.length).toBeGreaterThan(0);
    for (const pid of killed) expect(fs.existsSync(`/proc/${pid}`) && !isZombie(pid)).toBe(false);
    const items = byPath(out);
    expect([...items.keys()].sort()).toEqual(['/app/', '/app/a', '/app/b', '/app/c']);
    for (const [p, i] of items) {
      expect(i.data?.rendered, p).toBe(true);
      expect(i.error, p).toBeUndefined();
    }
    expect(stored(out, items.get('/app/b'))).toContain('Page B.');
    // The shell of /app/b was fetched again with the new browser.
    expect(site.app.hits('/app/b')).toBe(2);
    const log = fs.readFileSync(path.join(out, 'logs', fs.readdirSync(path.join(out, 'logs'))[0]), 'utf8');
    expect(log).toContain('browser lost');
  });
});

describe.skipIf(!chromium)('a collector killed -9 while it renders', () => {
  let site: SpaSite;
  let collector = 0;
  let tree: number[] = [];
  beforeAll(async () => {
    site = await startSpaSite({
      // The first API call of the browser: the collector is killed -9 while the page renders.
      onApi: () => {
        if (tree.length > 0 || collector === 0) return;
        tree = processTree(collector);
        process.kill(collector, 'SIGKILL');
      },
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('leaves no browser behind; --resume renders the rest, each URL one item', async () => {
    const out = path.join(tempDir(), 'out');
    const args = autoArgs(site, out);
    const child = startCli(args);
    collector = child.pid as number;
    await waitExit(child);
    expect(tree.length).toBeGreaterThan(1); // the collector and its browser's processes
    const until = Date.now() + 10_000;
    const left = () => tree.filter((pid) => fs.existsSync(`/proc/${pid}`) && !isZombie(pid));
    while (left().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(left()).toEqual([]);
    const r = await runCli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const items = byPath(out);
    expect(items.size).toBe(8);
    expect(items.get('/app/guide')?.title).toBe('Guide');
    for (const p of ['/app/', '/app/guide', '/app/api']) expect(items.get(p)?.data?.rendered, p).toBe(true);
  });
});

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('--render without Chromium', () => {
  it('refuses in one line naming the chromium package', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs('http://127.0.0.1:9/', out, '--render', 'auto'), {
      CHROMIUM_PATH: '/nonexistent/chromium',
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/install the Debian package `chromium-headless-shell` or `chromium`/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

it.skipIf(chromium)(
  'render tests skipped: chromium is not installed (apt-get install chromium; .ci/run does)',
  () => {},
);
