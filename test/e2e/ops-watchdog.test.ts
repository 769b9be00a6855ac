/**
 * status and watchdog against real collector processes: silent while healthy; a kill -9 of the
 * supervisor is found, said in one line and repaired (status then exits 0, no item twice); a
 * crash-looping config ends in "giving up", said once; a one-process crawl killed mid-way is
 * restarted with --resume. Also scrapes /metrics and checks every documented series.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../src/ops/metrics.js';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { freePort, readStatus, stopRecordedCollector } from '../fixtures/ops.js';
import { parsePrometheusText } from '../fixtures/prometheus-text.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';
import { testSource } from '../fixtures/test-sources.js';

const PAGES = 30;
let site: FixtureServer;
/** While set, pages after the 5th wait (a crawl that stays mid-way however loaded the machine is). */
let gate: Array<() => void> | null = null;
let pagesServed = 0;
const started: string[] = [];

beforeAll(async () => {
  let limited = false;
  site = await startServer(
    {
      '/missing.html': (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<title>gone</title>');
      },
      '/limited.html': (req, res) => {
        // One 429 with Retry-After: a rate-limit wait, then the page.
        if (!limited) {
          limited = true;
          res.writeHead(429, { 'retry-after': '1' });
          res.end();
          return;
        }
        html(page('limited'))(req, res);
      },
    },
    (req, res) => {
      const m = /^\/p(\d+)\.html$/.exec(req.url ?? '');
      if (!m) {
        res.writeHead(404);
        res.end();
        return;
      }
      const i = Number(m[1]);
      const links = [`p${(i + 1) % PAGES}.html`, `p${(i * 7 + 3) % PAGES}.html`];
      if (i === 0) links.push('missing.html', 'limited.html');
      const answer = () => html(page(`page ${i}`, links))(req, res);
      if (gate && ++pagesServed > 5) gate.push(answer);
      else answer();
    },
  );
});

afterAll(async () => {
  for (const d of started) await stopRecordedCollector(d);
  await site.close();
});

function writeConfig(dir: string, extra: string, worker: string): string {
  const file = path.join(dir, 'collector.yaml');
  fs.writeFileSync(
    file,
    `data: ${path.join(dir, 'data')}\nsupervisor: { joinTimeout: 1s, restartBackoff: 200ms }\n${extra}workers:\n${worker}`,
  );
  return file;
}

const EXPECTED_ITEMS = PAGES + 2; // the pages, missing.html, limited.html

describe('collector status, watchdog and metrics on a running collector', () => {
  it('healthy: status exits 0, watchdog is silent, /metrics has every series; kill -9 → one line, restarted, status 0', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const port = await freePort();
    const config = writeConfig(
      dir,
      `metrics: { listen: 127.0.0.1:${port} }\n`,
      `  - name: docs\n    source: crawl\n    processes: 2\n    delay: 0\n    retryBackoff: 100ms\n    interval: 1h\n    seeds: [${site.origin}/p0.html]\n`,
    );
    const run = startCli(['run', '--config', config, '--quiet']);
    const exited = waitExit(run);
    started.push(data);
    await waitFor(() => {
      const s = readStatus(data);
      return s?.totals?.items === EXPECTED_ITEMS && s.workers.every((w: any) => w.state === 'idle');
    }, 60_000);

    const st = await runCli(['status', '--data', data]);
    expect(st.code).toBe(0);
    expect(st.stdout).toMatch(/^collector: healthy: 2\/2 workers up/);
    expect(st.stdout).toMatch(/docs\s+2\/2\s+32\s/);
    const js = await runCli(['status', '--data', data, '--json']);
    const report = JSON.parse(js.stdout);
    expect(report).toMatchObject({
      version: 1,
      verdict: 'healthy',
      exitCode: 0,
      state: 'running',
      workersUp: 2,
      workersExpected: 2,
      totals: { items: EXPECTED_ITEMS, errors: 1, errorsByKind: { 'http-status': 1 }, rateLimitWaits: 1 },
    });
    expect(report.types.map((t: any) => [t.type, t.up, t.expected])).toEqual([['docs', 2, 2]]);
    expect(report.data.itemsBytes).toBeGreaterThan(0);

    const wd = await runCli(['watchdog', '--data', data]);
    expect({ code: wd.code, stdout: wd.stdout, stderr: wd.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });

    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parsePrometheusText(await res.text());
    for (const name of METRIC_NAMES) expect(m.types.has(name), name).toBe(true);
    for (const name of METRIC_NAMES) {
      const family = m.samples.filter((s) => s.name === name || s.name.startsWith(`${name}_`));
      expect(family.length, `${name} has samples`).toBeGreaterThan(0);
    }
    expect(m.sum('collector_items_total', { type: 'docs' })).toBe(EXPECTED_ITEMS);
    expect(m.sum('collector_pages_total', { type: 'docs' })).toBe(EXPECTED_ITEMS - 1);
    expect(m.sum('collector_errors_total', { type: 'docs', kind: 'http-status' })).toBe(1);
    expect(m.sum('collector_rate_limit_waits_total')).toBe(1);
    expect(m.sum('collector_rate_limit_wait_seconds_total')).toBe(1);
    expect(m.sum('collector_worker_up')).toBe(2);
    expect(m.sum('collector_worker_items')).toBe(EXPECTED_ITEMS);
    expect(m.sum('collector_workers_expected')).toBe(2);
    // Every request was timed: the pages, the 404, the 429 and its retry (robots.txt goes another way).
    const count = m.sum('collector_fetch_duration_seconds_count');
    expect(count).toBe(EXPECTED_ITEMS + 1);
    expect(m.sum('collector_fetch_duration_seconds_bucket', { le: '+Inf' })).toBe(count);
    const buckets = m.get('collector_fetch_duration_seconds_bucket').map((s) => s.value);
    expect([...buckets].sort((a, b) => a - b)).toEqual(buckets); // cumulative
    expect(m.get('collector_info')[0].labels).toMatchObject({
      mode: 'supervisor',
      command: 'run',
      state: 'running',
    });

    // kill -9 of the supervisor: its workers stop by themselves; the watchdog restarts it.
    run.kill('SIGKILL');
    await exited;
    const again = await runCli(['watchdog', '--data', data, '--settle', '60s']);
    expect(again.stderr).toBe('');
    const lines = again.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^restarted: supervisor was dead \(heartbeat \d+s ago\); 2\/2 workers up$/);
    expect(again.code).toBe(1);
    const after = await runCli(['status', '--data', data]);
    expect(after.code).toBe(0);
    // The restarted collector found everything done: no URL collected twice.
    await waitFor(() => readStatus(data)?.workers.every((w: any) => w.state === 'idle'), 60_000);
    const urls = readItems(data).map((i) => i.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls).toHaveLength(EXPECTED_ITEMS);
    expect(fs.readFileSync(path.join(data, 'logs', 'collector.out'), 'utf8')).toMatch(
      /watchdog: supervisor was dead/,
    );
  });

  it('a crash-looping config: restarts fail, then "giving up" once with the last error, then silence', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const notes = path.join(dir, 'notes.txt');
    const config = writeConfig(
      dir,
      `notify: { command: "cat >> ${notes}" }\n`,
      `  - name: loop\n    source: ${testSource('crash-loop')}\n    processes: 1\n    seeds: [${site.origin}/p0.html]\n`,
    ).replace(/$/, '');
    fs.writeFileSync(
      config,
      fs
        .readFileSync(config, 'utf8')
        .replace('restartBackoff: 200ms', 'restartBackoff: 100ms, maxCrashes: 1'),
    );
    const env = {};
    started.push(data);
    const first = await runCli(['run', '--config', config, '--quiet'], env);
    expect(first.code).toBe(1); // its only worker parked
    const watchdog = () =>
      runCli(['watchdog', '--data', data, '--max-restarts', '2', '--settle', '60s'], env);
    for (let i = 0; i < 2; i++) {
      const r = await watchdog();
      expect(r.stdout).toMatch(
        /^restart failed: collector exited with 1 worker parked after crashing in a loop; started again but it exited \(exit code 1\)/,
      );
      expect(r.code).toBe(3);
    }
    const giveUp = await watchdog();
    expect(giveUp.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(giveUp.stdout).toMatch(
      /^giving up: 2 restarts in the last hour and still unhealthy \(collector exited with 1 worker parked/,
    );
    expect(giveUp.stdout).toMatch(/last error: loop-0: /);
    expect(giveUp.code).toBe(3);
    const quiet = await watchdog();
    expect({ stdout: quiet.stdout, code: quiet.code }).toEqual({ stdout: '', code: 3 });
    const state = JSON.parse(fs.readFileSync(path.join(data, 'state', 'watchdog.json'), 'utf8'));
    expect(state.restarts).toHaveLength(2);
    // notify: the supervisor's crash-loop line and the watchdog's lines went to the command too.
    const told = fs.readFileSync(notes, 'utf8').trimEnd().split('\n');
    expect(
      told.filter((l) => /^collector: worker loop-0 crashed 1 times; parked/.test(l)).length,
    ).toBeGreaterThanOrEqual(3);
    expect(told.filter((l) => l.startsWith('restart failed: '))).toHaveLength(2);
    expect(told.filter((l) => l.startsWith('giving up: '))).toHaveLength(1);
  });

  it('a one-process crawl writes status.json too; killed mid-way, the watchdog resumes it and nothing is lost or doubled', async () => {
    const out = tempDir();
    gate = [];
    pagesServed = 0;
    started.push(out);
    const crawl = startCli(crawlArgs(`${site.origin}/p0.html`, out, '--concurrency', '1'));
    const exited = waitExit(crawl);
    await waitFor(() => (readStatus(out)?.totals?.items ?? 0) >= 3 && (gate?.length ?? 0) > 0, 60_000);
    const live = await runCli(['status', '--data', out, '--json']);
    expect(JSON.parse(live.stdout)).toMatchObject({ verdict: 'healthy', mode: 'in-process', workersUp: 1 });
    crawl.kill('SIGKILL');
    await exited;
    // Another live process holds the data-dir lock: no second copy is started.
    const pidFile = path.join(out, 'collector.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    const held = await runCli(['watchdog', '--data', out, '--settle', '60s']);
    expect(held.stdout).toMatch(
      new RegExp(
        `^not restarted: crawl process was dead .*in use by another collector \\(pid ${process.pid}\\)`,
      ),
    );
    expect(held.code).toBe(3);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'state', 'watchdog.json'), 'utf8')).restarts).toEqual(
      [],
    );
    expect(readStatus(out)?.supervisor.pid).toBe(crawl.pid);
    fs.rmSync(pidFile);
    for (const answer of gate?.splice(0) ?? []) answer(); // to a client that is gone
    gate = null;
    const r = await runCli(['watchdog', '--data', out, '--settle', '60s']);
    expect(r.stdout).toMatch(
      /^restarted: crawl process was dead \(heartbeat \d+s ago\); (1\/1 workers up|it finished)\n$/,
    );
    await waitFor(() => readStatus(out)?.state === 'finished', 60_000);
    const done = await runCli(['status', '--data', out]);
    expect(done.code).toBe(3);
    expect(done.stdout).toMatch(/^collector: not running: finished/);
    expect((await runCli(['watchdog', '--data', out])).stdout).toBe('');
    const urls = readItems(out).map((i) => i.url);
    expect(urls).toHaveLength(EXPECTED_ITEMS);
    expect(new Set(urls).size).toBe(EXPECTED_ITEMS);
    expect(readStatus(out)?.launch.restartArgv).toContain('--resume');
  });

  it('status and watchdog on a data dir that never ran: one line, exit 3; the watchdog says it once', async () => {
    const dir = tempDir();
    const st = await runCli(['status', '--data', dir]);
    expect(st.code).toBe(3);
    expect(st.stdout).toMatch(/never started on this data dir/);
    fs.mkdirSync(path.join(dir, 'state'));
    const a = await runCli(['watchdog', '--data', dir]);
    expect(a.stdout).toMatch(/^not running: no status.json/);
    expect(a.code).toBe(3);
    const b = await runCli(['watchdog', '--data', dir]);
    expect(b.stdout).toBe('');
  });
});
