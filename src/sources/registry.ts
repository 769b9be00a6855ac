/**
 * The built-in sources by name: what a config's `source:` or `--source` may name without a path.
 * Test sources are not here: they are modules under `test/fixtures/sources/`, loaded by path like
 * any user source.
 */
import { crawlSource } from './crawl.js';
import { feedSource } from './feed-source.js';
import { sitemapSource } from './sitemap-source.js';
import type { SourceDefinition } from './source.js';
import { urlsSource } from './urls-source.js';

const BUILTINS: Readonly<Record<string, SourceDefinition>> = {
  crawl: crawlSource,
  sitemap: sitemapSource,
  feed: feedSource,
  urls: urlsSource,
};

/** Names of the built-in sources. */
export function builtinNames(): string[] {
  return Object.keys(BUILTINS);
}

/** The built-in source named `name`, or undefined. */
export function builtinSource(name: string): SourceDefinition | undefined {
  return Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
}

/** Whether `def` is one of the built-ins (their results are trusted: links already canonical). */
export function isBuiltin(def: SourceDefinition): boolean {
  return Object.values(BUILTINS).includes(def);
}
