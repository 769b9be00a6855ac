/**
 * Counters one worker process keeps for status and metrics beyond the crawler's own stats:
 * items and errors by kind, body bytes, fetch latency (histogram buckets), rate-limit waits (host
 * pauses and a source's rate budget: GitHub's primary and secondary limits) and refusals, and the
 * source's warnings.
 * They count from the process's start; {@link CarriedCounters} adds up a worker's successive
 * processes so totals never go back when a worker is restarted.
 */

import type { BudgetEvent } from '../engine/rate-gate.js';

/** Upper bounds of the fetch latency buckets, ms (the last bucket, +Inf, is implicit). */
export const LATENCY_BUCKETS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000] as const;

/** Counters of one worker process (or, carried, of a worker over its restarts). */
export interface WorkerCounters {
  /** Item lines written. */
  items: number;
  /** Items that count as errors, by `error.kind` (`store` for a body that could not be written). */
  errorsByKind: Record<string, number>;
  /** Body bytes of the items written (after Content-Encoding removal). */
  bytes: number;
  /** Fetch latency: requests per bucket of {@link LATENCY_BUCKETS_MS} plus +Inf (not cumulative). */
  fetchBuckets: number[];
  /** Sum of the fetch latencies, ms. */
  fetchMsSum: number;
  /** Requests timed (every HTTP request of a page, redirect hops included). */
  fetches: number;
  /**
   * Rate-limit waits: times a host was paused by Retry-After or rate-limit headers, and waits of a
   * source's rate budget this process met (each wait once, however many requests it held back).
   */
  rateLimitWaits: number;
  /** Total of those waits, ms. */
  rateLimitWaitMs: number;
  /** `rateLimitWaits` by kind: `host` (a host's pause), `primary`, `secondary` (a rate budget's). */
  rateLimitWaitsByKind: Record<string, number>;
  /** Responses that were rate-limit refusals, by kind: `primary`, `secondary`, `retry-after`. */
  rateLimitRefusals: Record<string, number>;
  /** Warning lines the source logged (`ctx.log.warn`; see the worker's log). */
  sourceWarnings: number;
  /** Error lines the source logged (`ctx.log.error`, a failed `seeds()`). */
  sourceErrors: number;
}

/** Zeroed counters. */
export function emptyCounters(): WorkerCounters {
  return {
    items: 0,
    errorsByKind: {},
    bytes: 0,
    fetchBuckets: new Array(LATENCY_BUCKETS_MS.length + 1).fill(0),
    fetchMsSum: 0,
    fetches: 0,
    rateLimitWaits: 0,
    rateLimitWaitMs: 0,
    rateLimitWaitsByKind: {},
    rateLimitRefusals: {},
    sourceWarnings: 0,
    sourceErrors: 0,
  };
}

/** `a + b` of two counts by kind (absent: none, as in a report from before the field existed). */
function addByKind(
  a: Record<string, number> | undefined,
  b: Record<string, number> | undefined,
): Record<string, number> {
  const sum = { ...a };
  for (const [k, n] of Object.entries(b ?? {})) sum[k] = (sum[k] ?? 0) + n;
  return sum;
}

/** `a + b`, field by field (a new object). */
export function addCounters(a: WorkerCounters, b: WorkerCounters): WorkerCounters {
  const errorsByKind = addByKind(a.errorsByKind, b.errorsByKind);
  return {
    items: a.items + b.items,
    errorsByKind,
    bytes: a.bytes + b.bytes,
    fetchBuckets: a.fetchBuckets.map((n, i) => n + (b.fetchBuckets[i] ?? 0)),
    fetchMsSum: a.fetchMsSum + b.fetchMsSum,
    fetches: a.fetches + b.fetches,
    rateLimitWaits: a.rateLimitWaits + b.rateLimitWaits,
    rateLimitWaitMs: a.rateLimitWaitMs + b.rateLimitWaitMs,
    rateLimitWaitsByKind: addByKind(a.rateLimitWaitsByKind, b.rateLimitWaitsByKind),
    rateLimitRefusals: addByKind(a.rateLimitRefusals, b.rateLimitRefusals),
    // Absent in a report from before these counters existed.
    sourceWarnings: (a.sourceWarnings ?? 0) + (b.sourceWarnings ?? 0),
    sourceErrors: (a.sourceErrors ?? 0) + (b.sourceErrors ?? 0),
  };
}

/** What the counters read of an item line (DESIGN §4). */
export interface CountedItem {
  bytes: number;
  error?: { kind: string };
  data?: Record<string, unknown>;
}

/** The counters of this process, fed by the crawler's hooks (`onItem`, `onFetch`, `onRateLimitWait`). */
export class CounterSet {
  private readonly c = emptyCounters();
  /** End of the last counted wait per budget scope and reason (epoch ms). */
  private readonly waitEnds = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An item line was written. */
  item(item: CountedItem): void {
    this.c.items++;
    this.c.bytes += item.bytes || 0;
    const kind = item.error?.kind ?? (item.data?.storeError !== undefined ? 'store' : null);
    if (kind !== null) this.c.errorsByKind[kind] = (this.c.errorsByKind[kind] ?? 0) + 1;
  }

  /** One HTTP request took `ms` (headers and body). */
  fetch(ms: number): void {
    let i = LATENCY_BUCKETS_MS.findIndex((b) => ms <= b);
    if (i < 0) i = LATENCY_BUCKETS_MS.length;
    this.c.fetchBuckets[i]++;
    this.c.fetchMsSum += ms;
    this.c.fetches++;
  }

  /** A host was paused for `ms` by Retry-After or rate-limit headers. */
  rateLimitWait(ms: number): void {
    this.c.rateLimitWaits++;
    this.c.rateLimitWaitMs += ms;
    this.kind(this.c.rateLimitWaitsByKind, 'host');
  }

  /**
   * A source's rate budget held a request back, or a response was a rate-limit refusal. A wait is
   * counted once, when the first request it holds back meets it; a wait that is lengthened (a
   * later reset, a longer Retry-After) adds only the extra time.
   */
  budget(event: BudgetEvent): void {
    if (event.kind === 'refusal') {
      this.kind(this.c.rateLimitRefusals, event.refusal);
      return;
    }
    const key = `${event.scope} ${event.reason}`;
    const now = this.now();
    const end = this.waitEnds.get(key) ?? 0;
    if (event.until <= end || event.until <= now) return;
    if (end <= now) {
      this.c.rateLimitWaits++;
      this.kind(this.c.rateLimitWaitsByKind, event.reason);
    }
    this.c.rateLimitWaitMs += event.until - Math.max(now, end);
    this.waitEnds.set(key, event.until);
  }

  private kind(counts: Record<string, number>, kind: string): void {
    counts[kind] = (counts[kind] ?? 0) + 1;
  }

  /** The source logged a line (warnings and errors are counted). */
  sourceLog(level: 'info' | 'warn' | 'error'): void {
    if (level === 'warn') this.c.sourceWarnings++;
    else if (level === 'error') this.c.sourceErrors++;
  }

  /** A copy of the counters (safe to send or keep). */
  snapshot(): WorkerCounters {
    return addCounters(emptyCounters(), this.c);
  }
}

/**
 * A worker's counters over all its processes: the last report of each earlier process is kept
 * when a new process (another pid) starts reporting, and added to the current one. A process
 * killed between two reports loses at most its last second of counts.
 */
export class CarriedCounters {
  private readonly byWorker = new Map<string, { pid: number; base: WorkerCounters; last: WorkerCounters }>();

  /** The latest counters of worker `id`'s process `pid`. */
  report(id: string, pid: number, counters: WorkerCounters): void {
    const w = this.byWorker.get(id);
    if (!w) this.byWorker.set(id, { pid, base: emptyCounters(), last: counters });
    else if (w.pid !== pid) this.byWorker.set(id, { pid, base: addCounters(w.base, w.last), last: counters });
    else w.last = counters;
  }

  /** Worker `id`'s counters since the supervisor started (zeros before its first report). */
  total(id: string): WorkerCounters {
    const w = this.byWorker.get(id);
    return w ? addCounters(w.base, w.last) : emptyCounters();
  }
}
