import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config-file.js';
import { type MetricsServer, startMetricsServer } from '../../src/ops/metrics-server.js';
import type { StatusFile } from '../../src/supervision/status-format.js';
import { emptyCounters } from '../../src/supervision/worker-counters.js';
import { runCli, tempDir } from '../fixtures/cli.js';
import { parsePrometheusText } from '../fixtures/prometheus-text.js';

const snapshot = (): StatusFile => ({
  format: 1,
  mode: 'supervisor',
  supervisorPid: process.pid,
  supervisor: { pid: process.pid, startTicks: 1 },
  startedAt: new Date(Date.now() - 60_000).toISOString(),
  updatedAt: new Date().toISOString(),
  state: 'running',
  launch: { command: 'run', cmdline: [], restartArgv: [], cwd: '/', dataDir: '/d', configFile: null },
  timings: { statusIntervalMs: 2000, restartBackoffMs: 1000, joinTimeoutMs: 10_000, stallTimeoutMs: 300_000 },
  expected: { docs: 1, idle: 1 },
  memoryLimitMB: 1024,
  workers: [
    {
      id: 'docs-0',
      type: 'docs',
      source: 'crawl',
      pid: process.pid,
      pidStartTicks: 1,
      state: 'running',
      items: 7,
      itemsThisRun: 7,
      pagesPerSec: 1,
      errors: 2,
      queue: 3,
      inFlight: 1,
      rssMB: 10,
      pssMB: 8,
      lastProgressAt: new Date().toISOString(),
      restarts: 1,
      lastError: null,
      counters: { ...emptyCounters(), items: 7, errorsByKind: { timeout: 2 } },
    },
  ],
  totals: { items: 7, errors: 2, queue: 3, pagesPerSec: 1 },
});

let server: MetricsServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('metrics server', () => {
  it('with a token, every path needs it (Bearer, or ?token= for the page); without, 401', async () => {
    server = await startMetricsServer({
      listen: '127.0.0.1:0',
      token: 't'.repeat(20),
      snapshot,
      dataDir: tempDir(),
    });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    const ok = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${'t'.repeat(20)}` },
    });
    expect(ok.status).toBe(200);
    const m = parsePrometheusText(await ok.text());
    expect(m.sum('collector_errors_total', { type: 'docs', kind: 'timeout' })).toBe(2);
    expect(m.sum('collector_pages_total', { type: 'docs' })).toBe(5);
    // A planned type with no worker line yet still has its series.
    expect(m.get('collector_items_total', { type: 'idle' })).toHaveLength(1);
    expect((await fetch(`${server.url}/api/status?token=${'t'.repeat(20)}`)).status).toBe(200);
    expect(
      (
        await fetch(`${server.url}/metrics`, {
          method: 'POST',
          headers: { authorization: `Bearer ${'t'.repeat(20)}` },
        })
      ).status,
    ).toBe(405);
  });

  it('/api/status: the status report and the history the page charts', async () => {
    server = await startMetricsServer({
      listen: '127.0.0.1:0',
      snapshot,
      dataDir: tempDir(),
      historySampleMs: 50,
    });
    await new Promise((r) => setTimeout(r, 300));
    const body = (await (await fetch(`${server.url}/api/status`)).json()) as any;
    expect(body.report).toMatchObject({ version: 1, totals: { items: 7 } });
    expect(body.history.length).toBeGreaterThanOrEqual(2);
    expect(body.history.at(-1).slice(1, 3)).toEqual([7, 2]);
  });

  it('a non-loopback address without a token is refused: config and --metrics', async () => {
    expect(() =>
      validateConfig(
        { metrics: { listen: '0.0.0.0:9464' }, workers: [{ source: 'crawl', seeds: ['http://a/'] }] },
        'c.yaml',
      ),
    ).toThrow(/^c\.yaml: metrics\.listen: a non-loopback address needs metrics\.token/);
    expect(
      validateConfig({ metrics: {}, workers: [{ source: 'crawl', seeds: ['http://a/'] }] }, 'c.yaml').metrics
        ?.listen,
    ).toBe('127.0.0.1:9464');
    const r = await runCli([
      'crawl',
      'http://127.0.0.1:9/',
      '--out',
      tempDir(),
      '--metrics',
      '0.0.0.0:0',
      '--processes',
      '1',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^collector: metrics 0\.0\.0\.0:0: not a loopback address; set metrics\.token or COLLECTOR_METRICS_TOKEN/,
    );
  });
});
