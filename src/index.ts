/**
 * The package entry: the library API (DESIGN §2b). `crawl()` and `run()` load the engine on first
 * use, so importing the package (e.g. for `defineSource` in a source module, which the engine
 * imports again in each worker and page thread) stays cheap.
 *
 * ```js
 * import { crawl, defineSource } from '<package>';
 * const summary = await crawl({ seeds: ['https://example.org/docs/'], out: './data' });
 * ```
 */
import type { ConfigInput } from './config/config-file.js';
import type { CrawlSummary } from './runtime/crawl-summary.js';
import type { CrawlInput, RunOptions } from './runtime/library.js';

export type { ConfigInput } from './config/config-file.js';
export type { CrawlOptionsInput } from './config/crawl-options.js';
export { defineConfig } from './config/define-config.js';
export { UsageError } from './config/usage-error.js';
export type { Item, ItemError } from './engine/item.js';
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
