/**
 * The frontier: per-host queues with a politeness clock. Each host has a slot holding its
 * queue (breadth-first: one FIFO per depth), in-flight count, next-allowed time, crawl-delay,
 * adaptive penalty (429/503) and pause (Retry-After, rate-limit reset). Hosts that may be served
 * sit in a min-heap keyed by the time they become ready, so politeness is a data structure,
 * never a sleep in fetch code (the Scrapy downloader-slot model).
 */
import { hostKey } from '../url/canonicalize.js';
import type { FrontierEntry, FrontierQueue, HostPoliteness } from './frontier-queue.js';
import { type HeapItem, HostHeap } from './host-heap.js';
import { PriorityLane } from './priority-lane.js';

export type { FrontierEntry, HostPoliteness };

/**
 * Smallest step of the 429/503 slow-down, ms: the gap grows by max(--delay, Crawl-delay, this)
 * per 429/503 (see {@link Frontier.slowDown}).
 */
export const SLOW_DOWN_STEP_MS = 250;

/** Each answer that is not 429/503 keeps this fraction of the host's slow-down penalty. */
export const SLOW_DOWN_DECAY = 0.8;

/** A penalty below this (ms) is dropped to 0 by the next answer that is not 429/503. */
const PENALTY_FLOOR_MS = 50;

/** Politeness settings applied to every host. */
export interface PolitenessOptions {
  /** Minimum gap between request starts to one host, ms. */
  delayMs: number;
  /** Extra random gap, uniformly 0..jitter × the host's gap. */
  jitter: number;
  /** Requests in flight at once to one host. */
  hostConcurrency: number;
  /** Largest adaptive penalty after 429/503, ms. Default 60 s. */
  maxPenaltyMs?: number;
  /** Clock in ms (monotonic). Default `performance.now`. */
  now?: () => number;
  /** Random source in [0,1). Default Math.random. */
  random?: () => number;
}

/**
 * A FIFO of strings that compacts as it drains (no per-entry objects): once 1024 or more entries
 * have been taken and they are at least half the array, the rest is copied down, so each entry
 * is copied O(1) times on average. Exported for its unit test.
 */
export class StringFifo {
  items: string[] = [];
  head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(s: string): void {
    this.items.push(s);
  }
  shift(): string {
    const s = this.items[this.head++];
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return s;
  }
}

/** Per-host state: queue, in-flight count and politeness clock. */
class HostSlot implements HeapItem {
  heapKey = 0;
  heapIndex = -1;
  /** Queues by depth; index = depth. */
  buckets: (StringFifo | undefined)[] = [];
  /** Lowest depth that may hold entries. */
  minDepth = 0;
  /** Entries put back after a failure; served before new ones. */
  retries: FrontierEntry[] = [];
  /** URLs pushed with a priority other than 0; made on the first one. */
  lane: PriorityLane | null = null;
  /** URLs in `buckets`. */
  plain = 0;
  queued = 0;
  inFlight = 0;
  /** Earliest start of the next request (delay after the previous start). */
  nextAllowedAt = 0;
  /** No request before this (Retry-After, rate-limit reset, retry backoff). */
  pausedUntil = 0;
  /** robots.txt Crawl-delay, ms. */
  crawlDelayMs = 0;
  /** Adaptive extra gap after 429/503, ms; decays on success. */
  penaltyMs = 0;
  /** Why the host was last slowed or paused (status, Retry-After, rate limit...), for status. */
  reason = '';
  constructor(readonly host: string) {}
  readyAt(): number {
    return Math.max(this.nextAllowedAt, this.pausedUntil);
  }
}

/**
 * Per-host frontier with politeness, in memory: the embedded {@link FrontierQueue}. It does not
 * deduplicate: callers add a URL once (after their seen-set check). One per worker process.
 */
export class Frontier implements FrontierQueue {
  private hosts = new Map<string, HostSlot>();
  private ready = new HostHeap<HostSlot>();
  private queuedCount = 0;
  private inFlightCount = 0;
  /** Idle hosts kept since the last sweep because their clock was still running. */
  private idleKept = 0;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly maxPenaltyMs: number;

  constructor(private readonly opts: PolitenessOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.random = opts.random ?? Math.random;
    this.maxPenaltyMs = opts.maxPenaltyMs ?? 60_000;
  }

  /** URLs waiting (not in flight). */
  get queued(): number {
    return this.queuedCount;
  }

  /** URLs handed out and not yet done or retried. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Hosts known to the frontier. */
  get hostCount(): number {
    return this.hosts.size;
  }

  /**
   * Queue a canonical URL at `depth`; a `priority` above 0 goes before the host's other URLs,
   * below 0 after them.
   */
  push(url: string, depth: number, priority = 0): void {
    const slot = this.slot(hostKey(url));
    if (priority !== 0) {
      if (slot.lane === null) slot.lane = new PriorityLane();
      slot.lane.push(url, depth, priority);
      slot.queued++;
      this.queuedCount++;
      this.schedule(slot);
      return;
    }
    slot.plain++;
    let q = slot.buckets[depth];
    if (q === undefined) {
      q = new StringFifo();
      slot.buckets[depth] = q;
    }
    q.push(url);
    if (depth < slot.minDepth) slot.minDepth = depth;
    slot.queued++;
    this.queuedCount++;
    this.schedule(slot);
  }

  /** See {@link FrontierQueue.plainDepthOf}. */
  plainDepthOf(url: string): number | null {
    const slot = this.hosts.get(hostKey(url));
    if (slot === undefined || slot.plain === 0) return null;
    for (let d = slot.minDepth; d < slot.buckets.length; d++) {
      const q = slot.buckets[d];
      if (q !== undefined && q.items.indexOf(url, q.head) >= 0) return d;
    }
    return null;
  }

  /**
   * Take the next URL whose host may be served now, or null. The host's clock advances:
   * its next request may start after delay (max of --delay and Crawl-delay) + penalty + jitter
   * from this start, and no earlier than the gap after this request completes.
   */
  next(): FrontierEntry | null {
    const slot = this.ready.peek();
    if (slot === undefined) return null;
    const now = this.now();
    if (slot.heapKey > now) return null;
    let entry: FrontierEntry;
    const lane = slot.lane;
    if (slot.retries.length > 0) {
      entry = slot.retries.shift() as FrontierEntry;
    } else if (lane !== null && lane.size > 0 && ((lane.topPriority as number) > 0 || slot.plain === 0)) {
      const p = lane.pop();
      entry = { url: p.url, host: slot.host, depth: p.depth, attempt: 0 };
    } else {
      slot.plain--;
      let d = slot.minDepth;
      let q = slot.buckets[d];
      while (q === undefined || q.length === 0) q = slot.buckets[++d];
      slot.minDepth = d;
      entry = { url: q.shift(), host: slot.host, depth: d, attempt: 0 };
    }
    slot.queued--;
    this.queuedCount--;
    slot.inFlight++;
    this.inFlightCount++;
    const gap = this.gapMs(slot);
    slot.nextAllowedAt = now + gap + (gap > 0 ? this.random() * this.opts.jitter * gap : 0);
    this.schedule(slot);
    return entry;
  }

  /** ms until some host becomes ready (0 if one is ready now, Infinity if none is queued). */
  nextReadyIn(): number {
    const slot = this.ready.peek();
    if (slot === undefined) return Number.POSITIVE_INFINITY;
    return Math.max(0, slot.heapKey - this.now());
  }

  /** The entry finished (success or final failure). A success decays the host's penalty. */
  done(entry: FrontierEntry, success = true): void {
    const slot = this.hosts.get(entry.host);
    if (slot === undefined) return;
    slot.inFlight--;
    this.inFlightCount--;
    if (success && slot.penaltyMs > 0) {
      slot.penaltyMs = slot.penaltyMs < PENALTY_FLOOR_MS ? 0 : slot.penaltyMs * SLOW_DOWN_DECAY;
    }
    this.gapAfterCompletion(slot);
    this.schedule(slot);
  }

  /**
   * Put a failed entry back to be tried again no earlier than `delayMs` from now; the whole
   * host waits (a failing host is not hammered by its other URLs).
   *
   * @param released the entry's slot was already given back with {@link done} (its response had
   *   arrived; what failed came after), so it is not counted out again.
   * @param counts whether this try counts as an attempt (false: the failure was ours, not the
   *   server's, and the URL keeps its retries).
   */
  retry(entry: FrontierEntry, delayMs: number, released = false, counts = true, reason?: string): void {
    const slot = this.slot(entry.host);
    if (!released) {
      slot.inFlight--;
      this.inFlightCount--;
    }
    if (counts) entry.attempt++;
    slot.retries.push(entry);
    slot.queued++;
    this.queuedCount++;
    this.gapAfterCompletion(slot);
    slot.pausedUntil = Math.max(slot.pausedUntil, this.now() + delayMs);
    if (reason !== undefined) slot.reason = reason;
    this.schedule(slot);
  }

  /** Serve no request to `host` for `ms` from now (Retry-After, X-RateLimit-Reset). */
  pauseHost(host: string, ms: number, reason?: string): void {
    const slot = this.slot(host);
    slot.pausedUntil = Math.max(slot.pausedUntil, this.now() + ms);
    if (reason !== undefined) slot.reason = reason;
    this.schedule(slot);
  }

  /**
   * Slow a host down after a 429/503: its gap grows by one step (max of --delay, Crawl-delay and
   * {@link SLOW_DOWN_STEP_MS}), and each later answer that is not 429/503 keeps
   * {@link SLOW_DOWN_DECAY} of it. Additive increase against multiplicative decrease converges:
   * at an error fraction p the penalty settles near p / (1 − p) × step / (1 − decay) (5 steps at
   * 50% errors) instead of walking to the cap, which only a host failing nearly always reaches.
   * @param ceilingMs the server's own Retry-After, ms: the penalty never exceeds what it asked
   *   for (the wait itself is the retry's pause); the cap `maxPenaltyMs` holds regardless.
   * @param reason what slowed it (e.g. `503`, `429 Retry-After 5s`), shown in status.
   */
  slowDown(host: string, ceilingMs?: number, reason?: string): void {
    const slot = this.slot(host);
    const step = Math.max(this.opts.delayMs, slot.crawlDelayMs, SLOW_DOWN_STEP_MS);
    const ceiling = Math.min(this.maxPenaltyMs, ceilingMs ?? Number.POSITIVE_INFINITY);
    slot.penaltyMs = Math.max(0, Math.min(ceiling, slot.penaltyMs + step));
    if (reason !== undefined) slot.reason = reason;
  }

  /**
   * Hosts whose politeness is more than the plain `--delay` now — a slow-down penalty, a pause
   * still running, or a Crawl-delay above the delay — at most `limit` of them, the longest gap
   * first: what status shows and what {@link restore} takes back after a restart.
   */
  politeness(limit = Number.POSITIVE_INFINITY): HostPoliteness[] {
    const now = this.now();
    const out: HostPoliteness[] = [];
    for (const slot of this.hosts.values()) {
      const pausedForMs = Math.max(0, slot.pausedUntil - now);
      if (slot.penaltyMs === 0 && pausedForMs === 0 && slot.crawlDelayMs <= this.opts.delayMs) continue;
      out.push({
        host: slot.host,
        gapMs: Math.round(this.gapMs(slot)),
        penaltyMs: Math.round(slot.penaltyMs),
        pausedForMs: Math.round(pausedForMs),
        crawlDelayMs: slot.crawlDelayMs,
        reason: slot.reason || (slot.crawlDelayMs > 0 ? 'crawl-delay' : ''),
      });
    }
    out.sort((a, b) => b.gapMs + b.pausedForMs - (a.gapMs + a.pausedForMs));
    return out.length > limit ? out.slice(0, limit) : out;
  }

  /**
   * Take back a host's slow-down and pause saved before a restart ({@link politeness}); the
   * larger of what it has and what is restored wins. The Crawl-delay comes back with robots.txt.
   */
  restore(p: Pick<HostPoliteness, 'host' | 'penaltyMs' | 'pausedForMs' | 'reason'>): void {
    const slot = this.slot(p.host);
    slot.penaltyMs = Math.max(slot.penaltyMs, Math.min(this.maxPenaltyMs, Math.max(0, p.penaltyMs)));
    slot.pausedUntil = Math.max(slot.pausedUntil, this.now() + Math.max(0, p.pausedForMs));
    if (p.reason) slot.reason = p.reason;
    this.schedule(slot);
  }

  /** Apply robots.txt Crawl-delay (ms) to a host. */
  setCrawlDelay(host: string, ms: number): void {
    this.slot(host).crawlDelayMs = ms;
  }

  /** Current gap between request starts for a host, ms (without jitter). */
  gapFor(host: string): number {
    const slot = this.hosts.get(host);
    return slot ? this.gapMs(slot) : this.opts.delayMs;
  }

  /**
   * The gap also runs from the end of the previous request (as Heritrix does): the server then
   * never sees two requests closer than the delay, whatever the connect or transfer time.
   */
  private gapAfterCompletion(slot: HostSlot): void {
    const gap = this.gapMs(slot);
    if (gap > 0) {
      const t = this.now() + gap;
      if (t > slot.nextAllowedAt) slot.nextAllowedAt = t;
    }
  }

  private gapMs(slot: HostSlot): number {
    const base = Math.max(slot.crawlDelayMs, this.opts.delayMs);
    return base + slot.penaltyMs;
  }

  private slot(host: string): HostSlot {
    let slot = this.hosts.get(host);
    if (slot === undefined) {
      slot = new HostSlot(host);
      this.hosts.set(host, slot);
    }
    return slot;
  }

  /** Keep the invariant: a host is in the heap iff it has queued URLs and a free host slot. */
  private schedule(slot: HostSlot): void {
    const eligible = slot.queued > 0 && slot.inFlight < this.opts.hostConcurrency;
    if (!eligible) {
      this.ready.remove(slot); // a no-op when it is not in the heap
      if (isIdle(slot)) {
        // Forget idle hosts whose clock no longer matters, so memory does not grow with hosts seen.
        // One whose clock still runs (the gap after a completion always does) is swept later.
        if (slot.readyAt() <= this.now()) this.hosts.delete(slot.host);
        else if (++this.idleKept > Math.max(1024, this.hosts.size >> 1)) this.sweepIdle();
      }
      return;
    }
    const key = slot.readyAt();
    if (slot.heapIndex >= 0) this.ready.update(slot, key);
    else this.ready.push(slot, key);
  }

  /** Drop every idle host whose clock has run out (amortised O(1) per idle transition). */
  private sweepIdle(): void {
    this.idleKept = 0;
    const now = this.now();
    for (const [host, slot] of this.hosts) if (isIdle(slot) && slot.readyAt() <= now) this.hosts.delete(host);
  }
}

/** No URL queued or in flight, and nothing to remember (Crawl-delay, penalty) but the clock. */
function isIdle(slot: HostSlot): boolean {
  return slot.queued === 0 && slot.inFlight === 0 && slot.crawlDelayMs === 0 && slot.penaltyMs === 0;
}
