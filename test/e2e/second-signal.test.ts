/**
 * A second SIGINT abandons the request in flight at once (issue 15, point 4): the summary says the
 * crawl stopped with that URL pending and that `--resume` continues it, and `--resume` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let site: FixtureServer;
let hang = true;

beforeAll(async () => {
  site = await startServer({
    '/s/': html(page('Start', ['slow.html'])),
    // Held open while `hang` (the first crawl), answered afterwards (the resume).
    '/s/slow.html': (_req, res) => {
      if (!hang) html(page('Slow'))(_req, res);
    },
  });
});
afterAll(async () => {
  await site.close();
});

describe('a second SIGINT', () => {
  it.each([
    ['one process', '1'],
    ['two processes', '2'],
  ])(
    '%s: the summary says stopped, --resume continues; --resume fetches the abandoned URL',
    async (_n, processes) => {
      hang = true;
      const out = tempDir();
      const args = [
        'crawl',
        `${site.origin}/s/`,
        '--out',
        out,
        '--processes',
        processes,
        '--delay',
        '0',
        '--no-robots',
      ];
      const child = startCli([...args, '--timeout', '120s']);
      const exited = waitExit(child);
      const before = site.hits('/s/slow.html');
      await waitFor(() => site.hits('/s/slow.html') > before, 30_000);
      // With workers, their counts (the request in flight) reach the supervisor every second.
      if (processes !== '1') await new Promise((r) => setTimeout(r, 1500));
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 200));
      child.kill('SIGINT');
      const r = await exited;
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /^collector: 1 items this run \(1 total\), 0 errors, 1 queued \(stopped: --resume continues\)/m,
      );
      // One process flushes its items at the end; killed workers may not have (their items
      // are fetched again on --resume): either way, each URL once in the end.
      if (processes === '1') expect(readItems(out).map((i) => new URL(i.url).pathname)).toEqual(['/s/']);

      hang = false;
      const resumed = await runCli([...args, '--resume', '--quiet']);
      expect(resumed.code).toBe(0);
      expect(
        readItems(out)
          .map((i) => new URL(i.url).pathname)
          .sort(),
      ).toEqual(['/s/', '/s/slow.html']);
    },
    90_000,
  );
});
