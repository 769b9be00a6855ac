/**
 * `<data>/status.json`: the heartbeat the supervisor (or a one-process crawl) rewrites atomically
 * every few seconds, and the reader the ops commands use. Its layout is internal (`format`);
 * scripts should read `collector status --json`, whose shape is the documented contract.
 */

import fs from 'node:fs/promises';
import path from 'node:path';
import type { HostPoliteness } from '../frontier/frontier-queue.js';
import type { LaunchRecord } from './launch-record.js';
import type { ProcessIdentity } from './process-identity.js';
import type { WorkerCounters } from './worker-counters.js';

/**
 * Layout version of status.json written by this code. 2: a worker's `type` is its worker type's
 * name and `source` its source (format 1 had the source in `type` and the name in `group`; it is
 * read as format 2).
 */
export const STATUS_FILE_FORMAT = 2;

/** One worker process's line in status.json. */
export interface StatusWorker {
  id: string;
  /** Worker type name (the processes sharing ownership of URLs), e.g. `docs`. */
  type: string;
  /** Source name, e.g. `crawl`. */
  source: string;
  pid: number | null;
  /** Start time of `pid` in clock ticks since boot (process identity), null when not running. */
  pidStartTicks: number | null;
  state: string;
  /** Items in its items file, including those from before this run. */
  items: number;
  itemsThisRun: number;
  pagesPerSec: number;
  errors: number;
  queue: number;
  inFlight: number;
  rssMB: number;
  pssMB: number;
  /** `--render`: pages rendered this run; absent without rendering. */
  rendered?: number;
  /** `--render`: its headless browser's PSS (all its processes), MB; 0 when none runs. */
  browserMB?: number;
  /** ISO 8601 time of the last item written, or null. */
  lastProgressAt: string | null;
  /**
   * ISO 8601 time it last had all its pending work waiting on its hosts (politeness, Retry-After,
   * slow-down, back-off): not a stall. Null when never (or an older build).
   */
  waitingAt?: string | null;
  /** Hosts it slows down or pauses, and why (at most 10). Absent from older builds. */
  slowedHosts?: HostPoliteness[];
  restarts: number;
  lastError: string | null;
  /** Since the supervisor started, over all of this worker's processes. */
  counters: WorkerCounters;
}

/** status.json, format 1. */
export interface StatusFile {
  format: number;
  /** `supervisor` (worker processes) or `in-process` (a one-process crawl: it is its own supervisor). */
  mode: 'supervisor' | 'in-process';
  supervisorPid: number;
  /** Identity of the supervising process (pid + start time). */
  supervisor: ProcessIdentity;
  startedAt: string;
  /** The heartbeat: when this file was written. */
  updatedAt: string;
  state: 'running' | 'stopping' | 'finished' | 'stopped';
  launch: LaunchRecord;
  /** Supervisor timings the watchdog needs, ms. */
  timings: {
    statusIntervalMs: number;
    restartBackoffMs: number;
    joinTimeoutMs: number;
    stallTimeoutMs: number;
  };
  /** Worker processes expected, by worker type. */
  expected: Record<string, number>;
  memoryLimitMB: number;
  /**
   * Where the disk filled (a path), when the collector stopped because of a full disk (ENOSPC or
   * EDQUOT, exit 75); null or absent otherwise. Written only if the last status.json still fit.
   */
  diskFull?: string | null;
  workers: StatusWorker[];
  totals: Record<string, unknown> & { items: number; errors: number; queue: number; pagesPerSec: number };
}

/** The path of status.json in `dataDir`. */
export function statusPath(dataDir: string): string {
  return path.join(dataDir, 'status.json');
}

/** Why status.json could not be used. */
export type StatusProblem = 'missing' | 'unreadable' | 'old-format';

/**
 * Read `<dataDir>/status.json`.
 * @returns the document, or the problem: `missing` (never started here), `unreadable` (not JSON;
 *   it is replaced atomically, so this means damage), `old-format` (written by a collector
 *   without the fields status and watchdog need: restart it once by hand).
 */
export async function readStatusFile(dataDir: string): Promise<StatusFile | StatusProblem> {
  let text: string;
  try {
    text = await fs.readFile(statusPath(dataDir), 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'unreadable';
  }
  const d = doc as Partial<StatusFile>;
  if (
    typeof d !== 'object' ||
    d === null ||
    typeof d.format !== 'number' ||
    !d.launch ||
    !d.supervisor ||
    !Array.isArray(d.workers) ||
    !d.timings
  )
    return 'old-format';
  if (d.format === 1) {
    // Format 1: `type` held the source, `group` the worker type's name.
    const old = d.workers as unknown as Array<StatusWorker & { group?: string }>;
    d.workers = old.map(({ group, ...w }) => ({ ...w, type: group ?? w.type, source: w.type }));
  }
  return d as StatusFile;
}
