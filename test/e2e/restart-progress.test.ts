import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crawlArgs,
  itemCount,
  readItems,
  runCli,
  startCli,
  tempDir,
  waitExit,
  waitFor,
} from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// Issue 17 (7): items were made durable every 50 items or 5 s, so a crawl of a slow site killed
// every few seconds never kept anything. Now a finished page is acknowledged within 200 ms.
// And after a worker restart the summary's counts equal the lines in the items files.
const N = 40;
let site: FixtureServer;
let delayMs = 300;

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2].filter((j) => j < N).map((j) => `${j}.html`);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${i}`, links));
    }, delayMs);
  });
});

afterAll(async () => {
  await site.close();
});

describe('progress across frequent restarts', () => {
  it('a slow site killed 1.5 s into every run still gains items each run, and ends exactly once', async () => {
    const out = tempDir();
    const args = [
      ...crawlArgs(`${site.origin}/p/0.html`, out, '--no-robots', '--concurrency', '1'),
      '--resume',
    ];
    let before = 0;
    for (let run = 0; run < 4; run++) {
      const mark = site.requests.length;
      const child = startCli(args);
      const exited = waitExit(child);
      // ~5 pages of 300 ms fetched this run (counted, not timed: a loaded machine starts slowly),
      // then their items must reach the disk within a few seconds while it keeps crawling.
      await waitFor(() => site.requests.length > mark + 5, 30_000);
      await waitFor(() => itemCount(out) > before, 5_000);
      child.kill('SIGKILL');
      await exited;
      const now = itemCount(out);
      expect(now, `run ${run}`).toBeGreaterThan(before);
      before = now;
    }
    delayMs = 0;
    try {
      expect((await runCli(args)).code).toBe(0);
    } finally {
      delayMs = 300;
    }
    const urls = readItems(out).map((i) => i.url);
    expect(urls.length).toBe(N);
    expect(new Set(urls).size).toBe(N);
  }, 90_000);

  it('after a worker is killed and restarted, the summary counts every line written this run', async () => {
    delayMs = 150; // a few seconds: status.json (every 2 s) shows the workers mid-crawl
    try {
      const out = tempDir();
      const child = startCli([
        'crawl',
        `${site.origin}/p/0.html`,
        '--processes',
        '2',
        '--delay',
        '0',
        '--no-robots',
        '--out',
        out,
      ]);
      const exited = waitExit(child);
      type W = { id: string; pid: number | null; items: number };
      let victim: W | undefined;
      await waitFor(() => {
        const file = path.join(out, 'status.json');
        const ws: W[] = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).workers : [];
        victim = ws.find((w) => w.pid !== null && w.items >= 3);
        return victim !== undefined;
      }, 20_000);
      if (victim?.pid == null) throw new Error('no victim');
      process.kill(victim.pid, 'SIGKILL');
      const r = await exited;
      expect(r.code).toBe(0);
      const lines = itemCount(out);
      expect(lines).toBe(N);
      expect(r.stderr).toContain(`collector: ${lines} items this run (${lines} total)`);
      const final = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
      expect(final.totals).toMatchObject({ items: lines, itemsThisRun: lines });
      expect(final.workers.find((w: W & { restarts: number }) => w.id === victim?.id).restarts).toBe(1);
    } finally {
      delayMs = 300;
    }
  }, 60_000);
});
