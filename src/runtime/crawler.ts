/**
 * The worker loop: takes URLs from the frontier when their host allows, fetches them hop by hop,
 * hands responses to the source, stores bodies, and acknowledges each URL with exactly one item
 * line. Links go back through scope and the seen-set into the frontier. Reads top to bottom:
 * run → dispatch → process (robots → hops → retry/final) → finish (store → item).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { CrawlOptions } from '../config/crawl-options.js';
import { ContentIndex, type ContentKey, contentKeyFromHex } from '../dedup/content-index.js';
import { FingerprintSet } from '../dedup/fingerprint-set.js';
import { Frontier, type FrontierEntry } from '../frontier/frontier.js';
import { Journal, readHandoffs, recoverJournal } from '../frontier/journal.js';
import { SpillQueue } from '../frontier/spill-queue.js';
import type { FetchError, FetchErrorKind } from '../http/fetch-error.js';
import { decodeContent } from '../http/decompress.js';
import { Fetcher, type HopResponse, responseHeader } from '../http/fetcher.js';
import {
  backoffMs,
  parseRetryAfter,
  RETRYABLE_STATUS,
  rateLimitPauseMs,
  SLOW_DOWN_STATUS,
} from '../http/retry-policy.js';
import { ROBOTS_DEFAULTS, RobotsCache } from '../http/robots.js';
import type { Source } from '../sources/source.js';
import { canonicalize, hostKey } from '../url/canonicalize.js';
import { hash32 } from '../url/fingerprint.js';
import { Scope, type ScopeVerdict } from '../url/scope.js';
import { SessionIdStripper } from '../url/session-ids.js';
import { HopTrail } from '../engine/hop-trail.js';
import { NearDuplicateWatch } from '../engine/near-duplicates.js';
import { openPageProcessor, type PageProcessor, PageThreadLost } from './page-processor.js';
import type { PageDone } from './page-work.js';

/** Smallest body limit for robots.txt (RFC 9309 §2.5: a parsing limit of at least 500 KiB). */
const ROBOTS_MIN_PARSE_BYTES = 512 * 1024;

/** Free tries of a URL whose page went with a dead page thread; past this, tries count. */
const LOST_FREE_TRIES = 3;

/** Largest number of redirect hops followed for one URL. */
export const MAX_REDIRECTS = 10;

/** Trap links logged per reason (`trap link skipped`); past this they are only counted in the stats. */
export const TRAP_LOG_LIMIT = 100;

/** Counters of one worker, reported in status and the progress line. */
export interface CrawlStats {
  /** Items written (URLs attempted to the end), including those from before a resume. */
  items: number;
  /** Items with an `error`. */
  errors: number;
  /** Body bytes received this session (after decompression). */
  bytes: number;
  /** Retries scheduled. */
  retries: number;
  /** Links not followed, by reason. */
  skipped: Record<Exclude<ScopeVerdict, 'ok'> | 'depth', number>;
  /** Items written this session (excludes resumed ones). */
  itemsThisRun: number;
}

/** One item line (DESIGN §4). */
export interface Item {
  url: string;
  finalUrl: string;
  status: number | null;
  contentType: string | null;
  fetchedAt: string;
  depth: number;
  source: string;
  worker: string;
  bytes: number;
  sha256: string | null;
  title?: string | null;
  file?: string;
  error?: { kind: FetchErrorKind; message: string };
  data?: Record<string, unknown>;
}

/** What the crawler needs beyond its options. */
export interface CrawlerDeps {
  /** Worker id, e.g. `crawl-0`: names the items file, state dir and log. */
  workerId: string;
  source: Source;
  log: Logger;
  /** Called on every item written (progress). */
  onItem?: (item: Item) => void;
  /** Set when this worker is one of several of its type (DESIGN §1 ownership). */
  partition?: Partition;
}

/**
 * Ownership among the `count` workers of one type: a URL belongs to worker
 * `hash(host) mod count` (or `hash(url) mod count` with `by: 'url'`); links owned by another
 * worker are handed to it, so no URL is fetched twice without a shared seen-set.
 */
export interface Partition {
  /** This worker's number, 0-based. */
  index: number;
  /** Workers of this type. */
  count: number;
  /** What is hashed: the host (politeness stays in one process) or the whole URL (one big site). */
  by: 'host' | 'url';
  /** Send links to their owner (batched by the crawler). */
  handoff(owner: number, links: Array<[url: string, depth: number]>): void;
  /** Called when the worker becomes idle (nothing queued or in flight) or busy again. */
  onIdle(idle: boolean): void;
}

/** The owner of `url` among `count` workers. */
export function ownerOf(url: string, count: number, by: 'host' | 'url'): number {
  if (count <= 1) return 0;
  return hash32(by === 'host' ? hostKey(url) : url) % count;
}

type Outcome =
  /** `bodyId`: a decoded body the page processor keeps for this item (stored or dropped in finish). */
  | { kind: 'item'; item: Item; bodyId?: number; links?: string[] }
  /** `free`: the try does not count against `--retries` (the failure was ours, not the server's). */
  | { kind: 'retry'; delayMs: number; free?: boolean }
  /** A refresh redirect to follow: the entry goes back to its host's queue (politeness) and its
   * next try continues the trail kept in `refreshTrails`. */
  | { kind: 'hop' };

/**
 * Content-index work left for an item between `final()` and `writeItem()`: an original commits
 * its line number once written; a duplicate whose original is not in memory resolves its URL.
 */
type ContentTicket =
  | { kind: 'original'; key: ContentKey }
  | { kind: 'duplicate'; ordinal: number; round: number };

/** One crawl worker. Create, `start()`, then `run()`; `stop()` ends it gracefully. */
export class Crawler {
  readonly stats: CrawlStats = {
    items: 0,
    errors: 0,
    bytes: 0,
    retries: 0,
    skipped: {
      'out-of-scope': 0,
      excluded: 0,
      'trap-length': 0,
      'trap-repeat': 0,
      'trap-query': 0,
      'trap-shape': 0,
      depth: 0,
    },
    itemsThisRun: 0,
  };
  readonly frontier: Frontier;
  private readonly seen = new FingerprintSet(1 << 14);
  /** Body SHA-256 (first 64 bits) → items-file line of the item that stored it (content dedup). */
  private readonly contentIndex: ContentIndex;
  private readonly contentTickets = new WeakMap<Item, ContentTicket>();
  private readonly scope: Scope;
  private readonly fetcher: Fetcher;
  private readonly robots: RobotsCache | null;
  private readonly pages: PageProcessor;
  private nextPageId = 1;
  private journal!: Journal;
  private spill!: SpillQueue;
  private refilling = false;
  private readonly stopController = new AbortController();
  private stopping = false;
  private active = 0;
  private dispatched = 0;
  /** Items found in the items file at resume. */
  private resumedItems = 0;
  private pendingBytes = 0;
  private readonly writes = new Set<Promise<void>>();
  private wake: (() => void) | null = null;
  private finishRequested = false;
  private readonly ownedSeeds: string[] = [];
  /** Continuous mode: round number and when the next round starts (epoch ms, 0 = not scheduled). */
  private round = 0;
  private nextRoundAt = 0;
  private paused = false;
  private idleReported = false;
  private readonly outbox = new Map<number, Array<[string, number]>>();
  private outboxScheduled = false;
  private readonly lastFailure = new Map<string, Item>();
  /** Redirect targets a URL's earlier tries added to the seen-set: its retry may follow them again. */
  private readonly ownHops = new Map<string, Set<string>>();
  private readonly crawlDelaySet = new Set<string>();
  /** Entries already counted against --max-pages (a free retry keeps attempt 0). */
  private readonly counted = new WeakSet<FrontierEntry>();
  /** Free retries of a URL after losing its page to a dead page thread (capped: LOST_FREE_TRIES). */
  private readonly lostTries = new Map<string, number>();
  /** Entries whose host slot was given back when their response arrived (see final()). */
  private readonly released = new WeakSet<FrontierEntry>();
  /** Session-id removal from every link, seed and redirect target (`--keep-param`). */
  private readonly sessionIds: SessionIdStripper;
  /** Calendar-trap feedback: near-duplicate pages of one URL shape freeze it in the scope. */
  private readonly nearDuplicates: NearDuplicateWatch;
  /** Hop trails of URLs whose page was a refresh redirect, continued at their next try. */
  private readonly refreshTrails = new Map<string, HopTrail>();

  constructor(
    private readonly opts: CrawlOptions,
    private readonly deps: CrawlerDeps,
  ) {
    this.frontier = new Frontier({
      delayMs: opts.delay,
      jitter: opts.jitter,
      hostConcurrency: opts.hostConcurrency,
      maxPenaltyMs: opts.maxRetryAfter,
    });
    this.fetcher = new Fetcher({
      userAgent: opts.userAgent,
      timeoutMs: opts.timeout,
      maxBytes: opts.maxBytes,
      connections: opts.hostConcurrency,
      proxy: opts.proxy,
      cookies: opts.cookies,
      maxHeaderBytes: opts.maxHeaderBytes,
    });
    this.scope = new Scope({
      mode: opts.scope,
      seeds: [],
      include: opts.include,
      exclude: opts.exclude,
      maxUrlLength: opts.maxUrlLength,
      maxPathRepeat: opts.maxPathRepeat,
      maxQueryVariants: opts.maxQueryVariants,
      maxShapeVariants: opts.maxShapeVariants,
    });
    this.sessionIds = new SessionIdStripper(opts.keepParams);
    this.nearDuplicates = new NearDuplicateWatch(this.scope, (shape, url) =>
      this.deps.log.info({ shape, url }, 'url shape closed: near-duplicate pages'),
    );
    this.robots = opts.robots
      ? new RobotsCache({
          userAgent: opts.userAgent,
          // an unavailable robots.txt is fetched again when the URLs it blocked are retried
          errorRetryMs: Math.min(ROBOTS_DEFAULTS.errorRetryMs, opts.maxRetryAfter),
          fetch: async (url) => {
            // RFC 9309 §2.5: parse at least 500 KiB of a robots.txt, whatever --max-bytes says.
            const limit = Math.max(this.opts.maxBytes, ROBOTS_MIN_PARSE_BYTES);
            const r = await this.fetcher.fetchHop(url, this.stopController.signal, true, limit);
            return { status: r.status, location: r.location, body: r.body.toString('utf8') };
          },
        })
      : null;
    this.pages = openPageProcessor(deps.source, {
      outDir: opts.out,
      storeBodies: opts.storeBodies,
      thread: opts.pageThread,
      maxBytes: opts.maxBytes,
    });
    this.contentIndex = new ContentIndex({ itemsPath: this.itemsPath, flush: () => this.journal.flush() });
  }

  private get itemsPath(): string {
    return path.join(this.opts.out, 'items', `${this.deps.workerId}.jsonl`);
  }

  private get stateDir(): string {
    return path.join(this.opts.out, 'state', this.deps.workerId);
  }

  /**
   * Open the journal; on resume restore the frontier (enqueued minus done) and the seen-set;
   * then add the seeds (already-seen seeds are not queued again).
   * @param seeds canonical seed URLs.
   */
  async start(given: string[]): Promise<void> {
    const seeds = given.map((s) => this.sessionIds.strip(s));
    for (const s of seeds) this.scope.addSeed(s);
    await mkdir(this.stateDir, { recursive: true });
    this.spill = await SpillQueue.open(path.join(this.stateDir, 'spill.log'));
    if (this.opts.resume) {
      const rec = await recoverJournal(
        { stateDir: this.stateDir, itemsPath: this.itemsPath },
        this.seen,
        (it, line) => this.countRecovered(it, line.index),
        (line) => this.contentIndex.appendLine(line.bytes),
      );
      for (const p of rec.pending) this.queue(p.url, p.depth);
      this.deps.log.info(
        { pending: rec.pending.length, done: rec.done, repairedBytes: rec.repairedBytes },
        'resumed',
      );
    }
    this.journal = await Journal.open({
      stateDir: this.stateDir,
      itemsPath: this.itemsPath,
      saveEveryItems: this.opts.saveEveryItems,
      saveIntervalMs: this.opts.saveInterval,
    });
    const part = this.deps.partition;
    if (part && this.opts.resume) {
      // URLs already handed to their owners count as seen here.
      for (let o = 0; o < part.count; o++) {
        if (o !== part.index) await readHandoffs(this.stateDir, o, (url) => this.seen.add(url));
      }
    }
    for (const s of seeds) {
      if (part === undefined || ownerOf(s, part.count, part.by) === part.index) {
        this.ownedSeeds.push(s);
        this.enqueue(s, 0);
      }
    }
  }

  /**
   * Continuous collection: fetch the owned seeds again (bypassing the seen-set) so new links are
   * found; a seed whose body is unchanged is recorded with `data.unchanged` and not stored again.
   */
  startRound(): void {
    this.round++;
    for (const s of this.ownedSeeds) {
      this.frontier.push(s, 0);
      this.journal.enqueued(s, 0);
    }
    this.deps.log.info({ round: this.round, seeds: this.ownedSeeds.length }, 'round started');
  }

  /** Links handed to this worker by their discoverer (already scope-checked there). */
  receive(links: Array<[url: string, depth: number]>): void {
    for (const [url, depth] of links) this.enqueue(url, depth);
    this.wakeUp();
  }

  /**
   * Send again to worker `owner` every URL ever handed to it (after it restarted: whatever it
   * had not saved is queued again; its seen-set drops the rest).
   */
  async resendHandoffs(owner: number): Promise<number> {
    const part = this.deps.partition;
    if (!part) return 0;
    await this.journal.flush();
    let batch: Array<[string, number]> = [];
    let n = 0;
    await readHandoffs(this.stateDir, owner, (url, depth) => {
      batch.push([url, depth]);
      n++;
      if (batch.length >= 1000) {
        part.handoff(owner, batch);
        batch = [];
      }
    });
    if (batch.length > 0) part.handoff(owner, batch);
    return n;
  }

  /** Pause or resume taking new URLs (the memory guard); in-flight requests go on. */
  setPaused(paused: boolean): void {
    this.paused = paused;
    this.wakeUp();
  }

  /** Requests in flight, including bodies waiting for the disk. */
  get busy(): number {
    return this.active;
  }

  /** In a multi-process crawl: end `run()` once idle (the supervisor saw every worker idle). */
  finishWhenIdle(): void {
    this.finishRequested = true;
    this.wakeUp();
  }

  /** A resumed item: counters, and the content index when it stored a body (`ordinal` = its line). */
  private countRecovered(it: Record<string, unknown>, ordinal: number): void {
    this.stats.items++;
    this.resumedItems++;
    if (countsAsError(it)) this.stats.errors++;
    const sha = it.sha256;
    const data = it.data as Record<string, unknown> | undefined;
    if (typeof sha === 'string' && typeof it.file === 'string' && !data?.duplicateOf) {
      const key = contentKeyFromHex(sha);
      if (key !== null) this.contentIndex.add(key, ordinal);
    }
  }

  /** Add a canonical URL to the frontier if it is new. @returns whether it was queued. */
  private enqueue(url: string, depth: number): boolean {
    if (!this.seen.add(url)) return false;
    this.queue(url, depth);
    this.journal.enqueued(url, depth);
    return true;
  }

  /** Into the in-memory frontier, or, past its budget (and while anything is spilled), to disk. */
  private queue(url: string, depth: number): void {
    if (this.spill.size > 0 || this.frontier.queued >= this.opts.maxQueuedInMemory)
      this.spill.push(url, depth);
    else this.frontier.push(url, depth);
  }

  /** Read spilled URLs back once the in-memory queue is down to half its budget. */
  private refill(): void {
    if (this.refilling || this.spill.size === 0) return;
    const room = this.opts.maxQueuedInMemory - this.frontier.queued;
    if (room < this.opts.maxQueuedInMemory / 2) return;
    this.refilling = true;
    this.spill.take(room).then(
      (entries) => {
        for (const [url, depth] of entries) this.frontier.push(url, depth);
        this.refilling = false;
        this.wakeUp();
      },
      (e: Error) => {
        this.deps.log.error({ err: e.message }, 'reading the spilled frontier failed');
        this.refilling = false;
        this.wakeUp();
      },
    );
  }

  /** Ask the crawl to stop: no new requests; in-flight ones get `joinTimeout` to finish. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.wakeUp();
  }

  /** Abandon in-flight requests now (second signal). State stays consistent. */
  abort(): void {
    this.stop();
    this.stopController.abort();
    this.fetcher.abortAll();
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private budgetLeft(): boolean {
    return this.opts.maxPages === undefined || this.resumedItems + this.dispatched < this.opts.maxPages;
  }

  /**
   * Crawl until the frontier is empty, `maxPages` is reached, or `stop()`.
   * @returns true when finished (frontier drained), false when stopped early.
   */
  async run(): Promise<boolean> {
    const concurrency = this.opts.concurrency;
    while (!this.stopping) {
      while (this.active < concurrency && this.pendingBytes < this.opts.maxPendingBytes && !this.paused) {
        if (!this.budgetLeft()) break;
        const entry = this.frontier.next();
        if (entry === null) break;
        if (entry.attempt === 0 && !this.counted.has(entry)) {
          this.counted.add(entry);
          this.dispatched++;
        }
        this.active++;
        void this.process(entry).finally(() => {
          this.active--;
          this.wakeUp();
        });
      }
      this.refill();
      const idle = this.active === 0 && this.pendingBytes === 0;
      const queued = this.frontier.queued > 0 || this.spill.size > 0 || this.refilling;
      const drained = idle && (!queued || (!this.budgetLeft() && this.frontier.inFlight === 0));
      const part = this.deps.partition;
      if (drained && part === undefined) break;
      if (part !== undefined) {
        // Several workers: idle is reported, and only the supervisor decides that all are done.
        if (drained) {
          this.flushOutbox();
          // Nothing else to do: make the items visible now rather than at the next save.
          if (this.journal.pendingItems > 0) void this.journal.flush().catch(() => {});
        }
        if (drained !== this.idleReported) {
          this.idleReported = drained;
          part.onIdle(drained);
        }
        if (drained && this.finishRequested) break;
        if (drained && this.opts.interval !== undefined && !this.stopping) {
          const now = Date.now();
          if (this.nextRoundAt === 0) this.nextRoundAt = now + this.opts.interval;
          else if (now >= this.nextRoundAt) {
            this.nextRoundAt = 0;
            this.startRound();
            continue;
          }
        }
      }
      const wait = Math.min(this.frontier.nextReadyIn(), 1000);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
    this.flushOutbox();
    const finished = !this.stopping;
    await this.drain();
    return finished;
  }

  /** Wait for in-flight work (up to joinTimeout, then abort it), then flush everything. */
  private async drain(): Promise<void> {
    if (this.active > 0) {
      const deadline = Date.now() + this.opts.joinTimeout;
      while (this.active > 0 && Date.now() < deadline && !this.stopController.signal.aborted) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 50);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
      if (this.active > 0) {
        this.stopController.abort();
        this.fetcher.abortAll();
      }
      while (this.active > 0) await new Promise((r) => setTimeout(r, 10));
    }
    // URLs waiting for a retry when the page budget ran out get their last failure as final item.
    if (!this.stopping) {
      for (const item of this.lastFailure.values()) this.writeItem(item);
      this.lastFailure.clear();
    }
    await Promise.all(this.writes);
  }

  /** Close the journal, sinks and connections. */
  async close(): Promise<void> {
    await this.journal?.close();
    await this.spill?.close();
    await this.pages.close();
    await this.fetcher.close();
  }

  private async process(entry: FrontierEntry): Promise<void> {
    let outcome: Outcome | null;
    try {
      outcome = await this.attempt(entry);
    } catch (e) {
      // Abandoned at stop: no item; the URL stays pending for --resume.
      if (this.stopController.signal.aborted) {
        this.settle(entry, false);
        return;
      }
      this.deps.log.error({ url: entry.url, err: e }, 'unexpected error');
      outcome = { kind: 'item', item: this.errorItem(entry, entry.url, 'network', String(e), null) };
    }
    if (outcome === null) {
      this.settle(entry, false);
      return;
    }
    if (outcome.kind === 'hop') {
      this.frontier.retry(entry, 0, this.released.delete(entry), false);
      return;
    }
    if (outcome.kind === 'retry') {
      this.stats.retries++;
      this.frontier.retry(entry, outcome.delayMs, this.released.delete(entry), !outcome.free);
      return;
    }
    this.lastFailure.delete(entry.url);
    // Any answer but 429/503 lets the host's slow-down penalty decay: a 404 does not mean "too fast".
    const answered = outcome.item.status !== null && !SLOW_DOWN_STATUS.has(outcome.item.status);
    this.settle(entry, answered);
    const { item, bodyId, links } = outcome;
    if (links) this.follow(links, entry.depth + 1);
    await this.finish(entry, item, bodyId);
  }

  /**
   * Whether a URL whose page was lost with a dead page thread gets a free try: at most
   * LOST_FREE_TRIES (a thread that dies at every start must not loop the crawl forever).
   */
  private freeLostTry(url: string): boolean {
    const n = (this.lostTries.get(url) ?? 0) + 1;
    this.lostTries.set(url, n);
    return n <= LOST_FREE_TRIES;
  }

  /** Give the entry's host slot back, unless final() already did. */
  private settle(entry: FrontierEntry, answered: boolean): void {
    if (this.released.has(entry)) this.released.delete(entry);
    else this.frontier.done(entry, answered);
  }

  /** One try of one URL, through robots and redirects. null = abandoned at stop. */
  private async attempt(entry: FrontierEntry): Promise<Outcome | null> {
    // A try after a refresh redirect goes on from where that one stopped.
    const trail =
      this.refreshTrails.get(entry.url) ?? new HopTrail(entry.url, this.fetcher.sessionState(entry.url));
    this.refreshTrails.delete(entry.url);
    let url = trail.last;
    const denied = await this.robotsCheck(entry, url);
    if (denied) return denied;
    for (;;) {
      let res: HopResponse;
      try {
        res = await this.fetcher.fetchHop(url, this.stopController.signal, false);
      } catch (e) {
        if (this.stopController.signal.aborted) return null;
        const fe = e as FetchError;
        const retryable = fe.kind === 'network' || fe.kind === 'timeout';
        return this.failure(entry, url, fe.kind, fe.message, fe.status, retryable, null);
      }
      this.applyRateLimit(entry.host, res);
      if (res.location !== null) {
        const target = canonicalize(res.location, url);
        if (target === null) {
          return this.final(entry, res, url, {
            redirectTo: res.location,
            note: 'redirect to a non-http(s) URL',
          });
        }
        const next = await this.redirectHop(entry, trail, res, this.sessionIds.strip(target));
        if (typeof next !== 'string') return next;
        url = next;
        continue;
      }
      if (RETRYABLE_STATUS.has(res.status)) {
        if (SLOW_DOWN_STATUS.has(res.status)) this.frontier.slowDown(entry.host);
        const retryAfter = parseRetryAfter(responseHeader(res.headers, 'retry-after'));
        return this.failure(
          entry,
          url,
          'http-status',
          `HTTP ${res.status}`,
          res.status,
          true,
          retryAfter,
          res,
        );
      }
      return this.final(entry, res, url, undefined, trail);
    }
  }

  /**
   * One redirect hop (a 3xx Location, or a page's refresh redirect) to canonical `target`:
   * checked for a loop (the same URL with the same cookies again), the hop limit, scope, the
   * seen-set and robots.txt.
   * @returns the URL to fetch next, or the outcome that ends this try.
   */
  private async redirectHop(
    entry: FrontierEntry,
    trail: HopTrail,
    res: HopResponse,
    target: string,
  ): Promise<Outcome | string> {
    const state = this.fetcher.sessionState(target);
    if (trail.repeats(target, state)) {
      const chain = `${[...trail.urls, target].join(' -> ')}`;
      return this.failure(entry, target, 'redirect-loop', `redirect loop: ${chain}`, res.status, false, null);
    }
    if (trail.redirects >= MAX_REDIRECTS) {
      const message = `more than ${MAX_REDIRECTS} redirects`;
      return this.failure(entry, target, 'redirect-loop', message, res.status, false, null);
    }
    const verdict = this.scope.check(target);
    if (verdict !== 'ok') {
      const message = `redirect to ${target} (${verdict})`;
      return this.failure(entry, target, 'out-of-scope', message, res.status, false, null);
    }
    // A URL of this very trail (a cookie wall's redirect to itself) is this try's own.
    if (!trail.has(target) && !this.seen.add(target) && !this.ownHops.get(entry.url)?.has(target)) {
      // Already collected or queued under its own URL: record the redirect, do not fetch twice.
      return {
        kind: 'item',
        item: this.redirectItem(entry, res, target, { redirectTo: target, redirectSeen: true }),
      };
    }
    const own = this.ownHops.get(entry.url) ?? new Set<string>();
    this.ownHops.set(entry.url, own.add(target));
    trail.add(target, state);
    const deniedHop = await this.robotsCheck(entry, target);
    return deniedHop ?? target;
  }

  /** The item of a redirect that ends a try without a page: the hop's status, no body. */
  private redirectItem(
    entry: FrontierEntry,
    res: HopResponse,
    finalUrl: string,
    data: Record<string, unknown>,
  ): Item {
    const item = this.baseItem(entry, finalUrl, res.status, res.contentType);
    item.data = data;
    return item;
  }

  /** robots.txt gate for one hop. @returns an outcome when the URL may not be fetched. */
  private async robotsCheck(entry: FrontierEntry, url: string): Promise<Outcome | null> {
    if (this.robots === null) return null;
    const verdict = this.robots.peek(url) ?? (await this.robots.check(url));
    if (verdict.crawlDelayMs !== null && verdict.crawlDelayMs > 0 && !this.crawlDelaySet.has(entry.host)) {
      this.crawlDelaySet.add(entry.host);
      this.frontier.setCrawlDelay(entry.host, Math.min(verdict.crawlDelayMs, this.opts.maxRetryAfter));
    }
    if (verdict.allowed) return null;
    if (verdict.reason === 'unavailable') {
      return this.failure(
        entry,
        url,
        'robots-disallowed',
        'robots.txt unavailable (5xx or unreachable)',
        null,
        true,
        Math.min(ROBOTS_DEFAULTS.errorRetryMs, this.opts.maxRetryAfter),
      );
    }
    return this.failure(entry, url, 'robots-disallowed', 'disallowed by robots.txt', null, false, null);
  }

  private applyRateLimit(host: string, res: HopResponse): void {
    const h = res.headers;
    const pause = rateLimitPauseMs(
      responseHeader(h, 'x-ratelimit-remaining') ?? responseHeader(h, 'ratelimit-remaining'),
      responseHeader(h, 'x-ratelimit-reset') ?? responseHeader(h, 'ratelimit-reset'),
    );
    if (pause !== null && pause > 0) this.frontier.pauseHost(host, Math.min(pause, this.opts.maxRetryAfter));
  }

  /** A failed try: retried while attempts remain, else a final error item. */
  private failure(
    entry: FrontierEntry,
    url: string,
    kind: FetchErrorKind,
    message: string,
    status: number | null,
    retryable: boolean,
    retryAfterMs: number | null,
    res?: HopResponse,
  ): Outcome {
    const item = this.errorItem(entry, url, kind, message, status, res);
    if (retryable && entry.attempt < this.opts.retries && !this.stopping) {
      this.lastFailure.set(entry.url, item);
      const delayMs = backoffMs(
        entry.attempt + 1,
        this.opts.retryBackoff,
        retryAfterMs,
        this.opts.maxRetryAfter,
      );
      return { kind: 'retry', delayMs };
    }
    return { kind: 'item', item };
  }

  private errorItem(
    entry: FrontierEntry,
    finalUrl: string,
    kind: FetchErrorKind,
    message: string,
    status: number | null,
    res?: HopResponse,
  ): Item {
    const item = this.baseItem(entry, finalUrl, status, res?.contentType ?? null);
    item.error = { kind, message };
    if (res && res.body.length > 0) {
      const body = decodedOrRaw(res, this.opts.maxBytes);
      item.bytes = body.length;
      item.sha256 = createHash('sha256').update(body).digest('hex');
    }
    return item;
  }

  private baseItem(
    entry: FrontierEntry,
    finalUrl: string,
    status: number | null,
    contentType: string | null,
  ): Item {
    return {
      url: entry.url,
      finalUrl,
      status,
      contentType,
      fetchedAt: new Date().toISOString(),
      depth: entry.depth,
      source: this.deps.source.name,
      worker: this.deps.workerId,
      bytes: 0,
      sha256: null,
    };
  }

  /**
   * A final response: decoded, hashed and (2xx) parsed by the page processor, then content dedup
   * here; an error item for 4xx/5xx. A redirect's empty body is not hashed.
   */
  private async final(
    entry: FrontierEntry,
    res: HopResponse,
    finalUrl: string,
    data: Record<string, unknown> | undefined,
    trail?: HopTrail,
  ): Promise<Outcome> {
    const item = this.baseItem(entry, finalUrl, res.status, res.contentType);
    if (data) item.data = { ...data };
    if (res.location !== null) return { kind: 'item', item };
    // The server is done with this request: its host's next request (politeness gap, host
    // concurrency) need not wait for decoding and parsing.
    this.frontier.done(entry, !SLOW_DOWN_STATUS.has(res.status));
    this.released.add(entry);
    this.wakeUp();
    const id = this.nextPageId++;
    const ok = res.status >= 200 && res.status < 300;
    let done: PageDone;
    try {
      done = await this.pages.work({
        id,
        url: entry.url,
        finalUrl,
        status: res.status,
        contentType: res.contentType,
        contentEncoding: res.encoded ? res.contentEncoding : null,
        headers: res.headers,
        depth: entry.depth,
        maxBytes: this.opts.maxBytes,
        extract: ok,
        body: res.body,
      });
    } catch (e) {
      // The page thread died (out of memory on some page): the response is lost with it; fetch
      // this URL again rather than record a failure that was not the server's. A page that was
      // only waiting in the thread's queue does not use up a try.
      if (e instanceof PageThreadLost && e.innocent && this.freeLostTry(entry.url)) {
        return { kind: 'retry', delayMs: 0, free: true };
      }
      const message = `page thread failed: ${(e as Error).message}`;
      this.deps.log.warn({ url: entry.url, err: (e as Error).message }, 'page thread failed');
      return this.failure(entry, finalUrl, 'decode', message, res.status, true, null, res);
    }
    if (done.error) {
      return this.failure(entry, finalUrl, done.error.kind, done.error.message, res.status, false, null);
    }
    item.bytes = done.bytes;
    this.stats.bytes += done.bytes;
    item.sha256 = done.sha256;
    const flag = done.flag;
    if (flag) item.data = { ...item.data, contentEncoding: flag };
    if (res.status >= 400) item.error = { kind: 'http-status', message: `HTTP ${res.status}` };
    if (!ok) {
      this.pages.drop(id);
      return { kind: 'item', item };
    }
    const r = done.result;
    if (r?.sketch !== undefined) this.nearDuplicates.observe(entry.url, r.sketch);
    if (r?.refresh !== undefined && trail !== undefined)
      return this.refreshHop(entry, trail, res, id, r.refresh);
    const key = done.bytes > 0 ? contentKeyFromHex(done.sha256) : null;
    const original = key === null ? null : this.contentIndex.find(key);
    if (original !== null) {
      // Same body already stored: under another URL (duplicate) or this one (a seed fetched
      // again in a later round, unchanged). Not stored, no links; an original known only by its
      // line gets its URL read back in finish().
      this.pages.drop(id);
      if (original.url !== undefined) {
        this.markDuplicate(item, original.url, this.round);
      } else {
        this.contentTickets.set(item, { kind: 'duplicate', ordinal: original.ordinal, round: this.round });
      }
      return { kind: 'item', item };
    }
    if (key !== null) {
      this.contentIndex.claim(key, entry.url);
      this.contentTickets.set(item, { kind: 'original', key });
    }
    // Still encoded (unknown or nested Content-Encoding): stored as received, flagged, not parsed.
    if (flag === 'unknown-encoding') return { kind: 'item', item, bodyId: id };
    if (done.sourceError !== undefined) {
      item.error = { kind: 'decode', message: `source ${this.deps.source.name} failed: ${done.sourceError}` };
    } else if (r) {
      if (r.title !== undefined) item.title = r.title;
      if (r.data) item.data = { ...item.data, ...r.data };
    }
    if (done.bytes === 0) this.pages.drop(id);
    return { kind: 'item', item, bodyId: done.bytes > 0 ? id : undefined, links: r?.links };
  }

  /**
   * A page that redirects by declarative refresh: its body is dropped and the refresh target is
   * taken as the next hop of the trail, checked like a 3xx. The hop itself is made at the entry's
   * next turn in its host's queue (the host's slot was already given back, so the request waits
   * for its politeness gap like any other).
   */
  private async refreshHop(
    entry: FrontierEntry,
    trail: HopTrail,
    res: HopResponse,
    bodyId: number,
    refresh: string,
  ): Promise<Outcome> {
    this.pages.drop(bodyId);
    const next = await this.redirectHop(entry, trail, res, this.sessionIds.strip(refresh));
    if (typeof next !== 'string') return next;
    this.refreshTrails.set(entry.url, trail);
    // The item if the crawl ends (page budget) before the hop is made.
    const note = 'refresh redirect not followed: the crawl ended first';
    this.lastFailure.set(entry.url, this.redirectItem(entry, res, next, { redirectTo: next, note }));
    return { kind: 'hop' };
  }

  /** Queue a foreign link for its owner; batches go out at the end of the turn or every 500 links. */
  private handOff(owner: number, url: string, depth: number): void {
    if (!this.seen.add(url)) return;
    this.journal.handedOff(owner, url, depth);
    let box = this.outbox.get(owner);
    if (box === undefined) {
      box = [];
      this.outbox.set(owner, box);
    }
    box.push([url, depth]);
    if (box.length >= 500) this.flushOutbox();
    else if (!this.outboxScheduled) {
      // Sent at the end of this event-loop turn: batches form naturally, and the owner is not
      // kept waiting (a fixed 50 ms delay per hop slowed multi-process crawls).
      this.outboxScheduled = true;
      setImmediate(() => this.flushOutbox());
    }
  }

  private flushOutbox(): void {
    this.outboxScheduled = false;
    const part = this.deps.partition;
    if (!part) return;
    for (const [owner, links] of this.outbox) if (links.length > 0) part.handoff(owner, links);
    this.outbox.clear();
  }

  /** Send links through depth, session-id removal and scope into the frontier. */
  private follow(links: string[], depth: number): void {
    if (this.opts.maxDepth !== undefined && depth > this.opts.maxDepth) {
      this.stats.skipped.depth += links.length;
      return;
    }
    for (const found of links) {
      const link = this.sessionIds.strip(found);
      const verdict = this.scope.check(link);
      if (verdict !== 'ok') {
        const n = ++this.stats.skipped[verdict];
        if (n <= TRAP_LOG_LIMIT && verdict.startsWith('trap-')) {
          this.deps.log.info({ url: link, reason: verdict }, 'trap link skipped');
        }
        continue;
      }
      const part = this.deps.partition;
      if (part !== undefined) {
        const owner = ownerOf(link, part.count, part.by);
        if (owner !== part.index) {
          this.handOff(owner, link, depth);
          continue;
        }
      }
      this.enqueue(link, depth);
    }
  }

  /**
   * Record a duplicate body: `data.unchanged` when the original is this URL, else
   * `data.duplicateOf` (null with `data.duplicateSha256` when the original's line was not found).
   */
  private markDuplicate(item: Item, original: string | null, round: number): void {
    item.data = {
      ...item.data,
      ...(original === null
        ? { duplicateOf: null, duplicateSha256: item.sha256 }
        : original === item.url
          ? { unchanged: true }
          : { duplicateOf: original }),
    };
    if (round > 0) item.data.round = round;
  }

  /**
   * Store the body (off the fetch path), then write the item: the acknowledgement. A duplicate
   * whose original is known only by its line first reads the original's URL back.
   * @returns that read-back when there is one (the caller awaits it), else undefined.
   */
  private finish(entry: FrontierEntry, item: Item, bodyId: number | undefined): Promise<void> | undefined {
    const ticket = this.contentTickets.get(item);
    if (ticket?.kind === 'duplicate') {
      this.contentTickets.delete(item);
      const w = this.contentIndex
        .resolveUrl(ticket.ordinal, item.sha256 ?? undefined)
        .catch(() => null)
        .then((original) => {
          if (original === null) {
            this.deps.log.warn(
              { url: item.url, line: ticket.ordinal },
              'original of duplicate body not found',
            );
          }
          this.markDuplicate(item, original, ticket.round);
          this.writeItem(item);
          this.writes.delete(w);
        });
      this.writes.add(w);
      return w;
    }
    if (bodyId === undefined) {
      this.writeItem(item);
      return;
    }
    if (!this.opts.storeBodies) {
      this.pages.drop(bodyId);
      this.writeItem(item);
      return;
    }
    const size = item.bytes;
    let refetch = false;
    this.pendingBytes += size;
    const w = this.pages
      .store(bodyId, item.finalUrl)
      .then(
        (file) => {
          item.file = file;
        },
        (e: Error) => {
          // No file: a later copy of this body must be stored, not pointed here.
          const ticket = this.contentTickets.get(item);
          if (ticket?.kind === 'original') {
            this.contentTickets.delete(item);
            this.contentIndex.release(ticket.key);
          }
          if (e instanceof PageThreadLost && !this.stopping && this.freeLostTry(entry.url)) {
            // The body went with a dead page thread: fetch the URL again (no item yet; this one
            // is written if the crawl ends before the new try, like any failure awaiting a retry).
            item.data = { ...item.data, storeError: e.message };
            this.lastFailure.set(entry.url, item);
            this.stats.retries++;
            this.frontier.retry(entry, 0, true, false);
            refetch = true;
            return;
          }
          this.deps.log.error({ url: item.url, err: e.message }, 'storing body failed');
          item.data = { ...item.data, storeError: e.message };
        },
      )
      .then(() => {
        this.pendingBytes -= size;
        if (!refetch) this.writeItem(item);
        this.writes.delete(w);
        this.wakeUp();
      });
    this.writes.add(w);
  }

  private writeItem(item: Item): void {
    // Kept until now: a URL fetched again after its body was lost follows its own redirects again.
    this.ownHops.delete(item.url);
    this.lostTries.delete(item.url);
    this.stats.items++;
    this.stats.itemsThisRun++;
    if (countsAsError(item)) this.stats.errors++;
    const json = JSON.stringify(item);
    this.journal.item(json);
    // Lines are counted in the order they are journaled: the content index maps line → offset.
    const ordinal = this.contentIndex.appendLine(Buffer.byteLength(json) + 1, item.url);
    const ticket = this.contentTickets.get(item);
    if (ticket?.kind === 'original') {
      this.contentTickets.delete(item);
      this.contentIndex.commit(ticket.key, ordinal);
    }
    this.deps.onItem?.(item);
  }
}

/** Whether an item line counts in the error totals: a failed URL, or a body that was not stored. */
function countsAsError(item: { error?: unknown; data?: Record<string, unknown> }): boolean {
  return Boolean(item.error) || item.data?.storeError !== undefined;
}

/** A hop's body without its Content-Encoding, or as received when that fails (error items only). */
function decodedOrRaw(res: HopResponse, maxBytes: number): Buffer {
  if (!res.encoded) return res.body;
  try {
    return decodeContent(res.body, res.contentEncoding, maxBytes, res.contentType).body;
  } catch {
    return res.body;
  }
}
