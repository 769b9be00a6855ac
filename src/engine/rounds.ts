/**
 * Continuous collection (`interval`): once the worker is idle, wait `interval`, then fetch the
 * round's requests again — the source's `seeds()`, or the configured seeds — bypassing the
 * seen-set (once each per round), so new links are found. A seed whose body did not change is
 * recorded with `data.unchanged` and not stored again (see content dedup).
 */
import type { Logger } from 'pino';
import type { EngineRequest } from '../sources/request.js';
import type { CrawlStats } from './crawl-stats.js';

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
  /** The worker's counters (read, never changed), for each round's counts. */
  stats: CrawlStats;
}

/**
 * What the crawler asks of a worker's rounds: {@link Rounds} here, or rounds shared by several
 * machines (`backends/redis/shared-rounds.ts`).
 */
export interface RoundKeeper {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  readonly current: number;
  /** A round's requests are being made or queued: the worker is not idle. */
  readonly busy: boolean;
  /** Called while the worker is idle. @returns true when a round's requests were queued (work again). */
  startIfDue(now?: number): boolean;
}

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
export class Rounds implements RoundKeeper {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  current = 0;
  /** When the next round starts, epoch ms; 0 = not scheduled. */
  private nextAt = 0;
  private loading = false;
  private started: RoundStart;

  constructor(private readonly parts: RoundParts) {
    this.started = this.snapshot(Date.now());
  }

  /** A round's requests are being made (`seeds()` runs): the worker is not idle. */
  get busy(): boolean {
    return this.loading;
  }

  /**
   * Called while the worker is idle: schedules the next round (the one in progress is done), or
   * starts it when it is due.
   * @returns true when a round was started (there is work again).
   */
  startIfDue(now = Date.now()): boolean {
    if (this.parts.intervalMs === undefined || this.loading) return false;
    if (this.nextAt === 0) {
      this.nextAt = now + this.parts.intervalMs;
      this.logDone(now);
    } else if (now >= this.nextAt) {
      this.nextAt = 0;
      this.start(now);
      return true;
    }
    return false;
  }

  /** Start the next round now (its requests are queued once made). */
  start(now = Date.now()): void {
    this.current++;
    const round = this.current;
    this.started = this.snapshot(now);
    this.loading = true;
    void this.parts.load().then((requests) => {
      this.loading = false;
      this.parts.queue(requests);
      this.parts.log.info({ round, seeds: requests.length }, 'round started');
      this.parts.wake();
    });
  }

  /** `round done`, with this round's counts. */
  private logDone(now: number): void {
    const s = this.parts.stats;
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
    if (fields.errors > 0) this.parts.log.warn(fields, 'round done, with errors');
    else this.parts.log.info(fields, 'round done');
  }

  private snapshot(at: number): RoundStart {
    const s = this.parts.stats;
    return {
      at,
      items: s.itemsThisRun,
      errors: s.errors,
      bytes: s.bytes,
      errorsByKind: { ...s.errorsByKind },
    };
  }
}
