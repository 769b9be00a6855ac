/**
 * Whether a collector is healthy, from its status.json and the live process table: the one
 * judgement `status` (exit code) and `watchdog` (action) share. Pure but for the process checks,
 * which are passed in, so the rules are tested with a fake clock and fake processes.
 */
import { isRunning, type ProcessIdentity } from '../supervision/process-identity.js';
import type { StatusFile, StatusWorker } from '../supervision/status-format.js';

/** A heartbeat older than this (or 5 status intervals, if longer) means a hung supervisor, ms. */
export const HEARTBEAT_STALE_MS = 30_000;

/** Default of `--stall`: no new item for this long while work is pending is a stall, ms (10 min). */
export const DEFAULT_STALL_MS = 600_000;

/** Worker states in which a worker has nothing more to do (not counted as missing). */
const FINISHED_STATES = new Set(['done', 'stopped']);

/** What is wrong, most serious first; null when healthy or deliberately stopped. */
export type HealthProblem = 'dead' | 'hung' | 'crashed-out' | 'disk-full' | 'workers-down' | 'stalled';

/** The verdict on one data dir. */
export interface Health {
  /** `healthy` (exit 0), `degraded` (exit 1), `not-running` (exit 3). */
  verdict: 'healthy' | 'degraded' | 'not-running';
  /** Why it is not healthy (null: healthy, or not running because it finished or was stopped). */
  problem: HealthProblem | null;
  /** One line saying what was found, e.g. `supervisor was dead (heartbeat 7m ago)`. */
  summary: string;
  supervisorAlive: boolean;
  heartbeatAgeMs: number;
  workersUp: number;
  /** Live workers needed: `--min-workers`, else every worker that has not finished. */
  workersNeeded: number;
  workersExpected: number;
  parked: number;
  /** Workers waiting for their restart backoff (the supervisor is restarting them). */
  restarting: number;
  /** URLs queued or in flight. */
  pending: number;
  /** Time since the last item of any worker (or the start), ms. */
  progressAgeMs: number;
}

/** Options of the judgement. */
export interface HealthOptions {
  now?: number;
  /** No progress for this long with work pending is a stall, ms. Default {@link DEFAULT_STALL_MS}. */
  stallMs?: number;
  /** Fewer live workers than this is degraded. Default: all that have not finished. */
  minWorkers?: number;
  /** Whether a recorded process still runs (default: pid + start time from /proc). */
  alive?: (id: ProcessIdentity) => boolean;
}

/** `7m`, `3h10m`, `45s`: a short duration for messages. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d${h % 24 ? `${h % 24}h` : ''}`;
}

/** Whether a worker's process is up (its recorded pid runs with its recorded start time). */
function workerUp(w: StatusWorker, alive: (id: ProcessIdentity) => boolean): boolean {
  if (w.pid === null || w.pidStartTicks === null) return false;
  if (w.state === 'parked' || w.state === 'restarting' || FINISHED_STATES.has(w.state)) return false;
  return alive({ pid: w.pid, startTicks: w.pidStartTicks });
}

/** Judge `status` now. */
export function assessHealth(status: StatusFile, options: HealthOptions = {}): Health {
  const now = options.now ?? Date.now();
  const alive = options.alive ?? isRunning;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const heartbeatAgeMs = Math.max(0, now - Date.parse(status.updatedAt));
  const staleAfter = Math.max(HEARTBEAT_STALE_MS, 5 * status.timings.statusIntervalMs);
  const supervisorAlive = alive(status.supervisor);
  const active = status.workers.filter((w) => !FINISHED_STATES.has(w.state));
  const workersUp = status.workers.filter((w) => workerUp(w, alive)).length;
  const parked = status.workers.filter((w) => w.state === 'parked').length;
  const restarting = status.workers.filter((w) => w.state === 'restarting').length;
  const workersExpected = Object.values(status.expected).reduce((a, n) => a + n, 0);
  const workersNeeded = options.minWorkers ?? active.length;
  const pending = status.workers.reduce((a, w) => a + w.queue + w.inFlight, 0);
  const lastProgress = Math.max(
    Date.parse(status.startedAt),
    // A worker whose pending work waits on its hosts (Retry-After, slow-down) is not stalled.
    ...status.workers.map((w) =>
      Math.max(
        w.lastProgressAt ? Date.parse(w.lastProgressAt) : 0,
        w.waitingAt ? Date.parse(w.waitingAt) : 0,
      ),
    ),
  );
  const progressAgeMs = Math.max(0, now - lastProgress);
  const base = {
    supervisorAlive,
    heartbeatAgeMs,
    workersUp,
    workersNeeded,
    workersExpected,
    parked,
    restarting,
    pending,
    progressAgeMs,
  };
  const heartbeat = `heartbeat ${ago(heartbeatAgeMs)} ago`;
  const who = status.mode === 'in-process' ? 'crawl process' : 'supervisor';
  if (!supervisorAlive) {
    if (status.state === 'running' || status.state === 'stopping') {
      return {
        ...base,
        verdict: 'not-running',
        problem: 'dead',
        summary: `${who} was dead (${heartbeat})`,
      };
    }
    if (status.diskFull) {
      return {
        ...base,
        verdict: 'not-running',
        problem: 'disk-full',
        summary: `collector stopped by a full disk at ${status.diskFull}`,
      };
    }
    if (parked > 0) {
      return {
        ...base,
        verdict: 'not-running',
        problem: 'crashed-out',
        summary: `collector exited with ${parked} worker${parked > 1 ? 's' : ''} parked after crashing in a loop`,
      };
    }
    return {
      ...base,
      verdict: 'not-running',
      problem: null,
      summary: `${status.state} ${ago(heartbeatAgeMs)} ago`,
    };
  }
  if (heartbeatAgeMs > staleAfter) {
    return { ...base, verdict: 'degraded', problem: 'hung', summary: `${who} was hung (${heartbeat})` };
  }
  if (status.state !== 'running') {
    return { ...base, verdict: 'healthy', problem: null, summary: status.state };
  }
  if (workersUp < workersNeeded) {
    const detail = [parked ? `${parked} parked` : '', restarting ? `${restarting} restarting` : '']
      .filter(Boolean)
      .join(', ');
    return {
      ...base,
      verdict: 'degraded',
      problem: 'workers-down',
      summary: `${workersUp}/${workersNeeded} workers up${detail ? ` (${detail})` : ''}`,
    };
  }
  if (pending > 0 && progressAgeMs > stallMs) {
    return {
      ...base,
      verdict: 'degraded',
      problem: 'stalled',
      summary: `no progress for ${ago(progressAgeMs)} with ${pending} URLs pending`,
    };
  }
  return { ...base, verdict: 'healthy', problem: null, summary: `${workersUp}/${workersNeeded} workers up` };
}
