/**
 * A collector started through npm (`npx collector …`, `npm run …`) runs under `npm` and a shell
 * (`sh -c`). A supervisor (Docker, pm2, supervisord, `timeout`) that stops the job signals the
 * process it started — npm — which does not pass the signal on to the collector: the collector
 * would go on without a parent. This watch notices that the launcher chain went away and stops
 * the collector as SIGTERM would. Only under npm: a collector left running on purpose (`nohup
 * collector … &`, then the shell exits) is not stopped.
 */
import { readFileSync } from 'node:fs';
import { isRunning, type ProcessIdentity, procStat } from '../sinks/process-identity.js';

/** Defaults of the launcher watch. */
export const LAUNCHER_WATCH_DEFAULTS = {
  /** How often the launcher chain is checked, ms. */
  pollMs: 1000,
  /** Ancestors looked through for npm at most (the shell npm runs the bin with, npm, a wrapper). */
  maxAncestors: 3,
} as const;

/** Whether npm started this process: it sets `npm_command` (`exec` for npx, `run-script`...) for what it runs. */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return typeof env.npm_command === 'string' && env.npm_command !== '';
}

/** Whether a process is npm itself: its title (`npm exec …`, `npm run …`) or its script (`npm-cli.js`, `npx-cli.js`). */
function isNpm(pid: number): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return false;
  }
  return /^npm\b/.test(cmdline) || /\/np[mx]-cli\.js\b/.test(cmdline);
}

/**
 * The processes between `pid` and the npm that started it, npm included (parent first): at most
 * `max` of them; when npm is not among them, the parent alone (the process that waits for this one).
 */
export function launcherChain(pid: number, max: number): ProcessIdentity[] {
  const out: ProcessIdentity[] = [];
  let stat = procStat(pid);
  while (stat !== null && stat.ppid > 1 && out.length < max) {
    const parentPid = stat.ppid;
    const parent = procStat(parentPid);
    if (parent === null) break;
    out.push({ pid: parentPid, startTicks: parent.startTicks, bootId: null });
    if (isNpm(parentPid)) return out;
    stat = parent;
  }
  return out.slice(0, 1);
}

/**
 * Watch the launcher chain of a collector started by npm ({@link startedByNpm}) and running in its
 * process group: when any of the processes between npm and this one (npm included) is gone,
 * `onGone` is called, once. A collector in a process group of its own was started detached (the
 * watchdog restarts it so, with the environment it had): it has no launcher to follow.
 * @returns stops the watch (also a no-op watch when not started by npm or without /proc).
 */
export function watchLauncher(
  onGone: () => void,
  options: { env?: NodeJS.ProcessEnv; pollMs?: number } = {},
): () => void {
  if (!startedByNpm(options.env)) return () => {};
  // A process group of its own: started detached (the watchdog's restart), not run by npm now.
  if (procStat(process.pid)?.pgrp === process.pid) return () => {};
  const chain = launcherChain(process.pid, LAUNCHER_WATCH_DEFAULTS.maxAncestors);
  if (chain.length === 0) return () => {};
  const timer = setInterval(() => {
    if (chain.every((p) => isRunning(p))) return;
    clearInterval(timer);
    onGone();
  }, options.pollMs ?? LAUNCHER_WATCH_DEFAULTS.pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
