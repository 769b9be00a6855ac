/**
 * Issue 28 (8): under cron the collector and the collector the watchdog restarts both have the
 * token. The lines `collector install --cron` prints are run as cron runs them — `env -i` with
 * cron's few variables, `/bin/sh -c` — against the loopback GitHub stand-in: the @reboot line
 * starts a github-search collector whose API requests carry the token from the environment file
 * (which the crontab never holds); after a kill -9, the watchdog line restarts it and its requests
 * still carry it. With the token gone from the file, the restarted collector runs anonymously and
 * says so: on stderr at start, in `collector status`, and in the watchdog's line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';
import { pidAlive, readStatus, stopRecordedCollector } from '../fixtures/ops.js';

const TOKEN = 'ghp_cronFixtureToken0123456789abcd';
let gh: GithubFixture | null = null;
const dataDirs: string[] = [];

afterAll(async () => {
  for (const d of dataDirs) await stopRecordedCollector(d);
  await gh?.close();
});

/** A line of the crontab run as cron runs it: an empty environment but cron's own few variables. */
function asCron(line: string, home: string): ChildProcess {
  const cronEnv = [`HOME=${home}`, 'LOGNAME=root', 'PATH=/usr/bin:/bin', 'SHELL=/bin/sh'];
  return spawn('/usr/bin/env', ['-i', ...cronEnv, '/bin/sh', '-c', line], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** kill -9 the recorded supervisor and wait until it and its workers are gone. */
async function killCollector(data: string): Promise<void> {
  const s = readStatus(data)!;
  const pids = [s.supervisor.pid, ...s.workers.map((w: any) => w.pid).filter(Boolean)];
  process.kill(s.supervisor.pid, 'SIGKILL');
  await waitFor(() => pids.every((p: number) => !pidAlive(p)), 30_000);
}

/** API requests that arrived after `since` (ms since the epoch). */
const apiRequestsSince = (since: number) => gh!.log.filter((e) => e.service === 'api' && e.wall > since);

describe('install --cron: the token comes from the environment file, also after a watchdog restart', () => {
  it('@reboot line, kill -9, watchdog line — every API request authorized; without the token, said', async () => {
    gh = await startGithubFixture({ tokens: [TOKEN] });
    const dir = tempDir();
    const data = path.join(dir, 'data');
    dataDirs.push(data);
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      [
        `data: ${data}`,
        'supervisor: { joinTimeout: 1s, restartBackoff: 200ms }',
        'workers:',
        '  - source: github-search',
        '    processes: 1',
        '    topics: [llm]',
        '    perPage: 5',
        '    interval: 2s',
        '    delay: 0',
        `    github: { web: ${gh.bases.web}, api: ${gh.bases.api}, raw: ${gh.bases.raw} }`,
        '',
      ].join('\n'),
    );
    const envFile = path.join(dir, 'collector.env');
    fs.writeFileSync(envFile, `GITHUB_TOKEN=${TOKEN}\n`, { mode: 0o600 });

    const printed = await runCli(['install', '--cron', '--config', config, '--secrets-file', envFile]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain(TOKEN);
    const job = (prefix: string) =>
      printed.stdout
        .split('\n')
        .find((l) => l.startsWith(prefix))!
        .slice(prefix.length);
    const reboot = job('@reboot ');
    const watchdog = job('*/5 * * * * ').replace(/ size --data .*/, ''); // the first */5 line is the watchdog
    expect(watchdog).toContain(' watchdog --data ');

    // At boot: the collector runs with the token from the file.
    const booted = asCron(reboot, dir);
    booted.unref();
    await waitFor(() => apiRequestsSince(0).length >= 2, 60_000);
    expect(apiRequestsSince(0).map((e) => e.authorization)).toEqual(
      apiRequestsSince(0).map(() => `Bearer ${TOKEN}`),
    );
    const st = await runCli(['status', '--data', data]);
    expect(st.stdout).not.toContain('warning:');

    // kill -9; the watchdog, run as cron runs it, restarts it: its requests still carry the token.
    await killCollector(data);
    const killedAt = Date.now();
    const restarted = await waitExit(asCron(watchdog, dir));
    expect(restarted.stdout).toMatch(
      /^restarted: supervisor was dead \(heartbeat \w+ ago\); 1\/1 workers up\n$/,
    );
    expect(restarted.code).toBe(1);
    await waitFor(() => apiRequestsSince(killedAt).length >= 2, 60_000);
    for (const e of apiRequestsSince(killedAt)) expect(e.authorization, e.path).toBe(`Bearer ${TOKEN}`);

    // The token taken out of the file: the next restart runs anonymously, and everyone says so.
    fs.writeFileSync(envFile, '# GITHUB_TOKEN=\n');
    await killCollector(data);
    const secondKill = Date.now();
    const anonymous = await waitExit(asCron(watchdog, dir));
    expect(anonymous.stdout).toMatch(
      /^restarted: supervisor was dead \(heartbeat \w+ ago\); 1\/1 workers up; but GITHUB_TOKEN is not set: worker type github-search runs without it\n$/,
    );
    await waitFor(() => apiRequestsSince(secondKill).length >= 1, 60_000);
    for (const e of apiRequestsSince(secondKill)) expect(e.authorization, e.path).toBeNull();
    const status = await runCli(['status', '--data', data]);
    expect(status.stdout.split('\n')[1]).toBe(
      'warning: GITHUB_TOKEN is not set: worker type github-search runs without it',
    );
    const json = JSON.parse((await runCli(['status', '--data', data, '--json'])).stdout);
    expect(json.warnings).toEqual(['GITHUB_TOKEN is not set: worker type github-search runs without it']);
    // ...and the collector itself said it at start, into the log the watchdog gave it
    expect(fs.readFileSync(path.join(data, 'logs', 'collector.out'), 'utf8')).toContain(
      'collector: warning: GITHUB_TOKEN is not set: worker type github-search runs without it\n',
    );
  }, 180_000);
});
