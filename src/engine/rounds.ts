/**
 * Continuous collection (`interval`): once the worker is idle, wait `interval`, then fetch its
 * seeds again, bypassing the seen-set, so new links are found. A seed whose body did not change is
 * recorded with `data.unchanged` and not stored again (see content dedup).
 */
import type { Logger } from 'pino';
import type { CrawlStats } from './crawl-stats.js';

/** What a round's log line counts: this round's share of the worker's counters. */
interface RoundStart {
  at: number;
  items: number;
  errors: number;
  bytes: number;
  errorsByKind: Record<string, number>;
}

/**
 * The rounds of one worker. Each round is logged where it starts (`round started`) and where it
 * ends (`round done`: its items, errors by kind, bytes and duration, and when the next one starts;
 * at warn level when it had errors).
 */
export class Rounds {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  current = 0;
  /** When the next round starts, epoch ms; 0 = not scheduled. */
  private nextAt = 0;
  private started: RoundStart;

  /**
   * @param seeds the seeds this worker owns.
   * @param intervalMs pause between rounds, ms; undefined = one round (one-shot).
   * @param requeue queue a seed again (into the frontier and its log), seen or not.
   * @param stats the worker's counters (read, never changed), for each round's counts.
   */
  constructor(
    private readonly seeds: readonly string[],
    private readonly intervalMs: number | undefined,
    private readonly requeue: (seed: string) => void,
    private readonly log: Logger,
    private readonly stats: CrawlStats,
  ) {
    this.started = this.snapshot(Date.now());
  }

  /**
   * Called while the worker is idle: schedules the next round (the one in progress is done), or
   * starts it when it is due.
   * @returns true when a round was started (there is work again).
   */
  startIfDue(now = Date.now()): boolean {
    if (this.intervalMs === undefined) return false;
    if (this.nextAt === 0) {
      this.nextAt = now + this.intervalMs;
      this.logDone(now);
    } else if (now >= this.nextAt) {
      this.nextAt = 0;
      this.start(now);
      return true;
    }
    return false;
  }

  /** Start the next round now. */
  start(now = Date.now()): void {
    this.current++;
    this.started = this.snapshot(now);
    for (const s of this.seeds) this.requeue(s);
    this.log.info({ round: this.current, seeds: this.seeds.length }, 'round started');
  }

  /** `round done`, with this round's counts. */
  private logDone(now: number): void {
    const s = this.stats;
    const was = this.started;
    const errorsByKind: Record<string, number> = {};
    for (const [k, n] of Object.entries(s.errorsByKind)) {
      const d = n - (was.errorsByKind[k] ?? 0);
      if (d > 0) errorsByKind[k] = d;
    }
    const fields = {
      round: this.current,
      items: s.itemsThisRun - was.items,
      errors: s.errors - was.errors,
      errorsByKind,
      bytes: s.bytes - was.bytes,
      seconds: Math.round((now - was.at) / 100) / 10,
      nextRoundAt: new Date(this.nextAt).toISOString(),
    };
    if (fields.errors > 0) this.log.warn(fields, 'round done, with errors');
    else this.log.info(fields, 'round done');
  }

  private snapshot(at: number): RoundStart {
    const s = this.stats;
    return {
      at,
      items: s.itemsThisRun,
      errors: s.errors,
      bytes: s.bytes,
      errorsByKind: { ...s.errorsByKind },
    };
  }
}
