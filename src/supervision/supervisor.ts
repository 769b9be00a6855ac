/**
 * The supervisor: runs a plan of worker processes until they finish or are stopped. This file
 * orchestrates; each job is a module of its own: process lifecycle (`worker-process.ts`), handoff
 * routing, end-of-crawl accounting (`crawl-end.ts`), the memory guard's policy
 * (`memory-pressure.ts`), the stall watch, status.json and stop signals.
 */

import path from 'node:path';
import type { Logger } from 'pino';
import { faultExitCode, type SharedCrawlFaultKind } from '../backends/redis/redis-faults.js';
import type { SupervisorSettings } from '../config/config-file.js';
import { FAILED_SEEDS_KEPT, type FailedSeed } from '../engine/crawl-stats.js';
import { DISK_FULL_EXIT_CODE } from '../sinks/disk-full.js';
import { SOURCE_STOPPED_EXIT_CODE, sourceStoppedLine } from '../sources/source-stop.js';
import { completedCrawl, isOver } from './crawl-end.js';
import { HandoffRouter } from './handoff-routing.js';
import type { FromWorker } from './ipc.js';
import { type LaunchRecord, launchRecord } from './launch-record.js';
import { memoryOf, treeMemoryOf, writeMeasuredRss } from './memory-guard.js';
import { decideMemory } from './memory-pressure.js';
import { RateBudgetDesk } from './rate-budget-desk.js';
import { onStopSignals } from './signals.js';
import { hungStartingFor, stallCheckPeriod, stalledFor } from './stall-watch.js';
import { StatusFields } from './status-fields.js';
import { type StatusDocument, statusDocument, writeStatusFile } from './status-file.js';
import { afterExit, type CrashPolicy, WorkerProcess } from './worker-process.js';
import type { WorkerSpec } from './worker-spec.js';

export type { WorkerSpec } from './worker-spec.js';

/** Supervisor settings. */
export interface SupervisorOptions extends CrashPolicy {
  dataDir: string;
  /** The worker process's entry module (a file path), forked once per worker. */
  workerEntry: string;
  log: Logger;
  /** Memory limit, bytes (cgroup/RAM or `--memory-limit`). */
  memoryLimitBytes: number;
  /** Share of the limit the whole tree may use (`memory.limitFraction`). */
  limitFraction: number;
  /** Time given to workers to stop before SIGKILL, ms. */
  joinTimeoutMs: number;
  /** A worker with queued work and no item for this long is restarted, ms. */
  stallTimeoutMs: number;
  /** status.json rewrite period, ms. */
  statusIntervalMs: number;
  /** Memory sampling period, ms. */
  memorySampleMs: number;
  /** How this collector was started (status.json, for the watchdog). Default: a `run` from this process. */
  launch?: LaunchRecord;
  /** Told one line when a worker is parked for crashing in a loop (notifications). */
  onParked?: (message: string) => void;
  /** Told a worker's warning line (a host that does not answer), with the worker's spec. */
  onWarning?: (line: string, worker: WorkerSpec) => void;
}

/** status.json is rewritten every this often, ms (the contract is ≤ 5 s). */
export const STATUS_INTERVAL_MS = 2000;
/** Crashes are counted within this window to park a worker, ms. */
export const CRASH_WINDOW_MS = 600_000;
/** Every process's memory is sampled this often, ms. */
export const MEMORY_SAMPLE_MS = 1000;

/**
 * The supervisor's timings from the user's settings (the `supervisor:` block of a config, whose
 * schema holds their defaults) and the fixed ones above.
 */
export function supervisorTimings(
  s: SupervisorSettings,
): Pick<
  SupervisorOptions,
  | 'joinTimeoutMs'
  | 'stallTimeoutMs'
  | 'restartBackoffMs'
  | 'maxCrashes'
  | 'crashWindowMs'
  | 'statusIntervalMs'
  | 'memorySampleMs'
> {
  return {
    joinTimeoutMs: s.joinTimeout,
    stallTimeoutMs: s.stallTimeout,
    restartBackoffMs: s.restartBackoff,
    maxCrashes: s.maxCrashes,
    crashWindowMs: CRASH_WINDOW_MS,
    statusIntervalMs: STATUS_INTERVAL_MS,
    memorySampleMs: MEMORY_SAMPLE_MS,
  };
}

/** Smallest old-space cap of a worker, MB. */
const MIN_WORKER_HEAP_MB = 256;

/** Runs a plan of worker processes until they finish or are stopped. */
export class Supervisor {
  private readonly workers: WorkerProcess[];
  private readonly router: HandoffRouter;
  private stopping = false;
  private killed = false;
  private timers: NodeJS.Timeout[] = [];
  private resolveExit: ((code: number) => void) | null = null;
  /** Largest worker PSS sampled, bytes (recorded for the next run's plan check). */
  private peakWorkerRss = 0;
  /** Where the disk was found full (a worker's report or our own write): everything stopped. */
  private diskFullAt: string | null = null;
  /** Worker types their source stopped (a credential refused), with why: said once each. */
  private readonly sourceStops = new Map<string, string>();
  private sharedFaultSeen: { kind: SharedCrawlFaultKind; message: string } | null = null;
  readonly startedAt = new Date();
  /** Ops fields of status.json: identities, launch record, carried counters (status-fields.ts). */
  private readonly fields: StatusFields;
  private readonly budgets = new RateBudgetDesk();

  constructor(
    specs: WorkerSpec[],
    private readonly opts: SupervisorOptions,
  ) {
    this.workers = specs.map((s) => new WorkerProcess(s));
    this.router = new HandoffRouter(this.workers);
    const { statusIntervalMs, restartBackoffMs, joinTimeoutMs, stallTimeoutMs } = opts;
    const expected: Record<string, number> = {};
    for (const s of specs) expected[s.group] = s.count;
    this.fields = new StatusFields(
      'supervisor',
      opts.launch ?? launchRecord('run', path.resolve(opts.dataDir)),
      { statusIntervalMs, restartBackoffMs, joinTimeoutMs, stallTimeoutMs },
      expected,
    );
  }

  /** Items written by all workers (the shared counter). */
  get totalItems(): number {
    return this.workers.reduce((a, w) => a + (w.stats?.items ?? 0), 0);
  }

  /** Where a full disk stopped the run, or null. */
  get diskFull(): string | null {
    return this.diskFullAt;
  }

  /** The lines of the worker types their source stopped (`worker type t stopped: …`), in order. */
  get sourceStopped(): string[] {
    return [...this.sourceStops].map(([type, message]) => sourceStoppedLine(type, message));
  }

  /** The fault of a shared crawl that stopped a worker (and so the run), if one did. */
  get sharedFault(): { kind: SharedCrawlFaultKind; message: string } | null {
    return this.sharedFaultSeen;
  }

  /** Whether the workers were killed rather than stopped (second signal). */
  get wasKilled(): boolean {
    return this.killed;
  }

  /** Whether the run was stopped (a signal), rather than over by itself. */
  get wasStopped(): boolean {
    return this.stopping;
  }

  /** The first seeds that failed, over all workers' last reports. */
  failedSeeds(): FailedSeed[] {
    return this.workers.flatMap((w) => w.stats?.failedSeeds ?? []).slice(0, FAILED_SEEDS_KEPT);
  }

  /** Start every worker; resolves with the exit code when all are done or stopped. */
  run(): Promise<number> {
    for (const w of this.workers) this.spawn(w, w.spec.options.resume);
    this.timers.push(setInterval(() => void this.writeStatus(), this.opts.statusIntervalMs));
    this.timers.push(setInterval(() => this.guardMemory(), this.opts.memorySampleMs));
    this.timers.push(setInterval(() => this.checkStalls(), stallCheckPeriod(this.opts.stallTimeoutMs)));
    void this.writeStatus();
    return new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }

  /**
   * {@link run}, with SIGINT/SIGTERM handled: the first signal stops gracefully, a second one
   * kills the workers at once (their state stays consistent).
   */
  async runWithSignals(): Promise<number> {
    const off = onStopSignals(
      () => this.stop(),
      () => this.killAll(),
    );
    try {
      return await this.run();
    } finally {
      off();
    }
  }

  /** Graceful stop: workers finish or abandon in-flight requests, flush, exit; SIGKILL after the join timeout. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.opts.log.info('stopping all workers');
    for (const w of this.workers) {
      if (w.state === 'restarting' || w.state === 'parked') w.state = 'done';
      w.send({ t: 'stop' });
      if (w.state !== 'done') w.state = 'stopping';
    }
    const t = setTimeout(() => this.killAll(), this.opts.joinTimeoutMs);
    t.unref();
    this.resolveIfAllOver();
  }

  /** Immediate stop (second signal): SIGKILL every worker. Their state stays consistent. */
  killAll(): void {
    this.stopping = true;
    this.killed = true;
    for (const w of this.workers) {
      w.kill();
      if (w.state === 'restarting' || w.state === 'parked') w.state = 'done';
    }
  }

  /** The status document (also written to `<data>/status.json`). */
  status(): StatusDocument {
    const doc = statusDocument(this.workers, {
      startedAt: this.startedAt,
      stopping: this.stopping,
      memoryLimitBytes: this.opts.memoryLimitBytes,
      diskFull: this.diskFullAt,
    });
    const procs = this.workers.map((w) => ({ id: w.spec.id, group: w.spec.group, pid: w.pid }));
    return this.budgets.extend(this.fields.extend(doc, procs));
  }

  private spawn(w: WorkerProcess, resume: boolean): void {
    w.start(this.opts.workerEntry, this.heapLimitMb(), resume, {
      message: (m) => this.onMessage(w, m as FromWorker),
      exit: (code, signal) => this.onExit(w, code, signal),
      error: (e) => {
        // EPIPE: a message to a process that is exiting; its exit is handled on its own.
        if ((e as NodeJS.ErrnoException).code !== 'EPIPE') {
          this.opts.log.error({ child: w.spec.id, err: e.message }, 'worker process error');
        }
      },
    });
  }

  /** Old-space cap per worker, MB: its share of the memory budget, at least 256 MB. */
  private heapLimitMb(): number {
    const budget = this.opts.memoryLimitBytes * this.opts.limitFraction;
    return Math.max(MIN_WORKER_HEAP_MB, Math.floor(budget / Math.max(1, this.workers.length) / 1048576));
  }

  private onMessage(w: WorkerProcess, m: FromWorker): void {
    switch (m.t) {
      case 'budget':
        this.budgets.answer(w, m, this.opts);
        break;
      case 'ready':
        if (w.state === 'starting') w.state = 'running';
        if (this.stopping) w.send({ t: 'stop' });
        // A whole-crawl --resume is not asked: every worker resends its own logs as it starts.
        if (w.resumed && w.restarts > 0) this.router.askResend(w);
        break;
      case 'handoff':
        // A target that is down gets these again from the sender's handoff log when it restarts.
        this.router.route(w, m.to, m.links);
        break;
      case 'stats': {
        const { t: _t, ...stats } = m;
        w.recordStats(stats);
        this.fields.report(w.spec.id, w.pid, stats.counters);
        this.endIfComplete();
        break;
      }
      case 'resent':
        w.resendsOwed = Math.max(0, w.resendsOwed - 1);
        this.endIfComplete();
        break;
      case 'warning':
        this.opts.onWarning?.(m.line, w.spec);
        break;
      case 'exiting':
        // The exit that follows says the rest.
        break;
      case 'diskFull':
        this.onDiskFull(m.path);
        break;
      case 'sourceStopped':
        this.onSourceStopped(w, m.message);
        break;
      case 'sharedFault':
        w.lastError = m.message;
        this.sharedFaultSeen ??= { kind: m.kind, message: m.message };
        this.opts.log.error(
          { child: w.spec.id, kind: m.kind, message: m.message },
          'shared crawl fault: stopping',
        );
        this.stop();
        break;
      case 'fatal':
        w.lastError = m.message;
        this.opts.log.error({ child: w.spec.id, message: m.message }, 'worker failed');
        break;
    }
  }

  /** A one-shot crawl is complete (see crawl-end.ts): tell every live worker to end. */
  private endIfComplete(): void {
    if (this.stopping) return;
    for (const w of completedCrawl(this.workers) ?? []) w.send({ t: 'complete' });
  }

  private onExit(w: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const { log } = this.opts;
    // A worker stopped by a full disk is not a crash (a restart would only fail again).
    if (code === DISK_FULL_EXIT_CODE) this.onDiskFull(null);
    // Nor one its source stopped (a credential refused): a restart would send it again.
    if (code === SOURCE_STOPPED_EXIT_CODE && signal === null) {
      this.onSourceStopped(w, w.lastError ?? 'stopped by its source');
      w.state = 'done';
      log.info({ child: w.spec.id, code }, 'worker stopped by its source');
      this.endIfComplete();
      this.resolveIfAllOver();
      return;
    }
    const clean = code === 0 && signal === null;
    const crashed = !this.stopping && !clean;
    const crashes = crashed ? w.recordCrash(Date.now(), this.opts.crashWindowMs) : 0;
    if (crashed) w.lastError = w.lastError ?? `exit code ${code}, signal ${signal}`;
    const next = afterExit(clean, w.recycling, this.stopping, crashes, w.consecutiveCrashes, this.opts);
    switch (next.action) {
      case 'done':
        w.state = 'done';
        log.info({ child: w.spec.id, code, signal }, 'worker exited');
        this.resolveIfAllOver();
        return;
      case 'respawn':
        // Planned restart by the memory guard: not a crash.
        log.warn({ child: w.spec.id }, 'worker recycled by the memory guard');
        w.restarts++;
        this.spawn(w, true);
        return;
      case 'park':
        w.state = 'parked';
        log.error({ child: w.spec.id, crashes }, 'worker crashes in a loop: parked');
        {
          const line = `collector: worker ${w.spec.id} crashed ${crashes} times; parked (see logs/${w.spec.id}.log)`;
          process.stderr.write(`${line}\n`);
          this.opts.onParked?.(`${line}; last error: ${w.lastError}`);
        }
        this.endIfComplete();
        this.resolveIfAllOver();
        return;
      case 'restart': {
        w.state = 'restarting';
        log.warn({ child: w.spec.id, code, signal, delay: next.delayMs }, 'worker crashed; restarting');
        const t = setTimeout(() => {
          if (this.stopping || w.state !== 'restarting') return;
          w.restarts++;
          this.spawn(w, true);
        }, next.delayMs);
        t.unref();
        this.timers.push(t);
      }
    }
  }

  /** Every worker done or parked: stop the timers, record the peak memory, resolve `run()`. */
  private resolveIfAllOver(): void {
    if (!this.workers.every(isOver)) return;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const parked = this.workers.some((w) => w.state === 'parked');
    if (this.peakWorkerRss > 0) writeMeasuredRss(this.opts.dataDir, this.peakWorkerRss);
    const resolve = this.resolveExit;
    this.resolveExit = null;
    const fault = this.sharedFaultSeen;
    const code =
      this.diskFullAt !== null
        ? DISK_FULL_EXIT_CODE
        : fault !== null
          ? faultExitCode(fault.kind)
          : this.sourceStops.size > 0 && !this.stopping
            ? SOURCE_STOPPED_EXIT_CODE
            : parked && !this.stopping
              ? 1
              : 0;
    void this.writeStatus().then(() => resolve?.(code));
  }

  /**
   * Worker `w`'s source cannot go on (`message`, as its item says): said once per worker type (log
   * and stderr), and the type's other processes are stopped too — they would send the same
   * refused credential. Nothing of the type is restarted; other worker types go on.
   */
  private onSourceStopped(w: WorkerProcess, message: string): void {
    w.lastError = message;
    const type = w.spec.group;
    if (this.sourceStops.has(type)) return;
    this.sourceStops.set(type, message);
    const line = sourceStoppedLine(type, message);
    this.opts.log.error({ type, message }, 'worker type stopped by its source');
    process.stderr.write(`collector: ${line}\n`);
    for (const other of this.workers) {
      if (other === w || other.spec.group !== type) continue;
      // One waiting for its restart is not restarted; a live one stops and exits clean (done).
      if (other.state === 'restarting' || other.state === 'parked') other.state = 'done';
      else if (other.state !== 'done') other.send({ t: 'stop' });
    }
  }

  /** The disk is full (at `at`, when known): stop every worker; the run ends with DISK_FULL_EXIT_CODE. */
  private onDiskFull(at: string | null): void {
    // A worker's exit code names no place: a place reported later replaces the data dir.
    if (this.diskFullAt === null || (at !== null && this.diskFullAt === this.opts.dataDir)) {
      this.diskFullAt = at ?? this.opts.dataDir;
      this.opts.log.error({ at: this.diskFullAt }, 'disk full: stopping');
    }
    this.stop();
  }

  /**
   * Restart a worker that has work but wrote no item for `stallTimeoutMs`, or that hangs while
   * starting (see stall-watch.ts).
   */
  private checkStalls(): void {
    if (this.stopping) return;
    const now = Date.now();
    for (const w of this.workers) {
      const startingMs = hungStartingFor(w, now, this.opts.stallTimeoutMs);
      if (startingMs !== null) {
        this.opts.log.warn({ child: w.spec.id }, 'not started in time; restarting');
        w.lastError = `not started after ${Math.round(startingMs / 1000)} s`;
        w.child?.kill('SIGKILL');
        continue;
      }
      const idleMs = stalledFor(w, now, this.opts.stallTimeoutMs);
      if (idleMs === null) continue;
      this.opts.log.warn({ child: w.spec.id, idleMs }, 'no progress with work pending; restarting');
      w.lastError = `no progress for ${Math.round(idleMs / 1000)} s with work pending`;
      w.child?.kill('SIGKILL');
    }
  }

  /** Sample every process's memory and apply the memory guard's decision (memory-pressure.ts). */
  private guardMemory(): void {
    const { log, memoryLimitBytes } = this.opts;
    const budget = memoryLimitBytes * this.opts.limitFraction;
    // PSS, not RSS: summing RSS would count the node binary shared by all processes once each.
    let total = memoryOf(process.pid);
    for (const w of this.workers) {
      w.rss = w.child?.pid ? memoryOf(w.child.pid) : 0;
      // Its browser (--render) counts too, apart: the measured worker PSS the plan uses is the worker's own.
      const browser = w.child?.pid ? w.stats?.browserPid : null;
      w.browserMemory = browser ? treeMemoryOf(browser) : 0;
      total += w.rss + w.browserMemory;
      if (w.rss > this.peakWorkerRss && !w.recycling) this.peakWorkerRss = w.rss;
    }
    if (this.stopping && total > budget) return;
    const now = Date.now();
    const guarded = this.workers.map((w) => ({
      w,
      rss: w.rss + w.browserMemory,
      live: w.child !== null && !w.recycling && (w.state === 'running' || w.state === 'idle'),
      paused: w.paused,
      pausedAt: w.pausedAt,
      recycling: w.recycling,
    }));
    const d = decideMemory(guarded, total, budget, memoryLimitBytes, now);
    if (d.pause) {
      const w = d.pause.w;
      w.paused = true;
      w.pausedAt = now;
      w.send({ t: 'pause', paused: true });
      log.warn(
        { child: w.spec.id, totalMB: total >> 20, budgetMB: budget >> 20 },
        'memory over budget: paused',
      );
    }
    if (d.recycle) {
      const w = d.recycle.w;
      w.recycling = true;
      w.send({ t: 'stop' });
      log.warn({ child: w.spec.id, pssMB: w.rss >> 20 }, 'memory over budget: recycling');
    }
    for (const { w } of d.resume) {
      w.paused = false;
      w.send({ t: 'pause', paused: false });
    }
  }

  private writeStatus(): Promise<void> {
    return writeStatusFile(this.opts.dataDir, this.status(), this.opts.log, (at) => this.onDiskFull(at));
  }
}
