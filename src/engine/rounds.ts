/**
 * Continuous collection (`interval`): a round fetches its requests again — the source's `seeds()`,
 * or the configured seeds — past the seen-set (once each per round), so new links are found. A
 * round starts `interval` after the start of the previous one, whatever the frontier still holds:
 * a request still waiting from an earlier round (its host is backed off) is not queued twice,
 * and the others go on time (see `admission.ts`). A seed whose body did not change is recorded
 * with `data.unchanged` and not stored again (see content dedup). The round number and its start
 * survive restarts (`politeness-state.ts`).
 */
import type { Logger } from 'pino';
import type { EngineRequest } from '../sources/request.js';
import type { RoundMark } from './politeness-state.js';

/** What the rounds work with. */
export interface RoundParts {
  /** Time from a round's start to the next one's, ms; undefined = one round (one-shot). */
  intervalMs: number | undefined;
  /** The requests of a new round (all of them: the caller keeps those it owns). */
  load(): Promise<EngineRequest[]>;
  /** Queue a round's requests, seen or not, for round number `round`. */
  queue(requests: EngineRequest[], round: number): void;
  log: Logger;
  /** The round's requests are queued: the dispatch loop has work. */
  wake(): void;
  /** A round started: its number is worth saving at once. */
  started?(): void;
}

/** The rounds of one worker. */
export class Rounds {
  /** The round in progress: 0 for the first pass of a new crawl, then 1, 2, ... */
  current = 0;
  /** When the round in progress (or the first pass) started, epoch ms. */
  startedAt = Date.now();
  private loading = false;

  constructor(private readonly parts: RoundParts) {}

  /** A round's requests are being made (`seeds()` runs): the worker is not idle. */
  get busy(): boolean {
    return this.loading;
  }

  /** The round in progress, as saved across restarts. */
  get mark(): RoundMark {
    return { number: this.current, startedAt: this.startedAt };
  }

  /** Continue the numbering and timing saved before a restart. */
  continueFrom(saved: RoundMark): void {
    this.current = saved.number;
    this.startedAt = saved.startedAt;
  }

  /** ms until the next round is due (0 when due now), Infinity without an interval. */
  dueIn(now = Date.now()): number {
    const interval = this.parts.intervalMs;
    return interval === undefined ? Number.POSITIVE_INFINITY : Math.max(0, this.startedAt + interval - now);
  }

  /**
   * Called on every turn of the dispatch loop: starts the next round when it is due.
   * @returns true when a round was started (there is work again).
   */
  startIfDue(now = Date.now()): boolean {
    if (this.parts.intervalMs === undefined || this.loading || this.dueIn(now) > 0) return false;
    this.start(now);
    return true;
  }

  /** Start the next round now (its requests are queued once made). */
  start(now = Date.now()): void {
    this.current++;
    this.startedAt = now;
    const round = this.current;
    this.loading = true;
    this.parts.started?.();
    void this.parts.load().then((requests) => {
      this.loading = false;
      this.parts.queue(requests, round);
      this.parts.log.info({ round, seeds: requests.length }, 'round started');
      this.parts.wake();
    });
  }
}
