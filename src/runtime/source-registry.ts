/**
 * Worker types by name: the sources a config may name in `workers[].source`.
 */
import { UsageError } from '../config/usage-error.js';
import { CrawlSource } from '../sources/crawl.js';
import { MemoryHogSource } from '../sources/memory-hog.js';
import type { Source } from '../sources/source.js';

const SOURCES: Record<string, () => Source> = {
  crawl: () => new CrawlSource(),
};
if (process.env.COLLECTOR_TEST_SOURCES === '1') SOURCES['memory-hog'] = () => new MemoryHogSource();

/** Names of the known sources. */
export function sourceNames(): string[] {
  return Object.keys(SOURCES);
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
