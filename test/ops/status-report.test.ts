import { describe, expect, it } from 'vitest';
import { buildStatusReport, renderStatusReport } from '../../src/ops/status-report.js';
import type { StatusFile, StatusWorker } from '../../src/supervision/status-format.js';
import { emptyCounters } from '../../src/supervision/worker-counters.js';

const NOW = Date.parse('2026-12-03T10:00:00Z');

/** A worker line: `errors` over all runs, `byKind` this run's (its counters). */
function worker(id: string, errors: number, byKind: Record<string, number>): StatusWorker {
  return {
    id,
    type: 'docs',
    source: 'crawl',
    pid: 4242,
    pidStartTicks: 1,
    state: 'running',
    items: 100,
    itemsThisRun: 20,
    pagesPerSec: 1,
    errors,
    queue: 0,
    inFlight: 0,
    rssMB: 50,
    pssMB: 40,
    lastProgressAt: new Date(NOW - 1000).toISOString(),
    restarts: 0,
    lastError: null,
    counters: { ...emptyCounters(), items: 20, errorsByKind: byKind },
  };
}

function status(workers: StatusWorker[]): StatusFile {
  return {
    format: 2,
    mode: 'supervisor',
    supervisorPid: 4241,
    supervisor: { pid: 4241, startTicks: 1 },
    startedAt: new Date(NOW - 60_000).toISOString(),
    updatedAt: new Date(NOW - 1000).toISOString(),
    state: 'running',
    launch: {} as StatusFile['launch'],
    timings: {
      statusIntervalMs: 2000,
      restartBackoffMs: 1000,
      joinTimeoutMs: 10_000,
      stallTimeoutMs: 300_000,
    },
    expected: { docs: workers.length },
    memoryLimitMB: 2048,
    workers,
    totals: { items: 0, errors: 0, queue: 0, pagesPerSec: 0 },
  };
}

const report = (ws: StatusWorker[]) =>
  buildStatusReport('/data', status(ws), { total: 0, items: 0, files: 0 } as never, {
    now: NOW,
    alive: () => true,
  });

describe('collector status: errors', () => {
  it('a breakdown by kind sums to the count it follows: this run beside all runs', () => {
    // 30 errors in the items files, 6 of them written since this supervisor started
    const r = report([
      worker('docs-0', 18, { 'not-found': 4 }),
      worker('docs-1', 12, { 'not-found': 1, timeout: 1 }),
    ]);
    expect(r.totals).toMatchObject({
      errors: 30,
      errorsThisRun: 6,
      errorsByKind: { 'not-found': 5, timeout: 1 },
    });
    expect(renderStatusReport(r)).toMatch(/^docs .* 30 \(this run 6: not-found 5, timeout 1\) /m);
  });

  it('a first run: one count, its kinds', () => {
    const r = report([worker('docs-0', 3, { 'http-status': 2, timeout: 1 })]);
    expect(r.totals).toMatchObject({ errors: 3, errorsThisRun: 3 });
    expect(renderStatusReport(r)).toMatch(/ 3 \(http-status 2, timeout 1\) /);
    expect(renderStatusReport(report([worker('docs-0', 0, {})]))).toMatch(
      /^docs\s+1\/1\s+100\s+1\s+[\d.]+\s+0\s/m,
    );
  });
});

describe('collector status: rate limits and source warnings', () => {
  it("a rate budget's waits and refusals by kind, and the source's warnings, in the text and the JSON", () => {
    const w = worker('docs-0', 0, {});
    w.counters = {
      ...emptyCounters(),
      rateLimitWaits: 3,
      rateLimitWaitMs: 65_000,
      rateLimitWaitsByKind: { primary: 1, secondary: 2 },
      rateLimitRefusals: { 'retry-after': 60, primary: 9 },
      sourceWarnings: 1,
    };
    const r = report([w]);
    expect(r.totals).toMatchObject({
      rateLimitWaits: 3,
      rateLimitWaitSec: 65,
      rateLimitWaitsByKind: { primary: 1, secondary: 2 },
      rateLimitRefusals: { 'retry-after': 60, primary: 9 },
      sourceWarnings: 1,
      sourceErrors: 0,
    });
    expect(r.types[0]).toMatchObject({
      rateLimitRefusals: { 'retry-after': 60, primary: 9 },
      sourceWarnings: 1,
    });
    expect(renderStatusReport(r)).toMatch(
      /^rate-limit waits: 3 \(secondary 2, primary 1; 1m in all\) · refused for rate limits: 69 \(retry-after 60, primary 9\) · source warnings: 1 \(see the worker logs\)$/m,
    );
    expect(renderStatusReport(report([worker('docs-0', 0, {})]))).toMatch(
      /^rate-limit waits: 0 \(0s in all\)$/m,
    );
  });
});

describe('collector status: rendering', () => {
  it('sums the pages rendered and the browsers’ memory, and says them in a line; nothing without rendering', () => {
    const a = { ...worker('docs-0', 0, {}), rendered: 12, browserMB: 300 };
    const b = { ...worker('docs-1', 0, {}), rendered: 5, browserMB: 0 };
    const r = report([a, b]);
    expect(r.totals).toMatchObject({ rendered: 17, browserMB: 300, pssMB: 40 + 40 + 300 });
    expect(r.workers[0]).toMatchObject({ rendered: 12, browserMB: 300 });
    expect(renderStatusReport(r)).toMatch(/^rendered pages: 17 · browser memory: 300 MB$/m);
    const plain = report([worker('docs-0', 0, {})]);
    expect(plain.totals).toMatchObject({ rendered: 0, browserMB: 0 });
    expect(renderStatusReport(plain)).not.toMatch(/rendered pages/);
  });
});
