/**
 * Continuous collection (`interval`): once the worker is idle, wait `interval`, then fetch the
 * round's requests again — the source's `seeds()`, or the configured seeds — bypassing the
 * seen-set (once each per round), so new links are found. A seed whose body did not change is
 * recorded with `data.unchanged` and not stored again (see content dedup).
 */
import type { Logger } from 'pino';
import type { EngineRequest } from '../sources/request.js';

/** What the rounds work with. */
export interface RoundParts {
  /** Pause between rounds, ms; undefined = one round (one-shot). */
  intervalMs: number | undefined;
  /** The requests of a new round (all of them: the caller keeps those it owns). */
  load(): Promise<EngineRequest[]>;
  /** Queue a round's requests, seen or not. */
  queue(requests: EngineRequest[]): void;
  log: Logger;
  /** The round's requests are queued: the dispatch loop has work. */
  wake(): void;
}

/** The rounds of one worker. */
export class Rounds {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  current = 0;
  /** When the next round starts, epoch ms; 0 = not scheduled. */
  private nextAt = 0;
  private loading = false;

  constructor(private readonly parts: RoundParts) {}

  /** A round's requests are being made (`seeds()` runs): the worker is not idle. */
  get busy(): boolean {
    return this.loading;
  }

  /**
   * Called while the worker is idle: schedules the next round, or starts it when it is due.
   * @returns true when a round was started (there is work again).
   */
  startIfDue(now = Date.now()): boolean {
    if (this.parts.intervalMs === undefined || this.loading) return false;
    if (this.nextAt === 0) this.nextAt = now + this.parts.intervalMs;
    else if (now >= this.nextAt) {
      this.nextAt = 0;
      this.start();
      return true;
    }
    return false;
  }

  /** Start the next round now (its requests are queued once made). */
  start(): void {
    this.current++;
    const round = this.current;
    this.loading = true;
    void this.parts.load().then((requests) => {
      this.loading = false;
      this.parts.queue(requests);
      this.parts.log.info({ round, seeds: requests.length }, 'round started');
      this.parts.wake();
    });
  }
}
