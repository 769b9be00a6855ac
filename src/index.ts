/**
 * The package entry: the library API (DESIGN §2b). `crawl()`, `run()` and `items()` load their
 * modules on first use, so importing the package (e.g. for `defineSource` in a source module,
 * which the engine imports again in each worker and page thread) stays cheap.
 *
 * ```js
 * import { crawl, defineSource, items } from '<package>';
 * const summary = await crawl({ seeds: ['https://example.org/docs/'], out: './data' });
 * for await (const item of items('./data', { withContent: true })) console.log(item.url, item.text);
 * ```
 */
import type { ConfigInput } from './config/config-file.js';
import type { ExportedItem, ItemsOptions } from './export/items.js';
import type { CrawlSummary } from './runtime/crawl-summary.js';
import type { CrawlInput, RunOptions } from './runtime/library.js';

export type { ConfigInput } from './config/config-file.js';
export type { CrawlOptionsInput } from './config/crawl-options.js';
export { defineConfig } from './config/define-config.js';
export { UsageError } from './config/usage-error.js';
export type { Item, ItemError } from './engine/item.js';
export type { ExportedItem, ItemsOptions } from './export/items.js';
export { hammingDistance, simhash64 } from './extract/simhash.js';
export type { CrawlSummary } from './runtime/crawl-summary.js';
export { CollectorError } from './runtime/crawl-summary.js';
export type { CrawlInput, RunOptions } from './runtime/library.js';
export { crawlSource } from './sources/crawl.js';
export { githubSearchSource } from './sources/github-search.js';
export { githubTrendingSource } from './sources/github-trending.js';
export type {
  AuthorizeHeaders,
  FileChoice,
  HandleResult,
  OptionsSchema,
  Page,
  RateBudgetKey,
  Request,
  RequestSpec,
  SourceContext,
  SourceDefinition,
  SourceLog,
  WorkerInfo,
} from './sources/source.js';
export { defineSource } from './sources/source.js';

/**
 * Crawl to the end (or until `input.signal` aborts), in this process or under a supervisor with
 * `processes` worker processes; resolves with the summary (items, errors, bytes, seconds, ...).
 * Options are the command line's, camelCase, with the same defaults; nothing is printed unless
 * `quiet: false`.
 * @throws UsageError for bad options, seeds, source or output directory (nothing touched);
 *   CollectorError (with its `summary`) when the crawl failed at run time.
 */
export async function crawl(input: CrawlInput): Promise<CrawlSummary> {
  const lib = await import('./runtime/library.js');
  return lib.crawl(input);
}

/**
 * Run a config (an object as `defineConfig` takes it, or a config file's path) until every
 * one-shot worker type is done or `options.signal` aborts; resolves with the summary.
 * @throws UsageError for a bad config; CollectorError when a worker type was parked.
 */
export async function run(config: ConfigInput | string, options?: RunOptions): Promise<CrawlSummary> {
  const lib = await import('./runtime/library.js');
  return lib.run(config, options);
}

/**
 * The items of a data directory, as `collector export` reads them (docs/export.md): in fetch order
 * (each worker's items file in its own order, interleaved by `fetchedAt`), each page once — its
 * newest version — unless `allVersions`, filtered by `source`, `since` and `okOnly`, with the
 * content as `text` when `withContent`. Whole lines only: safe while a collector writes to the
 * directory (lines written after the first `next()` are not read). Damaged lines are skipped and
 * told to `onWarning`. Memory stays flat: about 24 bytes per distinct URL for the version choice.
 *
 * ```js
 * for await (const item of items('./data', { withContent: true, okOnly: true })) {
 *   console.log(item.url, item.fetchedAt, item.text?.length);
 * }
 * ```
 * @param dataDir a collector's data directory (`--out` of a crawl, `data:` of a config).
 * @throws UsageError when `dataDir` is not a directory or `since` is not an ISO 8601 date or
 *   date-time or `round:N` (from the first `next()`); I/O errors reading the items files.
 */
export async function* items(dataDir: string, options?: ItemsOptions): AsyncGenerator<ExportedItem> {
  const lib = await import('./export/items.js');
  yield* lib.readItems(dataDir, options);
}
