/**
 * What `collector run` tells (issue 15, point 7): "running 1 worker process", a progress line on a
 * TTY and a summary when it ends or is stopped; worker logs with ISO 8601 times, rounds (start,
 * counts, errors by kind) and failed items; status.json naming each worker's type (`docs`) and
 * its source (`crawl`) apart.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/collector.js');
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({
    '/docs/': html(page('Docs', ['a.html', 'missing.html'])),
    '/docs/a.html': html(page('A')),
  });
});
afterAll(async () => {
  await site.close();
});

function config(extra = ''): { dir: string; file: string; data: string } {
  const dir = tempDir();
  const file = path.join(dir, 'collector.yaml');
  fs.writeFileSync(
    file,
    `data: ./data\nworkers:\n  - name: docs\n    source: crawl\n    delay: 0\n    seeds: ["${site.origin}/docs/"]\n${extra}`,
  );
  return { dir, file, data: path.join(dir, 'data') };
}

/** The lines of a worker's log, parsed. */
function logLines(data: string, worker: string): Array<Record<string, any>> {
  return fs
    .readFileSync(path.join(data, 'logs', `${worker}.log`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('collector run tells what it does', () => {
  it('one worker process: the grammar, the summary, status.json type and source, the log', async () => {
    const { file, data } = config();
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(`collector: running 1 worker process; status in ${path.join(data, 'status.json')}`);
    expect(lines[1]).toBe(`collector: 3 items this run (3 total), 1 errors, 0 queued, out ${data}`);
    expect(lines).toHaveLength(2);
    const status = JSON.parse(fs.readFileSync(path.join(data, 'status.json'), 'utf8'));
    expect(status.format).toBe(2);
    expect(status.workers[0]).toMatchObject({ id: 'docs-0', type: 'docs', source: 'crawl' });
    const status2 = await runCli(['status', '--data', data, '--json']);
    expect(JSON.parse(status2.stdout).workers[0]).toMatchObject({ type: 'docs', source: 'crawl' });
    const log = logLines(data, 'docs-0');
    for (const l of log) expect(l.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(log.find((l) => l.msg === 'item failed')).toMatchObject({
      url: `${site.origin}/docs/missing.html`,
      status: 404,
      kind: 'http-status',
      message: 'HTTP 404',
    });
    expect(log.find((l) => l.msg === 'worker done')).toMatchObject({
      items: 3,
      errorsByKind: { 'http-status': 1 },
    });
  });

  it('a continuous type logs each round: started, and done with its counts and errors by kind', async () => {
    // rounds start on time (interval from one round's start to the next, the first counted from
    // the dispatch loop's start): 5 s leaves the first pass (3 URLs, no delay) time to finish
    // before round 1, even on a machine running two suites at once
    const { file, data } = config('    interval: 5s\n');
    const child = startCli(['run', '--config', file, '--quiet']);
    const exited = waitExit(child);
    const logFile = path.join(data, 'logs', 'docs-0.log');
    await waitFor(
      () => fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').split('round done').length > 2,
      30_000,
    );
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const log = logLines(data, 'docs-0');
    const done = log.filter((l) => l.msg.startsWith('round done'));
    // the first pass: 3 URLs, one 404 (warn level); the second round: the seed again, unchanged
    expect(done[0]).toMatchObject({
      round: 0,
      items: 3,
      errors: 1,
      errorsByKind: { 'http-status': 1 },
      level: 40,
    });
    expect(done[1]).toMatchObject({ round: 1, items: 1, errors: 0, errorsByKind: {}, level: 30 });
    expect(typeof done[0].seconds).toBe('number');
    expect(log.find((l) => l.msg === 'round started')).toMatchObject({ round: 1, seeds: 1 });
  });

  it('on a TTY: a progress line while it runs, a summary when stopped', async () => {
    const hasScript = (() => {
      try {
        execFileSync('script', ['--version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    if (!hasScript) return; // util-linux's script gives the run a pseudo-terminal
    const { file, data } = config('    interval: 1h\n');
    // stderr of the run is the pty: progress line and summary land in the typescript on stdout
    const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} run --config ${file}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    await waitFor(() => /\r\x1b\[Kpages 3 /.test(out), 30_000);
    const exited = new Promise((r) => child.on('exit', r));
    // The pty's Ctrl-C: SIGINT to the run's process group, as a person would stop it.
    child.stdin.write('\x03');
    await exited;
    expect(out).toMatch(/collector: running 1 worker process; status in /);
    expect(out).toMatch(
      new RegExp(`collector: 3 items this run \\(3 total\\), 1 errors, 0 queued, out ${data}`),
    );
  });
});
