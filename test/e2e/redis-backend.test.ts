/**
 * Several collectors ("machines": separate --out dirs, one crawl id) sharing one crawl through a
 * real redis-server: no URL fetched twice, politeness held across them, a machine killed with
 * SIGKILL loses nothing (the other takes its leases back), a Redis restart is waited out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlPrefix } from '../../src/backends/redis/crawl-keys.js';
import { crawl } from '../../src/runtime/library.js';
import { itemCount, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { haveRedis, machineCrawlArgs, useRedis, waitForMachines } from '../fixtures/redis-machines.js';
import type { TestRedis } from '../fixtures/redis-server.js';
import { duplicates, PAGES, pageRequests, startSite } from '../fixtures/redis-site.js';

const HAVE_REDIS = haveRedis('Redis backend tests');

const machineArgs = (seed: string, out: string, redis: TestRedis, ...extra: string[]) =>
  machineCrawlArgs(seed, out, redis, 'test-crawl', ...extra);

describe.skipIf(!HAVE_REDIS)('two machines through one redis', () => {
  const bench = useRedis({ appendonly: true, appendfsync: 'always' });

  it('share the site: every page once in the union, none fetched twice, politeness held across both', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(5);
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '120', '--jitter', '0', '--host-concurrency', '1'];
      const ra = startCli(machineArgs(seed, a, bench.redis, ...flags));
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const [ea, eb] = await Promise.all([waitExit(ra), waitExit(rb)]);
      expect(ea.code, ea.stderr).toBe(0);
      expect(eb.code, eb.stderr).toBe(0);
      const ia = readItems(a).map((i) => i.url);
      const ib = readItems(b).map((i) => i.url);
      const union = [...ia, ...ib];
      expect(union.length).toBe(3 * PAGES);
      expect(new Set(union).size).toBe(3 * PAGES);
      expect(duplicates(pageRequests(servers))).toEqual([]);
      // Both took part (the work is leased to whoever asks first; neither starves).
      expect(Math.min(ia.length, ib.length)).toBeGreaterThan(PAGES / 4);
      for (const s of servers) {
        const reqs = s.requests.filter((r) => r.path.startsWith('/p/'));
        // One request at a time per host, across both machines, and each starts at least the
        // delay after the previous one ended (the gap runs from a completion; 5 ms: clock rounding).
        for (let i = 1; i < reqs.length; i++) {
          expect(reqs[i].at - (reqs[i - 1].endedAt as number)).toBeGreaterThanOrEqual(120 - 5);
        }
      }
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it("three machines, --host-concurrency shared crawl-wide: each gets a fair share of the hosts' slots", async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(30);
    try {
      const outs = [tempDir(), tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      // One machine's slots (8) could hold every host token (3 hosts × 2) at once.
      const flags = ['--delay', '0', '--host-concurrency', '2', '--concurrency', '8'];
      const procs = outs.map((o) => startCli(machineArgs(seed, o, bench.redis, ...flags)));
      bench.children.push(...procs);
      for (const e of await Promise.all(procs.map((p) => waitExit(p)))) expect(e.code, e.stderr).toBe(0);
      const shares = outs.map((o) => readItems(o).length);
      expect(shares.reduce((a, b) => a + b)).toBe(3 * PAGES);
      // A fair share is a third (40); a machine started a little later still gets half of that.
      for (const n of shares)
        expect(n, `items per machine: ${shares.join(' + ')}`).toBeGreaterThanOrEqual(PAGES / 2);
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('kill -9 of one machine mid-crawl: the other takes its leases back and finishes; nothing lost', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(80);
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = [
        '--delay',
        '30',
        '--host-concurrency',
        '2',
        '--concurrency',
        '4',
        '--lease-timeout',
        '4s',
      ];
      const ra = startCli(machineArgs(seed, a, bench.redis, ...flags));
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const endA = waitExit(ra);
      const P = 'collector:{test-crawl}:';
      /** The machine id whose heartbeat names out dir `a`, once it has beaten. */
      const machineOfA = async (): Promise<string | undefined> => {
        const ids = await bench.redis.client.smembers(`${P}machines`);
        if (ids.length === 0) return undefined;
        const beats = await bench.redis.client.mget(ids.map((m) => `${P}hb:${m}`));
        return ids.find((_m, i) => beats[i] !== null && JSON.parse(beats[i] as string).out === a);
      };
      await waitFor(() => itemCount(a) >= 8, 60_000);
      // Kill it while it holds leases: the host-concurrency slots are shared, so at a given moment
      // the other machine may hold all of them and this one none (then there is nothing to take back).
      const deadId = await machineOfA();
      expect(deadId).toBeDefined();
      for (let held = 0; held === 0; ) {
        held = await bench.redis.client.hlen(`${P}l:${deadId}`);
        if (held === 0) await new Promise((r) => setTimeout(r, 2));
      }
      process.kill(ra.pid as number, 'SIGKILL');
      expect((await endA).signal).toBe('SIGKILL');
      // What the dead machine had leased and not acknowledged (its heartbeat lives on until the
      // lease timeout, so nothing was taken back yet).
      const leasedAtKill = await bench.redis.client.hkeys(`${P}l:${deadId}`);
      const eb = await waitExit(rb);
      expect(eb.code, eb.stderr).toBe(0);
      const ia = readItems(a).map((i) => i.url);
      const ib = readItems(b).map((i) => i.url);
      const union = new Set([...ia, ...ib]);
      // Nothing lost: every page has its item on one machine or the other.
      expect(union.size).toBe(3 * PAGES);
      expect(new Set(ib).size).toBe(ib.length);
      // Fetched twice: only URLs the dead machine had leased and not acknowledged at the kill (in
      // flight, or written and not yet acknowledged); every item written twice is one of them.
      const twice = duplicates(pageRequests(servers));
      for (const u of twice) expect(leasedAtKill).toContain(u);
      const doubleItems = duplicates([...ia, ...ib]);
      for (const u of doubleItems) expect(twice).toContain(u);
      // The leases held a few ms before the kill are acknowledged within ~80 ms (the page latency);
      // whatever was still leased at the kill was taken back by the other machine.
      if (leasedAtKill.length > 0) {
        expect(fs.readFileSync(path.join(b, 'logs', 'crawl-0.log'), 'utf8')).toContain(
          'leases of a silent machine taken back',
        );
      }
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('redis restarted mid-crawl (AOF): both machines pause, resume and finish; nothing lost or fetched twice', async () => {
    await bench.redis.client.flushdb();
    const servers = await startSite(20);
    try {
      const [a, b] = [tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '50', '--host-concurrency', '1'];
      const ra = startCli(machineArgs(seed, a, bench.redis, ...flags));
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const ends = Promise.all([waitExit(ra), waitExit(rb)]);
      await waitFor(() => itemCount(a) + itemCount(b) >= 20, 60_000);
      await bench.redis.kill();
      // While Redis is away, status.json says so (and the crawl waits).
      const backendOf = (out: string) => {
        try {
          return JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8')).totals.backend;
        } catch {
          return undefined;
        }
      };
      await waitFor(() => backendOf(a)?.connected === false, 30_000);
      expect(backendOf(a)).toMatchObject({ kind: 'redis', crawlId: 'test-crawl' });
      await bench.redis.start();
      const [ea, eb] = await ends;
      expect(ea.code, ea.stderr).toBe(0);
      expect(eb.code, eb.stderr).toBe(0);
      const union = [...readItems(a), ...readItems(b)].map((i) => i.url);
      expect(new Set(union).size).toBe(3 * PAGES);
      expect(union.length).toBe(3 * PAGES);
      // appendfsync always: every answered write survived the restart, so no lease was lost.
      expect(duplicates(pageRequests(servers))).toEqual([]);
      for (const out of [a, b]) {
        const log = fs.readFileSync(path.join(out, 'logs', 'crawl-0.log'), 'utf8');
        expect(log).toContain('redis unavailable: pausing');
        expect(log).toContain('redis available again: resuming');
      }
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('status shows every machine; stop stops all gracefully (leases given back); a new collector continues', async () => {
    await bench.redis.client.flushdb();
    // Pages from 10 on wait until both machines are stopping: the crawl cannot end before the
    // stop, however slowly a loaded machine runs the status and stop commands.
    let release = () => {};
    const until = new Promise<void>((r) => {
      release = r;
    });
    const servers = await startSite(20, { from: 10, until });
    try {
      const [a, b, c] = [tempDir(), tempDir(), tempDir()];
      const seed = `${servers[0].origin}/p/0`;
      const flags = ['--delay', '100', '--host-concurrency', '1'];
      const ra = startCli(machineArgs(seed, a, bench.redis, ...flags));
      const rb = startCli(machineArgs(seed, b, bench.redis, ...flags));
      bench.children.push(ra, rb);
      const ends = Promise.all([waitExit(ra), waitExit(rb)]);
      // Both machines beating (one may have taken every page not held before the other started).
      await waitForMachines(bench.redis, 'test-crawl', 2, () => itemCount(a) + itemCount(b) > 0);
      const ids = ['--backend', bench.redis.url, '--crawl-id', 'test-crawl'];
      const st = await runCli(['status', ...ids, '--json']);
      expect(st.code, st.stderr).toBe(0);
      const view = JSON.parse(st.stdout);
      expect(view.machines.map((m: { out: string }) => m.out).sort()).toEqual([a, b].sort());
      const stop = await runCli(['stop', ...ids]);
      expect(stop.code, stop.stderr).toBe(0);
      // Each machine sees the stop at its next heartbeat; then the held pages are answered.
      const stateOf = (out: string) => {
        try {
          return JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8')).state;
        } catch {
          return undefined;
        }
      };
      await waitFor(
        () => [a, b].every((out) => ['stopping', 'stopped', 'finished'].includes(stateOf(out))),
        60_000,
      );
      release();
      const [ea, eb] = await ends;
      expect([ea.code, eb.code]).toEqual([0, 0]);
      const done = readItems(a).length + readItems(b).length;
      expect(done).toBeLessThan(3 * PAGES);
      // Nothing left leased: every URL taken and not written went back to the queue.
      expect(Number(await bench.redis.client.get('collector:{test-crawl}:n:leased'))).toBe(0);
      expect((await runCli(['status', ...ids])).code).toBe(3);
      // A collector started later with the same id is not stopped by the old stop, and finishes.
      const ec = await runCli(machineArgs(seed, c, bench.redis, '--delay', '0'));
      expect(ec.code, ec.stderr).toBe(0);
      const union = [...readItems(a), ...readItems(b), ...readItems(c)].map((i) => i.url);
      expect(union.length).toBe(3 * PAGES);
      expect(new Set(union).size).toBe(3 * PAGES);
    } finally {
      release();
      for (const s of servers) await s.close();
    }
  });

  it('refuses a malformed backend address or crawl id with one line', async () => {
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--out', tempDir(), '--backend', 'redis:/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^collector: --backend: expected embedded or redis:\/\/host:port\/db\n$/);
    const s = await runCli(['status', '--backend', bench.redis.url]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('--backend needs --crawl-id');
  });
});

describe.skipIf(!HAVE_REDIS)('one machine through redis', () => {
  const bench = useRedis();

  it('ends once its last items are on disk: with nothing in flight it writes them at once, not at the next save', async () => {
    const servers = await startSite(0);
    try {
      const out = tempDir();
      // Items may wait 30 s in memory before they are written, and a URL is acknowledged (the crawl
      // over) only once its item is on disk.
      const s = await crawl({
        seeds: [`${servers[0].origin}/p/0`],
        out,
        scope: 'any',
        delay: 0,
        backend: bench.redis.url,
        crawlId: 'quiet-flush',
        saveInterval: 30_000,
        saveEveryItems: 100_000,
      });
      expect(s).toMatchObject({ items: 3 * PAGES, errors: 0, queued: 0, completed: true });
      expect(s.seconds).toBeLessThan(15);
      expect(Number(await bench.redis.client.get(`${crawlPrefix('quiet-flush')}n:done`))).toBe(3 * PAGES);
    } finally {
      for (const s of servers) await s.close();
    }
  }, 60_000);
});
