/**
 * The life of one worker process under the supervisor: forked with its V8 heap capped at its share
 * of the memory budget, sent its init, restarted after a crash with exponential backoff, parked
 * when it crashes in a loop. Also its last counters and rate, as reported.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { ToWorker, WorkerStats } from './ipc.js';
import { withProcessV8Flags } from './v8-flags.js';
import type { WorkerSpec } from './worker-spec.js';

/** Longest wait before restarting a crashed worker, ms. */
export const MAX_RESTART_BACKOFF_MS = 60_000;

/** Where a worker is in its life. `done` (also in status.json): it exited and will not run again. */
export type WorkerState = 'starting' | 'running' | 'idle' | 'stopping' | 'restarting' | 'parked' | 'done';

/** The crash policy's settings. */
export interface CrashPolicy {
  /** Crashes within `crashWindowMs` after which a worker is parked. */
  maxCrashes: number;
  crashWindowMs: number;
  /** First restart backoff, ms; doubles per consecutive crash, capped at 60 s. */
  restartBackoffMs: number;
}

/** What to do once a worker's process has exited. */
export type AfterExit =
  /** Its work is over (clean exit, or the collector is stopping). */
  | { action: 'done' }
  /** The memory guard recycled it: start it again now, from its state. */
  | { action: 'respawn' }
  /** It crashes in a loop: leave it parked, the others go on. */
  | { action: 'park' }
  /** It crashed: start it again after `delayMs`. */
  | { action: 'restart'; delayMs: number };

/**
 * The decision after an exit.
 * @param crashesInWindow crashes within the window, this one included (crashes only).
 * @param consecutive crashes in a row, this one included (crashes only).
 */
export function afterExit(
  clean: boolean,
  recycling: boolean,
  stopping: boolean,
  crashesInWindow: number,
  consecutive: number,
  policy: CrashPolicy,
): AfterExit {
  if (stopping || (clean && !recycling)) return { action: 'done' };
  if (recycling && clean) return { action: 'respawn' };
  if (crashesInWindow >= policy.maxCrashes) return { action: 'park' };
  return {
    action: 'restart',
    delayMs: Math.min(MAX_RESTART_BACKOFF_MS, policy.restartBackoffMs * 2 ** (consecutive - 1)),
  };
}

/** What a worker process tells the supervisor. */
export interface WorkerEvents {
  message(m: unknown): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  error(e: Error): void;
}

/** One worker process, across its restarts. */
export class WorkerProcess {
  child: ChildProcess | null = null;
  state: WorkerState = 'starting';
  /** Its last reported counters. */
  stats: WorkerStats | null = null;
  /**
   * Items its files held when this run started (its first process's resumed count): a restarted
   * process counts what its predecessor wrote as resumed, not as written this run.
   */
  itemsBefore: number | null = null;
  restarts = 0;
  /** Epoch ms of its crashes within the crash window. */
  crashes: number[] = [];
  consecutiveCrashes = 0;
  /** Links sent to this worker since its current process started. */
  forwarded = 0;
  /** The memory guard paused it (no new URLs), since `pausedAt` (epoch ms). */
  paused = false;
  pausedAt = 0;
  /** The memory guard asked it to stop, to start it again from its state. */
  recycling = false;
  /** The current process was started with resume (it restores state from disk). */
  resumed = false;
  /** `resend` requests sent to this process and not yet answered with `resent`. */
  resendsOwed = 0;
  /** Last sampled PSS of the process, bytes (see memoryOf). */
  rss = 0;
  /** Last sampled PSS of its headless browser's processes (`--render`), bytes; 0 when none runs. */
  browserMemory = 0;
  pagesPerSec = 0;
  startedAt = Date.now();
  lastError: string | null = null;
  private rateItems = 0;
  private rateAt = Date.now();

  constructor(readonly spec: WorkerSpec) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Fork the worker's process and send it its init.
   * @param entry the worker entry module; @param heapLimitMb its V8 old-space cap.
   * @param resume whether it restores its state from disk.
   */
  start(entry: string, heapLimitMb: number, resume: boolean, on: WorkerEvents): void {
    // `--data` names the data dir in the worker's command line: the watchdog's proof it is ours.
    const child = fork(entry, ['--data', path.resolve(this.spec.options.out)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
      // V8 sizes its heap from the machine's RAM, not from our budget, and keeps garbage
      // around up to that size: cap each worker's old space at its share of the budget.
      execArgv: [...withProcessV8Flags(process.execArgv), `--max-old-space-size=${heapLimitMb}`],
    });
    this.child = child;
    this.state = 'starting';
    this.forwarded = 0;
    this.startedAt = Date.now();
    this.paused = false;
    this.recycling = false;
    this.resumed = resume;
    this.resendsOwed = 0;
    child.on('message', (m) => on.message(m));
    child.on('exit', (code, signal) => {
      // An exit of a process already replaced says nothing about the current one.
      if (this.child !== child) return;
      this.child = null;
      this.resendsOwed = 0; // a dead process answers nothing; when it restarts it resends its own logs
      this.rss = 0;
      on.exit(code, signal);
    });
    child.on('error', (e) => on.error(e));
    const s = this.spec;
    child.send({
      t: 'init',
      id: s.id,
      type: s.type,
      index: s.index,
      count: s.count,
      partition: s.partition,
      options: { ...s.options, resume, quiet: true },
      seeds: s.seeds,
      source: s.source,
      sourceOptions: s.sourceOptions,
    } satisfies ToWorker);
  }

  /** Send a message. @returns false when the process is gone or its channel closed. */
  send(msg: ToWorker): boolean {
    const c = this.child;
    if (!c?.connected) return false;
    try {
      c.send(msg);
      return true;
    } catch {
      return false;
    }
  }

  /** SIGKILL the process, if it is alive. */
  kill(): void {
    const c = this.child;
    if (c && c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }

  /** Count a crash at `now`: those older than `windowMs` are forgotten. @returns crashes in the window. */
  recordCrash(now: number, windowMs: number): number {
    this.crashes = this.crashes.filter((t) => now - t < windowMs);
    this.crashes.push(now);
    this.consecutiveCrashes++;
    return this.crashes.length;
  }

  /** Items written by this worker during this run, across its restarts. */
  get itemsThisRun(): number {
    return this.stats ? this.stats.items - (this.itemsBefore ?? 0) : 0;
  }

  /** Its counters arrived; the items rate is updated at most once a second. */
  recordStats(stats: WorkerStats, now = Date.now()): void {
    if (this.stats === null) {
      this.rateItems = stats.items;
      this.rateAt = now;
    } else if (now - this.rateAt >= 1000) {
      this.pagesPerSec = ((stats.items - this.rateItems) * 1000) / (now - this.rateAt);
      this.rateItems = stats.items;
      this.rateAt = now;
    }
    this.stats = stats;
    this.itemsBefore ??= stats.items - stats.itemsThisRun;
    if (this.state === 'running' || this.state === 'idle') this.state = stats.idle ? 'idle' : 'running';
  }
}
