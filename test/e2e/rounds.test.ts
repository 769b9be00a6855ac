import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, readItemsSoFar, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
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

/**
 * `collector run` of one crawl worker on the site's /news/, every `interval`, with the worker keys
 * `extra` (YAML lines): its data dir, and the child process with its exit.
 */
function startRun(interval: string, ...extra: string[]) {
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
      `    interval: ${interval}`,
      '    robots: false',
      ...extra,
      `    seeds: ["${site.origin}/news/"]`,
      '',
    ].join('\n'),
  );
  const child = startCli(['run', '--config', config, '--quiet']);
  return { data, child, exited: waitExit(child) };
}

describe('collector run: rounds', () => {
  it('re-fetches the seeds every interval and collects only new URLs, until SIGTERM', async () => {
    const { data, child, exited } = startRun('1s');
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

  it("writes a page's item only once its revisit record is on disk: a kill -9 leaves no collected page unknown to the next round", async () => {
    // Each item goes to disk at once (revisit records are buffered up to 500 ms).
    const { data, child, exited } = startRun('1h', '    saveEveryItems: 1');
    /** URLs with a record in the revisit logs now. */
    const known = () => {
      const urls = new Set<string>();
      const state = path.join(data, 'state');
      for (const w of fs.existsSync(state) ? fs.readdirSync(state) : []) {
        const log = path.join(state, w, 'revisits.log');
        if (!fs.existsSync(log)) continue;
        for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
          try {
            urls.add(JSON.parse(line).url as string);
          } catch {
            // a torn or empty line
          }
        }
      }
      return urls;
    };
    const pages = 1 + seedLinks.length;
    const unknown = new Set<string>();
    let items: string[] = [];
    const deadline = Date.now() + 60_000;
    while (items.length < pages && Date.now() < deadline) {
      // The items first: a record written after this read still counts.
      items = readItemsSoFar(data).map((i) => i.url as string);
      const k = known();
      for (const u of items) if (!k.has(u)) unknown.add(u);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    expect(items).toHaveLength(pages);
    expect([...unknown]).toEqual([]);
  });
});
