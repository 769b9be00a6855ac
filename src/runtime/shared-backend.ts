/**
 * Picks the shared backend of one machine (`--backend redis://…`): the Redis frontier and
 * seen-set of `backends/redis` behind the engine's interfaces; content dedup stays per machine
 * (it points to this machine's item lines).
 */
import type { Logger } from 'pino';
import { RedisCrawl } from '../backends/redis/redis-crawl.js';
import type { SharedCrawlFault } from '../backends/redis/redis-faults.js';
import type { CrawlOptions } from '../config/crawl-options.js';
import { ContentIndex } from '../dedup/content-index.js';
import type { EngineBackend } from '../engine/crawler.js';
import type { RateBudgets } from '../engine/rate-gate.js';

/** What a machine's shared backend reports and is told beyond the engine's calls. */
export interface SharedBackendHooks {
  log: Logger;
  /** A stop was asked for the whole crawl. */
  onStop: () => void;
  /** Counters published in the heartbeat. */
  status: () => { items: number; errors: number; state: string };
  /** Say a line on stderr (Redis outages, reconnects, out of memory); the log has it too. */
  say?: (line: string) => void;
  /** This machine must stop on a fault of the shared crawl (default: `onStop`). */
  onFatal?: (fault: SharedCrawlFault) => void;
}

/** A backend shared through Redis, and its start (joining the crawl). */
export interface SharedBackend {
  backend: EngineBackend;
  /** This machine's id in the crawl. */
  machine: string;
  /** A source's rate budgets, shared by every machine of the crawl. */
  rateBudgets: RateBudgets;
  /** Join: resolves once Redis answered the first heartbeat (waits while it is unavailable). */
  start(): Promise<void>;
  /** For status.json (`totals.backend`): kind, crawl id, machine, connected, reconnects, shared counts. */
  status(): Record<string, unknown>;
}

/**
 * The Redis backend of one machine (`opts.backend` is `redis://…`, `crawlId` the crawl's name).
 * @throws Error for a malformed address or crawl id.
 */
export function redisBackend(opts: CrawlOptions, crawlId: string, hooks: SharedBackendHooks): SharedBackend {
  const shared = new RedisCrawl({
    url: opts.backend,
    crawlId,
    delayMs: opts.delay,
    jitter: opts.jitter,
    hostConcurrency: opts.hostConcurrency,
    maxPenaltyMs: opts.maxRetryAfter,
    concurrency: opts.concurrency,
    leaseTimeoutMs: opts.leaseTimeout,
    pollMs: opts.claimPoll,
    out: opts.out,
    log: hooks.log,
    onStop: hooks.onStop,
    status: hooks.status,
    say: hooks.say,
    onFatal: hooks.onFatal,
    seenSet: { kind: opts.seenSet, capacity: opts.bloomCapacity, errorRate: opts.bloomErrorRate },
  });
  const frontier = shared.frontier;
  const interval = opts.interval;
  return {
    machine: shared.machine,
    rateBudgets: shared.rateBudgets,
    start: () => shared.start(),
    status: () => shared.status(),
    backend: {
      frontier,
      seen: shared.seen,
      openContentIndex: (files) => new ContentIndex(files),
      attach: (wake) => {
        frontier.wake = wake;
      },
      openRounds: interval === undefined ? undefined : (parts) => shared.openRounds(parts, interval),
      itemWritten: (url) => frontier.itemWritten(url),
      mayWrite: (url) => frontier.mayWrite(url),
      // Items are acknowledged in Redis before they reach the items file (through the pending file).
      itemsAck: {
        tag: shared.machine,
        acknowledge: (count, batch) => frontier.acknowledge(count, batch),
        settled: () => frontier.itemsSettled(),
        closing: () => frontier.closing(),
        acknowledged: (lines) => frontier.acknowledged(lines),
        forget: (tags) => frontier.forget(tags),
      },
      close: () => shared.close(),
    },
  };
}
