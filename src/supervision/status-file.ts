/**
 * `<data>/status.json`: the supervisor's heartbeat, rewritten atomically every 2 s (the contract
 * is ≤ 5 s) — its pid and start, per worker its state, counters, rate, memory, last progress,
 * restarts and last error, and totals.
 */

import type { Logger } from 'pino';
import type { HostPoliteness } from '../frontier/frontier-queue.js';
import { overwriteInPlace, writeFileAtomic } from '../sinks/atomic-file.js';
import { diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { memoryOf } from './memory-guard.js';
import { statusPath } from './status-format.js';
import type { WorkerProcess } from './worker-process.js';

const MB = 1048576;

/** One worker in status.json. */
export interface WorkerStatus {
  id: string;
  /** Worker type name, e.g. `docs`. */
  type: string;
  /** Source name, e.g. `crawl`. */
  source: string;
  pid: number | null;
  /** A worker state, or `paused` (memory guard) or `stopped` (done after a stop). */
  state: string;
  items: number;
  itemsThisRun: number;
  pagesPerSec: number;
  errors: number;
  queue: number;
  inFlight: number;
  /** Resident set size as the worker reports it, MB. */
  rssMB: number;
  /** Its PSS as the supervisor samples it (what the memory guard watches), MB. */
  pssMB: number;
  /** `--render`: pages rendered this run, and its headless browser's PSS, MB (0 when none runs). Absent without rendering. */
  rendered?: number;
  browserMB?: number;
  /** ISO 8601, or null before its first report. */
  lastProgressAt: string | null;
  /** ISO 8601: the last time all its pending work waited on its hosts (not a stall), or null. */
  waitingAt: string | null;
  /** Hosts it slows down or pauses, and why. */
  slowedHosts: HostPoliteness[];
  restarts: number;
  lastError: string | null;
}

/** The whole status.json document. */
export interface StatusDocument {
  supervisorPid: number;
  startedAt: string;
  updatedAt: string;
  /** `running`, `stopping`, `finished` or `stopped`. */
  state: string;
  memoryLimitMB: number;
  /** Where the disk filled, when a full disk stopped the collector (see status-format.ts). */
  diskFull: string | null;
  workers: WorkerStatus[];
  totals: {
    items: number;
    itemsThisRun: number;
    errors: number;
    queue: number;
    pagesPerSec: number;
    rssMB: number;
    pssMB: number;
    workers: number;
    parked: number;
    /** Links not followed, by reason, summed over the workers' last reports. */
    skipped: Record<string, number>;
    /** Items without an error, earlier runs included. */
    collected: number;
  };
}

/** The status document of the supervisor's workers now. */
export function statusDocument(
  workers: WorkerProcess[],
  sup: { startedAt: Date; stopping: boolean; memoryLimitBytes: number; diskFull: string | null },
): StatusDocument {
  const list: WorkerStatus[] = workers.map((w) => ({
    id: w.spec.id,
    type: w.spec.group,
    source: w.spec.type,
    pid: w.pid,
    state:
      w.paused && w.state === 'running' ? 'paused' : w.state === 'done' && sup.stopping ? 'stopped' : w.state,
    items: w.stats?.items ?? 0,
    itemsThisRun: w.itemsThisRun,
    // A worker that has ended fetches nothing: its last rate is not its rate.
    pagesPerSec: w.pid === null ? 0 : Math.round(w.pagesPerSec * 10) / 10,
    errors: w.stats?.errors ?? 0,
    queue: w.stats?.queued ?? 0,
    inFlight: w.stats?.inFlight ?? 0,
    // Both memory figures of the live process, or none: a stopped worker's last report is not its memory.
    rssMB: w.pid === null ? 0 : Math.round((w.stats?.rss ?? 0) / MB),
    pssMB: w.pid === null ? 0 : Math.round(w.rss / MB),
    lastProgressAt: w.stats ? new Date(w.stats.lastProgressAt).toISOString() : null,
    waitingAt: w.stats?.waitingAt ? new Date(w.stats.waitingAt).toISOString() : null,
    slowedHosts: w.pid === null ? [] : (w.stats?.slowedHosts ?? []),
    ...(w.stats?.rendered === undefined
      ? {}
      : { rendered: w.stats.rendered, browserMB: w.pid === null ? 0 : Math.round(w.browserMemory / MB) }),
    restarts: w.restarts,
    lastError: w.lastError,
  }));
  const sum = (k: 'items' | 'itemsThisRun' | 'errors' | 'queue' | 'rssMB' | 'pssMB' | 'pagesPerSec') =>
    list.reduce((a, w) => a + w[k], 0);
  const over = workers.every((w) => w.state === 'done' || w.state === 'parked');
  return {
    supervisorPid: process.pid,
    startedAt: sup.startedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    state: over ? (sup.stopping ? 'stopped' : 'finished') : sup.stopping ? 'stopping' : 'running',
    memoryLimitMB: Math.round(sup.memoryLimitBytes / MB),
    diskFull: sup.diskFull,
    workers: list,
    totals: {
      items: sum('items'),
      itemsThisRun: sum('itemsThisRun'),
      errors: sum('errors'),
      queue: sum('queue'),
      pagesPerSec: Math.round(sum('pagesPerSec') * 10) / 10,
      rssMB: sum('rssMB') + Math.round(process.memoryUsage.rss() / MB),
      // What the tree really occupies (shared code counted once): what the memory guard watches.
      pssMB:
        sum('pssMB') +
        Math.round(memoryOf(process.pid) / MB) +
        list.reduce((a, w) => a + (w.browserMB ?? 0), 0),
      workers: list.length,
      parked: list.filter((w) => w.state === 'parked').length,
      skipped: skippedTotals(workers),
      collected: workers.reduce((a, w) => a + (w.stats?.collected ?? 0), 0),
    },
  };
}

/** Links not followed, by reason, summed over the workers' last stats. */
function skippedTotals(workers: WorkerProcess[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const w of workers) {
    for (const [reason, n] of Object.entries(w.stats?.skipped ?? {}))
      total[reason] = (total[reason] ?? 0) + n;
  }
  return total;
}

/**
 * Write `doc` as `<dataDir>/status.json`, atomically (temp file, rename). On a full disk, where
 * there is no room for the temp file, the document is written compactly over the old one in place
 * (shorter than the indented file, so it needs no new space): a collector stopped by a full disk
 * still says so there, for `status` and the watchdog.
 * @throws the atomic write's fs error (e.g. ENOSPC), even when the in-place write succeeded.
 */
export async function writeStatusJson(dataDir: string, doc: object): Promise<void> {
  const file = statusPath(dataDir);
  try {
    await writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (e) {
    if (isDiskFull(e)) await overwriteInPlace(file, `${JSON.stringify(doc)}\n`).catch(() => {});
    throw e;
  }
}

/**
 * Write `doc` to `<dataDir>/status.json` ({@link writeStatusJson}). A failure is logged, not
 * thrown; a full disk is told to `onDiskFull` with where it happened.
 */
export async function writeStatusFile(
  dataDir: string,
  doc: StatusDocument,
  log: Logger,
  onDiskFull: (at: string) => void = () => {},
): Promise<void> {
  try {
    await writeStatusJson(dataDir, doc);
  } catch (e) {
    if (isDiskFull(e)) onDiskFull(diskFullPath(e, dataDir));
    else log.error({ err: (e as Error).message }, 'writing status.json failed');
  }
}
