/**
 * The page thread dying under a crawl (out of memory on some page, simulated by a test source
 * that exits the thread on /crash.html): the pages it held are fetched again and stored; only
 * the page that kills it ends as an error, after its retries.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';
import { testSource } from '../fixtures/test-sources.js';

const LEAVES = Array.from({ length: 20 }, (_, i) => `p${i}.html`);
let site: FixtureServer;

beforeAll(async () => {
  const routes: Record<string, ReturnType<typeof html>> = {
    '/': html(page('Home', ['crash.html', ...LEAVES])),
    '/crash.html': html(page('Crash')),
  };
  for (const l of LEAVES) routes[`/${l}`] = html(page(`Leaf ${l}`));
  site = await startServer(routes);
});
afterAll(() => site.close());

describe('page thread failure', () => {
  it('fetches again what a dead page thread held; the page that kills it ends as an error', async () => {
    const dir = tempDir();
    try {
      const config = path.join(dir, 'collector.yaml');
      fs.writeFileSync(
        config,
        [
          `data: ${path.join(dir, 'data')}`,
          'workers:',
          `  - source: ${testSource('thread-crash')}`,
          '    processes: 1',
          '    pageThread: true',
          '    concurrency: 8',
          '    hostConcurrency: 8',
          '    delay: 0',
          '    retries: 2',
          '    retryBackoff: 10ms',
          '    robots: false',
          `    seeds: ["${site.origin}/"]`,
          '',
        ].join('\n'),
      );
      const r = await runCli(['run', '--config', config, '--quiet']);
      expect(r.code).toBe(0);
      const items = readItems(path.join(dir, 'data'));
      const byPath = new Map(items.map((i) => [new URL(i.url).pathname, i]));
      expect(items).toHaveLength(LEAVES.length + 2);
      expect(byPath.size).toBe(items.length);
      const crash = byPath.get('/crash.html')!;
      expect(crash.error.kind).toBe('decode');
      expect(crash.error.message).toMatch(/page thread failed/);
      // It killed the thread on every try: once, then twice more (--retries 2).
      expect(site.hits('/crash.html')).toBe(3);
      for (const l of LEAVES) {
        const it = byPath.get(`/${l}`)!;
        expect(it.error).toBeUndefined();
        expect(it.title).toBe(`Leaf ${l}`);
        expect(it.data?.storeError, JSON.stringify(it)).toBeUndefined();
        expect(fs.existsSync(path.join(dir, 'data', it.file))).toBe(true);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a page thread that dies at every start does not loop the crawl: the page ends as an error', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      [
        `data: ${path.join(dir, 'data')}`,
        'workers:',
        `  - source: ${testSource('thread-dead')}`,
        '    processes: 1',
        '    pageThread: true',
        '    delay: 0',
        '    retries: 1',
        '    retryBackoff: 10ms',
        '    robots: false',
        `    seeds: ["${site.origin}/"]`,
        '',
      ].join('\n'),
    );
    const before = site.hits('/');
    const r = await runCli(['run', '--config', config, '--quiet']);
    expect(r.code).toBe(69); // the only seed failed: nothing collected
    const items = readItems(path.join(dir, 'data'));
    expect(items).toHaveLength(1);
    expect(items[0].error.kind).toBe('decode');
    expect(items[0].error.message).toMatch(/page thread failed/);
    // 3 free tries, then the first try and one retry (--retries 1) that count.
    expect(site.hits('/') - before).toBe(5);
  });
});
