/**
 * Which process a pid is, as status.json records it: its start time since boot (`/proc/<pid>/stat`
 * field 22, read by sinks/process-identity.ts, which the lock files use) and its command line. A
 * pid alone can be reused by an unrelated process after ours died; pid + start time cannot, so the
 * watchdog signals only processes whose identity matches what was recorded.
 */
import fs from 'node:fs';
import { procStat } from '../sinks/process-identity.js';

/** A process as recorded: pid plus its start time. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22, proc(5)). */
  startTicks: number;
}

/**
 * Start time of `pid` in clock ticks since boot (proc(5) `stat` field 22), or null when the
 * process is gone, is a zombie, or /proc is unavailable.
 */
export function processStartTicks(pid: number): number | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const stat = procStat(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return null;
  return stat.startTicks;
}

/** This process's identity (start ticks 0 where /proc is unavailable). */
export function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, startTicks: processStartTicks(process.pid) ?? 0 };
}

/** The command line of `pid` (`/proc/<pid>/cmdline`, NUL-separated), or null when unreadable. */
export function processCmdline(pid: number): string[] | null {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return null;
    return raw.replace(/\0$/, '').split('\0');
  } catch {
    return null;
  }
}

/**
 * Whether the process recorded as `id` still runs: same pid, same start time, not a zombie.
 * A pid that now belongs to another process (reused after ours exited) is not it.
 */
export function isRunning(id: ProcessIdentity | null | undefined): boolean {
  if (!id?.pid) return false;
  const ticks = processStartTicks(id.pid);
  return ticks !== null && ticks === id.startTicks;
}

/**
 * Whether the process recorded as `id` is alive and can be shown to be this collector's on
 * `dataDir`: the same start time, and either the recorded command line and working directory
 * (`expected`, for the supervisor) or a command line naming the data dir (`--data <dataDir>`,
 * as the supervisor starts its worker processes).
 */
export function provenOurs(
  id: ProcessIdentity | null | undefined,
  dataDir: string,
  expected?: { cmdline: string[]; cwd: string },
): boolean {
  if (!isRunning(id)) return false;
  const pid = (id as ProcessIdentity).pid;
  const cmd = processCmdline(pid);
  if (cmd === null) return false;
  if (expected && cmd.length === expected.cmdline.length && cmd.every((a, i) => a === expected.cmdline[i])) {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`) === expected.cwd;
    } catch {
      return false;
    }
  }
  const at = cmd.indexOf('--data');
  return at >= 0 && cmd[at + 1] === dataDir;
}
