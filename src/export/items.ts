/**
 * The library's `items()` (src/index.ts): what `collector export` reads, as an async iterator of
 * items — the same order, the same choice of versions and filters, the content as `text`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import type { Item } from '../engine/item.js';
import { parseSince } from './item-filter.js';
import { ItemReader } from './item-reader.js';

/** Options of {@link readItems}; each is a `collector export` flag, camelCase. */
export interface ItemsOptions {
  /**
   * Add `text` to each item: the Markdown of a page that has one, a text body (plain text, JSON,
   * XML…) decoded with its charset, else null (docs/export.md, "text"). Default false. Each file
   * is read synchronously (a few µs from the page cache).
   */
  withContent?: boolean;
  /** Every fetch of a page, not only its newest version. Default false. */
  allVersions?: boolean;
  /** Only items of this source (or these sources). */
  source?: string | string[];
  /**
   * Only items fetched since this time: a Date, an ISO 8601 date or date-time string (UTC
   * without a zone), or `round:N` (items of round N and later of continuous collection).
   */
  since?: string | Date;
  /** Only successful fetches (2xx, no error): each page's newest good version. Default false. */
  okOnly?: boolean;
  /**
   * Told of each damaged line skipped (`items/crawl-0.jsonl line 17: not JSON: skipped`) and each
   * content file that could not be read (its item's text is then null). Default: ignored.
   */
  onWarning?: (message: string) => void;
}

/** An item as {@link readItems} gives it: the item line's fields, and `text` with `withContent`. */
export type ExportedItem = Item & {
  /** The content as text, or null when the item has none (only with `withContent`). */
  text?: string | null;
};

/**
 * The items of a data directory in fetch order (each worker's items file in its own order,
 * interleaved by `fetchedAt`), each page once — its newest version — unless `allVersions`; whole
 * lines only, so it is safe while a collector writes to it (lines written after the call starts
 * are not read).
 * @param dataDir a collector's data directory (`--out` of a crawl, `data:` of a config).
 * @throws UsageError when `dataDir` is not a directory or `since` is not a date, date-time or
 *   `round:N` (thrown by the first `next()`); I/O errors reading the items files.
 */
export async function* readItems(dataDir: string, options: ItemsOptions = {}): AsyncGenerator<ExportedItem> {
  const dir = path.resolve(dataDir);
  const st = await fs.stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new UsageError(`items(): ${dataDir}: not a data directory`);
  const { withContent = false, allVersions = false, source, since, okOnly = false, onWarning } = options;
  const reader = new ItemReader(dir, {
    withContent,
    allVersions,
    sources: source === undefined ? undefined : Array.isArray(source) ? source : [source],
    since: since === undefined ? undefined : parseSince(since, 'items(): since'),
    okOnly,
    onWarning,
  });
  for await (const { item, text } of reader.records()) {
    yield withContent ? Object.assign(item, { text }) : item;
  }
}
