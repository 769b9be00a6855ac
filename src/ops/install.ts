/**
 * `collector install`: the service files for running a config unattended — a crontab block (the
 * collector started at boot; watchdog and size every 5 minutes, each under `flock -n` so a slow
 * run is never doubled, output mailed by cron or appended to a log) and a systemd unit
 * (Restart=on-failure, SIGTERM to the supervisor with a stop timeout above the join timeout,
 * MemoryMax from the plan) with an environment file for tokens, mode 0600.
 */
import path from 'node:path';

/** Everything the files name, all absolute. */
export interface InstallTarget {
  /** The node binary (`process.execPath`). */
  node: string;
  /** `bin/collector.js` of this installation. */
  bin: string;
  /** The config file. */
  config: string;
  /** Its data directory. */
  dataDir: string;
  /** Working directory of the service (the config's directory). */
  workDir: string;
  /** Unit / crontab block name. */
  name: string;
  /** The supervisor's join timeout, ms (the stop timeout must exceed it). */
  joinTimeoutMs: number;
  /** MemoryMax, bytes (the memory limit the plan is made for). */
  memoryMaxBytes: number;
  /** Environment file for tokens (systemd EnvironmentFile). */
  envFile: string;
  /** Milestone step for `size`, e.g. `100MB`. */
  sizeEvery: string;
  /** Append cron output to this log instead of having cron mail it; null = mail. */
  cronLog: string | null;
}

/** Extra time systemd gives beyond the join timeout before SIGKILL, s: the workers' own margin plus flushing. */
export const STOP_TIMEOUT_MARGIN_S = 20;

/** Marker lines around the crontab block, so `--write` replaces an earlier one instead of adding a second. */
export function cronMarkers(name: string): { begin: string; end: string } {
  return { begin: `# BEGIN ${name} (collector install --cron)`, end: `# END ${name}` };
}

/** Quote a word for /bin/sh when it needs it. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/** The crontab block (five lines between markers). */
export function cronBlock(t: InstallTarget): string {
  const q = shellQuote;
  const cli = `${q(t.node)} ${q(t.bin)}`;
  const lock = (what: string) => q(path.join(t.dataDir, 'state', `${t.name}-${what}.flock`));
  const out = t.cronLog ? ` >> ${q(t.cronLog)} 2>&1` : '';
  const { begin, end } = cronMarkers(t.name);
  return [
    begin,
    `# Silent while all is well: cron mails${t.cronLog ? ' nothing (output goes to the log)' : ' any output (set MAILTO)'}.`,
    `@reboot cd ${q(t.workDir)} && mkdir -p ${q(path.join(t.dataDir, 'logs'))} && ${cli} run --config ${q(t.config)} --quiet >> ${q(path.join(t.dataDir, 'logs', 'collector.out'))} 2>&1`,
    `*/5 * * * * cd ${q(t.workDir)} && flock -n ${lock('watchdog')} ${cli} watchdog --data ${q(t.dataDir)} --config ${q(t.config)}${out}`,
    `*/5 * * * * cd ${q(t.workDir)} && flock -n ${lock('size')} ${cli} size --data ${q(t.dataDir)} --every ${q(t.sizeEvery)} --config ${q(t.config)}${out}`,
    end,
    '',
  ].join('\n');
}

/** MemoryMax value: whole MiB, at least 64M. */
function memoryMax(bytes: number): string {
  return `${Math.max(64, Math.ceil(bytes / 1048576))}M`;
}

/** The systemd unit. */
export function systemdUnit(t: InstallTarget): string {
  const q = (s: string) => (/\s|"/.test(s) ? `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : s);
  return [
    '[Unit]',
    `Description=collector: ${t.name} (${t.config})`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `WorkingDirectory=${q(t.workDir)}`,
    `ExecStart=${q(t.node)} ${q(t.bin)} run --config ${q(t.config)} --quiet`,
    '# Tokens (COLLECTOR_METRICS_TOKEN, GITHUB_TOKEN...) live here, mode 0600, not in the unit.',
    `EnvironmentFile=-${q(t.envFile)}`,
    'Restart=on-failure',
    'RestartSec=10s',
    '# SIGTERM goes to the supervisor alone: it stops its workers gracefully; what is left is killed',
    '# after TimeoutStopSec (above the join timeout, so in-flight requests can finish and state is flushed).',
    'KillSignal=SIGTERM',
    'KillMode=mixed',
    `TimeoutStopSec=${Math.ceil(t.joinTimeoutMs / 1000) + STOP_TIMEOUT_MARGIN_S}s`,
    `# The memory limit the plan was made for: the memory guard reads it back from the cgroup.`,
    `MemoryMax=${memoryMax(t.memoryMaxBytes)}`,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** The environment file's first content (written once, never overwritten). */
export function envFileTemplate(): string {
  return [
    '# Environment of the collector service (mode 0600: it holds secrets).',
    '# COLLECTOR_METRICS_TOKEN=a-long-random-string   # needed when metrics.listen is not loopback',
    '',
  ].join('\n');
}

/**
 * Replace the block between {@link cronMarkers} in a crontab (or append it).
 * @param crontab the current crontab text ('' when there is none).
 */
export function withCronBlock(crontab: string, name: string, block: string): string {
  const { begin, end } = cronMarkers(name);
  const lines = crontab.split('\n');
  const from = lines.indexOf(begin);
  const to = lines.indexOf(end, from);
  if (from >= 0 && to > from) {
    return [...lines.slice(0, from), block.trimEnd(), ...lines.slice(to + 1)].join('\n');
  }
  const base = crontab.trimEnd();
  return `${base ? `${base}\n\n` : ''}${block}`;
}
