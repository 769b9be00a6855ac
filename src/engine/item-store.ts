/**
 * The end of a URL's path: content dedup (a body already stored is pointed to, not stored again),
 * storing the body through the page processor's body writer, then the item line, which is the
 * acknowledgement. What the content index still owes an item between the two (its "ticket") is
 * kept here: an original commits its line once written; a duplicate whose original is known only
 * by its line reads that line's URL back first. A body that cannot be written because the disk is
 * full gets no item: its URL stays pending for `--resume`, and the crawl stops.
 */
import type { Logger } from 'pino';
import type { ContentDedup } from '../dedup/content-dedup.js';
import { type ContentKey, contentKeyFromHex } from '../dedup/content-index.js';
import type { FrontierEntry } from '../frontier/frontier-queue.js';
import type { Journal } from '../frontier/journal.js';
import { isDiskFull } from '../sinks/disk-full.js';
import { type CrawlStats, countCollected } from './crawl-stats.js';
import { countsAsError, type Item, markDuplicate } from './item.js';
import type { NearDuplicateMarks } from './near-duplicate-marks.js';

import type { PageProcessor } from './page-processor.js';
import { markdownId } from './page-work.js';
import type { WarcRecorder } from './warc-recorder.js';

/** Failed items logged per error kind (`item failed`); past this they are only counted. */
export const ERROR_LOG_LIMIT = 20;

/** Content-index work left for an item until its line is written. */
type ContentTicket =
  | { kind: 'original'; key: ContentKey }
  | { kind: 'duplicate'; ordinal: number; round: number };

/** What the store works with. */
export interface ItemStoreParts {
  contentIndex: ContentDedup;
  /** Near-duplicate marking (`data.nearDuplicateOf`); null when the crawl has it off. */
  nearDuplicateMarks: NearDuplicateMarks | null;
  pages: PageProcessor;
  journal: Journal;
  stats: CrawlStats;
  log: Logger;
  /** Bodies are stored (`--no-store` turns it off). */
  storeBodies: boolean;
  /** `--warc`: an item's records are appended just before its line. */
  warc?: WarcRecorder;
  /** Each item line written (queued in the journal). */
  onWritten(item: Item): void;
  /**
   * Storing `item`'s body failed because the page thread died: fetch the URL again instead?
   * @returns true when a new try was queued (the item is then not written now).
   */
  refetchLostBody(entry: FrontierEntry, item: Item, e: Error): boolean;
  /** Called just before each item line is written (revisits: its version and round). */
  beforeWrite?(item: Item): void;
  /**
   * A shared backend's fence (`EngineBackend.mayWrite`): true when the item of `url` may be
   * written at once, else the answer to wait for; false: its URL went to another machine, and
   * the item is dropped.
   */
  mayWrite?(url: string): true | Promise<boolean>;
  /** Bytes waiting for the disk went down. */
  wake(): void;
  /** A write failed for want of room (a full disk): the crawl stops on it. */
  writeFailed(e: Error): void;
}

/** Content dedup, body stores and item lines of one worker. */
export class ItemStore {
  private readonly tickets = new WeakMap<Item, ContentTicket>();
  private readonly writes = new Set<Promise<void>>();
  private pending = 0;

  constructor(private readonly parts: ItemStoreParts) {}

  /** Body bytes held in memory waiting for the disk. */
  get pendingBytes(): number {
    return this.pending;
  }

  /**
   * Look a 2xx body up in the content index. A body seen before is a duplicate: marked (or
   * ticketed, when its original must be read back) and its kept body dropped. A new one is
   * claimed for `item.url`.
   * @param bodyId the page processor's id of the decoded body.
   * @param round the round that fetched it (continuous collection).
   * @returns whether the body is a duplicate (not to be stored or parsed for links).
   */
  isDuplicate(item: Item, bodyId: number, round: number): boolean {
    const key = item.bytes > 0 && item.sha256 !== null ? contentKeyFromHex(item.sha256) : null;
    if (key === null) return false;
    const index = this.parts.contentIndex;
    const original = index.find(key);
    if (original === null) {
      index.claim(key, item.url);
      this.tickets.set(item, { kind: 'original', key });
      return false;
    }
    // Same body already stored: under another URL (duplicate) or this one (a seed fetched again
    // in a later round, unchanged). An original known only by its line gets its URL read back
    // before the item is written.
    this.parts.pages.drop(bodyId);
    if (original.url !== undefined) markDuplicate(item, original.url, round);
    else this.tickets.set(item, { kind: 'duplicate', ordinal: original.ordinal, round });
    return true;
  }

  /**
   * Store the body kept under `bodyId` (off the fetch path; with the file `extension` the source
   * chose), and the page's Markdown next to it when the source gave some (`data.markdown`), then
   * write the item. A duplicate whose original is known only by its line first
   * reads the original's URL back.
   * @returns that read-back when there is one (the caller awaits it), else undefined.
   */
  storeAndWrite(
    entry: FrontierEntry,
    item: Item,
    bodyId: number | undefined,
    extension?: string,
    markdown = false,
  ): Promise<void> | undefined {
    const ticket = this.tickets.get(item);
    if (ticket?.kind === 'duplicate') {
      this.tickets.delete(item);
      return this.track(
        this.parts.contentIndex
          .resolveUrl(ticket.ordinal, item.sha256 ?? undefined)
          .catch(() => null)
          .then((original) => {
            if (original === null) {
              this.parts.log.warn(
                { url: item.url, line: ticket.ordinal },
                'original of duplicate body not found',
              );
            }
            markDuplicate(item, original, ticket.round);
            this.write(item);
          }),
      );
    }
    if (bodyId === undefined) {
      this.write(item);
      return;
    }
    if (!this.parts.storeBodies) {
      this.parts.pages.drop(bodyId);
      this.write(item);
      return;
    }
    const size = item.bytes;
    let refetch = false;
    let unwritten = false;
    this.pending += size;
    void this.track(
      this.parts.pages
        .store(bodyId, item.finalUrl, extension)
        .then(
          async (file) => {
            item.file = file;
            if (markdown) item.data = { ...item.data, markdown: await this.storeMarkdown(bodyId, item) };
          },
          (e: Error) => {
            // No file: a later copy of this body must be stored, not pointed here.
            this.releaseClaim(item);
            if (isDiskFull(e)) {
              // No item: the URL stays pending, and --resume fetches and stores it once there is room.
              unwritten = true;
              this.parts.writeFailed(e);
              return;
            }
            item.data = { ...item.data, storeError: e.message };
            if (this.parts.refetchLostBody(entry, item, e)) {
              refetch = true;
              return;
            }
            this.parts.log.error({ url: item.url, err: e.message }, 'storing body failed');
          },
        )
        .then(() => {
          this.pending -= size;
          if (!refetch && !unwritten) this.write(item);
          this.parts.wake();
        }),
    );
  }

  /**
   * Write the item line (the acknowledgement): its WARC records first (`--warc`), then the
   * near-duplicate mark, counters, journal, content index. Lines are marked in the order they
   * are journaled, the order resume replays them in. When the records cannot be written (a full
   * disk), the item is not either: its URL stays pending, and the crawl stops.
   */
  write(item: Item): void {
    const may = this.parts.mayWrite?.(item.url) ?? true;
    if (may === true) {
      this.writeNow(item);
      return;
    }
    void this.track(
      may.then((ok) => {
        if (ok) this.writeNow(item);
        else this.releaseClaim(item);
        this.parts.wake();
      }),
    );
  }

  /** {@link write}, once the item may be written. */
  private writeNow(item: Item): void {
    const { stats, journal, contentIndex, warc } = this.parts;
    if (warc !== undefined) {
      try {
        const location = warc.write(item.url);
        if (location !== undefined) item.warc = location;
      } catch (e) {
        this.parts.writeFailed(e as Error);
        return;
      }
    }
    this.parts.beforeWrite?.(item);
    this.parts.nearDuplicateMarks?.mark(item);
    stats.items++;
    stats.itemsThisRun++;
    if (countsAsError(item)) {
      stats.errors++;
      const kind = item.error?.kind ?? 'store';
      const n = (stats.errorsByKind[kind] ?? 0) + 1;
      stats.errorsByKind[kind] = n;
      if (n <= ERROR_LOG_LIMIT) {
        const { url, status, error } = item;
        this.parts.log.info(
          { url, status, kind, message: error?.message ?? item.data?.storeError },
          'item failed',
        );
      }
    }
    countCollected(stats, item);
    const json = JSON.stringify(item);
    journal.item(json);
    // Lines are counted in the order they are journaled: the content index maps line → offset.
    const ordinal = contentIndex.appendLine(Buffer.byteLength(json) + 1, item.url);
    const ticket = this.tickets.get(item);
    if (ticket?.kind === 'original') {
      this.tickets.delete(item);
      contentIndex.commit(ticket.key, ordinal);
    }
    this.parts.onWritten(item);
  }

  /** Resolves once every store and read-back started so far has written its item. */
  async whenWritten(): Promise<void> {
    await Promise.all(this.writes);
  }

  /** The Markdown kept beside body `bodyId`, stored as `.md`: its path, or null when that failed. */
  private async storeMarkdown(bodyId: number, item: Item): Promise<string | null> {
    try {
      return await this.parts.pages.store(markdownId(bodyId), item.finalUrl, 'md');
    } catch (e) {
      this.parts.log.warn({ url: item.url, err: (e as Error).message }, 'storing Markdown failed');
      return null;
    }
  }

  private releaseClaim(item: Item): void {
    const ticket = this.tickets.get(item);
    if (ticket?.kind === 'original') {
      this.tickets.delete(item);
      this.parts.contentIndex.release(ticket.key);
    }
  }

  private track(w: Promise<void>): Promise<void> {
    const tracked = w.then(() => {
      this.writes.delete(tracked);
    });
    this.writes.add(tracked);
    return tracked;
  }
}
