/**
 * "No progress for N seconds while work is pending" as a health signal: a running worker with URLs
 * queued or in flight that wrote no item for `stallTimeoutMs`, and was not merely waiting on its
 * hosts meanwhile (politeness, Retry-After, slow-down, retry back-off: the worker reports when it
 * last was), is stalled; one never ready is hung while starting (the supervisor kills either, and
 * it is restarted like a crash). A stall is eligible work not being done.
 */

/** Shortest and longest period of the stall check, ms. */
export const STALL_CHECK_MIN_MS = 100;
export const STALL_CHECK_MAX_MS = 5000;

/** What the watch reads of a worker. */
export interface WatchedWorker {
  state: string;
  paused: boolean;
  /** When its current process started, epoch ms. */
  startedAt: number;
  stats: { queued: number; inFlight: number; lastProgressAt: number; waitingAt?: number } | null;
}

/**
 * A worker not ready this long after its launch (and after the stall timeout) is restarted, ms:
 * it hangs while loading its state. At least a minute: a start may wait for the previous holder
 * of its state dir (engine/state-lock.ts, 15 s) and read a large state.
 */
export const START_TIMEOUT_MIN_MS = 60_000;

/** How often to check, ms: half the timeout, within 100 ms..5 s. */
export function stallCheckPeriod(stallTimeoutMs: number): number {
  return Math.max(STALL_CHECK_MIN_MS, Math.min(STALL_CHECK_MAX_MS, stallTimeoutMs / 2));
}

/**
 * @returns ms since the worker's last progress (or since it last waited on its hosts) when it is
 *   stalled, else null (not running, paused by the memory guard, no work pending, or progress or a
 *   wait on politeness within the timeout).
 */
export function stalledFor(w: WatchedWorker, now: number, stallTimeoutMs: number): number | null {
  const s = w.stats;
  if (w.state !== 'running' || s === null || w.paused) return null;
  const since = Math.max(s.lastProgressAt, s.waitingAt ?? 0, w.startedAt);
  return s.queued + s.inFlight > 0 && now - since > stallTimeoutMs ? now - since : null;
}

/**
 * @returns ms since the worker's launch when it is still starting (never ready, never reporting)
 *   after max(`stallTimeoutMs`, {@link START_TIMEOUT_MIN_MS}), else null.
 */
export function hungStartingFor(w: WatchedWorker, now: number, stallTimeoutMs: number): number | null {
  if (w.state !== 'starting') return null;
  const since = now - w.startedAt;
  return since > Math.max(stallTimeoutMs, START_TIMEOUT_MIN_MS) ? since : null;
}
