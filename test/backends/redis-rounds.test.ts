/**
 * The shared rounds' scripts against a real redis-server: when a round is over crawl-wide, which
 * one machine makes the next round's requests, on-time starts, and a round's requests queued
 * once per round crawl-wide (seen before or not).
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { urlFingerprint } from '../../src/backends/redis/pending-writes.js';
import { RedisCrawl } from '../../src/backends/redis/redis-crawl.js';
import { ROUND, ROUND_ENQUEUE } from '../../src/backends/redis/round-scripts.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';

const HAVE_REDIS = redisServerPath() !== null;
if (!HAVE_REDIS)
  console.warn('redis-server not installed: Redis rounds tests skipped (apt-get install redis-server)');

const P = 'collector:{unit-rounds}:';
const INTERVAL = 60_000;
const LOAD_MS = 30_000;

describe.skipIf(!HAVE_REDIS)('shared rounds (scripts)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushdb();
    // The crawl's record, as the first machine's join makes it (the scripts check it is there).
    await redis.client.hset(`${P}crawl`, 'epoch', 'unit');
  });

  type Answer = [string, number, number, number];
  const round = async (op: string, machine: string, known: number): Promise<Answer> =>
    (await redis.client.eval(ROUND, 0, P, op, machine, known, INTERVAL, LOAD_MS)) as Answer;
  const enqueue = async (n: number, last: 0 | 1, ...urls: string[]): Promise<number> => {
    const args = urls.flatMap((u) => [u, '127.0.0.1:1', urlFingerprint(u), 2, 0, '{"d":0,"a":0}']);
    return Number(await redis.client.eval(ROUND_ENQUEUE, 0, P, 1, n, last, ...args));
  };
  /** Make round `n`'s start `ago` ms before Redis's now. */
  const startedAgo = async (ago: number): Promise<number> => {
    const [s, us] = await redis.client.time();
    const at = Number(s) * 1000 + Math.floor(Number(us) / 1000) - ago;
    await redis.client.hset(`${P}round`, 'at', at);
    return at;
  };

  it('one machine is granted the next round, once it is due and nothing is queued or leased', async () => {
    const [, n0, at0] = await round('join', 'A', 0);
    expect(n0).toBe(0);
    expect(await round('join', 'B', 0)).toEqual(['in', 0, at0, expect.any(Number)]);
    await redis.client.set(`${P}n:leased`, 1);
    await startedAgo(INTERVAL + 10);
    expect((await round('poll', 'A', 0))[0]).toBe('busy');
    await redis.client.set(`${P}n:leased`, 0);
    const at = await startedAgo(INTERVAL - 5_000);
    expect((await round('poll', 'A', 0))[0]).toBe('wait');
    await redis.client.hset(`${P}round`, 'at', at - 5_000);
    expect((await round('poll', 'A', 0))[0]).toBe('load');
    // B may not make the round's requests while A's grant lasts, nor start it.
    expect((await round('poll', 'B', 0))[0]).toBe('wait');
    expect((await round('start', 'B', 0))[0]).toBe('lost');
    const started = await round('start', 'A', 0);
    expect(started.slice(0, 3)).toEqual(['start', 1, at - 5_000 + INTERVAL]);
    // Sent again (its answer lost in a reconnect): the same answer.
    expect((await round('start', 'A', 0)).slice(0, 3)).toEqual(['start', 1, at - 5_000 + INTERVAL]);
    // The others join round 1; a second start of it is refused.
    expect((await round('poll', 'B', 0)).slice(0, 2)).toEqual(['join', 1]);
    expect((await round('start', 'B', 0)).slice(0, 2)).toEqual(['join', 1]);
    // Its seeds being queued: busy (not over) until the last batch is in.
    expect((await round('poll', 'B', 1))[0]).toBe('busy');
    await enqueue(1, 1);
    expect((await round('poll', 'B', 1))[0]).toBe('wait');
  });

  it('starts on time: an interval after the previous start, or now when more than an interval late', async () => {
    await round('join', 'A', 0);
    const at = await startedAgo(INTERVAL + 1_000);
    expect((await round('poll', 'A', 0))[0]).toBe('load');
    expect((await round('start', 'A', 0))[2]).toBe(at + INTERVAL);
    await enqueue(1, 1);
    await startedAgo(3 * INTERVAL);
    expect((await round('poll', 'A', 1))[0]).toBe('load');
    const [action, n, at2, now] = await round('start', 'A', 1);
    expect([action, n]).toEqual(['start', 2]);
    expect(at2).toBe(now);
  });

  it('a grant not used within its time goes to another machine', async () => {
    await round('join', 'A', 0);
    await startedAgo(INTERVAL + 1);
    expect((await round('poll', 'A', 0))[0]).toBe('load');
    await redis.client.hset(`${P}round`, 'until', 1);
    expect((await round('poll', 'B', 0))[0]).toBe('load');
    expect((await round('start', 'A', 0))[0]).toBe('lost');
    expect((await round('start', 'B', 0)).slice(0, 2)).toEqual(['start', 1]);
  });

  it('an every-round hub found in a later round is queued once that round, seen before or not', async () => {
    const hub = 'http://127.0.0.1:1/feed.xml';
    const crawlId = 'unit-rounds';
    await redis.client.hset(`${P}round`, 'n', 1, 'at', Date.now());
    await redis.client.sadd(`${P}seen`, urlFingerprint(hub));
    const machines = [0, 1].map(
      () =>
        new RedisCrawl({
          url: redis.url,
          crawlId,
          delayMs: 0,
          jitter: 0,
          hostConcurrency: 1,
          maxPenaltyMs: 1000,
          concurrency: 2,
          leaseTimeoutMs: 10_000,
          pollMs: 50,
          out: '/nowhere',
          log: pino({ level: 'silent' }),
          onStop: () => {},
          status: () => ({ items: 0, errors: 0, state: 'running' }),
        }),
    );
    try {
      const rounds = [];
      for (const m of machines) {
        await m.start();
        const parts = {
          load: async () => [],
          queue: () => {},
          log: pino({ level: 'silent' }),
          wake: () => {},
          stats: { itemsThisRun: 0, errors: 0 },
        };
        rounds.push(m.openRounds(parts, INTERVAL));
      }
      for (let i = 0; rounds.some((r) => r.current !== 1); i++) {
        expect(i).toBeLessThan(500);
        await new Promise((r) => setTimeout(r, 10));
      }
      for (const m of machines) m.frontier.push(hub, 1, 0, { everyRound: true });
      for (const m of machines) await m.frontier.settled();
      await new Promise((r) => setImmediate(r));
      for (const m of machines) await m.frontier.settled();
      expect(await redis.client.zrange(`${P}q:127.0.0.1:1`, 0, -1)).toEqual([hub]);
      // A plain link to it is not queued again (seen).
      machines[0].frontier.push(hub, 1);
      await machines[0].frontier.settled();
      expect(Number(await redis.client.get(`${P}n:queued`))).toBe(1);
      // A page a source says changed (lastmod): queued again this round when seen here before;
      // a URL new here goes by the crawl-wide seen-set (another machine fetched it: dropped).
      const [a, b] = machines;
      const page = 'http://127.0.0.1:2/changed.html';
      await redis.client.sadd(`${P}seen`, urlFingerprint(page));
      a.seen.add(page);
      await a.frontier.settled();
      expect(b.seen.add(page)).toBe(true);
      b.frontier.push(page, 1, 0, { lastmod: 1_000 });
      await b.frontier.settled();
      expect(await redis.client.zrange(`${P}q:127.0.0.1:2`, 0, -1)).toEqual([]);
      a.frontier.push(page, 1, 0, { lastmod: 1_000 });
      await new Promise((r) => setImmediate(r));
      await a.frontier.settled();
      expect(await redis.client.zrange(`${P}q:127.0.0.1:2`, 0, -1)).toEqual([page]);
    } finally {
      for (const m of machines) await m.close();
    }
  });

  it("queues a round's request once per round crawl-wide, seen before or not; never for a round over", async () => {
    const url = 'http://127.0.0.1:1/page';
    await round('join', 'A', 0);
    await redis.client.sadd(`${P}seen`, urlFingerprint(url));
    expect(await enqueue(0, 0, url, url)).toBe(1);
    expect(await redis.client.zrange(`${P}q:127.0.0.1:1`, 0, -1)).toEqual([url]);
    // Done (its entry dropped at the ack): offered again this round by another machine, not queued.
    await redis.client.multi().del(`${P}q:127.0.0.1:1`).hdel(`${P}e`, url).set(`${P}n:queued`, 0).exec();
    expect(await enqueue(0, 0, url)).toBe(0);
    await startedAgo(INTERVAL + 1);
    expect((await round('poll', 'A', 0))[0]).toBe('load');
    expect((await round('start', 'A', 0))[1]).toBe(1);
    expect(await enqueue(1, 1, url)).toBe(1);
    expect(Number(await redis.client.get(`${P}n:queued`))).toBe(1);
    // Offered for round 0 now that round 1 is in progress: refused.
    expect(await enqueue(0, 0, 'http://127.0.0.1:1/late')).toBe(-1);
    // Queued and not yet done: offered for the round again, not queued twice.
    expect(await enqueue(1, 0, url)).toBe(0);
  });
});
