/**
 * End-of-crawl accounting for a one-shot crawl over several processes, which share no frontier:
 * it is over when every live worker is idle, each has received every link sent to it, and no
 * handoff log is still being sent again. Then every worker is told to end. Continuous worker types
 * (`interval`) never end this way.
 */
import type { WorkerProcess } from './worker-process.js';

/** Parked or done: its process will not run again. */
export function isOver(w: WorkerProcess): boolean {
  return w.state === 'parked' || w.state === 'done';
}

/**
 * @returns the live workers to tell that the crawl is complete, or null while it is not (or when
 *   no worker is live).
 */
export function completedCrawl(workers: WorkerProcess[]): WorkerProcess[] | null {
  // Links being sent again to a restarted worker may not have reached it yet.
  if (workers.some((w) => w.resendsOwed > 0)) return null;
  const live = workers.filter((w) => !isOver(w));
  if (live.length === 0) return null;
  for (const w of live) {
    if (w.state !== 'idle' || w.stats === null || w.stats.received !== w.forwarded) return null;
    if (w.spec.intervalMs !== undefined) return null;
  }
  return live;
}
