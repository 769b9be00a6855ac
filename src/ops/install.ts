/**
 * `collector install`: the service files for running a config unattended — a crontab block (the
 * collector started at boot; watchdog and size every 5 minutes, each under `flock -n` so a slow
 * run is never doubled, output mailed by cron or appended to a log) and a systemd unit
 * (Restart=on-failure, SIGTERM to the supervisor with a stop timeout above the join timeout,
 * MemoryMax from the plan). Both read the tokens from one environment file, mode 0600 (the unit
 * by `EnvironmentFile=`, each cron line by sourcing it), never from the unit or the crontab: cron
 * starts jobs with an almost empty environment, and the watchdog passes its own environment to
 * the collector it restarts, so the watchdog line must source it too.
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
  /** Environment file for tokens (systemd EnvironmentFile; sourced by each cron line). */
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

/**
 * The crontab block (two comments and three jobs between markers). Each job sources the environment file first
 * (`set -a && . FILE && set +a`: every assignment exported), so the collector started at boot and
 * the one the watchdog restarts both have the tokens; a missing file fails the job loudly (cron
 * mails the shell's error) rather than starting a collector without them.
 */
export function cronBlock(t: InstallTarget): string {
  const q = shellQuote;
  const cli = `${q(t.node)} ${q(t.bin)}`;
  const lock = (what: string) => q(path.join(t.dataDir, 'state', `${t.name}-${what}.flock`));
  const out = t.cronLog ? ` >> ${q(t.cronLog)} 2>&1` : '';
  const env = `set -a && . ${q(t.envFile)} && set +a`;
  const { begin, end } = cronMarkers(t.name);
  return [
    begin,
    `# Silent while all is well: cron mails${t.cronLog ? ' nothing (output goes to the log)' : ' any output (set MAILTO)'}.`,
    `# Tokens: ${t.envFile} (mode 0600, KEY=value lines), sourced by each line; never in this table.`,
    `@reboot cd ${q(t.workDir)} && ${env} && mkdir -p ${q(path.join(t.dataDir, 'logs'))} && ${cli} run --config ${q(t.config)} --quiet >> ${q(path.join(t.dataDir, 'logs', 'collector.out'))} 2>&1`,
    `*/5 * * * * cd ${q(t.workDir)} && ${env} && flock -n ${lock('watchdog')} ${cli} watchdog --data ${q(t.dataDir)} --config ${q(t.config)}${out}`,
    `*/5 * * * * cd ${q(t.workDir)} && ${env} && flock -n ${lock('size')} ${cli} size --data ${q(t.dataDir)} --every ${q(t.sizeEvery)} --config ${q(t.config)}${out}`,
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

/**
 * The environment file's first content (written once, never overwritten): KEY=value lines that
 * both systemd (`EnvironmentFile=`) and sh (`.`) read, one commented line per credential variable
 * the config's sources name.
 * @param credentials each variable with the worker types that read it.
 */
export function envFileTemplate(credentials: Record<string, string[]> = {}): string {
  const lines = Object.entries(credentials).map(
    ([name, types]) =>
      `# ${name}=...   # read by worker type${types.length > 1 ? 's' : ''} ${types.join(', ')}`,
  );
  return [
    '# Environment of the collector (mode 0600: it holds secrets): KEY=value lines, no spaces',
    '# around "=", read by systemd (EnvironmentFile=) and by the cron lines (sh: set -a; . FILE).',
    ...lines,
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
