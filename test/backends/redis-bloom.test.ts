/**
 * The Bloom-filter seen-set (`--seen-set bloom`) against a real redis-server (Debian's, without
 * RedisBloom: our own filter over strings): its false-positive rate near the configured one at
 * capacity, no false negatives, the filter cut into several keys, one kind per crawl, and queueing
 * through it (a URL queued once whichever machine finds it).
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bloomShape, expectedFalsePositiveRate } from '../../src/backends/redis/bloom-sizing.js';
import { urlFingerprint } from '../../src/backends/redis/pending-writes.js';
import { RedisCrawl } from '../../src/backends/redis/redis-crawl.js';
import { openRedisLink, type RedisLink } from '../../src/backends/redis/redis-link.js';
import { joinSeenSet } from '../../src/backends/redis/seen-set-choice.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';

const HAVE_REDIS = redisServerPath() !== null;
if (!HAVE_REDIS)
  console.warn('redis-server not installed: Bloom seen-set tests skipped (apt-get install redis-server)');

const P = 'collector:{bloom}:';
const silent = pino({ level: 'silent' });
/** URLs the filter is sized for, and its rate there. */
const CAPACITY = 20_000;
const RATE = 0.01;
/** Bits per key: the ~190 kbit filter is cut into 3 keys (as 2^32 cuts a large one). */
const SEGMENT = 2 ** 16;

/** `count` deterministic, distinct URL fingerprints of kind `tag`. */
function fingerprints(tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => urlFingerprint(`http://h${i % 97}.example/${tag}/${i}`));
}

/** Run `script` over `fps` in batches; the per-fingerprint answers (1/0). */
async function each(link: RedisLink, script: 'markBloom' | 'probeBloom', fps: string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < fps.length; i += 1000) {
    out.push(...((await link.script(script, [P, ...fps.slice(i, i + 1000)])) as number[]));
  }
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('bloom sizing', () => {
  it('is the textbook optimum: m = -n ln p / ln² 2, k = (m/n) ln 2', () => {
    const s = bloomShape(1_000_000, 0.001);
    expect(s.bits).toBe(14_377_588);
    expect(s.hashes).toBe(10);
    expect(expectedFalsePositiveRate(s, 1_000_000)).toBeCloseTo(0.001, 4);
    expect(() => bloomShape(0, 0.01)).toThrow(/capacity/);
    expect(() => bloomShape(10, 0)).toThrow(/error rate/);
  });
});

describe.skipIf(!HAVE_REDIS)('bloom seen-set in redis', () => {
  let redis: TestRedis;
  let link: RedisLink;
  beforeAll(async () => {
    redis = await startRedis();
    link = openRedisLink(redis.url, silent);
  });
  afterAll(async () => {
    await link?.close(1000);
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushdb();
  });

  it('holds every URL added (no false negative) and errs near the configured rate at capacity', async () => {
    const used = await joinSeenSet(
      link,
      P,
      { kind: 'bloom', capacity: CAPACITY, errorRate: RATE, segmentBits: SEGMENT },
      silent,
    );
    expect(used).toMatchObject({ mode: 'bloom', hashes: 7, segmentBits: SEGMENT });
    const inserted = fingerprints('in', CAPACITY);
    const fresh = sum(await each(link, 'markBloom', inserted));
    // A few are false positives already while the filter fills (taken as seen: not new).
    expect(fresh).toBeGreaterThan(CAPACITY * (1 - RATE));
    // No false negative: every one added is in the filter, and adding it again finds it.
    expect(sum(await each(link, 'probeBloom', inserted))).toBe(CAPACITY);
    expect(sum(await each(link, 'markBloom', inserted))).toBe(0);
    // False positives among as many URLs never added: ~200 expected (σ ≈ 14); the bounds are
    // 7σ away, so the (deterministic) input passes for any correct filter and fails a broken one.
    const fp = sum(await each(link, 'probeBloom', fingerprints('out', CAPACITY)));
    expect(fp).toBeGreaterThan(CAPACITY * RATE * 0.5);
    expect(fp).toBeLessThan(CAPACITY * RATE * 1.6);
    // The filter is cut into keys of SEGMENT bits at most, and holds the crawl's count.
    const keys = (await redis.client.keys(`${P}bloom:*`)).sort();
    expect(keys).toEqual([`${P}bloom:0`, `${P}bloom:1`, `${P}bloom:2`]);
    for (const k of keys) expect(await redis.client.strlen(k)).toBeLessThanOrEqual(SEGMENT / 8);
    expect(Number(await redis.client.get(`${P}n:seen`))).toBe(fresh);
  });

  it('keeps the first machine’s kind and shape for the whole crawl', async () => {
    await joinSeenSet(link, P, { kind: 'bloom', capacity: CAPACITY, errorRate: RATE }, silent);
    const other = await joinSeenSet(link, P, { kind: 'bloom', capacity: 5000, errorRate: 0.05 }, silent);
    expect(other).toMatchObject({ capacity: CAPACITY, errorRate: RATE });
    await expect(
      joinSeenSet(link, P, { kind: 'exact', capacity: 1000, errorRate: 0.01 }, silent),
    ).rejects.toThrow(/seen-set is bloom .*--seen-set bloom/);
  });

  it('queues a URL once across machines, whichever finds it first', async () => {
    const machine = () =>
      new RedisCrawl({
        url: redis.url,
        crawlId: 'bloom',
        delayMs: 0,
        jitter: 0,
        hostConcurrency: 1,
        maxPenaltyMs: 60_000,
        concurrency: 8,
        leaseTimeoutMs: 10_000,
        pollMs: 50,
        out: '/nowhere',
        log: silent,
        onStop: () => {},
        status: () => ({ items: 0, errors: 0, state: 'running' }),
        seenSet: { kind: 'bloom', capacity: CAPACITY, errorRate: RATE },
      });
    const [a, b] = [machine(), machine()];
    try {
      await Promise.all([a.start(), b.start()]);
      const urls = Array.from({ length: 300 }, (_, i) => `http://127.0.0.1/p/${i}`);
      for (const u of urls) {
        a.frontier.push(u, 1);
        b.frontier.push(u, 1);
      }
      a.frontier.push(urls[0], 1);
      await Promise.all([a.frontier.settled(), b.frontier.settled()]);
      const queued = await redis.client.zcard(`${P}q:127.0.0.1`);
      expect(queued).toBe(300);
      expect(Number(await redis.client.get(`${P}n:queued`))).toBe(300);
      expect(await redis.client.exists(`${P}seen`)).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
