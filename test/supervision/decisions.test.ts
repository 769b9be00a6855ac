import { describe, expect, it } from 'vitest';
import { parseCrawlOptions } from '../../src/config/crawl-options.js';
import type { Crawler } from '../../src/engine/crawler.js';
import { decideMemory, type GuardedWorker, RECYCLE_AFTER_MS } from '../../src/supervision/memory-pressure.js';
import {
  hungStartingFor,
  START_TIMEOUT_MIN_MS,
  stallCheckPeriod,
  stalledFor,
} from '../../src/supervision/stall-watch.js';
import { emptyCounters } from '../../src/supervision/worker-counters.js';
import { afterExit, MAX_RESTART_BACKOFF_MS, WorkerProcess } from '../../src/supervision/worker-process.js';
import { waitingOnHosts } from '../../src/supervision/worker-protocol.js';
import { defaultPartition, splitPoliteness } from '../../src/supervision/worker-spec.js';

const MB = 1024 * 1024;

describe('worker process: what follows an exit', () => {
  const policy = { maxCrashes: 5, crashWindowMs: 600_000, restartBackoffMs: 1000 };

  it('a clean exit or any exit while stopping is the end; a recycled worker starts again at once', () => {
    expect(afterExit(true, false, false, 0, 0, policy)).toEqual({ action: 'done' });
    expect(afterExit(false, false, true, 0, 0, policy)).toEqual({ action: 'done' });
    expect(afterExit(true, true, false, 0, 0, policy)).toEqual({ action: 'respawn' });
  });

  it('a crash restarts with doubling backoff, capped; the fifth in the window parks the worker', () => {
    const delays = [1, 2, 3, 4].map((n) => afterExit(false, false, false, n, n, policy));
    expect(delays).toEqual([1000, 2000, 4000, 8000].map((delayMs) => ({ action: 'restart', delayMs })));
    expect(afterExit(false, false, false, 1, 20, policy)).toEqual({
      action: 'restart',
      delayMs: MAX_RESTART_BACKOFF_MS,
    });
    expect(afterExit(false, false, false, 5, 5, policy)).toEqual({ action: 'park' });
    // A recycled worker that crashed on its way out is a crash.
    expect(afterExit(false, true, false, 1, 1, policy)).toEqual({ action: 'restart', delayMs: 1000 });
  });
});

describe('memory pressure', () => {
  const worker = (rss: number, over: Partial<GuardedWorker> = {}): GuardedWorker => ({
    rss: rss * MB,
    live: true,
    paused: false,
    pausedAt: 0,
    recycling: false,
    ...over,
  });

  it('over budget, pauses the largest live worker, then recycles it if still over after a while', () => {
    const small = worker(100);
    const big = worker(300);
    const gone = worker(900, { live: false });
    const first = decideMemory([small, big, gone], 900 * MB, 800 * MB, 1000 * MB, 10_000);
    expect(first).toEqual({ pause: big, recycle: null, resume: [] });
    big.paused = true;
    big.pausedAt = 10_000;
    expect(decideMemory([small, big], 900 * MB, 800 * MB, 1000 * MB, 10_000 + RECYCLE_AFTER_MS - 1)).toEqual({
      pause: null,
      recycle: null,
      resume: [],
    });
    expect(decideMemory([small, big], 900 * MB, 800 * MB, 1000 * MB, 10_000 + RECYCLE_AFTER_MS).recycle).toBe(
      big,
    );
  });

  it('recycles at once near the limit, and resumes paused workers well under budget', () => {
    const big = worker(300);
    expect(decideMemory([big], 960 * MB, 800 * MB, 1000 * MB, 0)).toEqual({
      pause: big,
      recycle: big,
      resume: [],
    });
    const paused = worker(100, { paused: true });
    const leaving = worker(100, { paused: true, recycling: true });
    expect(decideMemory([paused, leaving], 700 * MB, 800 * MB, 1000 * MB, 0).resume).toEqual([paused]);
    // between 90% and 100% of the budget: nothing changes
    expect(decideMemory([paused], 750 * MB, 800 * MB, 1000 * MB, 0)).toEqual({
      pause: null,
      recycle: null,
      resume: [],
    });
  });
});

describe('stall watch', () => {
  const running = (lastProgressAt: number, queued = 1) => ({
    state: 'running',
    paused: false,
    startedAt: 0,
    stats: { queued, inFlight: 0, lastProgressAt },
  });

  it('a running worker with work pending and no item for the timeout is stalled', () => {
    expect(stalledFor(running(1000), 400_000, 300_000)).toBe(399_000);
    expect(stalledFor(running(200_000), 400_000, 300_000)).toBeNull();
    expect(stalledFor(running(1000, 0), 400_000, 300_000)).toBeNull();
    expect(stalledFor({ ...running(1000), paused: true }, 400_000, 300_000)).toBeNull();
    expect(stalledFor({ ...running(1000), state: 'idle' }, 400_000, 300_000)).toBeNull();
    // A restarted process is judged from its start.
    expect(stalledFor({ ...running(1000), startedAt: 350_000 }, 400_000, 300_000)).toBeNull();
  });

  it('a worker whose pending work waits on its hosts (politeness, Retry-After, back-off) is not stalled', () => {
    // no item for 399 s, but all its work was waiting on a backed-off host until 10 s ago
    expect(
      stalledFor(
        { ...running(1000), stats: { ...running(1000).stats, waitingAt: 390_000 } },
        400_000,
        300_000,
      ),
    ).toBeNull();
    // it stopped waiting (a host became ready) and still wrote nothing for the timeout: a stall
    expect(
      stalledFor(
        { ...running(1000), stats: { ...running(1000).stats, waitingAt: 90_000 } },
        400_000,
        300_000,
      ),
    ).toBe(310_000);
  });

  it('waitingOnHosts: queued work, nothing in flight, no host ready now', () => {
    const c = (busy: number, queued: number, readyIn: number) => ({
      busy,
      frontier: { queued, nextReadyIn: () => readyIn } as unknown as Crawler['frontier'],
    });
    expect(waitingOnHosts(c(0, 3, 5000))).toBe(true);
    expect(waitingOnHosts(c(0, 3, 0))).toBe(false); // a host is ready and nothing is taken: not waiting
    expect(waitingOnHosts(c(1, 3, 5000))).toBe(false); // a request in flight is work being done
    expect(waitingOnHosts(c(0, 0, Number.POSITIVE_INFINITY))).toBe(false); // nothing pending
  });

  it('checks every half timeout, between 100 ms and 5 s', () => {
    expect([50, 4000, 300_000].map(stallCheckPeriod)).toEqual([100, 2000, 5000]);
  });

  it('a worker never ready after max(stall timeout, 1 min) hangs while starting', () => {
    const starting = { state: 'starting', paused: false, startedAt: 10_000, stats: null };
    // Stall timeout 5 min: judged after 5 min.
    expect(hungStartingFor(starting, 10_000 + 300_000, 300_000)).toBeNull();
    expect(hungStartingFor(starting, 10_000 + 300_001, 300_000)).toBe(300_001);
    // A short stall timeout still gives a start its minute (it may wait for a previous holder).
    expect(hungStartingFor(starting, 10_000 + START_TIMEOUT_MIN_MS, 1000)).toBeNull();
    expect(hungStartingFor(starting, 10_000 + START_TIMEOUT_MIN_MS + 1, 1000)).toBe(START_TIMEOUT_MIN_MS + 1);
    // Ready (running, idle) or restarting workers are not starting.
    for (const state of ['running', 'idle', 'restarting', 'parked']) {
      expect(hungStartingFor({ ...starting, state }, 10_000 + 10 * START_TIMEOUT_MIN_MS, 1000)).toBeNull();
    }
  });
});

describe('worker process: items this run', () => {
  const stats = (items: number, itemsThisRun: number) => ({
    items,
    itemsThisRun,
    errors: 0,
    queued: 0,
    inFlight: 0,
    bytes: 0,
    received: 0,
    idle: false,
    rss: 0,
    lastProgressAt: 0,
    skipped: {},
    collected: items,
    failedSeeds: [],
    counters: emptyCounters(),
  });

  it('counts what its processes wrote this run, also across a restart', () => {
    const w = new WorkerProcess({
      id: 'crawl-0',
      type: 'crawl',
      group: 'crawl',
      index: 0,
      count: 1,
      partition: 'host',
      options: parseCrawlOptions({ seeds: [], out: '/tmp/x' }),
      seeds: [],
      source: { kind: 'builtin', name: 'crawl' },
      sourceOptions: {},
    });
    expect(w.itemsThisRun).toBe(0);
    // The first process resumed 100 items and wrote 30.
    w.recordStats(stats(130, 30), 1000);
    expect(w.itemsThisRun).toBe(30);
    // Restarted: the new process resumed 130 (its predecessor's included) and wrote 5.
    w.recordStats(stats(135, 5), 2000);
    expect(w.itemsThisRun).toBe(35);
  });
});

describe('worker specs', () => {
  it('splits politeness among processes sharing a host, in numbers', () => {
    const opts = parseCrawlOptions({ delay: '1s', hostConcurrency: 4 });
    expect(splitPoliteness(opts, 2)).toMatchObject({ delay: 2000, hostConcurrency: 2 });
    expect(splitPoliteness(opts, 8)).toMatchObject({ delay: 8000, hostConcurrency: 1 });
    expect(splitPoliteness(opts, 1)).toBe(opts);
    expect(opts).toMatchObject({ delay: 1000, hostConcurrency: 4 });
  });

  it('partitions by URL for one seed host, else by host', () => {
    expect(defaultPartition(['http://a.example/x', 'http://a.example/y'])).toBe('url');
    expect(defaultPartition(['http://a.example/x', 'http://b.example/'])).toBe('host');
  });
});
