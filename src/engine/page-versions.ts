/**
 * Which jobs store their pages as versions. A worker with rounds (`interval`) fetches pages again
 * (its seeds, `everyRound` requests), and a page that changed must not replace the bytes an
 * earlier item names: with versions each different body of a URL is stored once under its own
 * immutable name, `files/<host>/_versions/<16 hex of SHA-1(url)>/<16 hex of SHA-256(body)>`, which
 * is the item's `file`, and the page's own path is a hard link to its current version
 * (`FileSink`'s `versions`). Every version is kept: an item never names a file that was removed
 * or replaced, and a page's versions cost only what differs (an unchanged body is not stored
 * again: content dedup). A one-shot crawl, `--resume` included, acknowledges each URL once (a
 * URL is fetched again only while it has no item), so its bodies stay at the page's path.
 */
import type { VersionOptions } from '../sinks/file-sink.js';

/** Versions as every job that fetches pages again keeps them: all of them. */
export const KEEP_ALL_VERSIONS: VersionOptions = Object.freeze({ keep: true });

/**
 * @param opts the worker's options: `interval` (ms) makes rounds.
 * @returns the versions a worker's body store keeps, or undefined for one body per page.
 */
export function pageVersions(opts: { interval?: number }): VersionOptions | undefined {
  return opts.interval === undefined ? undefined : KEEP_ALL_VERSIONS;
}
