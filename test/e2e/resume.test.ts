import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// A 400-page site: each page links to the next 3 and to its "parent", answering after 5 ms so
// a crawl lasts long enough to be killed in the middle.
const N = 400;
let site: FixtureServer;
const allUrls = () => Array.from({ length: N }, (_, i) => `${site.origin}/p/${i}.html`);
/** Pages from this number on are held (not answered) until {@link release}; null: none held. */
let holdFrom: number | null = null;
const held: Array<() => void> = [];
function release(): void {
  holdFrom = null;
  for (const answer of held.splice(0)) answer();
}

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2, i + 3, Math.floor(i / 2)].filter((j) => j < N).map((j) => `${j}.html`);
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${i}`, links));
    };
    if (holdFrom !== null && i >= holdFrom) held.push(answer);
    else setTimeout(answer, 5);
  });
});

afterAll(async () => {
  await site.close();
});

const args = (out: string) => crawlArgs(`${site.origin}/p/0.html`, out, '--no-robots');

/** Wait until the crawl has written more than `n` items (a deadline for a hung crawl, not a speed check). */
async function waitForItems(out: string, n: number): Promise<void> {
  const file = path.join(out, 'items', 'crawl-0.jsonl');
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length > n);
}

function expectExactlyOnce(out: string): void {
  const urls = readItems(out).map((i) => i.url);
  expect(urls.length).toBe(N);
  expect(new Set(urls).size).toBe(N);
  expect([...urls].sort()).toEqual(allUrls().sort());
}

describe('crash safety and resume', () => {
  it('after kill -9 mid-crawl and --resume, every URL is in the items exactly once', async () => {
    for (const killAfter of [20, 120, 260]) {
      const out = tempDir();
      const child = startCli(args(out));
      const exited = waitExit(child);
      await waitForItems(out, killAfter);
      child.kill('SIGKILL');
      const r1 = await exited;
      expect(r1.signal).toBe('SIGKILL');
      const partial = readItems(out).length;
      expect(partial).toBeLessThan(N);
      const r2 = await runCli([...args(out), '--resume']);
      expect(r2.code).toBe(0);
      expectExactlyOnce(out);
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('with a 10-URL memory budget (the rest spilled to disk), kill -9 and --resume still give exactly once', async () => {
    const spillArgs = (out: string) => [...args(out), '--max-queued-in-memory', '10'];
    const out = tempDir();
    const child = startCli(spillArgs(out));
    const exited = waitExit(child);
    await waitForItems(out, 150);
    child.kill('SIGKILL');
    await exited;
    const r = await runCli([...spillArgs(out), '--resume']);
    expect(r.code).toBe(0);
    expectExactlyOnce(out);
    expect(fs.existsSync(path.join(out, 'state', 'crawl-0', 'spill.log'))).toBe(false);
  });

  it('repairs a torn last line left by a crash', async () => {
    const out = tempDir();
    await runCli([...args(out), '--max-pages', '50']);
    const file = path.join(out, 'items', 'crawl-0.jsonl');
    fs.appendFileSync(file, '{"url":"http://torn');
    fs.appendFileSync(path.join(out, 'state', 'crawl-0', 'frontier.log'), '3\thttp://to');
    // A body half written when the process died: its temp file is removed at the next start.
    fs.writeFileSync(path.join(out, 'state', 'tmp', 'deadbeef-7.part'), 'half a bo');
    const r = await runCli([...args(out), '--resume']);
    expect(r.code).toBe(0);
    expectExactlyOnce(out);
    expect(fs.readdirSync(path.join(out, 'state', 'tmp'))).toEqual([]);
  });

  it('resumes without seed URLs on the command line', async () => {
    const out = tempDir();
    await runCli([...args(out), '--max-pages', '30']);
    expect(readItems(out)).toHaveLength(30);
    const r = await runCli([
      'crawl',
      '--resume',
      '--processes',
      '1',
      '--out',
      out,
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    expectExactlyOnce(out);
  });

  it('SIGTERM stops gracefully (exit 0, state flushed, lock released) and --resume completes', async () => {
    const out = tempDir();
    const child = startCli(args(out));
    const exited = waitExit(child);
    await waitForItems(out, 60);
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.code).toBe(0);
    const got = readItems(out);
    expect(got.length).toBeGreaterThan(60);
    expect(got.length).toBeLessThan(N);
    expect(new Set(got.map((i) => i.url)).size).toBe(got.length);
    expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(false);
    const r2 = await runCli([...args(out), '--resume']);
    expect(r2.code).toBe(0);
    expectExactlyOnce(out);
  });

  it('refuses a second crawl on a locked --out', async () => {
    const out = tempDir();
    // the crawl cannot end (pages from /p/20 on wait) while the second collectors are refused
    holdFrom = 20;
    const child = startCli(args(out));
    const exited = waitExit(child);
    await waitForItems(out, 5);
    const r = await runCli([...args(out), '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/in use by another collector/);
    // without --resume too: the running collector is the reason given, not "add --resume"
    const again = await runCli(args(out));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^collector: --out .*: in use by another collector \(pid \d+/);
    expect(again.stderr).not.toMatch(/--resume/);
    child.kill('SIGKILL');
    await exited;
    release();
  });
});
