/**
 * One machine's part in a crawl shared through Redis: the connection, the batched writes, the
 * shared frontier and seen-set, and the heartbeat, opened and closed together. Closing gives back
 * the leases of URLs this machine took and did not write, so a graceful stop loses no time.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { crawlPrefix } from './crawl-keys.js';
import { MachineHeartbeat, type MachineStatus, newMachineId } from './machine-heartbeat.js';
import { PendingWrites } from './pending-writes.js';
import { redactRedisUrl, redisHostPort } from './redis-address.js';
import { RedisFaults, type SharedCrawlFault } from './redis-faults.js';
import { RedisFrontier } from './redis-frontier.js';
import { openRedisLink, type RedisLink } from './redis-link.js';
import { RedisRateBudgets } from './redis-rate-budgets.js';
import { RedisSeenSet } from './redis-seen-set.js';
import { joinSeenSet, type SeenSetOptions, seenSetScripts } from './seen-set-choice.js';
import { type SharedRoundParts, SharedRounds } from './shared-rounds.js';

/** How one machine joins a shared crawl. */
export interface RedisCrawlOptions {
  /** `redis://host:port/db`. */
  url: string;
  /** Names the crawl: machines with the same id share it. */
  crawlId: string;
  delayMs: number;
  jitter: number;
  hostConcurrency: number;
  maxPenaltyMs: number;
  /** This machine's fetch slots: URLs leased per claim at most. */
  concurrency: number;
  /** A machine silent this long is dead and its leases are taken back, ms. */
  leaseTimeoutMs: number;
  /** Longest wait between claims while other machines still work, ms. */
  pollMs: number;
  /** This machine's output dir (shown by `collector status --backend`). */
  out: string;
  log: Logger;
  /** A stop was asked for the whole crawl (`collector stop --backend … --crawl-id …`). */
  onStop: () => void;
  /** Counters for the heartbeat. */
  status: () => Pick<MachineStatus, 'items' | 'errors' | 'state'>;
  /** The shared seen-set asked for (default: exact). */
  seenSet?: SeenSetOptions;
  /** Say a line on stderr (outages, reconnects, out of memory); the log has it too. */
  say?: (line: string) => void;
  /**
   * This machine must stop on a fault (Redis out of memory past the bound, the crawl's state
   * lost, a refused write): told once; the crawl ends with it as its failure.
   */
  onFatal?: (fault: SharedCrawlFault) => void;
}

/** Longest out-of-memory pause, in lease timeouts: by then the machine's leases have expired too. */
export const OOM_GIVE_UP_LEASES = 3;

/** Longest wait for Redis when closing, ms: past it, leases are left to expire. */
export const CLOSE_TIMEOUT_MS = 5_000;

/** A machine's part in a shared crawl (see the module comment). */
export class RedisCrawl {
  readonly frontier: RedisFrontier;
  readonly seen: RedisSeenSet;
  /** A source's rate budgets (GitHub's), one per crawl and credential across machines. */
  readonly rateBudgets: RedisRateBudgets;
  readonly machine = newMachineId();
  private readonly link: RedisLink;
  private readonly prefix: string;
  private readonly writes: PendingWrites;
  private readonly heartbeat: MachineHeartbeat;
  private rounds: { halt(): void } | null = null;
  /** The crawl's epoch, as found or made at the join (`JOIN`). */
  private epoch = '';
  /** Crawl-wide counts at the last heartbeat. */
  private counts = { sharedQueued: 0, sharedLeased: 0, sharedDone: 0 };

  /** @throws Error for a malformed address or crawl id. */
  constructor(private readonly opts: RedisCrawlOptions) {
    const prefix = crawlPrefix(opts.crawlId);
    this.prefix = prefix;
    const { log } = opts;
    const faults = new RedisFaults({
      at: redisHostPort(opts.url),
      crawlId: opts.crawlId,
      giveUpMs: Math.max(1_000, OOM_GIVE_UP_LEASES * opts.leaseTimeoutMs),
      log,
      say: opts.say ?? (() => {}),
      onFatal: (f) => {
        // Its pages not acknowledged go to the other machines (or to the next start).
        this.frontier.refuse(f);
        (opts.onFatal ?? (() => opts.onStop()))(f);
      },
    });
    this.link = openRedisLink(opts.url, log, faults);
    this.writes = new PendingWrites(
      this.link,
      prefix,
      opts.hostConcurrency,
      (e) => {
        this.frontier.refuse(e);
        if (faults.fatal === null) faults.refused(e);
      },
      seenSetScripts(opts.seenSet?.kind ?? 'exact'),
    );
    this.frontier = new RedisFrontier(
      this.link,
      this.writes,
      {
        prefix,
        machine: this.machine,
        delayMs: opts.delayMs,
        jitter: opts.jitter,
        hostConcurrency: opts.hostConcurrency,
        maxPenaltyMs: opts.maxPenaltyMs,
        claimBatch: opts.concurrency,
        pollMs: opts.pollMs,
        leaseTimeoutMs: opts.leaseTimeoutMs,
      },
      log,
    );
    this.seen = new RedisSeenSet(this.writes);
    this.rateBudgets = new RedisRateBudgets(this.link, prefix, this.machine, log);
    this.heartbeat = new MachineHeartbeat(
      this.link,
      {
        prefix,
        machine: this.machine,
        hostConcurrency: opts.hostConcurrency,
        leaseTimeoutMs: opts.leaseTimeoutMs,
        onStop: opts.onStop,
        onCounts: (q, l, d) => {
          this.counts = { sharedQueued: q, sharedLeased: l, sharedDone: d };
        },
        onKept: (sentAt, alive) => this.frontier.heartbeatKept(sentAt, alive),
        epoch: () => this.epoch,
        onLost: () => faults.crawlLost(),
        status: () => ({ ...opts.status(), out: opts.out, inFlight: this.frontier.inFlight }),
      },
      log,
    );
    const onBack = this.link.onBack;
    this.link.onBack = () => {
      this.heartbeat.reconnected();
      onBack?.();
    };
  }

  /**
   * This machine's view, for status.json: `connected` false while Redis is unavailable (the crawl
   * is paused, waiting for it), the reconnects so far, and the crawl-wide counts of the last beat.
   */
  status(): Record<string, unknown> {
    return {
      kind: 'redis',
      crawlId: this.opts.crawlId,
      machine: this.machine,
      connected: this.link.up,
      reconnects: this.link.reconnects,
      ...this.counts,
      // What pauses or stopped this machine (out of memory, the crawl's state lost), one line.
      problem: this.link.faults.line,
      droppedResults: this.frontier.dropped,
    };
  }

  /**
   * This machine's part in the crawl's shared rounds (continuous collection, see
   * `shared-rounds.ts`), made when the engine opens its state (after {@link start}).
   * @param intervalMs from a round's start to the next's, ms.
   */
  openRounds<R>(parts: SharedRoundParts<R>, intervalMs: number): SharedRounds<R> {
    const { opts } = this;
    const rounds = new SharedRounds(parts, {
      link: this.link,
      writes: this.writes,
      frontier: this.frontier,
      prefix: crawlPrefix(opts.crawlId),
      machine: this.machine,
      hostConcurrency: opts.hostConcurrency,
      intervalMs,
      loadMs: opts.leaseTimeoutMs,
    });
    this.rounds = rounds;
    return rounds;
  }

  /** Join the crawl: the first heartbeat is answered (waits while Redis is unavailable). */
  async start(): Promise<void> {
    const { log, crawlId, url } = this.opts;
    log.info({ redis: redactRedisUrl(url), crawlId, machine: this.machine }, 'joining the shared crawl');
    // The crawl's record first: every script that writes its state checks it is there.
    const [epoch, made] = (await this.link.script('join', [this.prefix, randomUUID()])) as [string, number];
    this.epoch = String(epoch);
    log.info({ epoch: this.epoch, made: Number(made) === 1 }, 'crawl record in redis');
    // Before any URL is queued: the crawl's seen-set kind is agreed (a mismatch stops here).
    if (this.opts.seenSet !== undefined) await joinSeenSet(this.link, this.prefix, this.opts.seenSet, log);
    await this.heartbeat.start();
  }

  /**
   * Leave the crawl (after the journal is closed and its items acknowledged): give back the leases
   * of URLs not written, remove the heartbeat, disconnect. When Redis stays unavailable past
   * {@link CLOSE_TIMEOUT_MS}, the leases are left to expire (others take them back).
   */
  async close(): Promise<void> {
    this.rounds?.halt();
    const leave = (async () => {
      await this.frontier.releaseAll();
      await this.heartbeat.stop();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => {
      timer = setTimeout(r, CLOSE_TIMEOUT_MS);
    });
    await Promise.race([leave.catch(() => {}), timeout]);
    clearTimeout(timer);
    this.heartbeat.halt();
    await this.link.close(CLOSE_TIMEOUT_MS);
  }
}
