import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assessHealth } from '../../src/ops/health.js';
import { isRunning, processStartTicks, provenOurs } from '../../src/supervision/process-identity.js';
import type { StatusFile } from '../../src/supervision/status-format.js';
import { iso, NOW, status, worker } from '../fixtures/status-samples.js';

const allAlive = () => true;
const judge = (s: StatusFile, o: Parameters<typeof assessHealth>[1] = {}) =>
  assessHealth(s, { now: NOW, alive: allAlive, ...o });

describe('assessHealth', () => {
  it('healthy: supervisor and every worker up, fresh heartbeat, progress', () => {
    expect(judge(status())).toMatchObject({
      verdict: 'healthy',
      problem: null,
      workersUp: 2,
      workersNeeded: 2,
    });
  });

  it('a dead supervisor of a running collector: not running, "dead", with the heartbeat age', () => {
    const h = judge(status({ updatedAt: iso(7 * 60_000) }), { alive: (id) => id.pid !== 99 });
    expect(h).toMatchObject({
      verdict: 'not-running',
      problem: 'dead',
      summary: 'supervisor was dead (heartbeat 7m ago)',
    });
  });

  it('a pid that now belongs to another process (start time differs) is dead', () => {
    const h = judge(status(), { alive: isRunning }); // pids 99/100/101 with made-up start times
    expect(h.problem).toBe('dead');
  });

  it('finished or stopped with no parked worker: not running, nothing to repair', () => {
    for (const state of ['finished', 'stopped'] as const) {
      const h = judge(status({ state }), { alive: () => false });
      expect(h).toMatchObject({ verdict: 'not-running', problem: null });
    }
  });

  it('stopped by a full disk: not running, and that is the problem (not a deliberate stop)', () => {
    const h = judge(status({ state: 'stopped', diskFull: '/d/items' }), { alive: () => false });
    expect(h).toMatchObject({
      verdict: 'not-running',
      problem: 'disk-full',
      summary: 'collector stopped by a full disk at /d/items',
    });
    // Alive (a status written just before the stop): the disk is no problem yet.
    expect(judge(status({ diskFull: null })).problem).toBe(null);
  });

  it('exited with parked workers: crashed out', () => {
    const h = judge(
      status({ state: 'finished' }, [worker(0, { state: 'parked' }), worker(1, { state: 'done' })]),
      {
        alive: () => false,
      },
    );
    expect(h).toMatchObject({ problem: 'crashed-out', parked: 1 });
  });

  it('alive but its heartbeat is older than 30 s (and 5 status periods): hung', () => {
    expect(judge(status({ updatedAt: iso(29_000) })).problem).toBe(null);
    expect(judge(status({ updatedAt: iso(31_000) })).problem).toBe('hung');
    const slow = status({ updatedAt: iso(40_000) });
    slow.timings.statusIntervalMs = 10_000; // 5 periods = 50 s
    expect(judge(slow).problem).toBe(null);
  });

  it('fewer workers up than needed: degraded; finished workers are not missing; --min-workers lowers the need', () => {
    const parked = status({}, [worker(0), worker(1, { state: 'parked' })]);
    expect(judge(parked)).toMatchObject({
      verdict: 'degraded',
      problem: 'workers-down',
      summary: '1/2 workers up (1 parked)',
    });
    expect(judge(parked, { minWorkers: 1 }).problem).toBe(null);
    expect(judge(status({}, [worker(0), worker(1, { state: 'done' })])).problem).toBe(null);
    const gone = status({}, [worker(0), worker(1)]);
    expect(judge(gone, { alive: (id) => id.pid !== 101 }).summary).toBe('1/2 workers up');
  });

  it('stalled only with work pending and no item for the stall period', () => {
    const old = (pending: number) =>
      status({}, [worker(0, { lastProgressAt: iso(11 * 60_000), queue: pending, inFlight: 0 })]);
    const s = old(3);
    s.expected = { docs: 1 };
    expect(judge(s, { stallMs: 600_000 })).toMatchObject({
      problem: 'stalled',
      summary: 'no progress for 11m with 3 URLs pending',
    });
    expect(judge(s, { stallMs: 700_000 }).problem).toBe(null);
    const idle = old(0);
    idle.expected = { docs: 1 };
    expect(judge(idle, { stallMs: 600_000 }).problem).toBe(null);
    // Progress counts from the supervisor's start when it is more recent than the last item.
    const restarted = old(3);
    restarted.startedAt = iso(60_000);
    expect(judge(restarted, { stallMs: 600_000 }).problem).toBe(null);
  });

  it('work waiting on its hosts (Retry-After, slow-down) is not a stall', () => {
    const waiting = status({}, [
      worker(0, { lastProgressAt: iso(11 * 60_000), queue: 3, inFlight: 0, waitingAt: iso(2000) }),
    ]);
    waiting.expected = { docs: 1 };
    expect(judge(waiting, { stallMs: 600_000 }).problem).toBe(null);
    // it last waited 11 minutes ago, and wrote nothing since: stalled
    waiting.workers[0].waitingAt = iso(11 * 60_000);
    expect(judge(waiting, { stallMs: 600_000 }).problem).toBe('stalled');
  });

  it('an in-process crawl is named as such', () => {
    const h = judge(status({ mode: 'in-process' }), { alive: () => false });
    expect(h.summary).toMatch(/^crawl process was dead/);
  });
});

describe('process identity', () => {
  it('this process: its start time from /proc, a wrong start time is another process', () => {
    const ticks = processStartTicks(process.pid);
    expect(ticks).toBeGreaterThan(0);
    expect(isRunning({ pid: process.pid, startTicks: ticks as number })).toBe(true);
    expect(isRunning({ pid: process.pid, startTicks: (ticks as number) + 1 })).toBe(false);
    expect(processStartTicks(2 ** 22 + 12345)).toBe(null);
  });

  it('proven ours only with the recorded command line and cwd, or --data naming the data dir', () => {
    const id = { pid: process.pid, startTicks: processStartTicks(process.pid) as number };
    const cmdline = fs.readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
    expect(provenOurs(id, '/data', { cmdline, cwd: process.cwd() })).toBe(true);
    expect(provenOurs(id, '/data', { cmdline, cwd: '/elsewhere' })).toBe(false);
    expect(provenOurs(id, '/data', { cmdline: [...cmdline, 'x'], cwd: process.cwd() })).toBe(false);
    expect(provenOurs(id, '/data')).toBe(false);
  });
});
