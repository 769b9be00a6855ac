import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// Issue 17 (2): after a kill -9 of the supervisor its workers finish their in-flight requests
// and write their items; a --resume started at once read the state first and fetched those URLs
// again. Now the new run waits for the previous run's workers (their state-dir locks) to exit.
const N = 40;
let site: FixtureServer;
/** Lets the held pages answer (see the server below). */
let release: () => void = () => {};
const held = new Promise<void>((r) => {
  release = r;
});

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = i === 0 ? Array.from({ length: N - 1 }, (_, j) => `${j + 1}.html`) : [];
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${i}`, links));
    };
    // The seed takes 1 s; the other pages wait for the test's release (or 60 s): a killed
    // supervisor's workers still have requests in flight when the resume starts, however slowly
    // a busy machine starts it.
    if (i === 0) setTimeout(answer, 1000);
    else {
      const t = setTimeout(answer, 60_000);
      void held.then(() => {
        clearTimeout(t);
        answer();
      });
    }
  });
});

afterAll(async () => {
  await site.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('orphaned workers', () => {
  it('kill -9 of the supervisor, --resume at once: it waits for the old workers, and every URL is written once', async () => {
    const out = tempDir();
    const args = [
      'crawl',
      `${site.origin}/p/0.html`,
      '--processes',
      '2',
      '--concurrency',
      '20',
      '--host-concurrency',
      '40',
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
      '--out',
      out,
    ];
    const sup = startCli(args);
    const supExit = waitExit(sup);
    // The seed's item is written: its 39 links are being fetched by both workers (6 s each).
    await waitFor(() => readItems(out).length >= 1, 30_000);
    // (a deadline, not a speed check: requests still open are what matters when the kill comes)
    await waitFor(() => site.requests.filter((q) => q.closedAt === null).length >= 30, 30_000);
    const status = JSON.parse(fs.readFileSync(`${out}/status.json`, 'utf8'));
    const workers: number[] = status.workers.map((w: { pid: number }) => w.pid);
    expect(workers.every(alive)).toBe(true);
    sup.kill('SIGKILL');
    await supExit;
    const resume = startCli([...args, '--resume']);
    let stderr = '';
    resume.stderr?.on('data', (d) => {
      stderr += d;
    });
    const resumed = waitExit(resume);
    // the resume says it waits for both old workers (a deadline: a resume that does not wait
    // fails below), then their requests are answered
    await waitFor(() => /waiting for 2 workers/.test(stderr)).catch(() => {});
    release();
    const r = await resumed;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/waiting for 2 workers of the previous run to exit \(pids \d+, \d+\)/);
    expect(workers.some(alive)).toBe(false);
    const items = readItems(out);
    const urls = items.map((i) => i.url);
    expect(urls.length).toBe(N);
    expect(new Set(urls).size).toBe(N);
    // The old workers' bodies were stored too (their temp files were not removed under them).
    expect(items.filter((i) => i.error || i.data?.storeError || !i.file)).toEqual([]);
  });
});
