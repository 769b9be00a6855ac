/**
 * The supervisor: forks every worker process of a plan, routes handed-off links to their owner,
 * keeps the shared counter and `<data>/status.json`, detects the end of a one-shot crawl,
 * restarts crashed or stalled workers with backoff (parking one that crashes in a loop), guards
 * memory (pause the largest worker, then recycle it), and shuts everything down on a signal.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { CrawlOptionsInput } from '../config/crawl-options.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import { DISK_FULL_EXIT_CODE, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import type { FromWorker, ToWorker, WorkerStats } from './ipc.js';
import { memoryOf, writeMeasuredRss } from './memory-guard.js';

/** One worker process to run. */
export interface WorkerSpec {
  /** e.g. `crawl-0`. */
  id: string;
  /** Source name. */
  type: string;
  /** Worker type name (the processes that share ownership of URLs), e.g. `crawl` or `docs`. */
  group: string;
  /** Position among the processes of its type. */
  index: number;
  count: number;
  partition: 'host' | 'url';
  options: CrawlOptionsInput;
  seeds: string[];
  /** Pause between rounds for continuous sources, ms; undefined = one round (one-shot). */
  intervalMs?: number;
}

/** Supervisor settings. */
export interface SupervisorOptions {
  dataDir: string;
  log: Logger;
  /** Memory limit, bytes (cgroup/RAM or `--memory-limit`). */
  memoryLimitBytes: number;
  /** Share of the limit the whole tree may use. Default 0.8. */
  limitFraction: number;
  /** Time given to workers to stop before SIGKILL, ms. Default 10 s. */
  joinTimeoutMs: number;
  /** status.json rewrite period, ms. Default 2 s (the contract is ≤ 5 s). */
  statusIntervalMs: number;
  /** A worker with queued work and no item for this long is restarted, ms. Default 5 min. */
  stallTimeoutMs: number;
  /** Crashes within `crashWindowMs` after which a worker is parked. Default 5. */
  maxCrashes: number;
  /** Default 10 min. */
  crashWindowMs: number;
  /** First restart backoff, ms; doubles per consecutive crash, capped at 60 s. Default 1 s. */
  restartBackoffMs: number;
  /** Memory sampling period, ms. Default 1 s. */
  memorySampleMs: number;
}

/**
 * Documented defaults of the supervisor's timings: join 10 s, status every 2 s, a worker with
 * work and no progress for 5 min is restarted, 5 crashes in 10 min park a worker, restart
 * backoff from 1 s (doubling, ≤ 60 s), memory sampled every second.
 */
export const SUPERVISOR_DEFAULTS = {
  joinTimeoutMs: 10_000,
  statusIntervalMs: 2000,
  stallTimeoutMs: 300_000,
  maxCrashes: 5,
  crashWindowMs: 600_000,
  restartBackoffMs: 1000,
  memorySampleMs: 1000,
} as const;

/**
 * Options of one of `processes` workers that share a host (`partition: url`): each keeps
 * delay × processes and hostConcurrency / processes (at least 1), so the host still sees the
 * configured rate and concurrency in total.
 * @param options the worker's options as written (changed in place and returned).
 * @param delayMs the configured delay, ms; @param hostConcurrency the configured host concurrency.
 */
export function splitPoliteness(
  options: CrawlOptionsInput,
  processes: number,
  delayMs: number,
  hostConcurrency: number,
): CrawlOptionsInput {
  if (processes > 1) {
    options.delay = `${delayMs * processes}ms`;
    options.hostConcurrency = Math.max(1, Math.floor(hostConcurrency / processes));
  }
  return options;
}

/**
 * A worker not ready this long after its launch (and after the stall timeout) is restarted, ms:
 * it hangs while loading its state. At least a minute: a start may wait for the previous
 * holder of its state dir (15 s) and read a large state.
 */
export const START_TIMEOUT_MIN_MS = 60_000;

type WorkerState = 'starting' | 'running' | 'idle' | 'stopping' | 'restarting' | 'parked' | 'done';

class WorkerHandle {
  child: ChildProcess | null = null;
  state: WorkerState = 'starting';
  stats: WorkerStats | null = null;
  /**
   * Items this worker's files held when this run started (its first process's resumed count): a
   * restarted process counts what its predecessor wrote as resumed, not as written this run.
   */
  itemsBefore: number | null = null;
  restarts = 0;
  crashes: number[] = [];
  consecutiveCrashes = 0;
  /** Links sent to this worker since its current process started. */
  forwarded = 0;
  paused = false;
  pausedAt = 0;
  recycling = false;
  /** The current process was started with resume (it restores state from disk). */
  resumed = false;
  /** `resend` requests sent to this process and not yet answered with `resent`. */
  resendsOwed = 0;
  /** Last sampled PSS of the process, bytes (see memoryOf). */
  rss = 0;
  rateItems = 0;
  rateAt = Date.now();
  pagesPerSec = 0;
  startedAt = Date.now();
  lastError: string | null = null;
  constructor(readonly spec: WorkerSpec) {}
  get pid(): number | null {
    return this.child?.pid ?? null;
  }
}

const WORKER_MAIN = fileURLToPath(new URL('./worker-main.js', import.meta.url));

/** Runs a plan of worker processes until they finish or are stopped. */
export class Supervisor {
  private readonly workers: WorkerHandle[];
  private readonly byType = new Map<string, WorkerHandle[]>();
  private stopping = false;
  private killed = false;
  private timers: NodeJS.Timeout[] = [];
  private resolveDone: ((code: number) => void) | null = null;
  /** Largest worker PSS sampled, bytes (recorded for the next run's plan check). */
  private peakWorkerRss = 0;
  /** Where the disk was found full (a worker's report or our own write): everything stopped. */
  private diskFullAt: string | null = null;
  readonly startedAt = new Date();

  constructor(
    specs: WorkerSpec[],
    private readonly opts: SupervisorOptions,
  ) {
    this.workers = specs.map((s) => new WorkerHandle(s));
    for (const w of this.workers) {
      const list = this.byType.get(w.spec.group) ?? [];
      list[w.spec.index] = w;
      this.byType.set(w.spec.group, list);
    }
  }

  /** Items written by all workers (the shared counter). */
  get totalItems(): number {
    return this.workers.reduce((a, w) => a + (w.stats?.items ?? 0), 0);
  }

  /** Start every worker; resolves with the exit code when all are done or stopped. */
  run(): Promise<number> {
    for (const w of this.workers) this.spawn(w, Boolean(w.spec.options.resume));
    this.timers.push(setInterval(() => void this.writeStatus(), this.opts.statusIntervalMs));
    this.timers.push(setInterval(() => this.guardMemory(), this.opts.memorySampleMs));
    const stallCheck = Math.max(100, Math.min(5000, this.opts.stallTimeoutMs / 2));
    this.timers.push(setInterval(() => this.checkStalls(), stallCheck));
    void this.writeStatus();
    return new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /**
   * {@link run}, with SIGINT/SIGTERM handled: the first signal stops gracefully, a second one
   * kills the workers at once (their state stays consistent).
   */
  async runWithSignals(): Promise<number> {
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) this.stop();
      else this.killAll();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      return await this.run();
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }

  /** Graceful stop: workers finish or abandon in-flight requests, flush, exit; SIGKILL after the join timeout. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.opts.log.info('stopping all workers');
    for (const w of this.workers) {
      if (w.state === 'restarting' || w.state === 'parked') w.state = 'done';
      this.send(w, { t: 'stop' });
      if (w.state !== 'done') w.state = 'stopping';
    }
    const t = setTimeout(() => this.killAll(), this.opts.joinTimeoutMs);
    t.unref();
    this.maybeDone();
  }

  /** Immediate stop (second signal): SIGKILL every worker. Their state stays consistent. */
  killAll(): void {
    this.stopping = true;
    this.killed = true;
    for (const w of this.workers) {
      if (w.child && w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      if (w.state === 'restarting' || w.state === 'parked') w.state = 'done';
    }
  }

  private spawn(w: WorkerHandle, resume: boolean): void {
    const child = fork(WORKER_MAIN, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
      // V8 sizes its heap from the machine's RAM, not from our budget, and keeps garbage
      // around up to that size: cap each worker's old space at its share of the budget.
      execArgv: [...process.execArgv, `--max-old-space-size=${this.heapLimitMb()}`],
    });
    w.child = child;
    w.state = 'starting';
    w.forwarded = 0;
    w.startedAt = Date.now();
    w.paused = false;
    w.recycling = false;
    w.resumed = resume;
    w.resendsOwed = 0;
    child.on('message', (m: FromWorker) => this.onMessage(w, m));
    child.on('exit', (code, signal) => this.onExit(w, child, code, signal));
    child.on('error', (e) => {
      // EPIPE: a message to a process that is exiting; its exit is handled on its own.
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE') {
        this.opts.log.error({ child: w.spec.id, err: e.message }, 'worker process error');
      }
    });
    const init: ToWorker = {
      t: 'init',
      id: w.spec.id,
      type: w.spec.type,
      index: w.spec.index,
      count: w.spec.count,
      partition: w.spec.partition,
      options: { ...w.spec.options, resume, quiet: true },
      seeds: w.spec.seeds,
    };
    child.send(init);
  }

  /** Old-space cap per worker, MB: its share of the memory budget, at least 256 MB. */
  private heapLimitMb(): number {
    const budget = this.opts.memoryLimitBytes * this.opts.limitFraction;
    return Math.max(256, Math.floor(budget / Math.max(1, this.workers.length) / 1048576));
  }

  private send(w: WorkerHandle, msg: ToWorker): boolean {
    const c = w.child;
    if (!c?.connected) return false;
    try {
      c.send(msg);
      return true;
    } catch {
      return false;
    }
  }

  private onMessage(w: WorkerHandle, m: FromWorker): void {
    switch (m.t) {
      case 'ready': {
        if (w.state === 'starting') w.state = 'running';
        if (this.stopping) this.send(w, { t: 'stop' });
        // A restarted worker may lack links handed to it before it died: its siblings send
        // again, from their handoff logs, what they handed to it. At a whole-crawl --resume this
        // is not asked: every worker resends its own logs as it starts (worker-main), which
        // covers the same links, so asking too would send each of them twice.
        if (w.resumed && w.restarts > 0) {
          for (const s of this.byType.get(w.spec.group) ?? []) {
            if (s !== w && this.send(s, { t: 'resend', owner: w.spec.index })) s.resendsOwed++;
          }
        }
        break;
      }
      case 'handoff': {
        const target = this.byType.get(w.spec.group)?.[m.to];
        // A target that is down gets these again from the sender's handoff log when it restarts.
        // One still starting gets them now (it queues messages until its state is loaded): a
        // fresh start has no resend, so dropping them here would lose them.
        if (
          target &&
          (target.state === 'starting' || target.state === 'running' || target.state === 'idle') &&
          this.send(target, { t: 'links', links: m.links })
        ) {
          target.forwarded += m.links.length;
          if (target.state === 'idle') target.state = 'running';
        }
        break;
      }
      case 'stats': {
        const { t: _t, ...stats } = m;
        const now = Date.now();
        if (now - w.rateAt >= 1000 && w.stats) {
          w.pagesPerSec = ((stats.items - w.rateItems) * 1000) / (now - w.rateAt);
          w.rateItems = stats.items;
          w.rateAt = now;
        } else if (!w.stats) {
          w.rateItems = stats.items;
          w.rateAt = now;
        }
        w.stats = stats;
        w.itemsBefore ??= stats.items - stats.itemsThisRun;
        if (w.state === 'running' || w.state === 'idle') w.state = stats.idle ? 'idle' : 'running';
        this.maybeFinish();
        break;
      }
      case 'resent':
        w.resendsOwed = Math.max(0, w.resendsOwed - 1);
        this.maybeFinish();
        break;
      case 'done':
        // The exit that follows says the rest.
        break;
      case 'diskFull':
        this.onDiskFull(m.path);
        break;
      case 'fatal':
        w.lastError = m.message;
        this.opts.log.error({ child: w.spec.id, message: m.message }, 'worker failed');
        break;
    }
  }

  /** One-shot end: every live worker idle, and each has received every link sent to it. */
  private maybeFinish(): void {
    // Links being sent again to a restarted worker may not have reached it yet.
    if (this.stopping || this.workers.some((w) => w.resendsOwed > 0)) return;
    const live = this.workers.filter((w) => w.state !== 'parked' && w.state !== 'done');
    if (live.length === 0) return;
    for (const w of live) {
      if (w.state !== 'idle' || w.stats === null || w.stats.received !== w.forwarded) return;
      if (w.spec.intervalMs !== undefined) return;
    }
    for (const w of live) this.send(w, { t: 'finish' });
  }

  private onExit(
    w: WorkerHandle,
    child: ChildProcess,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    if (w.child !== child) return;
    w.child = null;
    // A worker stopped by a full disk is not a crash (a restart would only fail again).
    if (code === DISK_FULL_EXIT_CODE) this.onDiskFull(null);
    w.resendsOwed = 0; // a dead process answers nothing; when it restarts it resends its own logs
    w.rss = 0;
    const clean = code === 0 && signal === null;
    if (this.stopping || (clean && !w.recycling)) {
      w.state = 'done';
      this.opts.log.info({ child: w.spec.id, code, signal }, 'worker exited');
      this.maybeDone();
      return;
    }
    if (w.recycling && clean) {
      // Planned restart by the memory guard: not a crash.
      this.opts.log.warn({ child: w.spec.id }, 'worker recycled by the memory guard');
      w.restarts++;
      this.spawn(w, true);
      return;
    }
    const now = Date.now();
    w.crashes = w.crashes.filter((t) => now - t < this.opts.crashWindowMs);
    w.crashes.push(now);
    w.consecutiveCrashes++;
    w.lastError = w.lastError ?? `exit code ${code}, signal ${signal}`;
    if (w.crashes.length >= this.opts.maxCrashes) {
      w.state = 'parked';
      this.opts.log.error(
        { child: w.spec.id, crashes: w.crashes.length },
        'worker crashes in a loop: parked',
      );
      process.stderr.write(
        `collector: worker ${w.spec.id} crashed ${w.crashes.length} times; parked (see logs/${w.spec.id}.log)\n`,
      );
      this.maybeFinish();
      this.maybeDone();
      return;
    }
    const delay = Math.min(60_000, this.opts.restartBackoffMs * 2 ** (w.consecutiveCrashes - 1));
    w.state = 'restarting';
    this.opts.log.warn({ child: w.spec.id, code, signal, delay }, 'worker crashed; restarting');
    const t = setTimeout(() => {
      if (this.stopping || w.state !== 'restarting') return;
      w.restarts++;
      this.spawn(w, true);
    }, delay);
    t.unref();
    this.timers.push(t);
  }

  private maybeDone(): void {
    if (!this.workers.every((w) => w.state === 'done' || w.state === 'parked')) return;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const parked = this.workers.some((w) => w.state === 'parked');
    if (this.peakWorkerRss > 0) writeMeasuredRss(this.opts.dataDir, this.peakWorkerRss);
    const resolve = this.resolveDone;
    this.resolveDone = null;
    const code = this.diskFullAt !== null ? DISK_FULL_EXIT_CODE : parked && !this.stopping ? 1 : 0;
    void this.writeStatus().then(() => resolve?.(code));
  }

  /** The disk is full (at `at`, when known): stop every worker; the run ends with DISK_FULL_EXIT_CODE. */
  private onDiskFull(at: string | null): void {
    if (this.diskFullAt === null || (at !== null && this.diskFullAt === this.opts.dataDir)) {
      this.diskFullAt = at ?? this.opts.dataDir;
      this.opts.log.error({ at: this.diskFullAt }, 'disk full: stopping');
    }
    this.stop();
  }

  /** Where a full disk stopped the run, or null. */
  get diskFull(): string | null {
    return this.diskFullAt;
  }

  /** Restart a worker that has work but wrote no item for `stallTimeoutMs`. */
  private checkStalls(): void {
    if (this.stopping) return;
    const now = Date.now();
    for (const w of this.workers) {
      const s = w.stats;
      if (
        w.state === 'starting' &&
        now - w.startedAt > Math.max(this.opts.stallTimeoutMs, START_TIMEOUT_MIN_MS)
      ) {
        // Hung while loading its state (or stopped): never ready, never reporting.
        this.opts.log.warn({ child: w.spec.id }, 'not started in time; restarting');
        w.lastError = `not started after ${Math.round((now - w.startedAt) / 1000)} s`;
        w.child?.kill('SIGKILL');
        continue;
      }
      if (w.state !== 'running' || s === null || w.paused) continue;
      const since = Math.max(s.lastProgressAt, w.startedAt);
      if (s.queued + s.inFlight > 0 && now - since > this.opts.stallTimeoutMs) {
        this.opts.log.warn(
          { child: w.spec.id, idleMs: now - since },
          'no progress with work pending; restarting',
        );
        w.lastError = `no progress for ${Math.round((now - since) / 1000)} s with work pending`;
        w.child?.kill('SIGKILL');
      }
    }
  }

  /**
   * Keep the tree under `limitFraction × limit`: above it, pause the largest worker; if still
   * above after 3 s (or above 95% of the limit at once), recycle it gracefully. Resume paused
   * workers once below 90% of the budget.
   */
  private guardMemory(): void {
    const budget = this.opts.memoryLimitBytes * this.opts.limitFraction;
    // PSS, not RSS: summing RSS would count the node binary shared by all processes once each.
    let total = memoryOf(process.pid);
    for (const w of this.workers) {
      w.rss = w.child?.pid ? memoryOf(w.child.pid) : 0;
      total += w.rss;
      if (w.rss > this.peakWorkerRss && !w.recycling) this.peakWorkerRss = w.rss;
    }
    const now = Date.now();
    if (total > budget && !this.stopping) {
      const live = this.workers.filter(
        (w) => w.child && !w.recycling && (w.state === 'running' || w.state === 'idle'),
      );
      const largest = live.sort((a, b) => b.rss - a.rss)[0];
      if (!largest) return;
      if (!largest.paused) {
        largest.paused = true;
        largest.pausedAt = now;
        this.send(largest, { t: 'pause', paused: true });
        this.opts.log.warn(
          { child: largest.spec.id, totalMB: total >> 20, budgetMB: budget >> 20 },
          'memory over budget: paused',
        );
      }
      if (now - largest.pausedAt >= 3000 || total > this.opts.memoryLimitBytes * 0.95) {
        largest.recycling = true;
        this.send(largest, { t: 'stop' });
        this.opts.log.warn(
          { child: largest.spec.id, pssMB: largest.rss >> 20 },
          'memory over budget: recycling',
        );
      }
    } else if (total < budget * 0.9) {
      for (const w of this.workers) {
        if (w.paused && !w.recycling) {
          w.paused = false;
          this.send(w, { t: 'pause', paused: false });
        }
      }
    }
  }

  /** The status document (also written to `<data>/status.json`). */
  status(): Record<string, unknown> {
    const workers = this.workers.map((w) => ({
      id: w.spec.id,
      type: w.spec.type,
      pid: w.pid,
      state:
        w.paused && w.state === 'running'
          ? 'paused'
          : w.state === 'done' && this.stopping
            ? 'stopped'
            : w.state,
      items: w.stats?.items ?? 0,
      itemsThisRun: w.stats ? w.stats.items - (w.itemsBefore ?? 0) : 0,
      pagesPerSec: Math.round(w.pagesPerSec * 10) / 10,
      errors: w.stats?.errors ?? 0,
      queue: w.stats?.queued ?? 0,
      inFlight: w.stats?.inFlight ?? 0,
      rssMB: Math.round((w.stats?.rss ?? 0) / 1048576),
      pssMB: Math.round(w.rss / 1048576),
      lastProgressAt: w.stats ? new Date(w.stats.lastProgressAt).toISOString() : null,
      restarts: w.restarts,
      lastError: w.lastError,
    }));
    const sum = (k: 'items' | 'itemsThisRun' | 'errors' | 'queue' | 'rssMB' | 'pssMB' | 'pagesPerSec') =>
      workers.reduce((a, w) => a + (w[k] as number), 0);
    return {
      supervisorPid: process.pid,
      startedAt: this.startedAt.toISOString(),
      updatedAt: new Date().toISOString(),
      state: this.workers.every((w) => w.state === 'done' || w.state === 'parked')
        ? this.stopping
          ? 'stopped'
          : 'finished'
        : this.stopping
          ? 'stopping'
          : 'running',
      memoryLimitMB: Math.round(this.opts.memoryLimitBytes / 1048576),
      workers,
      totals: {
        items: sum('items'),
        itemsThisRun: sum('itemsThisRun'),
        errors: sum('errors'),
        queue: sum('queue'),
        pagesPerSec: Math.round(sum('pagesPerSec') * 10) / 10,
        rssMB: sum('rssMB') + Math.round(process.memoryUsage.rss() / 1048576),
        // What the tree really occupies (shared code counted once): what the memory guard watches.
        pssMB: sum('pssMB') + Math.round(memoryOf(process.pid) / 1048576),
        workers: workers.length,
        parked: workers.filter((w) => w.state === 'parked').length,
        skipped: this.skippedTotals(),
      },
    };
  }

  /** Links not followed, by reason, summed over the workers' last stats. */
  private skippedTotals(): Record<string, number> {
    const total: Record<string, number> = {};
    for (const w of this.workers) {
      for (const [reason, n] of Object.entries(w.stats?.skipped ?? {}))
        total[reason] = (total[reason] ?? 0) + n;
    }
    return total;
  }

  private async writeStatus(): Promise<void> {
    try {
      await writeFileAtomic(
        path.join(this.opts.dataDir, 'status.json'),
        `${JSON.stringify(this.status(), null, 2)}\n`,
      );
    } catch (e) {
      if (isDiskFull(e)) this.onDiskFull(diskFullPath(e, this.opts.dataDir));
      else this.opts.log.error({ err: (e as Error).message }, 'writing status.json failed');
    }
  }

  /** Whether the workers were killed rather than stopped (second signal). */
  get wasKilled(): boolean {
    return this.killed;
  }
}
