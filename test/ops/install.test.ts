import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cronBlock, type InstallTarget, systemdUnit, withCronBlock } from '../../src/ops/install.js';
import { runCli, tempDir } from '../fixtures/cli.js';

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).error === undefined;
const hasFlock = spawnSync('flock', ['--version']).error === undefined;

function target(dir: string, over: Partial<InstallTarget> = {}): InstallTarget {
  return {
    node: process.execPath,
    bin: path.resolve('bin/collector.js'),
    config: path.join(dir, 'collector.yaml'),
    dataDir: path.join(dir, 'data'),
    workDir: dir,
    name: 'collector',
    joinTimeoutMs: 10_000,
    memoryMaxBytes: 1536 * 1024 * 1024,
    envFile: path.join(dir, 'collector.env'),
    sizeEvery: '100MB',
    cronLog: null,
    ...over,
  };
}

/** A config in `dir`: a crawl worker type by default. */
function writeConfig(
  dir: string,
  yaml = 'data: ./data\nsupervisor: { joinTimeout: 30s }\nmemory: { limit: 1536M }\n' +
    'workers:\n  - { name: docs, source: crawl, processes: 2, seeds: [http://127.0.0.1:9/] }\n',
): string {
  const file = path.join(dir, 'collector.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

describe('collector install --cron', () => {
  it('a block between markers: start at boot, watchdog and size every 5 minutes under flock -n', () => {
    const dir = tempDir();
    const block = cronBlock(target(dir));
    const lines = block.trimEnd().split('\n');
    expect(lines[0]).toBe('# BEGIN collector (collector install --cron)');
    expect(lines.at(-1)).toBe('# END collector');
    const jobs = lines.filter((l) => !l.startsWith('#'));
    expect(jobs).toHaveLength(3);
    // every job sources the environment file (tokens) first: the watchdog passes its environment on
    const env = 'set -a && \\. \\S+\\/collector\\.env && set \\+a';
    expect(jobs[0]).toMatch(
      new RegExp(
        `^@reboot cd \\S+ && ${env} && mkdir -p \\S+ && \\S+ \\S+bin\\/collector\\.js run --config \\S+collector\\.yaml --quiet >> \\S+collector\\.out 2>&1$`,
      ),
    );
    expect(jobs[1]).toMatch(
      new RegExp(
        `^\\*\\/5 \\* \\* \\* \\* cd \\S+ && ${env} && flock -n \\S+watchdog\\.flock \\S+ \\S+ watchdog --data \\S+\\/data --config \\S+$`,
      ),
    );
    expect(jobs[2]).toMatch(
      new RegExp(
        `^\\*\\/5 \\* \\* \\* \\* cd \\S+ && ${env} && flock -n \\S+size\\.flock \\S+ \\S+ size --data \\S+\\/data --every 100MB --config \\S+$`,
      ),
    );
    expect(lines[2]).toBe(
      `# Tokens: ${path.join(dir, 'collector.env')} (mode 0600, KEY=value lines), sourced by each line; never in this table.`,
    );
    expect(cronBlock(target(dir, { cronLog: '/var/log/c.log' }))).toMatch(
      /watchdog .* >> \/var\/log\/c\.log 2>&1\n/,
    );
    expect(cronBlock(target('/srv/my data'))).toContain("cd '/srv/my data' && ");
  });

  it('--write replaces an earlier block instead of adding a second', () => {
    const a = withCronBlock(
      'MAILTO=me\n',
      'collector',
      '# BEGIN collector (collector install --cron)\nold\n# END collector\n',
    );
    const b = withCronBlock(
      a,
      'collector',
      '# BEGIN collector (collector install --cron)\nnew\n# END collector\n',
    );
    expect(b).toBe('MAILTO=me\n\n# BEGIN collector (collector install --cron)\nnew\n# END collector\n');
  });

  it.skipIf(!hasFlock)(
    'its watchdog line runs as cron runs it (sh, flock): says once what is wrong; skipped while another run holds the lock',
    async () => {
      const dir = tempDir();
      const config = writeConfig(dir);
      const envFile = path.join(dir, 'collector.env');
      fs.writeFileSync(envFile, '', { mode: 0o600 });
      const r = await runCli(['install', '--cron', '--config', config, '--secrets-file', envFile]);
      expect(r.code).toBe(0);
      const watchdog = r.stdout
        .split('\n')
        .find((l) => l.includes(' watchdog '))!
        .replace(/^\*\/5 \* \* \* \* /, '');
      fs.mkdirSync(path.join(dir, 'data', 'state'), { recursive: true });
      const run = () => spawnSync('/bin/sh', ['-c', watchdog], { encoding: 'utf8', timeout: 30_000 });
      const first = run();
      expect(first.stdout).toMatch(/^not running: no status.json/);
      expect(run().stdout).toBe('');
      // flock -n: while another run holds the lock, this one does nothing at all.
      const lockFile = watchdog.match(/flock -n (\S+)/)![1];
      const holder = spawn('flock', [lockFile, 'sleep', '20'], { stdio: 'ignore' });
      try {
        // until flock has the lock (a busy machine may start it late)
        await vi.waitFor(() => expect(spawnSync('flock', ['-n', lockFile, 'true']).status).toBe(1), {
          timeout: 30_000,
          interval: 50,
        });
        const skipped = run();
        expect({ status: skipped.status, stdout: skipped.stdout }).toEqual({ status: 1, stdout: '' });
      } finally {
        holder.kill('SIGTERM');
      }
    },
  );
});

describe('collector install --cron: the environment file', () => {
  const githubConfig = (dir: string) =>
    writeConfig(
      dir,
      'data: ./data\nworkers:\n  - { name: topics, source: github-search, processes: 1, topics: [llm] }\n' +
        '  - { name: hub, source: github-trending, processes: 1, github: { tokenEnv: HUB_TOKEN } }\n',
    );

  it('printed: the block alone on stdout; a missing file is said on stderr with the variables to put there', async () => {
    const dir = tempDir();
    const envFile = path.join(dir, 'none', 'collector.env');
    const r = await runCli(['install', '--cron', '--config', githubConfig(dir), '--secrets-file', envFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# BEGIN collector /);
    expect(r.stdout).toContain(`set -a && . ${envFile} && set +a`);
    expect(r.stderr).toBe(
      `collector: note: ${envFile} does not exist; each line sources it: create it (mode 0600, KEY=value lines: GITHUB_TOKEN, HUB_TOKEN), or run with --write\n`,
    );
    expect(fs.existsSync(envFile)).toBe(false); // printing writes nothing
  });

  it('--write: the file first (0600, a line per variable the sources read), then the crontab; kept and tightened later', async () => {
    const dir = tempDir();
    // a stand-in `crontab` on PATH: -l prints the table, - replaces it (this user's real one is never touched)
    const bin = path.join(dir, 'bin');
    const table = path.join(dir, 'table');
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'crontab'),
      `#!/bin/sh\nif [ "$1" = -l ]; then [ -f ${table} ] && cat ${table} && exit 0; echo "no crontab" >&2; exit 1; fi\n` +
        `[ -f ${dir}/secrets/collector.env ] || exit 9\ncat > ${table}\n`,
      { mode: 0o755 },
    );
    const envFile = path.join(dir, 'secrets', 'collector.env');
    const args = ['install', '--cron', '--config', githubConfig(dir), '--secrets-file', envFile, '--write'];
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const r = await runCli(args, env);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      `wrote ${envFile} (mode 0600): put the tokens there\ncrontab updated (crontab -l shows it)\n`,
    );
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(envFile, 'utf8');
    expect(text).toContain('# GITHUB_TOKEN=...   # read by worker type topics\n');
    expect(text).toContain('# HUB_TOKEN=...   # read by worker type hub\n');
    expect(fs.readFileSync(table, 'utf8')).toContain(`&& set -a && . ${envFile} && set +a && `);
    fs.writeFileSync(envFile, 'GITHUB_TOKEN=mine\n');
    fs.chmodSync(envFile, 0o644);
    const again = await runCli(args, env);
    expect(again.stdout.split('\n')[0]).toBe(`${envFile}: mode set to 0600 (it holds secrets)`);
    expect(fs.readFileSync(envFile, 'utf8')).toBe('GITHUB_TOKEN=mine\n'); // never overwritten
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(table, 'utf8').match(/# BEGIN collector/g)).toHaveLength(1);
  });
});

describe('collector install --systemd', () => {
  it('the unit: Restart=on-failure, SIGTERM, TimeoutStopSec above the join timeout, MemoryMax, 0600 env file', () => {
    const unit = systemdUnit(target(tempDir()));
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^KillMode=mixed$/m);
    expect(unit).toMatch(/^TimeoutStopSec=30s$/m);
    expect(unit).toMatch(/^MemoryMax=1536M$/m);
    expect(unit).toMatch(/^WorkingDirectory=\//m);
    expect(unit).toMatch(/^EnvironmentFile=-\S+collector\.env$/m);
    expect(unit).toMatch(/^ExecStart=\S+ \S+bin\/collector\.js run --config \S+collector\.yaml --quiet$/m);
  });

  it('--write: the unit (verified by systemd-analyze where present) and the environment file, mode 0600', async () => {
    const dir = tempDir();
    const config = writeConfig(dir);
    const units = path.join(dir, 'units');
    const env = path.join(dir, 'secrets', 'collector.env');
    const r = await runCli([
      'install',
      '--systemd',
      '--config',
      config,
      '--write',
      '--unit-dir',
      units,
      '--secrets-file',
      env,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const unit = fs.readFileSync(path.join(units, 'collector.service'), 'utf8');
    expect(unit).toMatch(/^TimeoutStopSec=50s$/m); // join timeout 30 s + 20 s
    expect(unit).toMatch(/^MemoryMax=1536M$/m);
    expect(unit).toContain(`WorkingDirectory=${dir}\n`);
    expect(fs.statSync(env).mode & 0o777).toBe(0o600);
    if (hasSystemdAnalyze) {
      expect(r.stdout).toContain('systemd-analyze verify: no warnings');
      const v = spawnSync('systemd-analyze', ['verify', path.join(units, 'collector.service')], {
        encoding: 'utf8',
      });
      expect({ status: v.status, out: `${v.stdout}${v.stderr}`.trim() }).toEqual({ status: 0, out: '' });
    } else {
      expect(r.stdout).toContain('systemd-analyze not found');
    }
    fs.chmodSync(env, 0o644);
    fs.appendFileSync(env, 'COLLECTOR_METRICS_TOKEN=keep-me\n');
    const again = await runCli([
      'install',
      '--systemd',
      '--config',
      config,
      '--write',
      '--unit-dir',
      units,
      '--secrets-file',
      env,
    ]);
    expect(again.stdout).toContain('mode set to 0600');
    expect(fs.statSync(env).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(env, 'utf8')).toContain('keep-me'); // never overwritten
  });

  it('asks for one of --cron or --systemd', async () => {
    const r = await runCli(['install', '--config', writeConfig(tempDir())]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('collector: install: give one of --cron or --systemd\n');
  });
});
