/**
 * The watchdog's stall rule on real processes: a site that stops answering mid-crawl leaves the
 * collector with work pending and no progress; the watchdog stops it (SIGTERM, in-flight requests
 * abandoned), starts it again, and once the site answers again the crawl ends with every URL
 * collected exactly once.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { readStatus, stopRecordedCollector } from '../fixtures/ops.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const PAGES = 40;
const ANSWER_FIRST = 12;
let site: FixtureServer;
let served = 0;
let hanging = true;
const held: http.ServerResponse[] = [];
let data = '';

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    // After the first pages the site stops answering (the connection stays open, silent).
    if (hanging && served >= ANSWER_FIRST) {
      held.push(res);
      return;
    }
    served++;
    const i = Number(m[1]);
    html(page(`page ${i}`, [`p${(i + 1) % PAGES}.html`, `p${(i + 2) % PAGES}.html`]))(req, res);
  });
});

afterAll(async () => {
  if (data) await stopRecordedCollector(data);
  for (const r of held) r.destroy();
  await site.close();
});

function setUp(): string {
  const dir = tempDir();
  data = path.join(dir, 'data');
  const config = path.join(dir, 'collector.yaml');
  fs.writeFileSync(
    config,
    [
      `data: ${data}`,
      // The supervisor's own stall restart is far off: this is the watchdog's to find.
      'supervisor: { joinTimeout: 1s, stallTimeout: 10m }',
      'workers:',
      '  - name: docs',
      '    source: crawl',
      '    processes: 2',
      '    delay: 0',
      '    timeout: 10m',
      '    joinTimeout: 1s',
      `    seeds: [${site.origin}/p0.html]`,
      '',
    ].join('\n'),
  );
  return config;
}

it('a site that stops answering: stall found, collector restarted, every URL collected once', async () => {
  const config = setUp();
  const run = startCli(['run', '--config', config, '--quiet']);
  const exited = waitExit(run);
  await waitFor(() => held.length > 0 && (readStatus(data)?.totals?.items ?? 0) >= ANSWER_FIRST, 60_000);
  // Healthy by a 10-minute rule, stalled by a 2-second one.
  expect((await runCli(['watchdog', '--data', data])).stdout).toBe('');
  await new Promise((r) => setTimeout(r, 2500));
  const wd = await runCli(['watchdog', '--data', data, '--stall', '2s', '--settle', '60s']);
  expect(wd.stdout).toMatch(/^restarted: no progress for \d+s with \d+ URLs pending; 2\/2 workers up\n$/);
  expect(wd.code).toBe(1);
  expect((await exited).code).toBe(0); // the old supervisor stopped gracefully on SIGTERM
  // The site answers again: the restarted collector finishes the crawl.
  hanging = false;
  for (const r of held.splice(0)) r.destroy();
  await waitFor(() => readStatus(data)?.state === 'finished', 60_000);
  const urls = readItems(data).map((i) => i.url);
  expect(urls.filter((u) => !u.endsWith('robots.txt'))).toHaveLength(PAGES);
  expect(new Set(urls).size).toBe(urls.length);
  expect(readItems(data).filter((i) => i.error)).toEqual([]);
});

it('a supervisor that ignores SIGTERM (stopped) is SIGKILLed after the join timeout, proven ours first', async () => {
  hanging = true;
  served = 0;
  const config = setUp();
  const run = startCli(['run', '--config', config, '--quiet']);
  const exited = waitExit(run);
  await waitFor(() => held.length > 0 && (readStatus(data)?.totals?.items ?? 0) >= ANSWER_FIRST, 60_000);
  await new Promise((r) => setTimeout(r, 2500));
  run.kill('SIGSTOP'); // it cannot act on SIGTERM now
  const wd = await runCli(['watchdog', '--data', data, '--stall', '2s', '--settle', '60s']);
  expect(wd.stdout).toMatch(
    new RegExp(
      `^restarted: no progress for \\d+s with \\d+ URLs pending \\(killed supervisor ${run.pid}\\); 2/2 workers up\n$`,
    ),
  );
  expect((await exited).signal).toBe('SIGKILL');
  hanging = false;
  for (const r of held.splice(0)) r.destroy();
  await waitFor(() => readStatus(data)?.state === 'finished', 60_000);
  const urls = readItems(data).map((i) => i.url);
  expect(urls).toHaveLength(PAGES);
  expect(new Set(urls).size).toBe(PAGES);
});
