/**
 * Worker types by name: the sources a config may name in `workers[].source`.
 */
import { isMainThread } from 'node:worker_threads';
import { UsageError } from '../config/usage-error.js';
import { CrawlSource } from './crawl.js';
import { MemoryHogSource, ThreadCrashSource } from './memory-hog.js';
import type { Source } from './source.js';

const SOURCES: Record<string, () => Source> = {
  crawl: () => new CrawlSource(),
};
if (process.env.COLLECTOR_TEST_SOURCES === '1') {
  SOURCES['memory-hog'] = () => new MemoryHogSource();
  // A worker that dies 200 ms after it starts, every time: exercises restarts and parking.
  // Crawl, but the page thread dies on any URL ending in /crash.html: victims must be fetched again.
  SOURCES['thread-crash'] = () => new ThreadCrashSource();
  // Crawl, but a page thread that dies as it starts, every time: lost pages must not loop.
  SOURCES['thread-dead'] = () => {
    if (!isMainThread) process.exit(1);
    return new ThreadCrashSource('thread-dead');
  };
  SOURCES['crash-loop'] = () => {
    setTimeout(() => process.exit(3), 200).unref();
    return new CrawlSource();
  };
}

/** Names of the known sources. */
export function sourceNames(): string[] {
  return Object.keys(SOURCES);
}

/**
 * Check that a source named `name` exists, without creating one.
 * @throws UsageError naming the known sources when it does not.
 */
export function checkSourceName(name: string): void {
  if (SOURCES[name] === undefined) {
    throw new UsageError(`unknown source "${name}": expected one of ${sourceNames().join(', ')}`);
  }
}

/**
 * Create the source named `name`.
 * @throws UsageError naming the known sources when `name` is unknown.
 */
export function createSource(name: string): Source {
  const make = SOURCES[name];
  if (make === undefined) {
    throw new UsageError(`unknown source "${name}": expected one of ${sourceNames().join(', ')}`);
  }
  return make();
}
