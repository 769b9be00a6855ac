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
import type { CrawlStats } from './crawl-stats.js';
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
  /** The worker's counters (read, never changed), for each round's counts. */
  stats: CrawlStats;
}

/**
 * What the engine asks of a worker's rounds: {@link Rounds} here, or rounds shared by several
 * machines (`backends/redis/shared-rounds.ts`), which keep their number and timing in Redis.
 */
export interface RoundKeeper {
  /** The round in progress: 0 for the first pass, then 1, 2, ... */
  readonly current: number;
  /** A round's requests are being made or queued: the worker is not idle. */
  readonly busy: boolean;
  /** The round in progress, as saved across restarts. */
  readonly mark: RoundMark;
  continueFrom(saved: RoundMark): void;
  begin(now?: number): void;
  dueIn(now?: number): number;
  /** @returns true when a round's requests were queued (work again). */
  startIfDue(now?: number): boolean;
  idle(now?: number): void;
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
  /** The round in progress: 0 for the first pass of a new crawl, then 1, 2, ... */
  current = 0;
  /** When the round in progress (or the first pass) started, epoch ms. */
  startedAt = Date.now();
  private loading = false;
  private started: RoundStart;
  /** `round done` was logged for the round in progress. */
  private doneLogged = false;
  /** The numbering and timing were continued from a restart ({@link continueFrom}). */
  private continued = false;

  constructor(private readonly parts: RoundParts) {
    this.started = this.snapshot(Date.now());
  }

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
    this.continued = true;
  }

  /**
   * The dispatch loop begins: a new crawl's first pass starts now, not when the worker was built
   * (its start-up — state replay, the page thread — is not part of the first interval). A round
   * continued from a restart keeps its saved start.
   */
  begin(now = Date.now()): void {
    if (this.continued) return;
    this.startedAt = now;
    this.started = this.snapshot(now);
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
    // A round still busy when the next one is due is logged as done now, with what it did.
    if (!this.doneLogged) this.logDone(now);
    this.doneLogged = false;
    this.current++;
    this.startedAt = now;
    const round = this.current;
    this.started = this.snapshot(now);
    this.loading = true;
    this.parts.started?.();
    void this.parts.load().then((requests) => {
      this.loading = false;
      this.parts.queue(requests, round);
      this.parts.log.info({ round, seeds: requests.length }, 'round started');
      this.parts.wake();
    });
  }

  /** Called while the worker is idle: the round in progress is done (logged once, with its counts). */
  idle(now = Date.now()): void {
    if (this.parts.intervalMs === undefined || this.loading || this.doneLogged) return;
    this.doneLogged = true;
    this.logDone(now);
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
      nextRoundAt: new Date(this.startedAt + (this.parts.intervalMs ?? 0)).toISOString(),
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
