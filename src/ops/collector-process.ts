/**
 * Stopping and starting a collector from the outside (the watchdog): SIGTERM to its supervisor,
 * then SIGKILL only to processes proven to be this collector's (pid + start time + command line
 * or data dir), and a detached start with the recorded command line and working directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isRunning, type ProcessIdentity, provenOurs } from '../supervision/process-identity.js';
import type { StatusFile } from '../supervision/status-format.js';

/** Extra time given beyond the recorded join timeout before SIGKILL, ms. */
export const STOP_MARGIN_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until none of `ids` runs, polling every 100 ms. @returns whether they all ended in time. */
export async function waitGone(ids: ProcessIdentity[], ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (ids.some(isRunning)) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

function signal(id: ProcessIdentity, sig: NodeJS.Signals): void {
  try {
    process.kill(id.pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Stop the collector `status` describes and wait until its processes are gone: SIGTERM to the
 * supervisor (graceful: workers finish or abandon their requests and flush), SIGKILL to it after
 * the join timeout + {@link STOP_MARGIN_MS}; then workers still alive after the same wait (they
 * stop by themselves once their supervisor is gone) are SIGKILLed. Nothing is signalled that is
 * not proven to be this collector's.
 * @returns what had to be killed, e.g. `["supervisor 1234"]`, and the processes that would not go.
 */
export async function stopCollector(
  status: StatusFile,
  dataDir: string,
): Promise<{ killed: string[]; left: number[] }> {
  const waitMs = status.timings.joinTimeoutMs + STOP_MARGIN_MS;
  const killed: string[] = [];
  const sup = status.supervisor;
  const expected = { cmdline: status.launch.cmdline, cwd: status.launch.cwd };
  if (provenOurs(sup, dataDir, expected)) {
    signal(sup, 'SIGTERM');
    if (!(await waitGone([sup], waitMs)) && provenOurs(sup, dataDir, expected)) {
      signal(sup, 'SIGKILL');
      killed.push(`supervisor ${sup.pid}`);
      await waitGone([sup], 2000);
    }
  }
  const workers = status.workers
    .filter((w) => w.pid !== null && w.pidStartTicks !== null && w.pid !== sup.pid)
    .map((w) => ({ pid: w.pid as number, startTicks: w.pidStartTicks as number }));
  if (!(await waitGone(workers, waitMs))) {
    for (const w of workers) {
      if (provenOurs(w, dataDir)) {
        signal(w, 'SIGKILL');
        killed.push(`worker ${w.pid}`);
      }
    }
    await waitGone(workers, 2000);
  }
  const left = [sup, ...workers].filter(isRunning).map((p) => p.pid);
  return { killed, left };
}

/** The file a restarted collector's stdout and stderr go to. */
export function restartLogPath(dataDir: string): string {
  return path.join(dataDir, 'logs', 'collector.out');
}

/**
 * Start the collector again as recorded (`launch.restartArgv` in `launch.cwd`), detached from
 * the caller (a cron job ends; the collector goes on), stdout and stderr appended to
 * `<data>/logs/collector.out` after a header line saying why.
 * @throws when the program cannot be started (e.g. ENOENT for a node binary that was removed).
 */
export function startCollector(status: StatusFile, dataDir: string, why: string): ChildProcess {
  const log = restartLogPath(dataDir);
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.appendFileSync(
    log,
    `--- ${new Date().toISOString()} watchdog: ${why}; starting ${status.launch.restartArgv.join(' ')}\n`,
  );
  const fd = fs.openSync(log, 'a');
  try {
    const [cmd, ...args] = status.launch.restartArgv;
    const child = spawn(cmd, args, {
      cwd: status.launch.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: process.env,
    });
    child.unref();
    return child;
  } finally {
    fs.closeSync(fd);
  }
}
