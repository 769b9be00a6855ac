/**
 * The shared frontier's scripts against a real redis-server, two "machines" in this process:
 * leases, politeness across machines (tokens, next-allowed time, pauses), dedup in the shared
 * queue, the acknowledgement (only of URLs still held, recorded until the items are written), and
 * the reclaim of a dead machine's leases.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisCrawl } from '../../src/backends/redis/redis-crawl.js';
import type { FrontierEntry } from '../../src/frontier/frontier-queue.js';
import { captureLog } from '../fixtures/capture-log.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';

const HAVE_REDIS = redisServerPath() !== null;
if (!HAVE_REDIS)
  console.warn('redis-server not installed: Redis frontier tests skipped (apt-get install redis-server)');

const P = 'collector:{unit}:';

/** A machine: its shared crawl and the lines it logged. */
function machine(
  redis: TestRedis,
  opts: {
    delayMs?: number;
    hostConcurrency?: number;
    leaseTimeoutMs?: number;
    pollMs?: number;
    concurrency?: number;
  } = {},
) {
  const { log, lines } = captureLog();
  const stops: number[] = [];
  const crawl = new RedisCrawl({
    url: redis.url,
    crawlId: 'unit',
    delayMs: opts.delayMs ?? 0,
    jitter: 0,
    hostConcurrency: opts.hostConcurrency ?? 1,
    maxPenaltyMs: 60_000,
    concurrency: opts.concurrency ?? 8,
    leaseTimeoutMs: opts.leaseTimeoutMs ?? 10_000,
    pollMs: opts.pollMs ?? 50,
    out: '/nowhere',
    log,
    onStop: () => stops.push(Date.now()),
    status: () => ({ items: 0, errors: 0, state: 'running' }),
  });
  return { crawl, f: crawl.frontier, lines, stops };
}

/** Entries a machine gets from one claim (waits for the answer). */
async function claim(f: RedisCrawl['frontier']): Promise<FrontierEntry[]> {
  const got: FrontierEntry[] = [];
  // Past the poll interval (50 ms) an empty claim set: the next call claims again.
  await new Promise((r) => setTimeout(r, 60));
  await new Promise<void>((resolve) => {
    f.wake = resolve;
    const e = f.next();
    if (e !== null) {
      got.push(e);
      resolve();
    }
  });
  for (let e = f.next(); e !== null; e = f.next()) got.push(e);
  return got;
}

/**
 * What the engine does while it waits: ask for the next URL each time the frontier wakes it (or
 * every 50 ms, which claims nothing before the frontier's own next claim time), until `until()`
 * says a URL it got or the frontier's state is what is waited for, or `ms` passed.
 * @returns the URLs got meanwhile.
 */
async function dispatchUntil(
  f: RedisCrawl['frontier'],
  until: (got: FrontierEntry[]) => boolean,
  ms: number,
): Promise<FrontierEntry[]> {
  const got: FrontierEntry[] = [];
  const deadline = Date.now() + ms;
  while (!until(got) && Date.now() < deadline) {
    for (let e = f.next(); e !== null; e = f.next()) got.push(e);
    if (until(got)) break;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 50);
      f.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  return got;
}

/** Queue `url`, lease it, and write its item (in the journal, not yet on disk). */
async function leaseAndWrite(f: RedisCrawl['frontier'], url: string): Promise<FrontierEntry> {
  f.push(url, 0);
  await f.settled();
  const [e] = await claim(f);
  f.done(e);
  f.itemWritten(e.url);
  await f.settled();
  return e;
}

/** Until every write sent so far is answered. */
async function settle(f: RedisCrawl['frontier']): Promise<void> {
  await f.settled();
}

describe.skipIf(!HAVE_REDIS)('shared frontier scripts', () => {
  let redis: TestRedis;
  const open: RedisCrawl[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  beforeEach(async () => {
    for (const c of open.splice(0)) await c.close();
    await redis.client.flushdb();
  });
  afterAll(async () => {
    for (const c of open.splice(0)) await c.close();
    await redis?.stop();
  });
  const start = async (o?: Parameters<typeof machine>[1]) => {
    const m = machine(redis, o);
    open.push(m.crawl);
    await m.crawl.start();
    return m;
  };

  it('queues a URL once, whichever machine finds it, and leases it to one machine only', async () => {
    const a = await start({ hostConcurrency: 4 });
    const b = await start({ hostConcurrency: 4 });
    for (const m of [a, b]) {
      expect(m.crawl.seen.add('http://127.0.0.1/x')).toBe(true);
      m.f.push('http://127.0.0.1/x', 0);
    }
    await settle(a.f);
    await settle(b.f);
    expect(await redis.client.get(`${P}n:queued`)).toBe('1');
    const got = [...(await claim(a.f)), ...(await claim(b.f))];
    expect(got.map((e) => e.url)).toEqual(['http://127.0.0.1/x']);
    expect(Number(await redis.client.get(`${P}n:leased`))).toBe(1);
    // Done and acknowledged, then found again by a third machine: not queued again.
    a.f.done(got[0]);
    a.f.itemWritten(got[0].url);
    expect(await a.f.acknowledge(1, 1)).toEqual([true]);
    await settle(a.f);
    const c = await start({ hostConcurrency: 4 });
    c.f.push('http://127.0.0.1/x', 1);
    await settle(c.f);
    expect(await claim(c.f)).toEqual([]);
  });

  it('a machine waiting while another holds the work: queued (not idle), but holding nothing (not stalled)', async () => {
    const a = await start({ hostConcurrency: 1 });
    const b = await start({ hostConcurrency: 1 });
    a.f.push('http://127.0.0.1/only', 0);
    await settle(a.f);
    expect((await claim(a.f)).map((e) => e.url)).toEqual(['http://127.0.0.1/only']);
    expect(await claim(b.f)).toEqual([]);
    expect(b.f.queued).toBeGreaterThan(0);
    expect(b.f.heldHere).toBe(0);
  });

  it('holds host concurrency across machines: a token taken by one is not given to the other', async () => {
    const a = await start({ hostConcurrency: 1 });
    const b = await start({ hostConcurrency: 1 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    const [first] = await claim(a.f);
    expect(first.url).toBe('http://127.0.0.1/1');
    expect(await claim(b.f)).toEqual([]);
    a.f.done(first);
    await settle(a.f);
    // The token given back goes to one machine (a claims again at once: it may be either).
    const next = [...(await claim(a.f)), ...(await claim(b.f))];
    expect(next.map((e) => e.url)).toEqual(['http://127.0.0.1/2']);
  });

  it('a claim answered empty after this machine gave a token back claims again at once, not after the poll', async () => {
    const a = await start({ hostConcurrency: 2, pollMs: 60_000 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2', 'http://127.0.0.1/3']) a.f.push(u, 0);
    await settle(a.f);
    const [first, second] = await claim(a.f);
    expect(second).toBeDefined();
    // A claim on its way while both tokens are taken (it answers empty), then one request ends
    // (the other stays in flight: the machine is not idle).
    expect(a.f.next()).toBeNull();
    a.f.done(first);
    const got = await dispatchUntil(a.f, (g) => g.length > 0, 10_000);
    expect(got.map((e) => e.url)).toEqual(['http://127.0.0.1/3']);
  });

  it('links queued while a claim is on its way are claimed at once, not after the poll', async () => {
    const a = await start({ hostConcurrency: 4, pollMs: 60_000 });
    // The claim goes before the link is sent: it finds nothing queued.
    expect(a.f.next()).toBeNull();
    a.f.push('http://127.0.0.1/late', 1);
    const got = await dispatchUntil(a.f, (g) => g.length > 0, 10_000);
    expect(got.map((e) => e.url)).toEqual(['http://127.0.0.1/late']);
  });

  it('an idle machine whose last acknowledgement is answered sees the crawl over at once, not after the poll', async () => {
    const a = await start({ hostConcurrency: 4, pollMs: 60_000 });
    const e = await leaseAndWrite(a.f, 'http://127.0.0.1/1');
    // Claims until one finds nothing and nothing changed since it was sent: the next is a poll away.
    for (let i = 0; i < 2; i++) {
      expect(a.f.next()).toBeNull();
      await (a.f as unknown as { claimAnswered: Promise<void> }).claimAnswered;
    }
    expect(a.f.nextReadyIn()).toBeGreaterThan(30_000);
    // Its page is still leased here (written, not yet on disk): the crawl is not over.
    expect(a.f.queued).toBeGreaterThan(0);
    void a.f.acknowledge(1, 1);
    await dispatchUntil(a.f, () => a.f.queued === 0, 10_000);
    expect(a.f.queued).toBe(0);
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(0);
  });

  it('a request over gives its token back in the claim that follows it: one script call for both', async () => {
    const a = await start({ hostConcurrency: 1, leaseTimeoutMs: 60_000 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    const [first] = await claim(a.f);
    await settle(a.f);
    await redis.client.config('RESETSTAT');
    a.f.done(first);
    await (a.f as unknown as { claimAnswered: Promise<void> }).claimAnswered;
    expect(a.f.next()?.url).toBe('http://127.0.0.1/2');
    const stats = await redis.client.info('commandstats');
    const calls = [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(calls).toBe(1);
    expect(await redis.client.hget(`${P}l:${a.crawl.machine}`, first.url)).toBe('127.0.0.1|0');
  });

  it('requests over while no claim can be sent (Redis out of memory) give their tokens back on their own', async () => {
    const a = await start({ hostConcurrency: 2 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    const leased = await claim(a.f);
    expect(leased).toHaveLength(2);
    await settle(a.f);
    await redis.client.config('SET', 'maxmemory', '1');
    try {
      // A link refused: the machine pauses (no claim is sent while it is paused).
      a.f.push('http://127.0.0.1/link', 1);
      const deadline = Date.now() + 10_000;
      while (a.crawl.status().problem === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(a.crawl.status().problem).toContain('out of memory');
      for (const e of leased) a.f.done(e);
    } finally {
      await redis.client.config('SET', 'maxmemory', '0');
    }
    // Memory back: both tokens are given back, though this machine claims nothing meanwhile.
    const deadline = Date.now() + 10_000;
    while ((await redis.client.hget(`${P}h:127.0.0.1`, 'f')) !== '0' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await redis.client.hget(`${P}h:127.0.0.1`, 'f')).toBe('0');
    for (const e of leased)
      expect(await redis.client.hget(`${P}l:${a.crawl.machine}`, e.url)).toBe('127.0.0.1|0');
  });

  it('leases and acknowledges more URLs at once than one Lua unpack takes (8,200: runs of 1,000)', async () => {
    const n = 8_200;
    const a = await start({ hostConcurrency: n, concurrency: n });
    for (let i = 0; i < n; i++) a.f.push(`http://127.0.0.1/${i}`, 0);
    await settle(a.f);
    const leased = await claim(a.f);
    expect(leased).toHaveLength(n);
    expect(await redis.client.hlen(`${P}l:${a.crawl.machine}`)).toBe(n);
    for (const e of leased) {
      a.f.done(e);
      a.f.itemWritten(e.url);
    }
    expect((await a.f.acknowledge(n, 1)).every((held) => held)).toBe(true);
    await settle(a.f);
    expect(await redis.client.get(`${P}n:done`)).toBe(String(n));
    expect(await redis.client.hlen(`${P}w:${a.crawl.machine}`)).toBe(n);
    // The lines written: the records go with the next acknowledgement (or at close), in runs too.
    a.f.itemsSettled();
    await a.crawl.close();
    open.splice(open.indexOf(a.crawl), 1);
    expect(await redis.client.exists(`${P}w:${a.crawl.machine}`)).toBe(0);
    expect(await redis.client.hlen(`${P}l:${a.crawl.machine}`)).toBe(0);
    expect(await redis.client.hlen(`${P}e`)).toBe(0);
  });

  it('holds the delay across machines: the next start waits for next-allowed time in Redis', async () => {
    const a = await start({ delayMs: 60_000, hostConcurrency: 4 });
    const b = await start({ delayMs: 60_000, hostConcurrency: 4 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    expect(await claim(a.f)).toHaveLength(1);
    expect(await claim(b.f)).toEqual([]);
    const nx = Number(await redis.client.hget(`${P}h:127.0.0.1`, 'n'));
    const [sec] = await redis.client.time();
    expect(nx - Number(sec) * 1000).toBeGreaterThan(50_000);
  });

  it("holds one machine's Crawl-delay and 429 slow-down for every machine", async () => {
    const a = await start({ hostConcurrency: 4 });
    const b = await start({ hostConcurrency: 4 });
    a.f.setCrawlDelay('127.0.0.1', 30_000);
    a.f.slowDown('127.0.0.1');
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    expect(await redis.client.hget(`${P}h:127.0.0.1`, 'y')).toBe('30000');
    expect(await claim(b.f)).toHaveLength(1);
    expect(await claim(a.f)).toEqual([]);
    const nx = Number(await redis.client.hget(`${P}h:127.0.0.1`, 'n'));
    const [sec] = await redis.client.time();
    // Crawl-delay 30 s plus the slow-down penalty (doubling from the Crawl-delay): 60 s.
    expect(nx - Number(sec) * 1000).toBeGreaterThan(55_000);
  });

  it('pauses a host for every machine (Retry-After), and a retry goes first after its wait', async () => {
    const a = await start({ hostConcurrency: 4 });
    const b = await start({ hostConcurrency: 4 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    const [e] = await claim(a.f);
    a.f.retry(e, 60_000);
    await settle(a.f);
    expect(await claim(b.f)).toEqual([]);
    await redis.client.hset(`${P}h:127.0.0.1`, 'p', 0);
    await redis.client.zadd(`${P}ready`, 0, '127.0.0.1');
    const again = await claim(b.f);
    expect(again[0]).toMatchObject({ url: 'http://127.0.0.1/1', attempt: 1 });
  });

  it('acknowledges a URL before its item is written: lease and entry go, a record stays until the line is written', async () => {
    const a = await start();
    const e = await leaseAndWrite(a.f, 'http://127.0.0.1/1');
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(1);
    expect(await a.f.acknowledge(1, 7)).toEqual([true]);
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(0);
    expect(await redis.client.hexists(`${P}e`, e.url)).toBe(0);
    expect(await redis.client.get(`${P}n:done`)).toBe('1');
    // Acknowledged, line not yet written: what a resume after a kill -9 here asks.
    expect(await redis.client.hget(`${P}w:${a.crawl.machine}`, e.url)).toBe('7');
    const line = { tag: a.crawl.machine, url: e.url, itemsBytes: 0, json: '{}' };
    expect(await a.f.acknowledged([line, { ...line, batch: 8 }].map((l) => ({ batch: 7, ...l })))).toEqual([
      true,
      false,
    ]);
    // The same acknowledgement sent again (a reconnect re-sends unanswered commands): still held.
    const ack = (a.crawl as unknown as { link: { script(n: string, args: unknown[]): Promise<unknown> } })
      .link;
    const again = [P, a.crawl.machine, 1, 7, 0, e.url, '127.0.0.1'];
    expect(await ack.script('ack', again)).toEqual([1]);
    expect(await redis.client.get(`${P}n:done`)).toBe('1');
    // Another batch naming it is not that acknowledgement: not held (the URL is done).
    expect(await ack.script('ack', [P, a.crawl.machine, 1, 9, 0, e.url, '127.0.0.1'])).toEqual([0]);
    // Line written, pending file emptied: the record is cleared with the next acknowledgement.
    a.f.itemsSettled();
    const f = await leaseAndWrite(a.f, 'http://127.0.0.1/2');
    expect(await a.f.acknowledge(1, 8)).toEqual([true]);
    expect(await redis.client.hgetall(`${P}w:${a.crawl.machine}`)).toEqual({ [f.url]: '8' });
  });

  it('acknowledges only URLs this machine still holds: one another machine took is dropped, one left in the queue is taken back', async () => {
    const a = await start({ hostConcurrency: 4 });
    const urls = ['http://127.0.0.1/taken', 'http://127.0.0.1/left', 'http://127.0.0.1/kept'];
    for (const u of urls) a.f.push(u, 0);
    await settle(a.f);
    const leased = await claim(a.f);
    expect(leased).toHaveLength(3);
    for (const e of leased) {
      a.f.done(e);
      a.f.itemWritten(e.url);
    }
    await settle(a.f);
    // As if its leases of two had been taken back while it was paused, one leased again by b.
    const lk = `${P}l:${a.crawl.machine}`;
    await redis.client.hdel(lk, urls[0], urls[1]);
    await redis.client.hset(`${P}l:b`, urls[0], '127.0.0.1|1');
    await redis.client.zadd(`${P}q:127.0.0.1`, 1, urls[1]);
    await redis.client.incrby(`${P}n:queued`, 1);
    await redis.client.incrby(`${P}n:leased`, -1);
    const held = await a.f.acknowledge(3, 1);
    const byUrl = Object.fromEntries(leased.map((e, i) => [e.url, held[i]]));
    expect(byUrl).toEqual({ [urls[0]]: false, [urls[1]]: true, [urls[2]]: true });
    expect(a.f.dropped).toBe(1);
    expect(a.lines.join('')).toContain('results dropped at their acknowledgement');
    expect(await redis.client.zscore(`${P}q:127.0.0.1`, urls[1])).toBeNull();
    expect(await redis.client.hkeys(`${P}w:${a.crawl.machine}`)).toEqual(
      expect.arrayContaining([urls[1], urls[2]]),
    );
    expect(await redis.client.hexists(`${P}w:${a.crawl.machine}`, urls[0])).toBe(0);
    expect(await redis.client.get(`${P}n:queued`)).toBe('0');
    expect(await redis.client.get(`${P}n:done`)).toBe('2');
  });

  it("a silent machine's reclaim queues no URL it acknowledged, and keeps its record for its resume", async () => {
    const a = await start({ hostConcurrency: 4, leaseTimeoutMs: 1000 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    const [first, second] = await claim(a.f);
    a.f.done(first);
    a.f.itemWritten(first.url);
    expect(await a.f.acknowledge(1, 1)).toEqual([true]);
    // Killed before its line was written: silent from now on.
    (a.crawl as unknown as { heartbeat: { halt(): void } }).heartbeat.halt();
    const b = await start({ hostConcurrency: 4, leaseTimeoutMs: 1000 });
    const got = await dispatchUntil(b.f, (g) => g.length > 0, 10_000);
    expect(got.map((e) => e.url)).toEqual([second.url]);
    expect(b.lines.join('')).toContain('leases of a silent machine taken back');
    expect(await redis.client.hget(`${P}w:${a.crawl.machine}`, first.url)).toBe('1');
    expect(await redis.client.get(`${P}n:done`)).toBe('1');
    // Its resume (another machine id) finds the record, then forgets it.
    const line = { tag: a.crawl.machine, batch: 1, url: first.url, itemsBytes: 0, json: '{}' };
    expect(await b.f.acknowledged([line])).toEqual([true]);
    await b.f.forget([a.crawl.machine]);
    expect(await redis.client.exists(`${P}w:${a.crawl.machine}`)).toBe(0);
  });

  it('a reconnect gives back no lease whose item is on disk and whose acknowledgement waits (fetched once)', async () => {
    const a = await start({ hostConcurrency: 4 });
    await leaseAndWrite(a.f, 'http://127.0.0.1/1');
    // A write not yet answered holds the acknowledgement back, as the links of a page written
    // during a Redis outage do; meanwhile the connection comes back and the next claim reconciles.
    const writes = (a.f as unknown as { writes: { track(p: Promise<unknown>): void } }).writes;
    let answer = () => {};
    writes.track(new Promise<void>((r) => (answer = r)));
    const acked = a.f.acknowledge(1, 1);
    (a.crawl as unknown as { link: { onBack(): void } }).link.onBack();
    expect(a.f.next()).toBeNull();
    await (a.f as unknown as { claimAnswered: Promise<void> }).claimAnswered;
    answer();
    expect(await acked).toEqual([true]);
    await settle(a.f);
    expect(a.lines.join('')).not.toContain('leases lost in a reconnect given back');
    expect(await redis.client.get(`${P}n:queued`)).toBe('0');
    expect(await redis.client.get(`${P}n:done`)).toBe('1');
    const b = await start({ hostConcurrency: 4 });
    expect(await claim(b.f)).toEqual([]);
  });

  it("takes a dead machine's leases and tokens back, served first, attempt unchanged", async () => {
    const a = await start({ hostConcurrency: 1, leaseTimeoutMs: 1000 });
    a.f.push('http://127.0.0.1/1', 3);
    a.f.push('http://127.0.0.1/2', 0);
    await settle(a.f);
    const [e] = await claim(a.f);
    expect(e.url).toBe('http://127.0.0.1/2');
    // The machine dies: no more heartbeats, no goodbye.
    (a.crawl as unknown as { heartbeat: { halt(): void } }).heartbeat.halt();
    const b = await start({ hostConcurrency: 1, leaseTimeoutMs: 1000 });
    expect(await claim(b.f)).toEqual([]);
    const deadline = Date.now() + 10_000;
    let got: FrontierEntry[] = [];
    while (got.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      got = await claim(b.f);
    }
    expect(got.map((x) => [x.url, x.attempt])).toEqual([['http://127.0.0.1/2', 0]]);
    expect(b.lines.join('')).toContain('leases of a silent machine taken back');
    expect(await redis.client.sismember(`${P}machines`, a.crawl.machine)).toBe(0);
  });

  it('a machine silent past the lease timeout: its result is dropped when another machine took the URL, kept when none did', async () => {
    const a = await start({ hostConcurrency: 2, leaseTimeoutMs: 1000 });
    for (const u of ['http://127.0.0.1/taken', 'http://127.0.0.1/left']) a.f.push(u, 0);
    await settle(a.f);
    const leased = await claim(a.f);
    expect(leased.map((e) => e.url).sort()).toEqual(['http://127.0.0.1/left', 'http://127.0.0.1/taken']);
    // While its lease is surely its own, an item is written without asking.
    expect(a.f.mayWrite('http://127.0.0.1/taken')).toBe(true);
    // Silent (as if SIGSTOPped): no heartbeat; another machine takes its leases back, leases one.
    (a.crawl as unknown as { heartbeat: { halt(): void } }).heartbeat.halt();
    const b = await start({ hostConcurrency: 1, leaseTimeoutMs: 1000 });
    const deadline = Date.now() + 10_000;
    let got: FrontierEntry[] = [];
    while (got.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      got = await claim(b.f);
    }
    expect(got).toHaveLength(1);
    const [taken, left] =
      got[0].url === 'http://127.0.0.1/taken'
        ? ['http://127.0.0.1/taken', 'http://127.0.0.1/left']
        : ['http://127.0.0.1/left', 'http://127.0.0.1/taken'];
    for (const e of leased) a.f.done(e);
    // Back: past its sure time it asks Redis, atomically, per result.
    const mayTaken = a.f.mayWrite(taken);
    expect(mayTaken).toBeInstanceOf(Promise);
    expect(await mayTaken).toBe(false);
    // The other, back in the queue and leased by no one, is its own again (leased to it in the same step).
    expect(await a.f.mayWrite(left)).toBe(true);
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, left)).toBe(1);
    expect(await redis.client.hexists(`${P}l:${b.crawl.machine}`, taken)).toBe(1);
    expect(a.f.dropped).toBe(1);
    expect(a.lines.join('')).toContain("result dropped: its lease is no longer this machine's");
    // Its heartbeat was made again by that step: its lease is surely its own for a while.
    expect(a.f.mayWrite(left)).toBe(true);
  });

  it('Redis out of memory: the refused write is sent again, no acknowledgement before it, nothing handed out meanwhile', async () => {
    const a = await start();
    a.f.push('http://127.0.0.1/1', 0);
    a.f.push('http://127.0.0.1/2', 0);
    await settle(a.f);
    const [e] = await claim(a.f);
    a.f.done(e);
    await settle(a.f);
    await redis.client.config('SET', 'maxmemory', '1');
    let settled = false;
    let acked: Promise<boolean[]> = Promise.resolve([]);
    try {
      a.f.push('http://127.0.0.1/link-of-1', 1);
      a.f.itemWritten(e.url);
      acked = a.f.acknowledge(1, 1);
      void a.f.settled().then(() => {
        settled = true;
      });
      const status = () => a.crawl.status().problem as string | null;
      const deadline = Date.now() + 10_000;
      while (status() === null || !String(status()).includes('maxmemory 0 MB')) {
        if (Date.now() > deadline) throw new Error('no out-of-memory status');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(status()).toMatch(/^redis at 127\.0\.0\.1:\d+ is out of memory \(maxmemory 0 MB\): paused$/);
      // Paused: the leased URL left in the buffer is not handed out, the link not queued, no ack.
      expect(a.f.next()).toBeNull();
      expect(settled).toBe(false);
      expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(1);
      expect(await redis.client.zscore(`${P}q:127.0.0.1`, 'http://127.0.0.1/link-of-1')).toBeNull();
    } finally {
      await redis.client.config('SET', 'maxmemory', '0');
    }
    expect(await acked).toEqual([true]);
    await settle(a.f);
    // Memory again: the link is queued, then the page acknowledged; the machine goes on.
    expect(await redis.client.zscore(`${P}q:127.0.0.1`, 'http://127.0.0.1/link-of-1')).not.toBeNull();
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(0);
    expect(a.crawl.status().problem).toBeNull();
    expect(a.stops).toHaveLength(0);
    expect(a.lines.join('')).toContain('redis has memory again: resuming');
  });

  it('Redis out of memory past the bound (3 lease timeouts): the machine stops, its page not acknowledged', async () => {
    const a = await start({ leaseTimeoutMs: 400 });
    a.f.push('http://127.0.0.1/1', 0);
    await settle(a.f);
    const [e] = await claim(a.f);
    a.f.done(e);
    await settle(a.f);
    await redis.client.config('SET', 'maxmemory', '1');
    let acked: Promise<boolean[] | Error> = Promise.resolve([]);
    try {
      a.f.push('http://127.0.0.1/link-of-1', 1);
      a.f.itemWritten(e.url);
      acked = a.f.acknowledge(1, 1).catch((err: Error) => err);
      const deadline = Date.now() + 15_000;
      while (a.stops.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await redis.client.config('SET', 'maxmemory', '0');
    }
    expect(a.stops).toHaveLength(1);
    expect(a.crawl.status().problem).toMatch(
      /is out of memory \(maxmemory 0 MB\): gave up after \d+ s paused/,
    );
    await settle(a.f).catch(() => {});
    // No answer: the journal keeps its line in the pending file (resume asks ACKED).
    expect(await acked).toBeInstanceOf(Error);
    // Not acknowledged: another machine (or the next start) fetches it again, with its links.
    expect(await redis.client.hexists(`${P}l:${a.crawl.machine}`, e.url)).toBe(1);
  });

  it('an acknowledgement Redis does not answer at stop is given up after the bound: the lease is given back after it', async () => {
    const a = await start();
    const e = await leaseAndWrite(a.f, 'http://127.0.0.1/1');
    // Redis runs no write for a while (as if unavailable): the acknowledgement waits in its queue.
    await redis.client.call('CLIENT', 'PAUSE', '3000', 'WRITE');
    try {
      const acked = a.f.acknowledge(1, 1).catch((err: Error) => err);
      a.f.closing(200);
      const got = await acked;
      expect(got).toBeInstanceOf(Error);
      expect(String(got)).toContain('kept for --resume');
    } finally {
      await redis.client.call('CLIENT', 'UNPAUSE');
    }
    // Redis ran it once back (its line stays pending: resume asks ACKED and writes it).
    await settle(a.f);
    expect(await redis.client.hget(`${P}w:${a.crawl.machine}`, e.url)).toBe('1');
    // The close gives it back as a lease still held here: after the acknowledgement, a no-op.
    await a.crawl.close();
    open.splice(open.indexOf(a.crawl), 1);
    expect(await redis.client.get(`${P}n:queued`)).toBe('0');
    expect(await redis.client.get(`${P}n:done`)).toBe('1');
  });

  it('gives back, at close, the leases of URLs not written', async () => {
    const a = await start({ hostConcurrency: 4 });
    for (const u of ['http://127.0.0.1/1', 'http://127.0.0.1/2']) a.f.push(u, 0);
    await settle(a.f);
    expect(await claim(a.f)).toHaveLength(2);
    await a.crawl.close();
    open.splice(open.indexOf(a.crawl), 1);
    expect(await redis.client.get(`${P}n:leased`)).toBe('0');
    expect(await redis.client.get(`${P}n:queued`)).toBe('2');
    expect(await redis.client.exists(`${P}hb:${a.crawl.machine}`)).toBe(0);
  });
});
