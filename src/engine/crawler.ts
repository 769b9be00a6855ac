/**
 * The crawl engine of one process: it takes URLs from the frontier when their host allows, tries
 * each ({@link Attempts}), follows the links of its pages ({@link LinkFollower}), and acknowledges
 * each URL with exactly one item line ({@link ItemStore}); a failed write (a full disk) stops it.
 * This file only orchestrates; every
 * policy is a module of its own, wired in `assembly.ts`. Reads top to bottom: start → run (the
 * dispatch loop) → process (a try, then a retry, or links followed and the item stored) → wind
 * down.
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import type { SeenSet } from '../dedup/seen-set.js';
import type { FrontierEntry, FrontierQueue } from '../frontier/frontier-queue.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import { type EngineRequest, metaOf, urlOf } from '../sources/request.js';
import { Admission } from './admission.js';
import {
  buildNetworkParts,
  type CrawlerDeps,
  type NetworkParts,
  type OpenedState,
  openStateParts,
  type StateParts,
} from './assembly.js';
import type { Attempts, Outcome } from './attempt.js';
import { type CrawlStats, newCrawlStats } from './crawl-stats.js';
import { type HandoffLink, ownerOf } from './handoff-outbox.js';
import { letsSlowDownDecay } from './host-policy.js';
import { errorItem } from './item.js';
import type { ItemStore } from './item-store.js';
import type { LinkFollower } from './link-follower.js';
import { LATER_ROUND_STEP, RoundQueue } from './round-queue.js';

export type { CrawlerDeps, EngineBackend, EngineSource } from './assembly.js';
export type { Partition } from './handoff-outbox.js';

/** Longest sleep of the dispatch loop, ms (it also wakes on every event it waits for). */
const IDLE_TICK_MS = 1000;

/** Sleep between checks while waiting for in-flight requests at stop, ms. */
const WIND_DOWN_TICK_MS = 50;

/** URLs of labelled requests already looked for in the frontier (see `label`), kept at most. */
const LABELS_LOOKED_FOR_KEPT = 4096;

/** One crawl worker. Create, `start()`, then `run()`; `stop()` ends it gracefully. */
export class Crawler {
  readonly stats: CrawlStats = newCrawlStats();
  readonly frontier: FrontierQueue;
  private readonly seen: SeenSet;
  private readonly admission: Admission;
  private readonly roundQueue: RoundQueue;
  /** Metadata of the queued URLs that have some, until their item is written (plain URLs: none). */
  private readonly requests = new Map<string, RequestMeta>();
  /** URLs `label` looked for already: none is looked for twice (bounded: cleared when full). */
  private readonly labelsLookedFor = new Set<string>();
  private readonly net: NetworkParts;
  /** Opened by start(). */
  private state!: StateParts;
  /** The state lock, journal and spill as soon as they are taken (released even when start() failed). */
  private readonly opened: OpenedState = {};
  // Shortcuts to the parts used on every URL.
  private store!: ItemStore;
  private attempts!: Attempts;
  private follower!: LinkFollower;
  private stopping = false;
  private paused = false;
  private endRequested = false;
  /** The re-read of stored pages for the links a damaged frontier log lost, while it runs (lost-links.ts). */
  private relinking: Promise<void> | null = null;
  private idleReported = false;
  /** The first failed write of state or of a body (a full disk...): the crawl stopped on it. */
  private writeFailure: Error | null = null;
  private sourceStop: string | null = null;
  /** Entries being processed, from their try to their retry or item (bodies being stored aside). */
  private active = 0;
  /** URLs taken for a first try this session: with the resumed items, the --max-pages budget. */
  private dispatched = 0;
  /** Requests abandoned at stop (second signal, join timeout): pending, fetched on `--resume`. */
  private abandoned = 0;
  /** Entries already counted against --max-pages (a free retry keeps attempt 0). */
  private readonly counted = new WeakSet<FrontierEntry>();
  private wake: (() => void) | null = null;

  constructor(
    private readonly opts: CrawlOptions,
    private readonly deps: CrawlerDeps,
  ) {
    this.frontier = deps.backend.frontier;
    this.seen = deps.backend.seen;
    this.net = buildNetworkParts(opts, deps, this.stats, () => this.state.journal);
    this.admission = new Admission(this.seen, this.net.revisits, undefined, !deps.backend.openRounds);
    this.roundQueue = new RoundQueue({
      net: this.net,
      admission: this.admission,
      owns: (url) => this.owns(url),
      push: (url, depth, meta, later) => this.push(url, depth, meta, later),
    });
    deps.backend.attach?.(() => this.wakeUp());
  }

  /**
   * Make the first round's requests (the source's `seeds()`, or the configured seeds), open the
   * state — on resume restore the frontier (enqueued minus done), the seen-set and the counters —
   * then queue the requests this worker owns (already-seen ones are not queued again). Session
   * ids are removed from the requests' URLs here, as from every link.
   * @throws on I/O errors.
   */
  async start(): Promise<void> {
    const requests = await this.roundQueue.make();
    for (const r of requests) if (metaOf(r)?.scope !== false) this.net.scope.addSeed(urlOf(r));
    const hooks = {
      wake: () => this.wakeUp(),
      isStopping: () => this.stopping,
      enqueue: (url: string, depth: number, meta: RequestMeta | undefined, from?: number) =>
        this.enqueue(url, depth, meta, from),
      roundRequests: () => this.roundQueue.make(),
      queueRound: (r: EngineRequest[], round: number) => this.roundQueue.queue(r, round),
      written: (url: string) => {
        if (this.requests.size > 0) this.requests.delete(url);
        this.admission.acknowledged(url);
      },
      remember: (url: string, meta: RequestMeta) => this.requests.set(url, meta),
      metaOf: (url: string) => this.requests.get(url),
      writeFailed: (e: Error) => this.writeFailed(e),
      sourceStopped: (message: string) => this.sourceStopped(message),
    };
    const priorityOf = (url: string) => this.requests.get(url)?.priority ?? 0;
    const { opts, deps, net, stats, admission, opened } = this;
    this.state = await openStateParts(opts, deps, net, stats, admission, hooks, opened, priorityOf);
    ({ store: this.store, attempts: this.attempts, follower: this.follower } = this.state);
    for (const r of requests) {
      if (this.owns(urlOf(r)) && this.admission.admitSeed(urlOf(r), metaOf(r)))
        this.push(urlOf(r), 0, metaOf(r));
    }
  }

  /** Links handed to this worker by their discoverer (already scope-checked there). */
  receive(links: HandoffLink[]): void {
    for (const [url, depth, meta] of links) this.enqueue(url, depth, meta);
    this.wakeUp();
  }

  /** Send again to worker `owner` every URL ever handed to it. @returns how many. */
  async resendHandoffs(owner: number): Promise<number> {
    const handoff = this.state.handoff;
    return handoff === null ? 0 : handoff.outbox.resend(owner);
  }

  /** Pause or resume taking new URLs (the memory guard); in-flight requests go on. */
  setPaused(paused: boolean): void {
    this.paused = paused;
    this.wakeUp();
  }

  /** Entries being processed (requests in flight, pages being read). */
  get busy(): number {
    return this.active;
  }

  /** `--render`: pages rendered this session and the browser's PID while one runs; null with `never`. */
  get rendering(): { rendered: number; browserPid: number | null } | null {
    const r = this.net.rendering;
    return r === null ? null : { rendered: r.rendered, browserPid: r.browserPid };
  }

  /** URLs left for `--resume`: queued (held here), and abandoned in flight at stop. */
  get pending(): number {
    return (this.frontier.heldHere ?? this.frontier.queued) + this.abandoned;
  }

  /** In a multi-process crawl: end `run()` once idle (the supervisor saw every worker idle). */
  endWhenIdle(): void {
    this.endRequested = true;
    this.wakeUp();
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
    this.net.abort.abort();
    this.net.fetcher.abortAll();
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Why the source stopped this worker (`HandleResult.stop`: a credential refused), as its item
   * says it, or null. The caller reports it and ends with SOURCE_STOPPED_EXIT_CODE.
   */
  get stoppedBySource(): string | null {
    return this.sourceStop;
  }

  /** The write failure that stopped this crawl (a full disk...), or null. The caller reports it. */
  get writeError(): Error | null {
    return this.writeFailure;
  }

  /**
   * Crawl until the frontier is empty, `maxPages` is reached, or `stop()`; with sibling workers,
   * until the supervisor says all are idle ({@link endWhenIdle}).
   * @returns true when the crawl completed (nothing left), false when it was stopped early.
   */
  async run(): Promise<boolean> {
    const { spill, handoff, rounds, linkRecovery } = this.state;
    rounds.begin();
    // The frontier log lost lines: the stored pages are read again for them while the crawl goes on.
    if (linkRecovery !== null) {
      this.relinking = linkRecovery.run().then(() => {
        this.relinking = null;
        this.wakeUp();
      });
    }
    while (!this.stopping) {
      this.dispatch();
      spill.refill();
      // A round starts on time, whatever the frontier still holds (a host in back-off).
      if (handoff !== null && rounds.startIfDue()) continue;
      this.flushWhenQuiet();
      const idle = this.isIdle();
      if (handoff === null) {
        if (idle) break;
      } else {
        this.reportIdle(idle);
        if (idle) rounds.idle();
        if (idle && this.endRequested) break;
      }
      await this.sleep(Math.min(this.frontier.nextReadyIn(), IDLE_TICK_MS, rounds.dueIn()));
    }
    handoff?.outbox.flush();
    const completed = !this.stopping;
    await this.windDown();
    return completed;
  }

  /**
   * Close the journal, spill, page threads and connections, then release the state dir.
   * @throws the journal's last write error (everything is closed all the same).
   */
  async close(): Promise<void> {
    try {
      await this.opened.politeness?.close();
      await this.opened.journal?.close();
    } finally {
      // After the journal: the last file's CDXJ index is sorted.
      this.opened.warc?.close();
      // After the journal: its last items are acknowledged before a shared backend lets go.
      await this.deps.backend.close?.();
      await this.opened.spill?.close();
      await this.net.revisits?.close();
      await this.net.pages.close();
      await this.net.rendering?.close();
      await this.net.fetcher.close();
      await this.opened.stateLock?.release();
    }
  }

  /** Take URLs while fetch slots, body memory, the page budget and the memory guard allow. */
  private dispatch(): void {
    const { concurrency, maxPendingBytes } = this.opts;
    const requests = this.requests;
    while (this.active < concurrency && this.store.pendingBytes < maxPendingBytes && !this.paused) {
      if (!this.budgetLeft()) break;
      const entry = this.frontier.next();
      if (entry === null) break;
      if (requests.size > 0 && entry.meta === undefined) {
        const meta = requests.get(entry.url);
        if (meta !== undefined) entry.meta = meta;
      }
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
  }

  /** One entry: a try, then a retry, or its links followed and its body and item stored. */
  private async process(entry: FrontierEntry): Promise<void> {
    const { slots, awaitingRetry } = this.net;
    let outcome: Outcome | null;
    try {
      outcome = await this.attempts.run(entry);
    } catch (e) {
      outcome = this.net.abort.signal.aborted ? null : this.unexpected(entry, e);
    }
    if (outcome === null) {
      // Abandoned at stop: no item; the URL stays pending for --resume.
      this.abandoned++;
      slots.release(entry, false);
      return;
    }
    if (outcome.kind === 'hop') {
      // A refresh redirect: the next hop waits for its host's turn like any request.
      slots.retry(entry, 0, false);
      return;
    }
    if (outcome.kind === 'retry') {
      this.stats.retries++;
      const error = outcome.error;
      if (error?.kind === 'http-status') this.net.warnings.answered(entry.host);
      else if (error) {
        const { kind, message } = error;
        this.net.warnings.retrying(entry.host, entry.url, kind, message, entry.attempt + 1, outcome.delayMs);
      }
      slots.retry(entry, outcome.delayMs, !outcome.free, outcome.reason);
      return;
    }
    if (outcome.item.status !== null) this.net.warnings.answered(entry.host);
    awaitingRetry.delete(entry.url);
    slots.release(entry, letsSlowDownDecay(outcome.item.status));
    const { item, bodyId, links, extension, markdown } = outcome;
    if (links) {
      this.follower.follow(links, entry.depth + 1, this.admission.roundOf(entry.url));
      this.net.warc?.links(entry.url, links);
    }
    await this.store.storeAndWrite(entry, item, bodyId, extension, markdown);
  }

  /** A bug on the way: logged, and the URL's item says so (`network`), so the crawl goes on. */
  private unexpected(entry: FrontierEntry, e: unknown): Outcome {
    this.deps.log.error({ url: entry.url, err: e }, 'unexpected error');
    const error = { kind: 'network' as const, message: String(e) };
    const item = errorItem(this.net.origin, entry, entry.url, error, null, undefined, this.opts.maxBytes);
    return { kind: 'item', item };
  }

  /**
   * A write of state or of a body failed: stop taking URLs. Pages not yet acknowledged are
   * fetched again by `--resume`; the caller reports {@link writeError}.
   */
  /** The source said this worker type cannot go on: said once, and no more URLs are taken. */
  private sourceStopped(message: string): void {
    if (this.sourceStop === null) {
      this.sourceStop = message;
      this.deps.log.error({ reason: message }, 'the source stopped this worker');
    }
    this.stop();
  }

  private writeFailed(e: Error): void {
    if (this.writeFailure === null) {
      this.writeFailure = e;
      this.deps.log.error({ err: e.message }, 'a write failed: stopping');
    }
    this.stop();
  }

  /**
   * Add a canonical URL (found on a page of round `from`) to the frontier and its log, if new.
   * @returns whether it was new (and is queued now).
   */
  private enqueue(url: string, depth: number, meta: RequestMeta | undefined, from?: number): boolean {
    if (!this.admission.admit(url, meta, from)) {
      if (meta?.label !== undefined) this.label(url, meta);
      return false;
    }
    this.push(url, depth, meta);
    return true;
  }

  /**
   * A labelled request (a hub: robots.txt, a sitemap, a feed) for a URL already queued as a plain
   * link (a page linking a sitemap that robots.txt names too): the queued request takes the
   * label, so the URL is read as what it is, and the frontier log says so for a resume. Only a
   * request still waiting in this process's frontier, without metadata, changes; one fetched or
   * in flight already, spilled to disk, or in a shared frontier keeps what it was.
   */
  private label(url: string, meta: RequestMeta): void {
    // A URL not waiting as a plain request now will not be again in this round (a retry waits
    // apart): each is looked for once, so the same feed announced by every page costs one search,
    // not one a page (a later round's plain request of it keeps what it is).
    if (this.requests.has(url) || this.labelsLookedFor.has(url)) return;
    if (this.labelsLookedFor.size >= LABELS_LOOKED_FOR_KEPT) this.labelsLookedFor.clear();
    this.labelsLookedFor.add(url);
    const depth = this.frontier.plainDepthOf?.(url) ?? null;
    if (depth === null) return;
    this.requests.set(url, meta);
    this.state.journal.enqueued(url, depth, meta);
  }

  /**
   * Queue an admitted URL: its metadata kept, the frontier (or spill), the frontier log.
   * @param later a later round's request: it goes after its host's work already queued at the
   *   same priority (see {@link LATER_ROUND_STEP}).
   */
  private push(url: string, depth: number, meta: RequestMeta | undefined, later = false): void {
    if (meta !== undefined) this.requests.set(url, meta);
    // Fetched before, and changed since by its lastmod: asked for conditionally.
    if (meta?.lastmod !== undefined) this.net.revisits?.markConditional(url);
    const priority = later ? (meta?.priority ?? 0) - LATER_ROUND_STEP : meta?.priority;
    this.state.spill.push(url, depth, priority, meta);
    this.state.journal.enqueued(url, depth, meta);
  }

  /** Whether this worker owns `url` among its siblings (DESIGN §1 ownership). */
  private owns(url: string): boolean {
    const part = this.deps.partition;
    return part === undefined || ownerOf(url, part.count, part.by) === part.index;
  }

  private budgetLeft(): boolean {
    const max = this.opts.maxPages;
    return max === undefined || this.state.resumedItems + this.dispatched < max;
  }

  /** Nothing in flight or waiting for the disk, and nothing queued (or the page budget is spent). */
  private isIdle(): boolean {
    if (this.active > 0 || this.store.pendingBytes > 0 || this.state.rounds.busy) return false;
    if (this.relinking !== null) return false;
    const queued = this.frontier.queued > 0 || this.state.spill.holdsUrls;
    return !queued || (!this.budgetLeft() && this.frontier.inFlight === 0);
  }

  /**
   * A shared backend (Redis) acknowledges a URL when its item is written from the journal, and
   * the shared crawl is not over while a URL is leased anywhere: with nothing in flight here, the
   * items waiting in the journal are written now, not at the next save, so no one (this machine
   * at the end of the crawl included) waits for them.
   */
  private flushWhenQuiet(): void {
    const { journal } = this.state;
    if (this.active > 0 || this.deps.backend.itemsAck === undefined || journal.pendingItems === 0) return;
    void journal.flush().catch(() => {});
  }

  /**
   * With sibling workers, idleness is reported and only the supervisor decides that all are done.
   * An idle worker sends its outbox and makes its items visible now, not at the next save.
   */
  private reportIdle(idle: boolean): void {
    const { handoff, journal } = this.state;
    if (handoff === null) return;
    if (idle) {
      handoff.outbox.flush();
      if (journal.pendingItems > 0) void journal.flush().catch(() => {});
    }
    if (idle !== this.idleReported) {
      this.idleReported = idle;
      handoff.partition.onIdle(idle);
    }
  }

  /**
   * After the loop: wait for in-flight work (up to `joinTimeout`, then abandon it), write the
   * items of URLs that were waiting for a retry when the page budget ran out, and wait for every
   * body store and item line.
   */
  private async windDown(): Promise<void> {
    const { abort, fetcher, awaitingRetry } = this.net;
    // Stopping: the re-read of stored pages saves where it is after its current page.
    if (this.relinking !== null) await this.relinking;
    if (this.active > 0) {
      const deadline = Date.now() + this.opts.joinTimeout;
      while (this.active > 0 && Date.now() < deadline && !abort.signal.aborted) {
        await this.sleep(WIND_DOWN_TICK_MS);
      }
      if (this.active > 0) {
        abort.abort();
        fetcher.abortAll();
      }
      while (this.active > 0) await new Promise((r) => setTimeout(r, 10));
    }
    if (!this.stopping) {
      for (const item of awaitingRetry.values()) this.store.write(item);
      awaitingRetry.clear();
    }
    await this.store.whenWritten();
  }

  /** Sleep up to `ms`, or until {@link wakeUp}. */
  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = null;
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
