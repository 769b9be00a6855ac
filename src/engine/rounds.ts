/**
 * Continuous collection (`interval`): once the worker is idle, wait `interval`, then fetch its
 * seeds again, bypassing the seen-set, so new links are found. A seed whose body did not change is
 * recorded with `data.unchanged` and not stored again (see content dedup).
 */
import type { Logger } from 'pino';

/** The rounds of one worker. */
export class Rounds {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  current = 0;
  /** When the next round starts, epoch ms; 0 = not scheduled. */
  private nextAt = 0;

  /**
   * @param seeds the seeds this worker owns.
   * @param intervalMs pause between rounds, ms; undefined = one round (one-shot).
   * @param requeue queue a seed again (into the frontier and its log), seen or not.
   */
  constructor(
    private readonly seeds: readonly string[],
    private readonly intervalMs: number | undefined,
    private readonly requeue: (seed: string) => void,
    private readonly log: Logger,
  ) {}

  /**
   * Called while the worker is idle: schedules the next round, or starts it when it is due.
   * @returns true when a round was started (there is work again).
   */
  startIfDue(now = Date.now()): boolean {
    if (this.intervalMs === undefined) return false;
    if (this.nextAt === 0) this.nextAt = now + this.intervalMs;
    else if (now >= this.nextAt) {
      this.nextAt = 0;
      this.start();
      return true;
    }
    return false;
  }

  /** Start the next round now. */
  start(): void {
    this.current++;
    for (const s of this.seeds) this.requeue(s);
    this.log.info({ round: this.current, seeds: this.seeds.length }, 'round started');
  }
}
