/**
 * Builds one worker's engine from its options: which module does what, wired in one place, so the
 * crawler only orchestrates. The network side is built with the crawler; the parts that read and
 * write state on disk (journal, spill, resume, item store, handoff outbox) are opened at start.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CrawlOptions } from '../config/crawl-options.js';
import type { ContentDedup } from '../dedup/content-dedup.js';
import { FRONTIER_LOG, Journal } from '../frontier/journal.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import { RevisitPolicy } from '../frontier/revisit-policy.js';
import { SpillQueue } from '../frontier/spill-queue.js';
import { BlockDetector } from '../http/block-page.js';
import { Fetcher } from '../http/fetcher.js';
import { RenderThread } from '../http/render-thread.js';
import { RobotsCache } from '../http/robots.js';
import type { HeldLock } from '../sinks/lock-file.js';
import { WarcWriter } from '../sinks/warc-writer.js';
import type { EngineRequest } from '../sources/request.js';
import { authorizeHeaders, type RunningSource, scopeUrls } from '../sources/source-runner.js';
import { canonicalize } from '../url/canonicalize.js';
import { Scope } from '../url/scope.js';
import { SessionIdStripper } from '../url/session-ids.js';
import type { Admission } from './admission.js';
import { Attempts } from './attempt.js';
import { Canonicals } from './canonicals.js';
import type { CrawlStats } from './crawl-stats.js';
import type { CrawlerDeps } from './crawler-deps.js';
import { openSource } from './engine-source.js';
import { HandoffOutbox, type Partition } from './handoff-outbox.js';
import { HopLoop } from './hop-loop.js';
import { HostPolicy, robotsRetryWait } from './host-policy.js';
import { HostSlots } from './host-slots.js';
import type { Item, ItemOrigin } from './item.js';
import { ItemStore } from './item-store.js';
import { LinkFollower } from './link-follower.js';
import { workerReplayFilter } from './log-replay.js';
import { LinkRecovery } from './lost-links.js';
import { LostPageRetries } from './lost-page-retries.js';
import { NearDuplicateMarks } from './near-duplicate-marks.js';
import { NearDuplicateWatch } from './near-duplicates.js';
import type { PageProcessor, PageThreadSource } from './page-processor.js';
import { openPageProcessor } from './page-processor-choice.js';
import { PageRendering } from './page-render.js';
import { pageVersions } from './page-versions.js';
import { PolitenessState } from './politeness-state.js';
import { hopBudget } from './rate-gate.js';
import { type Restored, restoreHandedOff, restoreState, settleAcknowledged } from './resume.js';
import { RetryWarnings } from './retry-warnings.js';
import { Revisits } from './revisits.js';
import { type RoundKeeper, type RoundParts, Rounds } from './rounds.js';
import { SpillRefill } from './spill-refill.js';
import { lockWorkerState } from './state-lock.js';
import { WarcRecorder, warcinfoFields } from './warc-recorder.js';

/** Smallest body limit for robots.txt (RFC 9309 §2.5: a parsing limit of at least 500 KiB). */
const ROBOTS_MIN_PARSE_BYTES = 512 * 1024;

export type { CrawlerDeps, EngineBackend } from './crawler-deps.js';

/** The parts that touch no state on disk, built with the crawler. */
export interface NetworkParts {
  /** The source with its context. */
  source: RunningSource;
  fetcher: Fetcher;
  scope: Scope;
  pages: PageProcessor;
  contentIndex: ContentDedup;
  slots: HostSlots;
  lost: LostPageRetries;
  policy: HostPolicy;
  /** The robots.txt cache; null with `--no-robots`. */
  robots: RobotsCache | null;
  hops: HopLoop;
  /** Session-id and tracking parameter removal from seeds, links and redirect targets (`--keep-param`). */
  sessionIds: SessionIdStripper;
  /** Calendar-trap feedback: near-duplicate pages of one date-like URL shape close it in the scope. */
  nearDuplicates: NearDuplicateWatch;
  /** Aborted when in-flight requests are abandoned. */
  abort: AbortController;
  /** The `source` and `worker` of this worker's items. */
  origin: ItemOrigin;
  /** Items of URLs waiting for a retry, written as they are if the crawl ends first. */
  awaitingRetry: Map<string, Item>;
  /** Warnings about hosts that do not answer. */
  warnings: RetryWarnings;
  /** What is known of the pages fetched, to fetch them again (continuous collection only). */
  revisits: Revisits | null;
  /** `--warc`: every fetch recorded with its item; null without it. */
  warc: WarcRecorder | null;
  /** `--render auto|always`: pages loaded in headless Chromium; null with `never`. */
  rendering: PageRendering | null;
}

/** A worker with siblings: who owns which URL, and the outbox of links owned by the others. */
export type Handoff = { partition: Partition; outbox: HandoffOutbox };

export type { EngineSource } from './engine-source.js';

/** The parts that read and write the worker's state, opened at start. */
export interface StateParts {
  journal: Journal;
  spill: SpillRefill;
  store: ItemStore;
  attempts: Attempts;
  follower: LinkFollower;
  rounds: RoundKeeper;
  handoff: Handoff | null;
  /** Items found in the items file at resume (they count against `--max-pages`). */
  resumedItems: number;
  /** The frontier log lost lines: the stored pages to read again for their links; else null. */
  linkRecovery: LinkRecovery | null;
}

/** What the assembled parts call back into the crawler. */
export interface CrawlerHooks {
  /** Something the dispatch loop waits for happened. */
  wake(): void;
  isStopping(): boolean;
  /**
   * Queue a URL this worker owns (found on a page of round `from`), when it is new.
   * @returns whether it was new, and queued.
   */
  enqueue(url: string, depth: number, meta: RequestMeta | undefined, from?: number): boolean;
  /** The requests of a new round (never rejects: a failing `seeds()` is logged, and gives none). */
  roundRequests(): Promise<EngineRequest[]>;
  /** Queue the requests of round `round` (those this worker owns), seen or not. */
  queueRound(requests: EngineRequest[], round: number): void;
  /** The item of `url` is written. */
  written(url: string): void;
  /** The metadata of a queued URL (undefined for a plain URL). */
  metaOf(url: string): RequestMeta | undefined;
  /** A pending URL restored from the state has this metadata (kept until its item is written). */
  remember(url: string, meta: RequestMeta): void;
  /**
   * A write of state or of a body failed (a full disk...): stop taking URLs. Pages not yet
   * acknowledged are fetched again by `--resume`.
   */
  writeFailed(e: Error): void;
  /** The source said the worker type cannot go on: stop taking URLs; the caller reports why. */
  sourceStopped(message: string): void;
}

/** What is already open while the state is being opened, closed even when opening fails later. */
export type OpenedState = Partial<Pick<StateParts, 'journal' | 'spill'>> & {
  /** The hosts' back-off, robots.txt verdicts and round saved across restarts. */
  politeness?: PolitenessState;
  /** This worker's lock on its state dir (state-lock.ts), held until the crawler closes. */
  stateLock?: HeldLock;
  /** `--warc`: the recorder whose writer is open (closed with the crawler: its index sorted). */
  warc?: WarcRecorder;
};

/** `<out>/items/<worker-id>.jsonl` */
export function itemsPathOf(opts: CrawlOptions, workerId: string): string {
  return path.join(opts.out, 'items', `${workerId}.jsonl`);
}

/** Build the network side of a worker. `journal` gives the journal once it is open. */
export function buildNetworkParts(
  opts: CrawlOptions,
  deps: CrawlerDeps,
  stats: CrawlStats,
  journal: () => Journal,
): NetworkParts {
  const { backend } = deps;
  const { source, writeLog } = openSource(deps, stats);
  const abort = new AbortController();
  const warc = opts.warc ? new WarcRecorder(opts.interval !== undefined) : null;
  const fetcher = new Fetcher({
    userAgent: opts.userAgent,
    timeoutMs: opts.timeout,
    maxBytes: opts.maxBytes,
    connections: opts.hostConcurrency,
    proxy: opts.proxy,
    cookies: opts.cookies,
    maxHeaderBytes: opts.maxHeaderBytes,
    record: opts.warc,
  });
  const scope = new Scope({
    mode: opts.scope,
    seeds: scopeUrls(source),
    include: opts.include.map((re) => new RegExp(re)),
    exclude: opts.exclude.map((re) => new RegExp(re)),
    maxUrlLength: opts.maxUrlLength,
    maxPathRepeat: opts.maxPathRepeat,
    maxQueryVariants: opts.maxQueryVariants,
    maxShapeVariants: opts.maxShapeVariants,
  });
  const sessionIds = new SessionIdStripper(opts.keepParams, opts.trackingParams);
  const robots = opts.robots
    ? new RobotsCache({
        userAgent: opts.userAgent,
        // an unavailable robots.txt is fetched again when the URLs it blocked are retried
        errorRetryMs: robotsRetryWait(opts.maxRetryAfter),
        fetch: async (url) => {
          // RFC 9309 §2.5: parse at least 500 KiB of a robots.txt, whatever --max-bytes says.
          const limit = Math.max(opts.maxBytes, ROBOTS_MIN_PARSE_BYTES);
          const r = await fetcher.fetchHop(url, abort.signal, true, limit);
          if (r.exchange !== undefined) warc?.robotsFetched(r.exchange);
          return { status: r.status, location: r.location, body: r.body.toString('utf8') };
        },
      })
    : null;
  const policy = new HostPolicy(backend.frontier, opts, deps.onRateLimitWait);
  const revisits = openRevisits(opts, deps, source);
  const def = source.def;
  const ref = deps.source.loaded.ref;
  const threadSource: PageThreadSource | null =
    ref !== null && def.threadSafe === true
      ? { ref, options: deps.source.rawOptions, seeds: deps.source.seeds, worker: source.ctx.worker }
      : null;
  const pageOptions = {
    outDir: opts.out,
    storeBodies: opts.storeBodies,
    thread: opts.pageThread,
    threads: opts.pageThreads,
    maxBytes: opts.maxBytes,
    versions: pageVersions(opts),
  };
  return {
    source,
    fetcher,
    scope,
    pages: openPageProcessor(source, threadSource, pageOptions, writeLog),
    contentIndex: backend.openContentIndex({
      itemsPath: itemsPathOf(opts, deps.workerId),
      flush: () => journal().flush(),
    }),
    slots: new HostSlots(backend.frontier),
    lost: new LostPageRetries(),
    policy,
    robots,
    hops: new HopLoop({
      fetcher,
      robots,
      scope,
      seen: backend.seen,
      policy,
      sessionIds,
      signal: abort.signal,
      authorize:
        def.authorize === undefined ? undefined : (url, label) => authorizeHeaders(source, url, label),
      conditional: revisits === null ? undefined : (url) => revisits.headersFor(url),
      onFetch: deps.onFetch,
      budget: hopBudget(source, deps.rateBudgets),
      onBudget: deps.onBudget,
      warc: warc ?? undefined,
      blocks: new BlockDetector(opts.blockPatterns),
    }),
    sessionIds,
    nearDuplicates: new NearDuplicateWatch(scope, (shape, url) =>
      deps.log.info({ shape, url }, 'url shape closed: near-duplicate pages'),
    ),
    abort,
    origin: { source: def.name, worker: deps.workerId },
    awaitingRetry: new Map(),
    warnings: new RetryWarnings(
      (line, fields) => {
        deps.log.warn(fields, line);
        deps.onWarning?.(line);
      },
      (line, fields) => deps.log.warn(fields, line),
      opts.retries,
    ),
    revisits,
    warc,
    rendering: openRendering(opts, deps, fetcher, abort.signal),
  };
}

/** The render step of a worker (`--render auto|always`); null with `never`. */
function openRendering(
  opts: CrawlOptions,
  deps: CrawlerDeps,
  fetcher: Fetcher,
  signal: AbortSignal,
): PageRendering | null {
  if (opts.render === 'never') return null;
  const renderer = new RenderThread({
    concurrency: opts.renderConcurrency,
    timeoutMs: opts.renderTimeout,
    userAgent: opts.userAgent,
    onBrowser: (event, fields) => {
      if (event === 'lost') deps.log.warn(fields, 'browser lost: killed, restarted on the next page');
      else deps.log.info(fields, `browser ${event}`);
    },
  });
  return new PageRendering({
    mode: opts.render,
    renderer,
    fetcher: opts.cookies ? fetcher : { cookiesFor: () => [] },
    frontier: deps.backend.frontier,
    delayMs: opts.delay,
    signal,
  });
}

/**
 * The revisits of a worker in continuous collection (`interval`); null for a one-shot crawl. A
 * hub whose dates stop being believed is a warning of its source (the log, the status counts).
 */
function openRevisits(opts: CrawlOptions, deps: CrawlerDeps, source: RunningSource): Revisits | null {
  if (opts.interval === undefined) return null;
  const rules = Object.entries(opts.revisitPatterns).map(([re, ms]) => ({
    pattern: new RegExp(re),
    intervalMs: ms,
  }));
  return new Revisits({
    policy: new RevisitPolicy({ intervalMs: opts.revisit ?? null, rules }),
    stateDir: path.join(opts.out, 'state', deps.workerId),
    log: deps.log,
    untrustedDates: (hub, d) =>
      source.ctx.log.warn(
        `${hub}: its dates are not believed any more (${d.lies} pages it dated as changed were not): ` +
          'its pages are fetched again by revisit alone',
        { url: hub, lies: d.lies, truths: d.truths },
      ),
  });
}

/**
 * The canonical-link claims of a worker (`canonicals.ts`): URLs in the crawl's form (session ids
 * and tracking parameters removed); with continuous collection, the pages collected before and
 * the claims read back from the revisit log (call after it is open).
 */
function openCanonicals(net: NetworkParts): Canonicals {
  const normalize = (u: string) => {
    const c = canonicalize(u);
    return c === null ? null : net.sessionIds.strip(c);
  };
  const revisits = net.revisits;
  const canonicals = new Canonicals(normalize, revisits === null ? undefined : (u) => revisits.collected(u));
  for (const [url, stated] of revisits?.canonicalClaims() ?? []) canonicals.restore(url, stated);
  return canonicals;
}

/**
 * Open a worker's state: its lock (waiting for a previous holder to exit), the spill file; on
 * resume the frontier (enqueued minus done), seen-set, counters, content index and near-duplicate
 * index rebuilt from validated lines; the journal; the links already handed to siblings; then the
 * parts that write items. Every write failure of the journal and spill goes to `hooks.writeFailed`.
 * @param admission which requests are new (the handoff outbox hands each once).
 * @param opened receives the lock, journal and spill as soon as they are taken or open, so that
 *   a start that fails later still releases and closes them.
 * @param priorityOf the priority of a queued URL (kept with its metadata).
 * @throws on I/O errors; Error naming the holder when another process keeps the state dir.
 */
export async function openStateParts(
  opts: CrawlOptions,
  deps: CrawlerDeps,
  net: NetworkParts,
  stats: CrawlStats,
  admission: Admission,
  hooks: CrawlerHooks,
  opened: OpenedState,
  priorityOf: (url: string) => number,
): Promise<StateParts> {
  const { backend, log, workerId } = deps;
  const stateDir = path.join(opts.out, 'state', workerId);
  const itemsPath = itemsPathOf(opts, workerId);
  await mkdir(stateDir, { recursive: true });
  // No other process reads or writes this state meanwhile (not an orphaned worker of a killed run).
  opened.stateLock = await lockWorkerState(stateDir);
  const spillFile = await SpillQueue.open(path.join(stateDir, 'spill.log'), hooks.writeFailed);
  const spill = new SpillRefill(
    backend.frontier,
    spillFile,
    opts.maxQueuedInMemory,
    log,
    hooks.wake,
    priorityOf,
  );
  opened.spill = spill;
  // Before the frontier is restored: the hosts' back-off and the round continue where they were.
  let made: RoundKeeper | null = null;
  const saved = await PolitenessState.open(stateDir, {
    frontier: backend.frontier,
    robots: net.robots,
    round: () => made?.mark ?? saved.round ?? { number: 0, startedAt: Date.now() },
    log,
  });
  opened.politeness = saved.state;
  const round = saved.round?.number ?? 0;
  const partition = deps.partition;
  const scope = (url: string) => net.scope.check(url);
  const replayed = { stateDir, outDir: opts.out, scope, seen: backend.seen, log };
  // Its index of originals lives in this process only, rebuilt from the items file at resume.
  const nearDuplicateMarks = opts.nearDuplicates ? new NearDuplicateMarks() : null;
  let resumedItems = 0;
  let restored: Restored | null = null;
  // Where the WARC records of the items end, per file: each file is cut back there.
  const warcEnds = net.warc !== null && opts.resume ? new Map<string, number>() : undefined;
  if (opts.resume) {
    // Items a shared crawl acknowledged before a crash, written first: then read back as any other.
    // (Resumed without the shared backend: a pending file holding lines is only said.)
    await settleAcknowledged({ ...replayed, itemsPath }, backend.itemsAck);
    restored = await restoreState({
      warcEnds,
      ...replayed,
      itemsPath,
      contentIndex: net.contentIndex,
      nearDuplicateMarks,
      stats,
      partition,
      queue: (url, depth, meta) => {
        if (meta !== undefined) hooks.remember(url, meta);
        // a round request (a seed, or every-round) still pending: the next round does not queue it twice
        if (depth === 0 || meta?.everyRound === true) admission.restoredPending(url, round);
        spill.push(url, depth, meta?.priority, meta);
      },
    });
    resumedItems = restored.items;
  }
  const revisits = net.revisits;
  const journal = await Journal.open({
    stateDir,
    itemsPath,
    saveEveryItems: opts.saveEveryItems,
    saveIntervalMs: opts.saveInterval,
    onError: hooks.writeFailed,
    ack: backend.itemsAck,
    // A page's revisit record goes to disk before its item (both are buffered, for different times).
    beforeItems: revisits === null ? undefined : () => revisits.flush(),
    lines: restored?.lines,
  });
  opened.journal = journal;
  if (net.warc !== null) {
    const { writer, repair } = WarcWriter.open(
      {
        outDir: opts.out,
        worker: workerId,
        maxSize: opts.warcMaxSize,
        info: warcinfoFields(opts, workerId),
      },
      warcEnds ?? null,
    );
    net.warc.attach(writer);
    opened.warc = net.warc;
    if (repair.cutBytes > 0 || repair.removedFiles.length > 0) {
      log.info(repair, 'WARC records without an item removed');
    }
    if (repair.shortFiles.length > 0) {
      log.warn({ files: repair.shortFiles }, 'WARC files shorter than their items say: records lost');
    }
  }
  await net.revisits?.open(opts.resume, hooks.writeFailed);
  let handoff: Handoff | null = null;
  if (partition) {
    // URLs already handed to their owners count as seen here.
    if (opts.resume) await restoreHandedOff(replayed, partition);
    // Lines sent again are checked too (damaged ones were reported by restoreHandedOff).
    const filter = () => workerReplayFilter(scope, partition);
    handoff = { partition, outbox: new HandoffOutbox(partition, admission, journal, stateDir, filter) };
  }
  const store: ItemStore = new ItemStore({
    contentIndex: net.contentIndex,
    nearDuplicateMarks,
    pages: net.pages,
    journal,
    stats,
    log,
    storeBodies: opts.storeBodies,
    warc: net.warc ?? undefined,
    onWritten: (item) => {
      // Kept until now: a URL fetched again after its body was lost follows its own redirects again.
      net.hops.forget(item.url);
      net.lost.forget(item.url);
      hooks.written(item.url);
      backend.itemWritten?.(item.url);
      deps.onItem?.(item);
    },
    refetchLostBody: (entry, item, e) => attempts.refetchLostBody(entry, item, e),
    mayWrite: backend.mayWrite?.bind(backend),
    beforeWrite:
      net.revisits === null
        ? undefined
        : (item) => net.revisits?.observe(item, hooks.metaOf(item.url), admission.roundOf(item.url)),
    wake: hooks.wake,
    writeFailed: hooks.writeFailed,
  });
  const roundParts: RoundParts = {
    intervalMs: opts.interval,
    load: hooks.roundRequests,
    queue: hooks.queueRound,
    log,
    wake: hooks.wake,
    started: () => saved.state.saveSoon(),
    stats,
  };
  const rounds = backend.openRounds?.(roundParts) ?? new Rounds(roundParts);
  if (saved.round !== null) rounds.continueFrom(saved.round);
  made = rounds;
  const attempts = new Attempts({
    hops: net.hops,
    policy: net.policy,
    pages: net.pages,
    store,
    slots: net.slots,
    lost: net.lost,
    nearDuplicates: net.nearDuplicates,
    origin: net.origin,
    stats,
    log,
    maxBytes: opts.maxBytes,
    awaitingRetry: net.awaitingRetry,
    revisits: net.revisits,
    isStopping: hooks.isStopping,
    statuses: new Set(net.source.def.statuses ?? []),
    canonicals: openCanonicals(net),
    markSeen: (url) => backend.seen.add(url),
    round: (url) => admission.roundOf(url),
    wake: hooks.wake,
    sourceStopped: hooks.sourceStopped,
    rendering: net.rendering,
    signal: net.abort.signal,
  });
  const follower = new LinkFollower({
    scope: net.scope,
    sessionIds: net.sessionIds,
    skipped: stats.skipped,
    log,
    maxDepth: opts.maxDepth,
    handoff,
    enqueue: hooks.enqueue,
  });
  const linkRecovery =
    restored?.relinkFrom == null
      ? null
      : recoverLinks(opts, deps, net, stats, handoff, hooks, attempts, admission, restored.relinkFrom);
  return { journal, spill, store, attempts, follower, rounds, handoff, resumedItems, linkRecovery };
}

/**
 * The re-read of the stored pages for the links a damaged frontier log lost (lost-links.ts), from
 * items line `fromLine`; it counts the URLs it makes this worker queue.
 */
function recoverLinks(
  opts: CrawlOptions,
  deps: CrawlerDeps,
  net: NetworkParts,
  stats: CrawlStats,
  handoff: Handoff | null,
  hooks: CrawlerHooks,
  attempts: Attempts,
  admission: Admission,
  fromLine: number,
): LinkRecovery {
  const stateDir = path.join(opts.out, 'state', deps.workerId);
  let queued = 0;
  const follower = new LinkFollower({
    scope: net.scope,
    sessionIds: net.sessionIds,
    skipped: stats.skipped,
    log: deps.log,
    maxDepth: opts.maxDepth,
    handoff,
    enqueue: (url, depth, meta, from) => {
      if (hooks.enqueue(url, depth, meta, from)) queued++;
    },
  });
  return new LinkRecovery({
    stateDir,
    itemsPath: itemsPathOf(opts, deps.workerId),
    outDir: opts.out,
    fromLine,
    pages: net.pages,
    pageId: () => attempts.newPageId(),
    follower,
    round: (url) => admission.roundOf(url),
    queued: () => queued,
    maxBytes: opts.maxBytes,
    log: deps.log,
    isStopping: hooks.isStopping,
    logName: path.join('state', deps.workerId, FRONTIER_LOG),
  });
}
