/**
 * Rounds of continuous collection (`interval`) shared by every machine of a crawl: a round ends
 * when nothing is queued or leased crawl-wide; the next starts `interval` after the previous
 * round's start, decided once crawl-wide (ROUND script), and one machine makes and queues its
 * seeds; the others join it and queue their pages due for a revisit. A round's requests go to
 * Redis once per round crawl-wide (ROUND_ENQUEUE), however many machines offer them.
 */
import type { Logger } from 'pino';
import { ENQUEUE_BATCH, type PendingWrites, queueOrder, urlFingerprint } from './pending-writes.js';
import type { RedisFrontier } from './redis-frontier.js';
import type { RedisLink } from './redis-link.js';
import { ROUND, ROUND_ENQUEUE } from './round-scripts.js';

/** How often a machine asks where the shared rounds stand, besides when it is idle, ms. */
export const ROUND_POLL_MS = 1_000;
/** Shortest gap between two questions of an idle machine, ms. */
const MIN_ASK_GAP_MS = 200;

/**
 * What the shared rounds work with: the engine's round parts (`engine/rounds.ts` RoundParts,
 * with `R` its requests), as far as they are used here.
 */
export interface SharedRoundParts<R> {
  /** The requests of a new round. */
  load(): Promise<R[]>;
  /** Queue round `round`'s requests, seen or not, and this machine's pages due again. */
  queue(requests: R[], round: number): void;
  /** A round started here or was joined: its number is worth saving. */
  started?(): void;
  log: Logger;
  /** Something the dispatch loop waits for happened. */
  wake(): void;
  /** The worker's counters (read only). */
  stats: { itemsThisRun: number; errors: number };
}

/** One machine's part in the shared rounds. */
export interface SharedRoundsOptions {
  link: RedisLink;
  writes: PendingWrites;
  frontier: RedisFrontier;
  prefix: string;
  machine: string;
  hostConcurrency: number;
  /** From the start of a round to the start of the next, at least, ms. */
  intervalMs: number;
  /** How long a machine may take to make a round's requests before another may, ms (the lease timeout). */
  loadMs: number;
}

type Answer = [action: string, round: number, at: number, now: number];

/** Names of the round scripts as commands on the crawl's connection. */
const ROUND_COMMAND = 'collectorRound';
const ROUND_ENQUEUE_COMMAND = 'collectorRoundEnqueue';

/** The shared rounds of one machine (see the module comment). */
export class SharedRounds<R> {
  /** The round this machine is in (as `engine/rounds.ts` RoundKeeper). */
  current = 0;
  private loading = false;
  private asking = false;
  private askedAt = Number.NEGATIVE_INFINITY;
  /** Requests were queued since the crawler last asked. */
  private queuedNew = false;
  /** `round done` was logged for the round in progress. */
  private doneLogged = false;
  private halted = false;
  private timer: NodeJS.Timeout | null = null;
  private started = { at: Date.now(), items: 0, errors: 0 };
  /** The pushes of the round's queueing in progress (ROUND_ENQUEUE arguments), else null. */
  private collecting: (string | number)[] | null = null;
  /** Every-round hubs to queue for the round in progress (ROUND_ENQUEUE arguments). */
  private hubs: (string | number)[] = [];
  private hubsScheduled = false;

  constructor(
    private readonly parts: SharedRoundParts<R>,
    private readonly o: SharedRoundsOptions,
  ) {
    const client = o.link.client as unknown as Record<string, unknown>;
    if (typeof client[ROUND_COMMAND] !== 'function') {
      o.link.client.defineCommand(ROUND_COMMAND, { numberOfKeys: 0, lua: ROUND });
      o.link.client.defineCommand(ROUND_ENQUEUE_COMMAND, { numberOfKeys: 0, lua: ROUND_ENQUEUE });
    }
    o.frontier.onLaterRound = (n) => this.join(n);
    o.frontier.divert = (url, host, depth, priority, json, meta) => {
      // Inside a round's queueing: its requests. Else, in a later round, an every-round hub, or a
      // page seen here before that its source says changed (`lastmod`); a URL new here goes by
      // the crawl-wide seen-set.
      const again =
        this.current > 0 &&
        (meta?.everyRound === true || (meta?.lastmod !== undefined && !this.o.writes.isFresh(url)));
      if (this.collecting === null && !again) return false;
      const [band, level] = queueOrder(depth, priority);
      const args = this.collecting ?? this.hubs;
      args.push(url, host, urlFingerprint(url), band, level, json);
      if (this.collecting === null) this.sendHubsSoon();
      return true;
    };
    // Joins the round in progress now (a machine restarted mid-round goes on with it).
    this.ask('join');
    this.timer = setInterval(() => this.ask('poll'), ROUND_POLL_MS);
    this.timer.unref();
  }

  /** The round in progress as the engine saves it (the shared one lives in Redis). */
  get mark(): { number: number; startedAt: number } {
    return { number: this.current, startedAt: this.started.at };
  }

  /** A round saved here before a restart: the shared count in Redis decides (the join). */
  continueFrom(): void {}

  /** The dispatch loop begins (nothing to do: the join was asked for when made). */
  begin(): void {}

  /** Rounds are decided in Redis: polled every {@link ROUND_POLL_MS}, waking the loop. */
  dueIn(): number {
    return Number.POSITIVE_INFINITY;
  }

  /** `round done` is logged from Redis's answers (crawl-wide), not from this machine's idleness. */
  idle(): void {}

  /** This machine is making a round's requests: not idle. */
  get busy(): boolean {
    return this.loading;
  }

  /** Called while idle. @returns true when requests were queued since the last call. */
  startIfDue(): boolean {
    if (this.queuedNew) {
      this.queuedNew = false;
      return true;
    }
    if (performance.now() - this.askedAt >= MIN_ASK_GAP_MS) this.ask('poll');
    return false;
  }

  /** Ask nothing more (the machine leaves the crawl). */
  halt(): void {
    this.halted = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private call(name: string, args: (string | number)[]): Promise<unknown> {
    const client = this.o.link.client as unknown as Record<
      string,
      (...a: (string | number)[]) => Promise<unknown>
    >;
    return client[name](...args);
  }

  private ask(op: 'join' | 'poll'): void {
    if (this.halted || this.asking || this.loading) return;
    this.asking = true;
    this.askedAt = performance.now();
    const { prefix, machine, intervalMs, loadMs } = this.o;
    this.call(ROUND_COMMAND, [prefix, op, machine, this.current, intervalMs, loadMs])
      .then(
        (reply) => {
          this.asking = false;
          this.answered(reply as Answer);
        },
        (e: Error) => {
          this.asking = false;
          this.loading = false;
          this.parts.log.error({ err: e.message }, 'asking redis where the rounds stand failed');
        },
      )
      .finally(() => this.parts.wake());
  }

  private answered([action, n, at]: Answer): void {
    if (this.halted) return;
    const round = Number(n);
    switch (action) {
      case 'in':
      case 'join':
        if (round > this.current) this.join(round);
        else if (round < this.current) {
          // Redis lost the rounds (restarted without persistence): go on from its count.
          this.parts.log.warn({ round, was: this.current }, 'the shared rounds restarted in redis');
          this.enter(round);
        }
        return;
      case 'wait':
        this.logDone(Number(at) + this.o.intervalMs);
        return;
      case 'load':
        this.logDone(Date.now());
        this.load();
        return;
      case 'start':
        return;
      default:
        // busy: the round goes on.
        return;
    }
  }

  /** Round `n` is in progress elsewhere: queue this machine's pages due again, once crawl-wide. */
  private join(n: number): void {
    if (this.halted || n <= this.current) return;
    this.enter(n);
    const count = this.queueFor(n, [], '0');
    this.parts.log.info({ round: n, revisits: count }, 'round joined');
  }

  /** This machine was granted the next round: make its requests, then start it. */
  private load(): void {
    this.loading = true;
    void this.parts.load().then(async (requests) => {
      try {
        if (this.halted) return;
        const { prefix, machine, intervalMs, loadMs } = this.o;
        const r = (await this.call(ROUND_COMMAND, [
          prefix,
          'start',
          machine,
          this.current,
          intervalMs,
          loadMs,
        ])) as Answer;
        const [action, n, at] = r;
        if (this.halted) return;
        if (action === 'start') {
          this.enter(Number(n));
          const queued = this.queueFor(Number(n), requests, '1');
          this.parts.log.info(
            { round: Number(n), at: Number(at), seeds: requests.length, queued },
            'round started',
          );
        } else if (action === 'join') this.answered(r);
      } catch (e) {
        this.parts.log.error({ err: (e as Error).message }, 'starting a round in redis failed');
      } finally {
        this.loading = false;
        this.parts.wake();
      }
    });
  }

  private enter(n: number): void {
    this.current = n;
    this.o.frontier.round = n;
    this.doneLogged = false;
    const s = this.parts.stats;
    this.started = { at: Date.now(), items: s.itemsThisRun, errors: s.errors };
    this.parts.started?.();
  }

  /**
   * Queue round `n`'s requests (and, through the crawler, this machine's pages due again) in
   * Redis, once crawl-wide this round. @param last `1` when these are the round's seeds.
   * @returns how many URLs were offered.
   */
  private queueFor(n: number, requests: R[], last: '0' | '1'): number {
    const args: (string | number)[] = [];
    this.collecting = args;
    try {
      this.parts.queue(requests, n);
    } finally {
      this.collecting = null;
    }
    const offered = args.length / 6;
    this.send(n, args, last);
    this.queuedNew = true;
    return offered;
  }

  /**
   * Send ROUND_ENQUEUE calls for round `n` in batches, after every write before (one connection:
   * in order). @param last `1` on the last batch of the round's seeds.
   */
  private send(n: number, args: (string | number)[], last: '0' | '1'): void {
    const { writes, prefix, hostConcurrency } = this.o;
    writes.flush();
    while (args.length > 0 || last === '1') {
      const batch = args.splice(0, ENQUEUE_BATCH * 6);
      const end = args.length === 0 ? last : '0';
      writes.track(this.call(ROUND_ENQUEUE_COMMAND, [prefix, hostConcurrency, n, end, ...batch]));
      if (end === '1') break;
    }
  }

  /** Every-round hubs found are queued for the round on the next turn of the event loop. */
  private sendHubsSoon(): void {
    if (this.hubsScheduled) return;
    this.hubsScheduled = true;
    setImmediate(() => {
      this.hubsScheduled = false;
      if (!this.halted) this.send(this.current, this.hubs.splice(0), '0');
    });
  }

  /** `round done` once per round, with this machine's share of it. */
  private logDone(nextAt: number): void {
    if (this.doneLogged) return;
    this.doneLogged = true;
    const s = this.parts.stats;
    this.parts.log.info(
      {
        round: this.current,
        items: s.itemsThisRun - this.started.items,
        errors: s.errors - this.started.errors,
        seconds: Math.round((Date.now() - this.started.at) / 100) / 10,
        nextRoundAt: new Date(nextAt).toISOString(),
      },
      'round done',
    );
  }
}
