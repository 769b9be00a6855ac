/**
 * Continuous collection shared through a real redis-server: two `collector run` ("machines":
 * separate data dirs, one config) with a worker type of two processes each, over several rounds.
 * Each round fetches every page exactly once in the union, the round's seeds are queued by one
 * machine only, and the next round starts `interval` after the previous one's start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { haveRedis, useRedis } from '../fixtures/redis-machines.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

const HAVE_REDIS = haveRedis('Redis rounds tests');

/** Articles linked from the seed. */
const ARTICLES = 8;
/** From a round's start to the next's, ms (long enough for a round on a loaded machine to end in it, usually). */
const INTERVAL_MS = 1_500;
/** Rounds checked in full (0, 1, 2): the test waits for the next one to start. */
const ROUNDS = 3;
/** The config's `revisit`: a page is due again 25–400 ms (revisit/4 to revisit×4) after its fetch, ms. */
const REVISIT_MS = 100;
/**
 * A page fetched less than this before a round's start may wait for the next round, ms: not yet
 * due (4 × {@link REVISIT_MS}), plus the time from its response (the item's `fetchedAt`) to its
 * record, on a loaded machine. Only a round that overran its interval ends that close to the next.
 */
const NOT_YET_DUE_MS = 4 * REVISIT_MS + 600;

/** The lines of `data`'s worker logs (`logs/news-*.log`), or of worker `id`'s only. */
function logLines(data: string, id?: string): Array<Record<string, any>> {
  const dir = path.join(data, 'logs');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => (id === undefined ? f.startsWith('news-') : f.startsWith(`${id}.`)) && f.endsWith('.log'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>),
    );
}

/**
 * Each worker process of each machine (`data` dir): its items (`items/<id>.jsonl`) and the rounds
 * it was in — round 0, and each it started or joined (`logs/<id>.log`; a restarted process writes
 * on in the same files).
 */
function workersOf(datas: string[]): Array<{ items: Array<Record<string, any>>; rounds: Set<number> }> {
  return datas.flatMap((data) =>
    fs
      .readdirSync(path.join(data, 'items'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => {
        const id = f.slice(0, -'.jsonl'.length);
        const text = fs.readFileSync(path.join(data, 'items', f), 'utf8');
        const items = text
          .split('\n')
          .filter((l) => l)
          .map((l) => JSON.parse(l) as Record<string, any>);
        const entered = logLines(data, id).filter(
          (l) => l.msg === 'round started' || l.msg === 'round joined',
        );
        return { items, rounds: new Set([0, ...entered.map((l) => l.round as number)]) };
      }),
  );
}

/**
 * Rounds 0 to `rounds` - 1 of the machines with data dirs `datas`: each page at most once a round
 * (but in the rounds listed in `twice`, where a killed worker's leased pages go again), the seed
 * every round, every page in round 0, and in each later round every page due at its start. What a
 * machine knows of a page is its own: a page is due when a worker process in the round fetched it
 * at least {@link NOT_YET_DUE_MS} before the round's start. So a page fetched just before a late
 * round goes in the next, and a killed process's pages go in the rounds it is in again (a round
 * that starts and ends while it restarts goes without them).
 */
function expectRounds(datas: string[], urls: string[], rounds: number, twice: number[] = []): void {
  const workers = workersOf(datas);
  const all = workers.flatMap((w) => w.items);
  const starts = datas.flatMap((d) => logLines(d)).filter((l) => l.msg === 'round started');
  const at = new Map(starts.map((l) => [l.round as number, l.at as number]));
  const roundOf = (i: Record<string, any>) => (i.data?.round ?? 0) as number;
  for (let round = 0; round < rounds; round++) {
    const got = all.filter((i) => roundOf(i) === round).map((i) => i.url as string);
    if (!twice.includes(round)) expect(new Set(got).size, `round ${round}: ${got}`).toBe(got.length);
    expect(urls, `round ${round}`).toEqual(expect.arrayContaining(got));
    if (round > 0) expect(at.has(round), `round ${round} started`).toBe(true);
    const start = at.get(round) as number;
    // When each worker in the round last fetched `url` before it (-Infinity: never).
    const fetched = (url: string) =>
      workers
        .filter((w) => w.rounds.has(round))
        .map((w) =>
          Math.max(
            ...w.items
              .filter((i) => i.url === url && roundOf(i) < round)
              .map((i) => Date.parse(i.fetchedAt as string)),
          ),
        )
        .filter((t) => t > Number.NEGATIVE_INFINITY);
    const due = urls.filter(
      (u) => round === 0 || u === urls[0] || fetched(u).some((t) => t <= start - NOT_YET_DUE_MS),
    );
    const missing = due
      .filter((u) => !got.includes(u))
      .map((u) => `${u} (fetched ${fetched(u).map((t) => start - t)} ms before)`);
    expect(missing, `round ${round} (started ${start}): due, not fetched`).toEqual([]);
  }
}

describe.skipIf(!HAVE_REDIS)('collector run through one redis: shared rounds', () => {
  const bench = useRedis({ appendonly: true, appendfsync: 'always' });
  let site: FixtureServer;
  beforeAll(async () => {
    const links = Array.from({ length: ARTICLES }, (_, i) => `a${i}.html`);
    site = await startServer({}, async (req, res) => {
      await new Promise((r) => setTimeout(r, 20));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(req.url === '/news/' ? page('News', links) : page(`Article ${req.url}`, []));
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('every page once per round in the union, seeds queued once per round, rounds on time', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      [
        'data: ./data',
        `backend: ${bench.redis.url}`,
        'crawlId: rounds-test',
        'workers:',
        '  - name: news',
        '    source: crawl',
        '    processes: 2',
        '    concurrency: 4',
        '    delay: 0',
        '    robots: false',
        `    interval: ${INTERVAL_MS}ms`,
        // Every page known is due again each round (at most 4 × 100 ms after its fetch).
        `    revisit: ${REVISIT_MS}ms`,
        '    leaseTimeout: 10s',
        `    seeds: ["${site.origin}/news/"]`,
        '',
      ].join('\n'),
    );
    // Two machines: the same config, each its own data dir (`--config` elsewhere, `data: ./data`).
    const dirs = [path.join(dir, 'a'), path.join(dir, 'b')];
    for (const d of dirs) {
      fs.mkdirSync(d);
      fs.copyFileSync(config, path.join(d, 'collector.yaml'));
    }
    const datas = dirs.map((d) => path.join(d, 'data'));
    const runs = dirs.map((d) => startCli(['run', '--config', path.join(d, 'collector.yaml'), '--quiet']));
    bench.children.push(...runs);
    const exits = runs.map(waitExit);
    const items = () => datas.flatMap(readItems);
    // Round ROUNDS has started: rounds 0..ROUNDS-1 are over (a round starts once the one before is done).
    await waitFor(() => items().some((i) => (i.data?.round ?? 0) >= ROUNDS), 90_000);
    for (const r of runs) r.kill('SIGTERM');
    for (const e of await Promise.all(exits)) expect(e.code, e.stderr).toBe(0);

    const urls = [
      `${site.origin}/news/`,
      ...Array.from({ length: ARTICLES }, (_, i) => `${site.origin}/news/a${i}.html`),
    ];
    const starts = datas.flatMap((d) => logLines(d)).filter((l) => l.msg === 'round started');
    const at = new Map(starts.map((l) => [l.round as number, l.at as number]));
    // Round 0, the first pass: every page once; each later round every page due at its start.
    expectRounds(datas, urls, ROUNDS);
    // Both machines took part, each process of the type a machine of the shared crawl (how the
    // URLs fell between them depends on timing: not asserted).
    const joined = datas.flatMap((d) => logLines(d)).filter((l) => l.msg === 'joining the shared crawl');
    expect(new Set(joined.map((l) => l.machine)).size).toBe(4);
    expect(new Set(joined.map((l) => l.crawlId))).toEqual(new Set(['rounds-test.news']));
    // Each later round was started by one process of one machine, which queued the seed.
    for (let round = 1; round < ROUNDS; round++) {
      expect(
        starts.filter((l) => l.round === round),
        `round ${round} started`,
      ).toHaveLength(1);
    }
    // On time: interval after the previous start, or at once when more than an interval late.
    for (let round = 2; round < ROUNDS; round++) {
      const gap = (at.get(round) as number) - (at.get(round - 1) as number);
      expect(gap === INTERVAL_MS || gap >= 2 * INTERVAL_MS, `gap before round ${round}: ${gap} ms`).toBe(
        true,
      );
    }
    // The site saw the seed once per round started (and maybe the next, cut by the stop).
    const seedHits = site.hits('/news/');
    expect(seedHits).toBeGreaterThanOrEqual(ROUNDS);
    expect(seedHits).toBeLessThanOrEqual(ROUNDS + 1);
  });

  it('a worker killed mid-round rejoins the round; redis restarted (AOF) is waited out; rounds go on once each', async () => {
    await bench.redis.client.flushdb();
    const dir = tempDir();
    const text = [
      'data: ./data',
      `backend: ${bench.redis.url}`,
      'crawlId: kill-test',
      'supervisor: { restartBackoff: 200ms }',
      'workers:',
      '  - name: news',
      '    source: crawl',
      '    concurrency: 2',
      '    delay: 0',
      '    robots: false',
      `    interval: ${INTERVAL_MS}ms`,
      '    revisit: 100ms',
      '    leaseTimeout: 4s',
      `    seeds: ["${site.origin}/news/"]`,
      '',
    ].join('\n');
    const dirs = [path.join(dir, 'a'), path.join(dir, 'b')];
    for (const d of dirs) {
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'collector.yaml'), text);
    }
    const datas = dirs.map((d) => path.join(d, 'data'));
    const runs = dirs.map((d) => startCli(['run', '--config', path.join(d, 'collector.yaml'), '--quiet']));
    bench.children.push(...runs);
    const exits = runs.map(waitExit);
    const items = () => datas.flatMap(readItems);
    const lastRound = () => Math.max(0, ...items().map((i) => (i.data?.round ?? 0) as number));
    await waitFor(() => lastRound() >= 1, 90_000);
    // Kill machine b's worker (its supervisor restarts it: a new machine of the crawl).
    const statusOf = () => JSON.parse(fs.readFileSync(path.join(datas[1], 'status.json'), 'utf8'));
    const pid = statusOf().workers[0].pid as number;
    const killed = lastRound();
    process.kill(pid, 'SIGKILL');
    // The restarted worker (a second `joining`) joins the round in progress at once.
    const rejoined = () => {
      const lines = logLines(datas[1]);
      const start = lines.map((l) => l.msg).lastIndexOf('joining the shared crawl');
      const joins = lines.filter((l) => l.msg === 'joining the shared crawl').length;
      return joins >= 2 && lines.slice(start).some((l) => l.msg === 'round joined' && l.round >= killed);
    };
    await waitFor(rejoined, 90_000);
    const disturbed = lastRound();
    await bench.redis.restart(300);
    await waitFor(() => lastRound() >= disturbed + 3, 90_000);
    for (const r of runs) r.kill('SIGTERM');
    for (const e of await Promise.all(exits)) expect(e.code, e.stderr).toBe(0);

    const urls = [
      `${site.origin}/news/`,
      ...Array.from({ length: ARTICLES }, (_, i) => `${site.origin}/news/a${i}.html`),
    ];
    const starts = datas.flatMap((d) => logLines(d)).filter((l) => l.msg === 'round started');
    // Nothing lost in any round: every page due of every process in it (a round that starts and
    // ends while the killed one restarts goes without its pages, which come back in the round it
    // joins); once each, but in the rounds of the kill and the restart (URLs leased by the killed
    // worker and not acknowledged are fetched again).
    expectRounds(datas, urls, disturbed + 3, [killed, killed + 1, disturbed, disturbed + 1]);
    for (let round = 1; round < disturbed + 3; round++) {
      expect(
        starts.filter((l) => l.round === round),
        `round ${round} started`,
      ).toHaveLength(1);
    }
  });

  it('collector crawl --processes 2 --backend: each process a machine of the crawl, every page once', async () => {
    const out = tempDir();
    const r = await runCli([
      'crawl',
      `${site.origin}/news/`,
      '--out',
      out,
      '--quiet',
      '--processes',
      '2',
      '--delay',
      '0',
      '--no-robots',
      '--backend',
      bench.redis.url,
      '--crawl-id',
      'two-processes',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const got = readItems(out).map((i) => i.url as string);
    expect(got.length).toBe(ARTICLES + 1);
    expect(new Set(got).size).toBe(ARTICLES + 1);
    const logs = ['crawl-0', 'crawl-1'].map((w) =>
      fs.readFileSync(path.join(out, 'logs', `${w}.log`), 'utf8'),
    );
    for (const l of logs) expect(l).toContain('joining the shared crawl');
  });
});
