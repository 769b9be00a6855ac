/**
 * Two collectors ("machines") sharing one crawl through a real redis-server with the Bloom-filter
 * seen-set (`--seen-set bloom`): the union of their items is every page exactly once, no page
 * fetched twice (as with the exact set); a machine asking for the other kind is refused in one line;
 * the option is refused without a shared backend.
 */
import { describe, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { haveRedis, machineFlags, useRedis } from '../fixtures/redis-machines.js';
import type { TestRedis } from '../fixtures/redis-server.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

const HAVE_REDIS = haveRedis('Bloom crawl tests');

/** Pages of the fixture site: each links to a few others. */
const PAGES = 60;

function startSite(): Promise<FixtureServer> {
  return startServer({}, async (req, res) => {
    const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (m === null) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no');
      return;
    }
    const i = Number(m[1]);
    const links = [2 * i + 1, 2 * i + 2, i + 1, 0].filter((j) => j < PAGES).map((j) => `/p/${j}`);
    await new Promise((r) => setTimeout(r, 5));
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(`page ${i}`, links));
  });
}

function machine(seed: string, out: string, redis: TestRedis, ...extra: string[]): string[] {
  return ['crawl', seed, '--out', out, '--quiet', ...machineFlags(redis, 'bloom-crawl'), ...extra];
}

describe.skipIf(!HAVE_REDIS)('two machines, a Bloom seen-set', () => {
  const bench = useRedis();

  it('crawl the site: every page once in the union, none fetched twice; the other kind is refused', async () => {
    const site = await startSite();
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${site.origin}/p/0`;
      const flags = [
        '--seen-set',
        'bloom',
        '--bloom-capacity',
        '10000',
        '--bloom-error-rate',
        '0.0001',
        '--delay',
        '0',
        '--host-concurrency',
        '2',
      ];
      const ra = startCli(machine(seed, a, bench.redis, ...flags));
      const rb = startCli(machine(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const [ea, eb] = await Promise.all([waitExit(ra), waitExit(rb)]);
      expect(ea.code, ea.stderr).toBe(0);
      expect(eb.code, eb.stderr).toBe(0);
      const union = [...readItems(a), ...readItems(b)].map((i) => i.url).sort();
      const all = Array.from({ length: PAGES }, (_, i) => `${site.origin}/p/${i}`).sort();
      expect(union).toEqual(all);
      const fetched = site.requests.filter((r) => r.path.startsWith('/p/')).map((r) => r.path);
      expect(fetched.length).toBe(new Set(fetched).size);
      // The filter, not the exact set, held the crawl.
      const P = 'collector:{bloom-crawl}:';
      expect(await bench.redis.client.hget(`${P}seenset`, 'mode')).toBe('bloom');
      expect(await bench.redis.client.exists(`${P}seen`)).toBe(0);
      expect(Number(await bench.redis.client.get(`${P}n:seen`))).toBe(PAGES);
      // A third machine asking for the exact set joins no crawl: one line, nothing collected.
      const c = await runCli(machine(seed, tempDir(), bench.redis));
      expect(c.code).toBe(1);
      expect(c.stderr).toMatch(/seen-set is bloom .*--seen-set bloom/);
      expect(c.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await site.close();
    }
  });

  it('--seen-set bloom needs a shared backend; a bad rate is named', async () => {
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--out', tempDir(), '--seen-set', 'bloom']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--seen-set bloom: needs a shared backend/);
    const bad = await runCli([
      'crawl',
      'http://127.0.0.1:9/',
      '--out',
      tempDir(),
      '--backend',
      'redis://127.0.0.1:9/0',
      '--seen-set',
      'bloom',
      '--bloom-error-rate',
      '0.5',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/bloom.?error.?rate/i);
  });
});
