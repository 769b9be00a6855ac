/**
 * One try of one URL, turned into its outcome: an item (with the decoded body kept for storing
 * and the links to follow) or a retry. The hop loop fetches; a failure becomes an error item or a
 * retry by the host policy; a final response is decoded, hashed and (2xx) parsed by the page
 * processor, then checked against the content index. A page that redirects by refresh is a hop of
 * the same try, made at the entry's next turn in its host's queue.
 */
import type { Logger } from 'pino';
import { appShellRule } from '../extract/app-shell.js';
import type { FrontierEntry } from '../frontier/frontier-queue.js';
import { decodeContent } from '../http/decompress.js';
import { BrowserLost } from '../http/renderer.js';
import type { EngineRequest } from '../sources/request.js';
import type { Canonicals } from './canonicals.js';
import type { CrawlStats } from './crawl-stats.js';
import type { HopAnswer, HopFailure, HopLoop } from './hop-loop.js';
import { type HostPolicy, letsSlowDownDecay } from './host-policy.js';
import type { HostSlots } from './host-slots.js';
import { errorItem, type Item, type ItemError, type ItemOrigin, newItem } from './item.js';
import type { ItemStore } from './item-store.js';
import type { LostPageRetries } from './lost-page-retries.js';
import type { NearDuplicateWatch } from './near-duplicates.js';
import { type PageProcessor, PageThreadLost } from './page-processor.js';
import type { PageRendering } from './page-render.js';
import type { PageJob, WorkedPage } from './page-work.js';
import type { Revisits } from './revisits.js';

/** What became of one try. */
export type Outcome =
  /**
   * `bodyId`: the decoded body the page processor keeps for this item (stored or dropped next),
   * with the file `extension` the source chose; `links`: the requests to follow.
   */
  | {
      kind: 'item';
      item: Item;
      bodyId?: number;
      extension?: string;
      links?: EngineRequest[];
      /** The source gave Markdown of the page, kept beside the body (stored as `.md` with it). */
      markdown?: boolean;
    }
  /**
   * `free`: the try does not count against `--retries` (the failure was ours, not the server's);
   * `error`: what failed (absent for a free retry); `reason`: why its host waits (status).
   */
  | { kind: 'retry'; delayMs: number; free?: boolean; error?: ItemError; reason?: string }
  /**
   * A refresh redirect to follow: the entry goes back to its host's queue (politeness) without
   * using a try, and its next try continues the hop trail (`HopLoop.refresh`).
   */
  | { kind: 'hop' };

/** What tries work with. */
export interface AttemptParts {
  hops: HopLoop;
  policy: HostPolicy;
  pages: PageProcessor;
  store: ItemStore;
  slots: HostSlots;
  lost: LostPageRetries;
  /** The calendar-trap feedback: sketches of parsed pages, by URL shape. */
  nearDuplicates: NearDuplicateWatch;
  origin: ItemOrigin;
  stats: CrawlStats;
  log: Logger;
  /** `--max-bytes`: largest decoded body. */
  maxBytes: number;
  /** Items of URLs waiting for a retry, written as they are if the crawl ends first. */
  awaitingRetry: Map<string, Item>;
  /**
   * Told the validators of each answer and the links of each hub, asked for a hub's links on its
   * 304 and for what its dates deserve (continuous collection); null otherwise.
   */
  revisits: Pick<Revisits, 'noteResponse' | 'noteHubLinks' | 'linksOf' | 'readDates'> | null;
  isStopping(): boolean;
  /** Non-2xx statuses the source's `handle` reads too (`SourceDefinition.statuses`). */
  statuses: ReadonlySet<number>;
  /** Canonical-link merging (`canonicals.ts`): which pages were collected for which canonical URL. */
  canonicals?: Canonicals;
  /** Mark a URL seen (a claimed canonical URL: not fetched when a link leads to it). */
  markSeen?(url: string): void;
  /** The round that queued `url` when it is a round request of a later round (continuous collection), else 0. */
  round(url: string): number;
  /** A host slot was freed: the dispatch loop may take another URL. */
  wake(): void;
  /** The source said the worker type cannot go on (`stop`): the item's error message. */
  sourceStopped(message: string): void;
  /** `--render auto|always`: the render step; null with `never`. */
  rendering: PageRendering | null;
  /** Fires when in-flight work is abandoned (stop). */
  signal: AbortSignal;
}

/** The failure fields {@link Attempts.failure} needs. */
type Failure = Omit<HopFailure, 'kind'>;

/** Runs tries of URLs. One per worker. */
export class Attempts {
  private nextPageId = 1;

  /** An id for a page handed to the page processor that no other page of this worker has (> 0). */
  newPageId(): number {
    return this.nextPageId++;
  }

  constructor(private readonly parts: AttemptParts) {}

  /** One try of `entry`. @returns its outcome, or null when it was abandoned at stop. */
  async run(entry: FrontierEntry): Promise<Outcome | null> {
    const r = await this.parts.hops.run(entry);
    if (r === null) return null;
    // The rate budget's wait: back to the queue until then, without using a try.
    if (r.kind === 'wait') return { kind: 'retry', delayMs: Math.max(0, r.until - Date.now()), free: true };
    return r.kind === 'failure' ? this.failure(entry, r) : this.readAnswer(entry, r);
  }

  /**
   * Storing an item's body failed. When the body went with a dead page thread (and the URL has a
   * free try left, and the crawl is not stopping), the URL is fetched again: its item waits, and
   * is written as it is if the crawl ends before the new try.
   * @returns true when a new try was queued.
   */
  refetchLostBody(entry: FrontierEntry, item: Item, e: Error): boolean {
    const { lost, stats, slots, awaitingRetry } = this.parts;
    if (!(e instanceof PageThreadLost) || this.parts.isStopping() || !lost.take(entry.url)) return false;
    awaitingRetry.set(entry.url, item);
    stats.retries++;
    slots.refetch(entry);
    return true;
  }

  /** A failed try: retried while tries remain (and not stopping), else its error item. */
  failure(entry: FrontierEntry, f: Failure): Outcome {
    const { origin, policy, maxBytes } = this.parts;
    const item = errorItem(
      origin,
      entry,
      f.url,
      { kind: f.error, message: f.message },
      f.status,
      f.res,
      maxBytes,
    );
    // A response refused for its size still says what it was.
    if (f.res === undefined && f.contentType) item.contentType = f.contentType;
    const delayMs = this.parts.isStopping()
      ? null
      : policy.retryDelay(entry.attempt, f.retryable, f.retryAfterMs);
    if (delayMs === null) return { kind: 'item', item };
    this.parts.awaitingRetry.set(entry.url, item);
    return { kind: 'retry', delayMs, error: item.error, reason: retryReason(f) };
  }

  /**
   * The last hop's response as an item: a redirect recorded as it is; otherwise its host slot is
   * freed at once, and the body decoded, hashed and (2xx) parsed by the page processor, then
   * looked up in the content index. A 4xx/5xx gets an `http-status` error.
   */
  private async readAnswer(entry: FrontierEntry, answer: HopAnswer): Promise<Outcome> {
    const { res, finalUrl } = answer;
    const { pages, store, origin, log } = this.parts;
    const item = newItem(origin, entry, finalUrl, res.status, res.contentType);
    if (answer.data) item.data = { ...answer.data };
    if (res.location !== null) return { kind: 'item', item };
    this.parts.revisits?.noteResponse(item, res.headers);
    const ok = res.status >= 200 && res.status < 300;
    // The server is done with this request: its host's next request (politeness gap, host
    // concurrency) need not wait for decoding and parsing. A page going to the browser keeps its
    // slot until it is rendered: its own requests to the host share the host's connection budget.
    if (!ok || this.parts.rendering?.route(entry.host, res.contentType) !== 'direct') {
      this.parts.slots.releaseEarly(entry, letsSlowDownDecay(res.status));
      this.parts.wake();
    }
    const id = this.newPageId();
    const handled = ok || this.parts.statuses.has(res.status);
    let page: WorkedPage;
    // The body the fetch loop already inflated (block-page check) goes as is: not inflated twice.
    const decoded =
      answer.decoded !== undefined && answer.decoded.length <= this.parts.maxBytes ? answer.decoded : null;
    try {
      const job: PageJob = {
        id,
        url: entry.url,
        finalUrl,
        status: res.status,
        contentType: res.contentType,
        contentEncoding: decoded === null && res.encoded ? res.contentEncoding : null,
        headers: res.headers,
        depth: entry.depth,
        label: entry.meta?.label,
        userData: entry.meta?.userData,
        maxBytes: this.parts.maxBytes,
        extract: handled,
        body: decoded ?? res.body,
      };
      const worked = await this.workOrRender(entry, item, job);
      if ('kind' in worked) return worked;
      page = worked;
    } catch (e) {
      // The page thread died (out of memory on some page): the response is lost with it; fetch
      // this URL again rather than record a failure that was not the server's. A page that was
      // only waiting in the thread's queue does not use up a try.
      if (e instanceof PageThreadLost && e.innocent && this.parts.lost.take(entry.url)) {
        return { kind: 'retry', delayMs: 0, free: true };
      }
      const message = `page thread failed: ${(e as Error).message}`;
      log.warn({ url: entry.url, err: (e as Error).message }, 'page thread failed');
      return this.failure(entry, {
        url: finalUrl,
        error: 'decode',
        message,
        status: res.status,
        retryable: true,
        retryAfterMs: null,
        res,
      });
    }
    if (page.error) {
      const { kind, message } = page.error;
      return this.failure(entry, {
        url: finalUrl,
        error: kind,
        message,
        status: res.status,
        retryable: false,
        retryAfterMs: null,
        contentType: res.contentType,
      });
    }
    item.bytes = page.bytes;
    this.parts.stats.bytes += page.bytes;
    item.sha256 = page.sha256;
    const flag = page.flag;
    if (flag) item.data = { ...item.data, contentEncoding: flag };
    if (res.status >= 400) item.error = { kind: 'http-status', message: `HTTP ${res.status}` };
    const revisits = this.parts.revisits;
    if (!ok) {
      pages.drop(id);
      if (handled) return this.handledError(item, page);
      // A hub not modified leads where it led last time (its every-round requests), as an unchanged body does.
      return { kind: 'item', item, links: res.status === 304 ? revisits?.linksOf(entry.url) : undefined };
    }
    const r = page.result;
    if (revisits !== null) {
      // A hub whose dates are not believed leads to its pages without them.
      if (r?.follow !== undefined) r.follow = revisits.readDates(entry.url, r.follow);
      const hub = entry.depth === 0 || entry.meta?.everyRound === true;
      if (hub) revisits.noteHubLinks(item, hubs(r?.follow) ?? []);
    }
    if (r?.sketch !== undefined) this.parts.nearDuplicates.observe(entry.url, r.sketch);
    if (r?.refresh !== undefined) return this.refreshHop(entry, answer, id, r.refresh);
    const round = this.parts.round(entry.url);
    if (round > 0) item.data = { ...item.data, round };
    // Another URL of an article already collected (its canonical link says so): not collected again.
    if (page.sourceError === undefined && this.parts.canonicals !== undefined) {
      const claim = this.parts.canonicals.claim(entry.url, r?.data?.canonical);
      if (claim.canonical !== null) this.parts.markSeen?.(claim.canonical);
      if (claim.collectedAs !== null) {
        pages.drop(id);
        if (r?.title !== undefined) item.title = r.title;
        item.data = { ...item.data, ...r?.data, duplicateOf: claim.collectedAs };
        return { kind: 'item', item, links: r?.follow };
      }
    }
    // A body seen before has had its links followed; its hubs (every-round requests: feeds,
    // sitemaps) are followed again, so that what changed below an unchanged hub is still found.
    if (store.isDuplicate(item, id, round)) return { kind: 'item', item, links: hubs(r?.follow) };
    // Still encoded (unknown or nested Content-Encoding): stored as received, flagged, not parsed.
    if (flag === 'unknown-encoding') return { kind: 'item', item, bodyId: id };
    if (page.sourceError !== undefined) {
      item.error = { kind: 'source', message: `source ${origin.source}: ${page.sourceError}` };
    } else if (r) {
      if (r.title !== undefined) item.title = r.title;
      if (r.data) item.data = { ...item.data, ...r.data };
      if (r.stop !== undefined) {
        this.stopSource(item, r.stop);
        pages.drop(id);
        return { kind: 'item', item };
      }
    }
    // No body, or the request or the source said not to store it (`store: false`): the item goes alone.
    if (page.bytes === 0 || entry.meta?.store === false || r?.store === false) {
      pages.drop(id);
      return { kind: 'item', item, links: r?.follow };
    }
    const markdown = page.markdown === true;
    return { kind: 'item', item, bodyId: id, extension: r?.extension, links: r?.follow, markdown };
  }

  /**
   * The page processor's work on a response, or (`--render`) on the DOM its page made in the
   * browser: a 2xx HTML page goes to the browser at once when its host's route is `direct`, or
   * after the page processor found it an app shell (`check`). Its item gets `data.rendered` and
   * how it came to be (`renderedBy`: the app-shell rule, `host` or `always`). A page whose browser
   * was lost is fetched again without using a try (at most `LOST_FREE_TRIES` times).
   * @throws as `PageProcessor.work`.
   */
  private async workOrRender(entry: FrontierEntry, item: Item, job: PageJob): Promise<WorkedPage | Outcome> {
    const rendering = this.parts.rendering;
    const route =
      rendering !== null && job.extract && job.status >= 200 && job.status < 300
        ? rendering.route(entry.host, job.contentType)
        : null;
    if (route === null) return this.parts.pages.work(job);
    if (route === 'direct')
      return this.render(entry, item, job, rendering?.mode === 'always' ? 'always' : 'host');
    // Kept before the page processor takes the body (a page thread receives it, detached here).
    const raw = Buffer.from(job.body);
    const page = await this.parts.pages.work({ ...job, appShellCheck: true });
    if (page.appShell === undefined) return page;
    rendering?.noted(entry.host, page.appShell !== 'none');
    if (page.appShell === 'none') return page;
    this.parts.pages.drop(job.id);
    return this.render(entry, item, { ...job, body: raw }, page.appShell);
  }

  /**
   * Render `job`'s page and work on its DOM; when the render fails for another reason than a lost
   * browser, the response as fetched is worked on instead, with `data.renderError`.
   */
  private async render(
    entry: FrontierEntry,
    item: Item,
    job: PageJob,
    by: string,
  ): Promise<WorkedPage | Outcome> {
    const { pages, log, signal } = this.parts;
    const rendering = this.parts.rendering as PageRendering;
    let body: Buffer;
    try {
      const raw = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
      body = decodeContent(raw, job.contentEncoding, job.maxBytes, job.contentType).body;
    } catch {
      // The page processor reports the decoding error.
      return pages.work(job);
    }
    // A host rendered directly: is it still an app? (back to HTTP first after a run of plain pages)
    if (by === 'host') rendering.noted(entry.host, appShellRule(body.toString('latin1')) !== null);
    const plain = { ...job, body, contentEncoding: null };
    try {
      const r = await rendering.render(entry.host, job.finalUrl, job.status, job.contentType, body);
      const data: Record<string, unknown> = { rendered: true, renderedBy: by };
      if (r.timedOut) data.renderTimedOut = true;
      if (r.scriptErrors.length > 0) {
        data.scriptErrors = r.scriptErrors.length;
        log.info({ url: entry.url, errors: r.scriptErrors }, 'rendered page: script errors');
      }
      item.data = { ...item.data, ...data };
      const html = Buffer.from(r.html, 'utf8');
      return pages.work({ ...plain, contentType: 'text/html; charset=utf-8', body: html });
    } catch (e) {
      if (signal.aborted) throw e;
      if (e instanceof BrowserLost && !this.parts.isStopping() && this.parts.lost.take(entry.url)) {
        log.warn({ url: entry.url, err: e.message }, 'browser lost: page fetched again');
        return { kind: 'retry', delayMs: 0, free: true };
      }
      const message = (e as Error).message.split('\n')[0];
      log.warn({ url: entry.url, err: message }, 'render failed: the page as fetched is kept');
      item.data = { ...item.data, renderError: message };
      return pages.work(plain);
    }
  }

  /**
   * A non-2xx page the source read (`statuses`): its data and links taken, its body never
   * stored; `missing` makes the error `not-found`.
   */
  private handledError(item: Item, page: WorkedPage): Outcome {
    const r = page.result;
    if (page.sourceError !== undefined) {
      item.error = { kind: 'source', message: `source ${this.parts.origin.source}: ${page.sourceError}` };
      return { kind: 'item', item };
    }
    if (r?.data) item.data = { ...item.data, ...r.data };
    if (r?.stop !== undefined) {
      this.stopSource(item, r.stop);
      return { kind: 'item', item };
    }
    if (r?.missing !== undefined) item.error = { kind: 'not-found', message: r.missing };
    return { kind: 'item', item, links: r?.follow };
  }

  /** The source said its worker type cannot go on: the item says why, the worker stops. */
  private stopSource(item: Item, reason: string): void {
    const message = `source ${this.parts.origin.source}: ${reason}`;
    item.error = { kind: 'source', message };
    this.parts.sourceStopped(message);
  }

  /**
   * A 2xx page that redirects by declarative refresh to `target`: its body is dropped (the page
   * yields no item of its own) and the target is checked as the next hop of the try. While the
   * hop waits, the item of the refresh itself waits in `awaitingRetry`, written if the crawl ends
   * first (page budget).
   */
  private async refreshHop(
    entry: FrontierEntry,
    answer: HopAnswer,
    bodyId: number,
    target: string,
  ): Promise<Outcome> {
    this.parts.pages.drop(bodyId);
    const next: HopAnswer | HopFailure | string = await this.parts.hops.refresh(entry, answer, target);
    if (typeof next === 'string') {
      const note = 'refresh redirect not followed: the crawl ended first';
      this.parts.awaitingRetry.set(
        entry.url,
        this.redirectItem(entry, answer, next, { redirectTo: next, note }),
      );
      return { kind: 'hop' };
    }
    if (next.kind === 'failure') return this.failure(entry, next);
    return { kind: 'item', item: this.redirectItem(entry, next, next.finalUrl, next.data) };
  }

  /** The item of a redirect that ends a try without a page of its own: the hop's status, no body. */
  private redirectItem(
    entry: FrontierEntry,
    answer: HopAnswer,
    finalUrl: string,
    data: Record<string, unknown> | undefined,
  ): Item {
    const item = newItem(this.parts.origin, entry, finalUrl, answer.res.status, answer.res.contentType);
    if (data) item.data = { ...data };
    return item;
  }
}

/** Why a host waits for a retry, as status shows it: `503 Retry-After 5s`, `timeout`, `robots.txt unavailable`. */
function retryReason(f: Failure): string {
  const what =
    f.error === 'robots-disallowed'
      ? 'robots.txt unavailable'
      : f.status !== null
        ? String(f.status)
        : f.error;
  return f.retryAfterMs === null ? what : `${what} Retry-After ${Math.round(f.retryAfterMs / 1000)}s`;
}

/** The every-round requests among `links`, or undefined when there are none. */
function hubs(links: EngineRequest[] | undefined): EngineRequest[] | undefined {
  const out = links?.filter((l) => typeof l !== 'string' && l.meta.everyRound === true);
  return out !== undefined && out.length > 0 ? out : undefined;
}
