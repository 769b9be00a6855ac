/**
 * Which process a pid is: its start time since boot (`/proc/<pid>/stat` field 22) and its
 * command line. A pid alone can be reused by an unrelated process after ours died; pid + start
 * time cannot, so the watchdog signals only processes whose identity matches what was recorded.
 */
import fs from 'node:fs';

/** A process as recorded: pid plus its start time. */
export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22, proc(5)). */
  startTicks: number;
}

/**
 * Start time of `pid` in clock ticks since boot (proc(5) `stat` field 22), or null when the
 * process is gone, is a zombie, or /proc is unavailable. The command name (field 2) may hold
 * spaces and parentheses, so the fields are counted from the last `)`.
 */
export function processStartTicks(pid: number): number | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After ") ": field 3 (state) is index 0, so field 22 is index 19.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? ticks : null;
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
