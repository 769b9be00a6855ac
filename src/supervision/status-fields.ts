/**
 * What status.json carries beyond the supervisor's own counts, for `status`, `watchdog` and
 * metrics: the layout format, the launch record, the supervisor's and each worker's identity
 * (pid + start time), the timings, the workers expected per type, and each worker's counters
 * carried over its restarts. The supervisor calls this from two places (stats received, status
 * built), so the rest of it does not change.
 */
import type { LaunchRecord } from './launch-record.js';
import { processStartTicks, selfIdentity } from './process-identity.js';
import { STATUS_FILE_FORMAT, type StatusFile } from './status-format.js';
import { addCounters, CarriedCounters, emptyCounters, type WorkerCounters } from './worker-counters.js';

/** Timings recorded for the watchdog, ms. */
export type StatusTimings = StatusFile['timings'];

/** Builder of the ops fields of one supervisor's status.json. */
export class StatusFields {
  private readonly carried = new CarriedCounters();
  private readonly self = selfIdentity();
  /** Start ticks by pid, read once per process. */
  private readonly ticks = new Map<number, number | null>();

  /**
   * @param mode `supervisor`, or `in-process` for a one-process crawl.
   * @param expected worker processes per worker type.
   */
  constructor(
    private readonly mode: StatusFile['mode'],
    private readonly launch: LaunchRecord,
    private readonly timings: StatusTimings,
    private readonly expected: Record<string, number>,
  ) {}

  /** A worker's process `pid` reported its counters. */
  report(workerId: string, pid: number | null, counters: WorkerCounters | undefined): void {
    if (pid !== null && counters) this.carried.report(workerId, pid, counters);
  }

  /** Fields added to a worker's line: its type name, process identity and carried counters. */
  worker(
    workerId: string,
    group: string,
    pid: number | null,
  ): { type: string; pidStartTicks: number | null; counters: WorkerCounters } {
    let startTicks: number | null = null;
    if (pid !== null) {
      if (!this.ticks.has(pid)) this.ticks.set(pid, processStartTicks(pid));
      startTicks = this.ticks.get(pid) ?? null;
    }
    return { type: group, pidStartTicks: startTicks, counters: this.carried.total(workerId) };
  }

  /** Top-level fields: format, mode, supervisor identity, launch record, timings, expected workers. */
  header(): Pick<StatusFile, 'format' | 'mode' | 'supervisor' | 'launch' | 'timings' | 'expected'> {
    return {
      format: STATUS_FILE_FORMAT,
      mode: this.mode,
      supervisor: this.self,
      launch: this.launch,
      timings: this.timings,
      expected: this.expected,
    };
  }

  /**
   * `doc` (the supervisor's status document) with the ops fields: the header, each worker's type
   * name, identity and carried counters, and the summed counters in the totals.
   * @param procs the workers in the order of `doc.workers`.
   */
  extend<D extends { workers: object[]; totals: object }>(
    doc: D,
    procs: Array<{ id: string; group: string; pid: number | null }>,
  ): D {
    const workers = doc.workers.map((w, i) => ({
      ...w,
      ...this.worker(procs[i].id, procs[i].group, procs[i].pid),
    }));
    return {
      ...this.header(),
      ...doc,
      workers,
      totals: { ...doc.totals, counters: StatusFields.sum(workers) },
    };
  }

  /** Totals of the workers' counters (summed), for the status's totals. */
  static sum(workers: Array<{ counters: WorkerCounters }>): WorkerCounters {
    return workers.reduce((a, w) => addCounters(a, w.counters), emptyCounters());
  }
}
