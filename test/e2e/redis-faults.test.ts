/**
 * Faults of a crawl shared through a real redis-server: a machine paused (SIGSTOP) past the lease
 * timeout while it holds leases writes no item for a URL another machine took when it resumes,
 * and every page is collected exactly once; a machine killed (SIGKILL) after Redis recorded its
 * acknowledgement and before its item line writes that item at its resume; a Redis out of memory
 * (maxmemory, noeviction) pauses the machines, says so and ends them with a failure, nothing
 * acknowledged lost; a Redis restarted without persistence, or holding another crawl's record,
 * stops them loudly with exit code 76.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlPrefix } from '../../src/backends/redis/crawl-keys.js';
import { ACK } from '../../src/backends/redis/frontier-scripts.js';
import { PENDING_ITEMS, readPendingItems } from '../../src/frontier/pending-items.js';
import { itemCount, readItems, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { haveRedis, machineCrawlArgs, useRedis, waitForMachines } from '../fixtures/redis-machines.js';
import type { TestRedis } from '../fixtures/redis-server.js';
import { duplicates, PAGES, startSite } from '../fixtures/redis-site.js';
import { startRedisTrap } from '../fixtures/redis-trap.js';

const HAVE_REDIS = haveRedis('Redis fault tests');
const CRAWL = 'fault-crawl';
const P = crawlPrefix(CRAWL);

/** One machine of the crawl, lease timeout 1 s (the shortest), out of memory given up after 3 s. */
function machineArgs(seed: string, out: string, redis: TestRedis, ...extra: string[]): string[] {
  return machineCrawlArgs(seed, out, redis, CRAWL, '--lease-timeout', '1s', ...extra);
}

/** The id of the machine writing to `out`, from its heartbeat, once it beats. */
async function machineOf(redis: TestRedis, out: string): Promise<string | undefined> {
  const ids = await redis.client.smembers(`${P}machines`);
  if (ids.length === 0) return undefined;
  const beats = await redis.client.mget(ids.map((m) => `${P}hb:${m}`));
  return ids.find((_m, i) => beats[i] !== null && JSON.parse(beats[i] as string).out === out);
}

/** Wait until the machine writing to `out` holds at least one lease; @returns its id. */
async function holdingLeases(redis: TestRedis, out: string): Promise<string> {
  for (const start = Date.now(); Date.now() - start < 30_000; ) {
    const id = await machineOf(redis, out);
    if (id !== undefined && (await redis.client.hlen(`${P}l:${id}`)) > 0) return id;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`machine of ${out} never held a lease`);
}

/** `totals.backend` of the status.json under `out`, or undefined while there is none. */
function backendStatus(out: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8')).totals.backend;
  } catch {
    return undefined;
  }
}

describe.skipIf(!HAVE_REDIS)('a machine paused (SIGSTOP) past the lease timeout', () => {
  const bench = useRedis();

  // 2 and 4 lease timeouts: its leases go to the others (their reclaims run every 250 ms).
  for (const pauseMs of [2_000, 4_000]) {
    it(`paused ${pauseMs / 1000} s while holding leases, then resumed: every page collected exactly once`, async () => {
      await bench.redis.client.flushdb();
      const servers = await startSite(120);
      try {
        const outs = [tempDir(), tempDir(), tempDir()];
        const seed = `${servers[0].origin}/p/0`;
        const flags = ['--delay', '0', '--host-concurrency', '2', '--concurrency', '4'];
        const procs = outs.map((o) => startCli(machineArgs(seed, o, bench.redis, ...flags)));
        bench.children.push(...procs);
        const ends = Promise.all(procs.map((p) => waitExit(p)));
        await waitFor(() => itemCount(outs[0]) >= 3, 60_000);
        await holdingLeases(bench.redis, outs[0]);
        process.kill(procs[0].pid as number, 'SIGSTOP');
        await new Promise((r) => setTimeout(r, pauseMs));
        process.kill(procs[0].pid as number, 'SIGCONT');
        const exits = await ends;
        for (const e of exits) expect(e.code, e.stderr).toBe(0);
        const urls = outs.flatMap((o) => readItems(o).map((i) => i.url));
        // Exactly once, wherever the pause fell (its items on disk were acknowledged before).
        expect(duplicates(urls)).toEqual([]);
        expect(new Set(urls).size).toBe(3 * PAGES);
        if (pauseMs >= 4_000) {
          // Long enough on any load: its leases were taken back while it was stopped.
          const others = outs
            .slice(1)
            .map((o) => fs.readFileSync(path.join(o, 'logs', 'crawl-0.log'), 'utf8'));
          expect(others.join('')).toContain('leases of a silent machine taken back');
        }
      } finally {
        for (const s of servers) await s.close();
      }
    });
  }
});

describe.skipIf(!HAVE_REDIS)('a machine paused at its acknowledgement', () => {
  const bench = useRedis();

  it('paused (SIGSTOP, its connection held) past the lease timeout just before Redis ran it: exactly once', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(40);
    // Machine a talks to Redis through a relay that holds its connection at its next acknowledgement.
    const trap = await startRedisTrap(bench.redis.port);
    try {
      const outs = [tempDir(), tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '0', '--host-concurrency', '2', '--concurrency', '4'];
      const procs = outs.map((o, i) =>
        startCli(machineArgs(seed, o, i === 0 ? { ...bench.redis, url: trap.url } : bench.redis, ...flags)),
      );
      bench.children.push(...procs);
      const ends = Promise.all(procs.map((p) => waitExit(p)));
      await waitFor(() => itemCount(outs[0]) >= 3, 60_000);
      const paused = await holdingLeases(bench.redis, outs[0]);
      trap.arm(ACK, 'before');
      await trap.tripped;
      process.kill(procs[0].pid as number, 'SIGSTOP');
      // Its heartbeat is held too: the others take its leases back, those of that batch included.
      for (const start = Date.now(); await bench.redis.client.exists(`${P}l:${paused}`); ) {
        if (Date.now() - start > 30_000) throw new Error('its leases were never taken back');
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 1_000));
      process.kill(procs[0].pid as number, 'SIGCONT');
      trap.release();
      const exits = await ends;
      for (const e of exits) expect(e.code, e.stderr).toBe(0);
      const urls = outs.flatMap((o) => readItems(o).map((i) => i.url));
      expect(duplicates(urls)).toEqual([]);
      expect(new Set(urls).size).toBe(3 * PAGES);
    } finally {
      await trap.close();
      for (const s of servers) await s.close();
    }
  });
});

describe.skipIf(!HAVE_REDIS)('a machine killed after redis ran its acknowledgement', () => {
  const bench = useRedis();

  it('SIGKILL before its item lines: --resume writes them, every page exactly once across machines', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(40);
    // Machine a talks to Redis through a relay that freezes at its next acknowledgement.
    const trap = await startRedisTrap(bench.redis.port);
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '0', '--host-concurrency', '2', '--concurrency', '4'];
      const ra = startCli(machineArgs(seed, a, { ...bench.redis, url: trap.url }, ...flags));
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const endA = waitExit(ra);
      const endB = waitExit(rb);
      await waitFor(() => itemCount(a) >= 3, 60_000);
      const machineA = await holdingLeases(bench.redis, a);
      trap.arm(ACK);
      await trap.tripped;
      // Redis ran it (the records appear); a never hears the answer: killed now.
      const records = `${P}w:${machineA}`;
      for (const start = Date.now(); (await bench.redis.client.hlen(records)) === 0; ) {
        if (Date.now() - start > 10_000) throw new Error('the acknowledgement never reached redis');
        await new Promise((r) => setTimeout(r, 5));
      }
      process.kill(ra.pid as number, 'SIGKILL');
      expect((await endA).signal).toBe('SIGKILL');
      await trap.close();
      const acked = Object.keys(await bench.redis.client.hgetall(records));
      const pending = await readPendingItems(path.join(a, 'state', 'crawl-0', PENDING_ITEMS));
      const pendingUrls = pending.lines.map((l) => l.url);
      // Acknowledged in Redis, recorded in the pending file; that batch's not in its items file
      // (an earlier batch may be written already, its pending lines not yet emptied).
      expect(pendingUrls).toEqual(expect.arrayContaining(acked));
      const itemsBefore = new Set(readItems(a).map((i) => String(i.url)));
      const unwritten = acked.filter((u) => !itemsBefore.has(u));
      expect(unwritten.length).toBeGreaterThan(0);
      const rr = startCli([...machineArgs(seed, a, bench.redis, ...flags), '--resume']);
      bench.children.push(rr);
      for (const e of [await endB, await waitExit(rr)]) expect(e.code, e.stderr).toBe(0);
      const itemsA = readItems(a).map((i) => String(i.url));
      for (const u of acked) expect(itemsA).toContain(u);
      const urls = [...itemsA, ...readItems(b).map((i) => String(i.url))];
      expect(duplicates(urls)).toEqual([]);
      expect(new Set(urls).size).toBe(3 * PAGES);
      // Settled: the pending file emptied, the records of the killed machine gone.
      expect(fs.readFileSync(path.join(a, 'state', 'crawl-0', PENDING_ITEMS), 'utf8')).toBe('');
      expect(await bench.redis.client.exists(records)).toBe(0);
      const log = fs.readFileSync(path.join(a, 'logs', 'crawl-0.log'), 'utf8');
      expect(log).toContain('items acknowledged before a stop written');
      expect(log).toContain(`"promoted":${unwritten.length}`);
    } finally {
      await trap.close().catch(() => {});
      for (const s of servers) await s.close();
    }
  });
});

describe.skipIf(!HAVE_REDIS)('redis out of memory (maxmemory, noeviction) mid-crawl', () => {
  const bench = useRedis();

  it('says it on stderr and in status, ends non-zero; a machine started once memory is back finds nothing lost', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(60);
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '0', '--host-concurrency', '1', '--concurrency', '2'];
      const ra = startCli(machineArgs(seed, a, bench.redis, ...flags));
      bench.children.push(ra);
      const endA = waitExit(ra);
      await waitFor(() => itemCount(a) >= 5, 60_000);
      const used = /^used_memory:(\d+)/m.exec(await bench.redis.client.info('memory'))?.[1];
      await bench.redis.client.config('SET', 'maxmemory-policy', 'noeviction');
      await bench.redis.client.config('SET', 'maxmemory', String(used));
      const line = /redis at 127\.0\.0\.1:\d+ is out of memory \(maxmemory \d+ MB\): paused/;
      await waitFor(() => line.test(String(backendStatus(a)?.problem)), 30_000);
      const status = JSON.parse(fs.readFileSync(path.join(a, 'status.json'), 'utf8'));
      expect(status.workers[0].lastError).toMatch(line);
      const ea = await endA;
      expect(ea.code).toBe(1);
      expect(ea.stderr).toMatch(line);
      expect(ea.stderr).toMatch(/is out of memory \(maxmemory \d+ MB\): gave up after \d+ s paused/);
      // Memory again: a machine started now finishes the crawl; every page has its item.
      await bench.redis.client.config('SET', 'maxmemory', '0');
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(rb);
      const eb = await waitExit(rb);
      expect(eb.code, eb.stderr).toBe(0);
      const ib = readItems(b).map((i) => i.url);
      expect(duplicates(ib)).toEqual([]);
      expect(new Set([...readItems(a).map((i) => i.url), ...ib]).size).toBe(3 * PAGES);
    } finally {
      await bench.redis.client.config('SET', 'maxmemory', '0');
      for (const s of servers) await s.close();
    }
  });
});

describe.skipIf(!HAVE_REDIS)('the shared crawl state lost', () => {
  const bench = useRedis();
  /**
   * The fixture site with pages from /p/10 on held until `release()`: the crawl is surely not
   * over when the test breaks its state (however fast the machines crawl what they may).
   */
  const heldSite = async () => {
    let release = () => {};
    const until = new Promise<void>((r) => (release = r));
    return { servers: await startSite(60, { from: 10, until }), release };
  };

  it('redis restarted without persistence: both machines say it loudly and exit 76, writing nothing to the new redis', async () => {
    await bench.redis.client.flushdb();
    const { servers, release } = await heldSite();
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '0', '--host-concurrency', '1'];
      const procs = [a, b].map((o) => startCli(machineArgs(seed, o, bench.redis, ...flags)));
      bench.children.push(...procs);
      const ends = Promise.all(procs.map((p) => waitExit(p)));
      // Both joined before the restart (one started after it would make a new crawl there).
      await waitForMachines(bench.redis, CRAWL, 2, () => itemCount(a) + itemCount(b) >= 6);
      await bench.redis.restart();
      release();
      for (const e of await ends) {
        expect(e.code, e.stderr).toBe(76);
        expect(e.stderr).toContain('unavailable');
        expect(e.stderr).toContain('available again: resuming');
        expect(e.stderr).toContain(
          'collector: the shared crawl state in redis was lost (restarted without persistence?): stopped',
        );
      }
      // Nothing of the crawl was made again in the empty Redis (no record, no queue).
      expect(await bench.redis.client.exists(`${P}crawl`)).toBe(0);
      expect(await bench.redis.client.keys(`${P}q:*`)).toEqual([]);
    } finally {
      release();
      for (const s of servers) await s.close();
    }
  });

  it('the same under a supervisor (--processes 2: two machines in one collector): it stops them and exits 76', async () => {
    await bench.redis.client.flushdb();
    const { servers, release } = await heldSite();
    try {
      const a = tempDir();
      const seed = `${servers[0].origin}/p/0`;
      const ra = startCli(
        machineArgs(seed, a, bench.redis, '--delay', '0', '--host-concurrency', '1', '--processes', '2'),
      );
      bench.children.push(ra);
      const endA = waitExit(ra);
      await waitForMachines(bench.redis, CRAWL, 2, () => itemCount(a) >= 6);
      await bench.redis.restart();
      release();
      const ea = await endA;
      expect(ea.code, ea.stderr).toBe(76);
      expect(ea.stderr).toContain(
        'collector: the shared crawl state in redis was lost (restarted without persistence?): stopped',
      );
      expect(await bench.redis.client.exists(`${P}crawl`)).toBe(0);
    } finally {
      release();
      for (const s of servers) await s.close();
    }
  });

  it('another crawl record at the address (a different redis, the crawl started anew there): exit 76', async () => {
    await bench.redis.client.flushdb();
    const { servers, release } = await heldSite();
    try {
      const a = tempDir();
      const seed = `${servers[0].origin}/p/0`;
      const ra = startCli(machineArgs(seed, a, bench.redis, '--delay', '0', '--host-concurrency', '1'));
      bench.children.push(ra);
      const endA = waitExit(ra);
      await waitFor(() => itemCount(a) >= 3, 60_000);
      await bench.redis.client.hset(`${P}crawl`, 'epoch', 'another-crawl');
      release();
      const ea = await endA;
      expect(ea.code, ea.stderr).toBe(76);
      expect(ea.stderr).toContain('the shared crawl state in redis was lost');
    } finally {
      release();
      for (const s of servers) await s.close();
    }
  });
});
