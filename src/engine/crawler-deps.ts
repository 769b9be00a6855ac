/**
 * What a worker's engine is given from outside: the shared-state implementations it runs on
 * (`EngineBackend`) and the rest of its dependencies (`CrawlerDeps`: id, source, log, callbacks).
 */
import type { Logger } from 'pino';
import type { ContentDedup, ContentIndexFiles } from '../dedup/content-dedup.js';
import type { SeenSet } from '../dedup/seen-set.js';
import type { FrontierQueue } from '../frontier/frontier-queue.js';
import type { ItemsAck } from '../frontier/journal.js';
import type { EngineSource } from './engine-source.js';
import type { Partition } from './handoff-outbox.js';
import type { Item } from './item.js';
import type { BudgetEvent, RateBudgets } from './rate-gate.js';
import type { RoundKeeper, RoundParts } from './rounds.js';

/**
 * The shared-state implementations the engine runs on: the embedded ones (memory and files of
 * this worker) or, later, shared ones. `runtime/` picks them.
 */
export interface EngineBackend {
  frontier: FrontierQueue;
  seen: SeenSet;
  /** The content index over this worker's items file. */
  openContentIndex(files: ContentIndexFiles): ContentDedup;
  /** A shared backend is told how to wake the dispatch loop (leased URLs arrived). */
  attach?(wake: () => void): void;
  /** The item line of `url` is in the journal (in journal order). */
  itemWritten?(url: string): void;
  /**
   * A shared backend's fence before the item of `url` is written: true at once while its lease
   * is surely this machine's, else the answer (false: another machine took the URL; the item is
   * dropped). Absent: always true.
   */
  mayWrite?(url: string): true | Promise<boolean>;
  /**
   * A shared backend's acknowledgement of item lines, made before they reach the items file
   * (through the pending items file, see `ItemsAck`); absent (one box): the item line is the
   * acknowledgement.
   */
  itemsAck?: ItemsAck;
  /** Rounds shared with other machines (continuous collection); default: this worker's own. */
  openRounds?(parts: RoundParts): RoundKeeper;
  /** Let go of shared state, after the journal is closed (unwritten leases given back). */
  close?(): Promise<void>;
}

/** What the crawler needs beyond its options. */
export interface CrawlerDeps {
  /** Worker id, e.g. `crawl-0`: names the items file, state dir and log. */
  workerId: string;
  source: EngineSource;
  log: Logger;
  backend: EngineBackend;
  /** Called on every item written (progress). */
  onItem?: (item: Item) => void;
  /** Called after every HTTP request (each redirect hop), with its duration in ms (metrics). */
  onFetch?: (ms: number) => void;
  /** Called when a host is paused by Retry-After or rate-limit headers, with the pause in ms (metrics). */
  onRateLimitWait?: (ms: number) => void;
  /**
   * Called when a source's rate budget holds a request back (`wait`: primary or secondary, until
   * epoch ms; said for every request held, the counters tell a new wait from one already counted)
   * or when a response was a rate-limit refusal (`refusal`, by kind).
   */
  onBudget?: (event: BudgetEvent) => void;
  /**
   * Told a warning line for a person (a host that does not answer: `127.0.0.1:9: connection
   * refused, retrying in 1.2 s (1/3)`); it is in the log already. Default: the log only.
   */
  onWarning?: (line: string) => void;
  /** Called on every line the source logs (counters). */
  onSourceLog?: (level: 'info' | 'warn' | 'error') => void;
  /** Set when this worker is one of several of its type (DESIGN §1 ownership). */
  partition?: Partition;
  /** The collector's rate budgets (the supervisor's); without it, a source's are kept here. */
  rateBudgets?: RateBudgets;
}
