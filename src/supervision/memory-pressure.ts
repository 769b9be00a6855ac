/**
 * The memory guard's policy (the facts it reads are in `memory-guard.ts`): keep the process tree
 * under `limitFraction × limit`. Above the budget, the largest worker stops taking new URLs; still
 * above after {@link RECYCLE_AFTER_MS} (or above {@link HARD_FRACTION} of the limit at once), it is
 * recycled: stopped gracefully and started again from its state. Below {@link RESUME_FRACTION} of
 * the budget, paused workers resume.
 */

/** A paused worker still over budget after this long is recycled, ms. */
export const RECYCLE_AFTER_MS = 3000;
/** Above this share of the limit, the largest worker is recycled at once. */
export const HARD_FRACTION = 0.95;
/** Paused workers resume below this share of the budget. */
export const RESUME_FRACTION = 0.9;

/** What the policy reads of a worker. */
export interface GuardedWorker {
  /** Its process's memory, bytes (PSS). */
  rss: number;
  /** Running or idle, with a live process that is not being recycled. */
  live: boolean;
  paused: boolean;
  /** When it was paused, epoch ms. */
  pausedAt: number;
  recycling: boolean;
}

/** What to do now. */
export interface MemoryDecision<W> {
  /** Stop taking new URLs. */
  pause: W | null;
  /** Stop gracefully and start again from its state. */
  recycle: W | null;
  /** Take new URLs again. */
  resume: W[];
}

/**
 * Decide from one sample of the tree.
 * @param totalBytes the whole tree's memory (supervisor included), bytes.
 * @param budgetBytes `limitFraction × limit`; @param limitBytes the limit.
 */
export function decideMemory<W extends GuardedWorker>(
  workers: W[],
  totalBytes: number,
  budgetBytes: number,
  limitBytes: number,
  now: number,
): MemoryDecision<W> {
  const decision: MemoryDecision<W> = { pause: null, recycle: null, resume: [] };
  if (totalBytes > budgetBytes) {
    const largest = workers.filter((w) => w.live).sort((a, b) => b.rss - a.rss)[0];
    if (!largest) return decision;
    const pausedAt = largest.paused ? largest.pausedAt : now;
    if (!largest.paused) decision.pause = largest;
    if (now - pausedAt >= RECYCLE_AFTER_MS || totalBytes > limitBytes * HARD_FRACTION)
      decision.recycle = largest;
  } else if (totalBytes < budgetBytes * RESUME_FRACTION) {
    decision.resume = workers.filter((w) => w.paused && !w.recycling);
  }
  return decision;
}
