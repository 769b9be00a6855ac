/**
 * Two collectors ("machines") sharing one crawl through a real redis-server with the Bloom-filter
 * seen-set (`--seen-set bloom`): the union of their items is every page exactly once, no page
 * fetched twice (as with the exact set); a machine asking for the other kind is refused in one line;
 * the option is refused without a shared backend.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

const HAVE_REDIS = redisServerPath() !== null;
if (!HAVE_REDIS)
  console.warn('redis-server not installed: Bloom crawl tests skipped (apt-get install redis-server)');

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
  return [
    'crawl',
    seed,
    '--out',
    out,
    '--quiet',
    '--backend',
    redis.url,
    '--crawl-id',
    'bloom-crawl',
    '--lease-timeout',
    '10s',
    ...extra,
  ];
}

describe.skipIf(!HAVE_REDIS)('two machines, a Bloom seen-set', () => {
  let redis: TestRedis;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of children)
      if (c.exitCode === null && c.signalCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
    await redis?.stop();
  });

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
      const ra = startCli(machine(seed, a, redis, ...flags));
      const rb = startCli(machine(seed, b, redis, ...flags));
      children.push(ra, rb);
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
      expect(await redis.client.hget(`${P}seenset`, 'mode')).toBe('bloom');
      expect(await redis.client.exists(`${P}seen`)).toBe(0);
      expect(Number(await redis.client.get(`${P}n:seen`))).toBe(PAGES);
      // A third machine asking for the exact set joins no crawl: one line, nothing collected.
      const c = await runCli(machine(seed, tempDir(), redis));
      expect(c.code).toBe(1);
      expect(c.stderr).toMatch(/seen-set is bloom .*--seen-set bloom/);
      expect(c.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await site.close();
    }
  }, 120_000);

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
