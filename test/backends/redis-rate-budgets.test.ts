/**
 * GitHub rate budgets shared through a real redis-server: two "machines" (two connections, two
 * machine ids) on one crawl spend one budget — search spacing, a primary window, a secondary
 * (Retry-After) pause learnt by one that holds the other, one API request in flight per
 * credential crawl-wide — and keep apart by credential and by crawl.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRedisLink, type RedisLink } from '../../src/backends/redis/redis-link.js';
import { RedisRateBudgets } from '../../src/backends/redis/redis-rate-budgets.js';
import type { BudgetKey, Grant } from '../../src/http/rate-budget.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';

const HAVE_REDIS = redisServerPath() !== null;
if (!HAVE_REDIS)
  console.warn('redis-server not installed: shared rate budget tests skipped (apt-get install redis-server)');

const P = 'collector:{budget}:';
const silent = pino({ level: 'silent' });
const core = (identity = 'token-0123456789abcdef'): BudgetKey => ({ identity, resource: 'core' });
const search: BudgetKey = { identity: 'anonymous', resource: 'search' };
const ok = { status: 200, headers: {} as Record<string, string> };

describe.skipIf(!HAVE_REDIS)('rate budgets shared through redis', () => {
  let redis: TestRedis;
  const links: RedisLink[] = [];
  let a: RedisRateBudgets;
  let b: RedisRateBudgets;
  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) links.push(openRedisLink(redis.url, silent));
  });
  afterAll(async () => {
    for (const l of links) await l.close(1000);
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushdb();
    a = new RedisRateBudgets(links[0], P, 'machine-a', silent);
    b = new RedisRateBudgets(links[1], P, 'machine-b', silent);
  });

  it('spaces unauthenticated searches 6 s apart across machines', async () => {
    expect(await a.reserve(search)).toEqual({ ok: true });
    a.observe(search, ok.status, ok.headers);
    const g = (await b.reserve(search)) as Extract<Grant, { ok: false }>;
    expect(g.ok).toBe(false);
    expect(g.reason).toBe('spacing');
    expect(g.waitUntil - Date.now()).toBeGreaterThan(4000);
  });

  it('spends one primary window between both: past the remaining count, both wait for the reset', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 600);
    const headers = (left: number) => ({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(left),
      'x-ratelimit-reset': reset,
    });
    expect((await a.reserve(core())).ok).toBe(true);
    a.observe(core(), 200, headers(2));
    expect((await b.reserve(core())).ok).toBe(true);
    b.observe(core(), 200, headers(1));
    expect((await a.reserve(core())).ok).toBe(true);
    a.observe(core(), 200, headers(0));
    for (const m of [a, b]) {
      const g = (await m.reserve(core())) as Extract<Grant, { ok: false }>;
      expect(g).toMatchObject({ ok: false, reason: 'primary' });
      expect(g.waitUntil).toBeGreaterThan(Number(reset) * 1000);
    }
    // Another credential and another crawl have budgets of their own.
    expect((await b.reserve(core('anonymous'))).ok).toBe(true);
    const other = new RedisRateBudgets(links[1], 'collector:{other}:', 'machine-b', silent);
    expect((await other.reserve(core())).ok).toBe(true);
  });

  it('a 304 gives its grant back, on either machine: revisits spend nothing of the window', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 600);
    const headers = (left: number) => ({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': String(left),
      'x-ratelimit-reset': reset,
    });
    expect((await a.reserve(core())).ok).toBe(true);
    a.observe(core(), 200, headers(1));
    for (let i = 0; i < 6; i++) {
      const m = i % 2 === 0 ? a : b;
      expect(await m.reserve(core()), `revisit ${i}`).toEqual({ ok: true });
      m.observe(core(), 304, headers(1));
    }
    expect((await b.reserve(core())).ok).toBe(true);
    b.observe(core(), 200, headers(0));
    expect(await a.reserve(core())).toMatchObject({ ok: false, reason: 'primary' });
  });

  it('a secondary limit (429 with Retry-After) learnt by one machine holds the other', async () => {
    expect((await a.reserve(core())).ok).toBe(true);
    a.observe(core(), 429, { 'retry-after': '30' }, '{"message":"You have exceeded a secondary rate limit"}');
    const g = (await b.reserve(core())) as Extract<Grant, { ok: false }>;
    expect(g).toMatchObject({ ok: false, reason: 'secondary' });
    expect(g.waitUntil - Date.now()).toBeGreaterThan(25_000);
    // The raw host is another group: not blocked by the API's secondary limit.
    expect((await b.reserve({ identity: 'anonymous', resource: 'raw' })).ok).toBe(true);
  });

  it('one API request in flight per credential, crawl-wide: the other machine waits for its answer', async () => {
    expect((await a.reserve(core())).ok).toBe(true);
    let granted = false;
    const other = b.reserve(core()).then((g) => {
      granted = g.ok;
      return g;
    });
    // Still waiting after several polls: A's request is not answered.
    await new Promise((r) => setTimeout(r, 300));
    expect(granted).toBe(false);
    a.observe(core(), 200, {});
    expect(await other).toEqual({ ok: true });
    // A release gives the turn back too.
    b.release(core());
    expect((await a.reserve(core())).ok).toBe(true);
  });
});
