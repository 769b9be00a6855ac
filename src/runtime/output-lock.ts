/**
 * The lock on an output (data) directory: `<out>/collector.pid` names the collector that uses it
 * (pid + start time, taken over atomically when that process is gone: sinks/lock-file.ts), and
 * once it is taken, workers of a previous run that still hold their state dirs (their supervisor
 * was killed; they finish their requests and exit by themselves) are waited for, so the new run
 * never reads a state that is still being written.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { WORKER_LOCK_FILE } from '../engine/state-lock.js';
import { bodyTempDir } from '../sinks/file-sink.js';
import {
  acquireLock,
  type HeldLock,
  LockHeldError,
  type LockRecord,
  lockHolder,
} from '../sinks/lock-file.js';
import { describeProcess, isRunning } from '../sinks/process-identity.js';

/** Name of the lock file in the output directory. */
export const OUTPUT_LOCK_FILE = 'collector.pid';

/**
 * How long a new run waits for the workers of a previous run to exit, ms. An orphaned worker
 * stops taking URLs at once and exits within its join timeout (default 10 s) + 2 s; past this
 * bound it is killed (SIGKILL: its state stays consistent, its in-flight requests are fetched
 * again).
 */
export const PREVIOUS_WORKERS_WAIT_MS = 15_000;

/** How long killed workers get to disappear before the run gives up, ms. */
const KILL_WAIT_MS = 5000;

const POLL_MS = 100;

/** Settings of {@link lockOutput}. */
export interface OutputLockOptions {
  /** See {@link PREVIOUS_WORKERS_WAIT_MS}. */
  waitForWorkersMs?: number;
  /** Where the one-line notices go. Default: stderr. */
  notice?: (line: string) => void;
}

/**
 * Take `<out>/collector.pid`, wait for the previous run's workers (see the module comment), then
 * empty `<out>/state/tmp` (body temp files left by a crash: no writer runs any more).
 * @param label how the directory is named in messages: `--out` (crawl) or `data` (run).
 * @returns a function that releases the lock.
 * @throws UsageError when a running collector holds the lock, or previous workers cannot be
 *   ended; the fs error (e.g. ENOSPC) when the lock file cannot be written.
 */
export async function lockOutput(
  out: string,
  label = '--out',
  options: OutputLockOptions = {},
): Promise<() => Promise<void>> {
  const lock = await takeOutputLock(out, label);
  try {
    await waitForPreviousWorkers(out, options.waitForWorkersMs ?? PREVIOUS_WORKERS_WAIT_MS, options.notice);
    // Best effort: a failure here must not keep the lock file.
    await fs.rm(bodyTempDir(out), { recursive: true, force: true }).catch(() => {});
  } catch (e) {
    await lock.release();
    throw e;
  }
  return () => lock.release();
}

/**
 * Whether no collector holds `<out>` (the watchdog asks before it starts one): the lock is taken
 * and given back at once; the previous run's workers are neither waited for nor touched (the
 * collector started next does that).
 * @throws UsageError when a running collector holds the lock.
 */
export async function checkOutputFree(out: string, label = '--out'): Promise<void> {
  await (await takeOutputLock(out, label)).release();
}

/**
 * Refuses an output directory a running collector holds, without touching its lock: told before
 * any other objection to the directory ("add --resume", "holds a one-shot crawl"), since the
 * running collector is the real reason. A stale or unreadable lock passes (taking it decides).
 * @throws UsageError naming the running holder.
 */
export async function refuseIfInUse(out: string, label = '--out'): Promise<void> {
  const holder = await lockHolder(path.join(out, OUTPUT_LOCK_FILE));
  if (holder !== null && holder !== 'unreadable' && holder.pid !== process.pid && isRunning(holder))
    throw inUse(out, label, describeProcess(holder));
}

function inUse(out: string, label: string, who: string): UsageError {
  return new UsageError(
    `${label} ${out}: in use by another collector (${who}); stop it first or choose another ${label}`,
  );
}

/** Take `<out>/collector.pid`. @throws UsageError naming the running holder. */
async function takeOutputLock(out: string, label: string): Promise<HeldLock> {
  try {
    return await acquireLock(path.join(out, OUTPUT_LOCK_FILE));
  } catch (e) {
    if (!(e instanceof LockHeldError)) throw e;
    throw inUse(out, label, e.holder ? describeProcess(e.holder) : 'its lock file is being written');
  }
}

/** Running holders of `<out>/state/<worker-id>/worker.lock`, by worker id. */
export async function previousWorkers(out: string): Promise<Array<{ id: string; holder: LockRecord }>> {
  const stateDir = path.join(out, 'state');
  let dirs: string[];
  try {
    dirs = (await fs.readdir(stateDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
  const found: Array<{ id: string; holder: LockRecord }> = [];
  for (const id of dirs.sort()) {
    const holder = await lockHolder(path.join(stateDir, id, WORKER_LOCK_FILE));
    if (holder !== null && holder !== 'unreadable' && holder.pid !== process.pid) found.push({ id, holder });
  }
  return found;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Wait until no worker of a previous run holds its state dir; kill those still running after
 * `waitMs` (their identity checked again first, so a reused pid is never signalled).
 * @throws UsageError when killed workers do not disappear.
 */
async function waitForPreviousWorkers(
  out: string,
  waitMs: number,
  notice: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<void> {
  let live = await previousWorkers(out);
  if (live.length === 0) return;
  const pids = () => live.map((w) => w.holder.pid).join(', ');
  notice(
    `collector: waiting for ${plural(live.length, 'worker')} of the previous run to exit (pids ${pids()})`,
  );
  const stillRunning = () => live.filter((w) => isRunning(w.holder));
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    live = stillRunning();
    if (live.length === 0) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  live = stillRunning();
  if (live.length === 0) return;
  for (const w of live) {
    try {
      if (isRunning(w.holder)) process.kill(w.holder.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  notice(
    `collector: killed ${plural(live.length, 'worker')} of the previous run still running after ${Math.round(waitMs / 1000)} s (pids ${pids()})`,
  );
  const killDeadline = Date.now() + KILL_WAIT_MS;
  while (Date.now() < killDeadline) {
    live = stillRunning();
    if (live.length === 0) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new UsageError(
    `${out}: workers of the previous run do not exit (pids ${pids()}); end them, then resume`,
  );
}
