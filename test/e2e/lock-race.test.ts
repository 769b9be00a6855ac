import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  crawlArgs,
  readItems,
  runCli,
  startCli,
  tempDir,
  waitExit,
  waitFor,
} from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// Issue 17 (1): after a kill -9, two `crawl --resume` started together on one --out both took
// the stale lock (read pid → dead → remove → create). Here 20 pairs race, each after a kill -9
// of the previous winner: exactly one of each pair runs, the other exits 2 with one clear line,
// and the items end up exactly once.
const N = 300;
let site: FixtureServer;
let delayMs = 300; // slow pages: a winner holds the lock for a while

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2, Math.floor(i / 2)].filter((j) => j < N).map((j) => `${j}.html`);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${i}`, links));
    }, delayMs);
  });
});

afterAll(async () => {
  await site.close();
});

describe('stale lock race', () => {
  it('20 pairs of --resume started together after a kill -9: one runs, the other exits 2', async () => {
    const out = tempDir();
    const args = [...crawlArgs(`${site.origin}/p/0.html`, out, '--no-robots'), '--resume'];
    const first = startCli(args);
    const firstExit = waitExit(first);
    await waitFor(() => readItems(out).length >= 1, 60_000);
    first.kill('SIGKILL');
    await firstExit;
    for (let pair = 0; pair < 20; pair++) {
      expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(true); // stale: its holder was killed
      const a = startCli(args);
      const b = startCli(args);
      try {
        const exits = [waitExit(a), waitExit(b)];
        const firstDone = await Promise.race([
          ...exits.map((p, i) => p.then((r) => ({ i, r }))),
          new Promise<null>((r) => setTimeout(() => r(null), 60_000)),
        ]);
        expect(firstDone, `pair ${pair}: both took the lock`).not.toBeNull();
        const { i, r } = firstDone as { i: number; r: CliResult };
        expect(r.code, `pair ${pair}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(
          /^collector: --out .*: in use by another collector \(pid \d+, started [0-9T:-]+Z\); stop it first/,
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        const winner = i === 0 ? b : a;
        expect(winner.exitCode, `pair ${pair}: the winner stopped by itself`).toBeNull();
        winner.kill('SIGKILL');
        expect((await exits[1 - i]).signal).toBe('SIGKILL');
      } finally {
        for (const c of [a, b]) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }
    }
    delayMs = 0;
    const last = await runCli(args);
    expect(last.code).toBe(0);
    const urls = readItems(out).map((it) => it.url);
    expect(urls.length).toBe(N);
    expect(new Set(urls).size).toBe(N);
  });
});
