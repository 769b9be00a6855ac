/**
 * Who a process is, beyond its pid: its start time in clock ticks since boot (`/proc/<pid>/stat`
 * field 22) and the boot it belongs to (`/proc/sys/kernel/random/boot_id`). A pid is reused once
 * its process is gone; pid + start time + boot id names one process for good, so a lock or a
 * state dir whose recorded holder's pid now belongs to another process is known to be free.
 */
import fs from 'node:fs';

/** One process, as recorded in a lock file. */
export interface ProcessIdentity {
  pid: number;
  /** `/proc/<pid>/stat` field 22 (clock ticks after boot); null where /proc is unavailable. */
  startTicks: number | null;
  /** The kernel's boot id; null where unavailable. */
  bootId: string | null;
}

/**
 * Clock ticks per second the kernel uses in `/proc/<pid>/stat` (USER_HZ). It is 100 on every
 * mainstream Linux architecture; only used to show a start time, never to compare identities.
 */
export const USER_HZ = 100;

const PROC_ROOT = '/proc';

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

let bootIdCache: string | null | undefined;

/** The current boot's id, or null where the kernel does not tell. */
export function bootId(): string | null {
  if (bootIdCache === undefined) {
    bootIdCache = readText(`${PROC_ROOT}/sys/kernel/random/boot_id`)?.trim() || null;
  }
  return bootIdCache;
}

/** What `/proc/<pid>/stat` says about a live process: its state letter, parent and start time. */
export interface ProcStat {
  /** `R`, `S`, `D`, `T`, `Z` (zombie), `X` (dead)... */
  state: string;
  /** The parent's pid (field 4). */
  ppid: number;
  /** The process group (field 5). */
  pgrp: number;
  startTicks: number;
}

/**
 * Parse `/proc/<pid>/stat` (proc(5)): the command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last `)`.
 * @returns null when the text is not a stat line.
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const startTicks = Number(fields[19]);
  if (!fields[0] || !Number.isSafeInteger(startTicks)) return null;
  return { state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), startTicks };
}

/** `/proc/<pid>/stat` of a process, or null when it is gone (or /proc is unavailable). */
export function procStat(pid: number): ProcStat | null {
  const text = readText(`${PROC_ROOT}/${pid}/stat`);
  return text === null ? null : parseProcStat(text);
}

/** This process's identity. */
export function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, startTicks: procStat(process.pid)?.startTicks ?? null, bootId: bootId() };
}

/** Whether a signal-0 probe finds `pid` (EPERM: it exists, owned by someone else). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `id` names is still running: same boot, its pid exists, is not a zombie,
 * and started at the recorded tick (else the pid was reused). Without a recorded start time
 * (an older lock file), or when /proc does not show the pid (no /proc, or `hidepid`), only the
 * pid is checked: a process that exists counts as running.
 */
export function isRunning(id: ProcessIdentity): boolean {
  if (!Number.isSafeInteger(id.pid) || id.pid <= 0) return false;
  const boot = bootId();
  if (id.bootId !== null && boot !== null && id.bootId !== boot) return false;
  const stat = procStat(id.pid);
  if (stat === null) return pidExists(id.pid);
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return id.startTicks === null || stat.startTicks === id.startTicks;
}

/** Boot time, epoch seconds (`btime` of /proc/stat), or null. */
function bootTime(): number | null {
  const m = /^btime (\d+)$/m.exec(readText(`${PROC_ROOT}/stat`) ?? '');
  return m ? Number(m[1]) : null;
}

/** When the process started, ISO 8601 (to the second), or null where unknown. For messages. */
export function startedAt(id: ProcessIdentity): string | null {
  const boot = bootTime();
  if (boot === null || id.startTicks === null) return null;
  return new Date((boot + Math.floor(id.startTicks / USER_HZ)) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `pid 123, started 2025-01-02T03:04:05Z` (or `pid 123`), for messages. */
export function describeProcess(id: ProcessIdentity): string {
  const at = startedAt(id);
  return at === null ? `pid ${id.pid}` : `pid ${id.pid}, started ${at}`;
}
