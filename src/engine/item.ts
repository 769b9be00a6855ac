/**
 * The item line (DESIGN §4): what became of one URL attempted, written exactly once to
 * `items/<worker-id>.jsonl`, which is the crawl's acknowledgement log. Built here field by field.
 */
import { createHash } from 'node:crypto';
import type { FrontierEntry } from '../frontier/frontier-queue.js';
import { decodeContent } from '../http/decompress.js';
import type { FetchErrorKind } from '../http/fetch-error.js';
import type { HopResponse } from '../http/fetcher.js';
import type { WarcLocation } from '../sinks/warc-writer.js';

/** One item line. Optional fields are absent (not null) when they do not apply. */
export interface Item {
  /** Canonical requested URL (WHATWG URL, see `url/canonicalize`). */
  url: string;
  /** URL of the last hop, after redirects (`url` when there were none). */
  finalUrl: string;
  /** HTTP status of the last hop; null when no response came (network, timeout, robots.txt). */
  status: number | null;
  /** Content-Type header of the last hop, or null. */
  contentType: string | null;
  /** When the item was made, ISO 8601 in UTC. */
  fetchedAt: string;
  /** Link distance from a seed (seeds are 0). */
  depth: number;
  /** Name of the source that read the response, e.g. `crawl`. */
  source: string;
  /** Id of the worker that fetched it, e.g. `crawl-0`. */
  worker: string;
  /** Length of the body after Content-Encoding removal (the stored file's bytes); 0 without one. */
  bytes: number;
  /** Hex SHA-256 of those bytes; null without a body. */
  sha256: string | null;
  /** The request's label (a source's routing of its requests); absent without one. */
  label?: string;
  /** The request's userData (any JSON value a source attached); absent without one. */
  userData?: unknown;
  /** Title of an HTML page (null when it has none); absent for other content. */
  title?: string | null;
  /** The stored body, relative to `<out>` (`files/<host>/<path>`); absent when not stored. */
  file?: string;
  /** Why the URL failed, after its retries; absent on success. */
  error?: ItemError;
  /**
   * With `--warc`: where this URL's WARC records are (`file` relative to `<out>`, `offset` and
   * `length` in bytes: whole gzip members, every fetch of the URL, `docs/warc.md`); absent when
   * it made no fetch.
   */
  warc?: WarcLocation;
  /**
   * Extra fields: the source's own (e.g. `encoding`; `simhash`, 16 hex digits, is the SimHash of
   * the page's main text, `extract/simhash.ts`), and the collector's: `duplicateOf` (URL of
   * the item that stored the same body; null with `duplicateSha256` when its line could not be
   * read back), `nearDuplicateOf` (URL of an earlier item whose `simhash` is within 3 bits of
   * this one's: nearly the same main text, `engine/near-duplicate-marks.ts`), `unchanged` (a 304, or the same body as the last fetch of this URL), `round` and
   * `version` (continuous collection: the round, and which body of the page this is), `redirectTo`,
   * `redirectSeen` and `note` (a redirect recorded, not followed), `contentEncoding`
   * (`unknown-encoding`: stored as received; `not-encoded`: the label was wrong), `storeError`
   * (the body was fetched but could not be written).
   */
  data?: Record<string, unknown>;
}

/** An item's `error`. */
export interface ItemError {
  /**
   * `timeout`, `too-large`, `redirect-loop`, `robots-disallowed`, `http-status` (a 4xx/5xx
   * status), `network`, `dns` (the name did not resolve), `decode` (a corrupt body),
   * `out-of-scope` (a redirect leaving the scope), `source` (the source threw on the page, or
   * returned something wrong, or its `authorize()` failed).
   */
  kind: FetchErrorKind;
  /** One line for a person, e.g. `HTTP 404` or `redirect loop: a -> b -> a`. */
  message: string;
}

/** Who makes the items of a worker: written to each item's `source` and `worker`. */
export interface ItemOrigin {
  source: string;
  worker: string;
}

/** A new item for `entry`: no body, no error yet; the request's label and userData when it has them. */
export function newItem(
  origin: ItemOrigin,
  entry: Pick<FrontierEntry, 'url' | 'depth' | 'meta'>,
  finalUrl: string,
  status: number | null,
  contentType: string | null,
): Item {
  const item: Item = {
    url: entry.url,
    finalUrl,
    status,
    contentType,
    fetchedAt: new Date().toISOString(),
    depth: entry.depth,
    source: origin.source,
    worker: origin.worker,
    bytes: 0,
    sha256: null,
  };
  const meta = entry.meta;
  if (meta !== undefined) {
    if (meta.label !== undefined) item.label = meta.label;
    if (meta.userData !== undefined) item.userData = meta.userData;
  }
  return item;
}

/**
 * The item of a failed URL. When the failing response had a body (a 5xx page), its size and
 * SHA-256 are recorded (decoded when its Content-Encoding can be removed within `maxBytes`).
 */
export function errorItem(
  origin: ItemOrigin,
  entry: Pick<FrontierEntry, 'url' | 'depth' | 'meta'>,
  finalUrl: string,
  error: ItemError,
  status: number | null,
  res: HopResponse | undefined,
  maxBytes: number,
): Item {
  const item = newItem(origin, entry, finalUrl, status, res?.contentType ?? null);
  item.error = error;
  if (res && res.body.length > 0) {
    const body = decodedOrRaw(res, maxBytes);
    item.bytes = body.length;
    item.sha256 = createHash('sha256').update(body).digest('hex');
  }
  return item;
}

/**
 * Record a duplicate body: `data.unchanged` when the original is this URL (a seed fetched again),
 * else `data.duplicateOf` (null with `data.duplicateSha256` when the original's line was not
 * found); `data.round` in a later round.
 */
export function markDuplicate(item: Item, original: string | null, round: number): void {
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
 * Whether an item line counts in the error totals: a failed URL, or a body that was not stored.
 * Takes a parsed line too (items read back at resume).
 */
export function countsAsError(item: { error?: unknown; data?: Record<string, unknown> }): boolean {
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
