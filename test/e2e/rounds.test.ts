import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

// Continuous collection: `collector run` with `interval` fetches the seed again each round and
// collects only what is new.
let site: FixtureServer;
const seedLinks = ['a.html', 'b.html'];

beforeAll(async () => {
  site = await startServer(
    {
      '/news/': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        r.end(page('News', seedLinks));
      },
    },
    (req, res) => html(page(`Article ${req.url}`, []))(req, res),
  );
});

afterAll(async () => {
  await site.close();
});

describe('collector run: rounds', () => {
  it('re-fetches the seeds every interval and collects only new URLs, until SIGTERM', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      [
        `data: ${data}`,
        'workers:',
        '  - source: crawl',
        '    processes: 1',
        '    delay: 0',
        '    interval: 1s',
        '    robots: false',
        `    seeds: ["${site.origin}/news/"]`,
        '',
      ].join('\n'),
    );
    const child = startCli(['run', '--config', config, '--quiet']);
    const exited = waitExit(child);
    const urls = () => readItems(data).map((i) => i.url as string);
    await waitFor(() => urls().includes(`${site.origin}/news/b.html`));
    seedLinks.push('c.html');
    await waitFor(() => urls().includes(`${site.origin}/news/c.html`));
    // one more round with nothing new: the seed is unchanged now
    await waitFor(() =>
      readItems(data).some((i) => i.url === `${site.origin}/news/` && i.data?.unchanged === true),
    );
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.code).toBe(0);
    const got = urls();
    for (const p of ['a.html', 'b.html', 'c.html']) {
      expect(got.filter((u) => u === `${site.origin}/news/${p}`)).toHaveLength(1);
      expect(site.hits(`/news/${p}`)).toBe(1);
    }
    expect(got.filter((u) => u === `${site.origin}/news/`).length).toBeGreaterThanOrEqual(3);
    const status = JSON.parse(fs.readFileSync(path.join(data, 'status.json'), 'utf8'));
    expect(status.state).toBe('stopped');
  });
});
