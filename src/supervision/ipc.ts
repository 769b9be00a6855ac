/**
 * Messages between the supervisor and its worker processes (Node IPC, JSON). Shared state is
 * only counters, the stop signal and status; links travel only to their owner.
 */

import type { SharedCrawlFaultKind } from '../backends/redis/redis-faults.js';
import type { CrawlOptions } from '../config/crawl-options.js';
import type { FailedSeed } from '../engine/crawl-stats.js';
import type { HandoffLink } from '../engine/handoff-outbox.js';
import type { HostPoliteness } from '../frontier/frontier-queue.js';
import type { BudgetKey, Grant } from '../http/rate-budget.js';
import type { SourceRef } from '../sources/load-source.js';
import type { WorkerCounters } from './worker-counters.js';

export type { HandoffLink } from '../engine/handoff-outbox.js';

/** Everything a worker needs to start. Its options are sent parsed (they are plain JSON). */
export interface WorkerInit {
  t: 'init';
  /** e.g. `crawl-1`: names its items file, state dir and log. */
  id: string;
  /** Source name (items' `source`). */
  type: string;
  index: number;
  count: number;
  partition: 'host' | 'url';
  options: CrawlOptions;
  /** All seeds of the type; each worker queues those it owns. */
  seeds: string[];
  /** The type's source, loaded again in the worker. */
  source: SourceRef;
  /** The source's options as written (checked before the start; parsed again in the worker). */
  sourceOptions: Record<string, unknown>;
}

/** Supervisor → worker. */
export type ToWorker =
  | WorkerInit
  /** Links owned by this worker, found by a sibling. */
  | { t: 'links'; links: HandoffLink[] }
  /** Send again every link ever handed to worker number `owner` (it restarted). */
  | { t: 'resend'; owner: number }
  /** Every worker is idle and has every link sent to it: the one-shot crawl is complete; end. */
  | { t: 'complete' }
  | { t: 'stop' }
  /** The memory guard: stop or go on taking new URLs. */
  | { t: 'pause'; paused: boolean }
  /** The answer to a `budget` reserve with its `id`. */
  | { t: 'budget-grant'; id: number; grant: Grant };

/**
 * A worker's use of the collector's rate budgets (held by the supervisor, `rate-budget-desk.ts`):
 * may it send a request now (`reserve`, answered by `budget-grant`), the response it got
 * (`observe`: rate-limit headers only, never credentials), a grant not used (`release`).
 */
export type BudgetMessage =
  | { t: 'budget'; op: 'reserve'; id: number; key: BudgetKey }
  | {
      t: 'budget';
      op: 'observe';
      key: BudgetKey;
      status: number | null;
      headers: Record<string, string>;
      hint?: string;
    }
  | { t: 'budget'; op: 'release'; key: BudgetKey };

/** A worker's counters, sent every second and on idle changes. */
export interface WorkerStats {
  items: number;
  itemsThisRun: number;
  errors: number;
  /** URLs pending: queued, and abandoned in flight at a stop. */
  queued: number;
  inFlight: number;
  bytes: number;
  /** Links received from other workers (for termination detection). */
  received: number;
  /** Nothing queued or in flight. */
  idle: boolean;
  /** Resident set size, bytes. */
  rss: number;
  /** Epoch ms of the last item written. */
  lastProgressAt: number;
  /**
   * Epoch ms of the last moment all its pending work was waiting on its hosts (politeness,
   * Retry-After, slow-down, retry back-off): nothing in flight, no host ready. Not a stall.
   * Absent from workers of an older build.
   */
  waitingAt?: number;
  /** Hosts slowed down, paused or with a long Crawl-delay, and why (at most 10, longest gap first). */
  slowedHosts?: HostPoliteness[];
  skipped: Record<string, number>;
  /** Items without an error, earlier runs included (nothing collected: every seed failed). */
  collected: number;
  /** The first seeds that failed this run. */
  failedSeeds: FailedSeed[];
  /** Errors by kind, bytes, fetch latency, rate-limit waits of this process (status and metrics). */
  counters: WorkerCounters;
  /** `--render`: pages rendered this run; absent without rendering (or from an older build). */
  rendered?: number;
  /** `--render`: the PID of its headless browser while one runs (the supervisor counts its memory). */
  browserPid?: number | null;
}

/** Worker → supervisor. */
export type FromWorker =
  /** Its state is loaded: it takes links and work. */
  | { t: 'ready' }
  | { t: 'handoff'; to: number; links: HandoffLink[] }
  | ({ t: 'stats' } & WorkerStats)
  /** Its run is over (`completed`: nothing left, rather than stopped); the process exits next. */
  | { t: 'exiting'; completed: boolean }
  /** All handoffs to `owner` were sent again (answer to `resend`; the end of a one-shot crawl waits for it). */
  | { t: 'resent'; owner: number; count: number }
  | { t: 'fatal'; message: string }
  /** A line for a person, already in the worker's log (a host that does not answer). */
  | { t: 'warning'; line: string }
  /** The disk is full at `path`: this worker stopped (exit code DISK_FULL_EXIT_CODE); stop them all. */
  | { t: 'diskFull'; path: string }
  /**
   * Its source cannot go on (`HandleResult.stop`: a credential refused): this worker stopped (exit
   * code SOURCE_STOPPED_EXIT_CODE); stop its worker type, and restart none of it.
   */
  | { t: 'sourceStopped'; message: string }
  /**
   * Its shared backend stopped it (Redis out of memory past the bound, the crawl's state in Redis
   * lost; `message` the one line): stop them all, the run ends with the fault's exit code.
   */
  | { t: 'sharedFault'; kind: SharedCrawlFaultKind; message: string }
  | BudgetMessage;
